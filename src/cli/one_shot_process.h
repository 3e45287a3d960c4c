// How a command that reads the node once and exits (`gpuwatch status`) runs its process. Its read's threads
// (the read itself, the GPUs' relay, the host's read) hand work to one another and never run at once; they
// exist so that a driver call that never returns leaves the rest readable (collector/read_relay.h). What such
// threads cost is not their work but their setting up and tearing down, measured in docs/benchmarks.md
// ("One-shot commands: threads that run in turn"):
//   - each thread's first allocation makes a malloc arena of its own (a 64 MiB reservation, trimmed, faulted
//     in page by page, unmapped at exit);
//   - each hand-off to a thread on another CPU wakes that CPU (an inter-processor interrupt: on a virtual
//     machine, an exit to the hypervisor);
//   - at exit, each thread is stopped and joined, and each allocation freed one by one.
#pragma once

namespace gpuwatch {

// Before any thread starts: one malloc arena for the process, and its threads kept on the CPU it runs on
// now (within whatever CPUs it was allowed). Failing either, the command runs as before.
void settle_one_shot_process();

// Once the output is written: flushes stdout and stderr and ends the process with `exit_code` at once. The
// kernel takes back its threads, memory and descriptors (the NVML library's too, as it does when any NVML
// client exits) without waking the threads to stop them.
[[noreturn]] void end_one_shot_process(int exit_code);

}  // namespace gpuwatch
