// A scenario of a node packed with processes, for the dashboards' test and benchmark with 1,000 of them: the
// node and GPUs of scenarios/bench-8xh200.yaml (8 H200) with its processes replaced by `count`, spread evenly
// over the GPUs (125 a GPU at 1,000), each an inference worker in a pod of its own, with a little memory and SM
// share each so that many fit on an H200.
//   node tests/web/many_processes_scenario.mjs BASE_SCENARIO COUNT > FILE   (or import manyProcessesScenario)
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const hex = (n, width) => n.toString(16).padStart(width, "0");

export function manyProcessesScenario(baseText, count) {
  const head = baseText.slice(0, baseText.indexOf("\nprocesses:"));
  const lines = [head, "processes:"];
  for (let i = 0; i < count; ++i) {
    const gpu = i % 8;
    const n = Math.floor(i / 8);
    lines.push(
      `  - pid: ${100000 + i}`,
      "    user: mlops",
      `    gpu: ${gpu}`,
      "    name: vllm-worker",
      `    cmdline: [python3, -m, vllm.entrypoints.api_server, --worker=${n}]`,
      `    memory: {segments: [{at: 0s, value: ${512 + (n % 64) * 8}MiB}], noise: 16MiB}`,
      `    sm_util: {segments: [{at: 0s, value: ${(0.2 + (n % 5) * 0.1).toFixed(1)}}], noise: 0.1, max: 100}`,
      `    cgroup: /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${hex(gpu, 8)}_${hex(n, 4)}_4000_8000_${hex(i, 12)}.slice/cri-containerd-${hex(i, 64)}.scope`,
    );
  }
  return `${lines.join("\n")}\n`;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [base, count] = process.argv.slice(2);
  process.stdout.write(manyProcessesScenario(readFileSync(base, "utf8"), Number(count)));
}
