// fake_kubelet_serve SIM_LIBRARY SCENARIO SOCKET: the test's fake kubelet as a process of its own, for the
// tests that are scripts (tests/grafana): it serves the scenario's pods over the real PodResources protocol
// on SOCKET, prints "ready" once it listens, and runs until SIGTERM or SIGINT.
#include <signal.h>

#include <cstdio>
#include <exception>

#include "fake_kubelet.h"
#include "scenario_pods.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s SIM_LIBRARY SCENARIO SOCKET\n", argv[0]);
    return 2;
  }
  // Blocked before any thread starts, so that sigwait below is the only one to take them.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  try {
    gpuwatch::test::FakeKubelet kubelet(argv[3]);
    kubelet.set_allocations(gpuwatch::test::scenario_pods(argv[1], argv[2]));
    kubelet.start();
    std::printf("ready\n");
    std::fflush(stdout);
    int signal = 0;
    sigwait(&stop, &signal);
    kubelet.stop();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fake_kubelet_serve: %s\n", e.what());
    return 1;
  }
  return 0;
}
