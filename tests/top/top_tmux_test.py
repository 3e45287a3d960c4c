#!/usr/bin/env python3
"""`gpuwatch top` as a user sees it: run in a detached tmux session of a set size on the simulator, driven by
send-keys and read back with capture-pane.

Each test has its own tmux server (-L) and temporary folder. The simulated node is scenarios/incidents-8xh200
(GPU 5's NVML calls hang for 60 s from minute 4), its processes laid out as /proc by `gpuwatch sim proc-tree`.
Usage: top_tmux_test.py SOURCE_DIR BUILD_DIR
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from loopback_port import free_port  # noqa: E402

SOURCE, BUILD = sys.argv[1], sys.argv[2]
GPUWATCH = os.path.join(BUILD, "gpuwatch")
SIM = os.path.join(BUILD, "sim-lib", "libnvidia-ml.so.1")
INCIDENTS = os.path.join(SOURCE, "scenarios", "incidents-8xh200.yaml")
MIG = os.path.join(SOURCE, "scenarios", "mig-a100.yaml")
PODS = os.path.join(SOURCE, "tests", "grafana", "dashboards-4xh200.yaml")  # a Slurm job, two pods, a bare process
KUBELET = os.path.join(BUILD, "tests", "kubelet", "fake_kubelet_serve")
HANG_AT = 240  # GPU 5's calls hang from scenario second 240 to 300


class Tmux:
    """One tmux server of our own with one session running `command` under sh."""

    def __init__(self, folder, command, cols=120, rows=40):
        self.socket = os.path.join(folder, "tmux.sock")
        # The shell stays after top exits so that the screen it leaves (and stty's modes) can be read.
        script = f"echo BEFORE-TOP; {command}; echo EXIT=$?; stty -a; echo END-STTY; sleep 120"
        self.run("new-session", "-d", "-s", "top", "-x", str(cols), "-y", str(rows), script)

    def run(self, *args):
        return subprocess.run(["tmux", "-S", self.socket, "-f", "/dev/null", "-u", *args], check=True,
                              capture_output=True, text=True, env=dict(os.environ, LANG="C.UTF-8"))

    def screen(self):
        return self.run("capture-pane", "-p", "-t", "top").stdout

    def keys(self, *keys):
        self.run("send-keys", "-t", "top", *keys)

    def wait_for(self, predicate, what, limit=30):
        deadline = time.monotonic() + limit
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if predicate(screen):
                return screen
            time.sleep(0.2)
        raise AssertionError(f"{what} did not appear within {limit} s; the screen:\n{screen}")

    def wait_text(self, text, limit=30):
        return self.wait_for(lambda s: text in s, repr(text), limit)

    def close(self):
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True)


def sim_env(epoch):
    return (f"env LANG=C.UTF-8 GPUWATCH_SIM_EPOCH={epoch} GPUWATCH_SIM_TIME_SCALE=1 GPUWATCH_SIM_MODE=scaled ")


class TopTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp(prefix="gpuwatch-top-")
        self.tmux = None
        self.agent = None
        self.kubelet = None

    def tearDown(self):
        if self.tmux:
            self.tmux.close()
        if self.kubelet:
            self.kubelet.terminate()
            self.kubelet.wait(10)
        if self.agent:
            self.agent.send_signal(signal.SIGTERM)
            try:
                self.agent.wait(10)
            except subprocess.TimeoutExpired:
                self.agent.kill()
        shutil.rmtree(self.folder, ignore_errors=True)

    def proc_tree(self, scenario):
        root = os.path.join(self.folder, "proc")
        subprocess.run([GPUWATCH, "sim", "proc-tree", "--nvml-library", SIM, "--sim-scenario", scenario,
                        "--proc-root", root], check=True, capture_output=True)
        return root

    def start_local(self, scenario=INCIDENTS, scenario_second=30, cols=120, rows=40, extra=""):
        epoch = int(time.time()) - scenario_second
        root = self.proc_tree(scenario)
        command = (sim_env(epoch) + f"{GPUWATCH} top --nvml-library {SIM} --sim-scenario {scenario} "
                   f"--proc-root {root} --kmsg '' --interval 500ms {extra}")
        self.tmux = Tmux(self.folder, command, cols, rows)
        return self.tmux

    def top_pid(self):
        out = subprocess.run(["pgrep", "-f", f"gpuwatch top.*{self.folder}"], capture_output=True, text=True)
        pids = [int(p) for p in out.stdout.split()]
        # The sh -c of tmux matches too; top is its child.
        for pid in pids:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().strip() == "gpuwatch":
                    return pid
        raise AssertionError("no gpuwatch top process")

    def assert_restored(self, screen):
        # The alternate screen is gone (what the shell printed before top is back), top exited 0, and the
        # terminal echoes and reads lines again.
        self.assertIn("BEFORE-TOP", screen)
        self.assertIn("EXIT=0", screen)
        modes = screen[screen.index("EXIT=0"):]
        self.assertRegex(modes, r"(^|\s)icanon(\s|$)")
        self.assertRegex(modes, r"(^|\s)echo(\s|$)")

    def test_gpus_processes_and_help_line_on_the_simulator(self):
        t = self.start_local(cols=180)
        screen = t.wait_text("finetune.py")
        self.assertIn("gpu-node-023", screen)
        self.assertIn("driver 550.54.15", screen)
        for gpu in range(8):
            self.assertRegex(screen, rf"(?m)^{gpu}\s+NVIDIA H200\s+UTIL \[")
        self.assertIn("TEMP [", screen)
        self.assertIn("POW [", screen)
        # The process table: user, workload from the cgroup, command line.
        self.assertRegex(screen, r"GPU\s+PID\s+USER\s+GPU MEM▼\s+SM\s+TYPE\s+WORKLOAD\s+COMMAND")
        self.assertRegex(screen, r"mchen\s+.*job 48213\s+python3 finetune.py --shard=\d")
        self.assertIn("HISTORY", screen)
        self.assertRegex(screen.splitlines()[-1], r"q quit\s+s sort:GPU MEM\s+r reverse")

    def test_keys_sort_filter_help_and_quit_restore_the_terminal(self):
        t = self.start_local()
        t.wait_text("finetune.py")
        t.keys("p")
        screen = t.wait_text("PID▲")
        pids = [int(m) for m in re.findall(r"(?m)^\S+\s+(\d{4,})\s+\S+\s+\S+\s+\S+\s+compute", screen)]
        self.assertGreater(len(pids), 3, screen)
        self.assertEqual(pids, sorted(pids), screen)
        t.keys("r")
        screen = t.wait_text("PID▼")
        pids = [int(m) for m in re.findall(r"(?m)^\S+\s+(\d{4,})\s+\S+\s+\S+\s+\S+\s+compute", screen)]
        self.assertEqual(pids, sorted(pids, reverse=True), screen)
        t.keys("/", "shard=3")
        t.wait_text("filter: shard=3_")
        t.keys("Enter")
        screen = t.wait_text('1 matching "shard=3"')
        self.assertIn("--shard=3", screen)
        self.assertNotIn("--shard=2", screen)
        t.keys("/", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "Enter")
        t.wait_for(lambda s: "matching" not in s and "--shard=2" in s, "the unfiltered table")
        t.keys("h")
        screen = t.wait_text("KEYS")
        self.assertIn("filter processes", screen)
        t.keys("x")
        t.wait_for(lambda s: "KEYS" not in s and "finetune.py" in s, "the screen after the help")
        t.keys("q")
        self.assert_restored(t.wait_text("END-STTY"))

    def test_a_hung_gpu_is_stale_while_the_screen_keeps_updating(self):
        # Six seconds before GPU 5's calls start to hang.
        t = self.start_local(scenario_second=HANG_AT - 6)
        t.wait_text("finetune.py")
        screen = t.wait_for(lambda s: re.search(r"STALE \d+s", s), "GPU 5 marked stale", limit=40)
        lines = screen.splitlines()
        gpu5 = next(i for i, l in enumerate(lines) if re.match(r"^5\s+NVIDIA H200", l))
        self.assertIn("STALE", lines[gpu5 + 1], screen)
        clock = re.search(r"at (\d\d:\d\d:\d\d)", screen).group(1)
        # Still hung, and the node line's reading time moves on: the other GPUs are read and drawn.
        later = t.wait_for(lambda s: re.search(r"at (\d\d:\d\d:\d\d)", s) and
                           re.search(r"at (\d\d:\d\d:\d\d)", s).group(1) != clock and "STALE" in s,
                           "a newer reading while GPU 5 hangs", limit=10)
        self.assertRegex(later, r"(?m)^6\s+NVIDIA H200\s+UTIL \[")

    def test_resize_fits_the_new_size(self):
        t = self.start_local()
        t.wait_text("finetune.py")
        for cols, rows in ((80, 24), (160, 50)):
            t.run("resize-window", "-t", "top", "-x", str(cols), "-y", str(rows))
            # Redrawn for the new size (tmux shows the old frame cut until top draws again): the node line
            # on top, every GPU, the help line at the bottom.
            screen = t.wait_for(lambda s: len(s.splitlines()) == rows and s.startswith("gpuwatch top") and
                                "q quit" in s.splitlines()[-1] and re.search(r"(?m)^7\s+NVIDIA H200", s),
                                f"a {cols}x{rows} screen")
            self.assertTrue(all(len(l) <= cols for l in screen.splitlines()), screen)
            self.assertRegex(screen, r"(?m)^7\s+NVIDIA H200")
        # The bars grew with the width.
        bar = re.search(r"UTIL (\[[^\]]*\])", screen).group(1)
        self.assertGreater(len(bar), 30, screen)

    def test_sigterm_restores_the_terminal(self):
        t = self.start_local()
        t.wait_text("finetune.py")
        os.kill(self.top_pid(), signal.SIGTERM)
        self.assert_restored(t.wait_text("END-STTY"))

    def test_mig_instances_under_their_gpu(self):
        t = self.start_local(scenario=MIG)
        screen = t.wait_text("MIG ")
        self.assertIn("4 GPU(s), 6 MIG", screen)
        lines = screen.splitlines()
        # Each instance under its GPU, named by the GPU's index, its GPU and compute instance, its profile.
        gpu1 = next(i for i, l in enumerate(lines) if re.match(r"^1\s+NVIDIA A100", l))
        self.assertRegex(lines[gpu1 + 2], r"^\s+MIG 1/5/0\s+4g\.40gb\s+SM \[.*MEM \[.*36\.0G/39\.2G\]\s+1 proc")
        self.assertRegex(lines[gpu1 + 3], r"^\s+MIG 1/1/0\s+3g\.40gb\s+SM \[.*0 proc")

    def test_workloads_by_the_names_the_kubelet_and_slurm_give(self):
        # The fake kubelet of tests/kubelet serves the scenario's pods over the real PodResources protocol.
        socket_path = os.path.join(self.folder, "kubelet.sock")
        self.kubelet = subprocess.Popen([KUBELET, SIM, PODS, socket_path], stdout=subprocess.PIPE, text=True)
        self.assertEqual(self.kubelet.stdout.readline().strip(), "ready")
        t = self.start_local(scenario=PODS, cols=130, rows=30, extra=f"--pod-resources-socket {socket_path}")
        screen = t.wait_text("pod research/train-1")
        self.assertRegex(screen, r"(?m)^1\s+71001\s+.*pod research/train-1\s+python3 train\.py --rank=1")
        self.assertRegex(screen, r"(?m)^2\s+72000\s+.*pod inference/vllm-0\s+vllm serve llama-70b")
        self.assertRegex(screen, r"(?m)^0\s+71000\s+.*job 5150\s+python3 train\.py --rank=0")
        # The filter finds a pod by its name.
        t.keys("/", "vllm", "Enter")
        screen = t.wait_text('1 matching "vllm"')
        self.assertNotIn("train.py", screen)

    def test_reads_a_running_agent(self):
        port = free_port()
        epoch = int(time.time()) - 200  # past GPU 6's XID 13 and GPU 2's first ECC errors
        root = self.proc_tree(INCIDENTS)
        env = dict(os.environ, GPUWATCH_SIM_EPOCH=str(epoch), GPUWATCH_SIM_TIME_SCALE="1",
                   GPUWATCH_SIM_MODE="scaled")
        self.agent = subprocess.Popen(
            [GPUWATCH, "agent", "--listen", f"127.0.0.1:{port}", "--nvml-library", SIM, "--sim-scenario",
             INCIDENTS, "--proc-root", root, "--kmsg", "", "--data-dir", os.path.join(self.folder, "data")],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        time.sleep(6)  # the agent's history grows a few points before top starts
        started = time.monotonic()
        self.tmux = Tmux(self.folder, f"env LANG=C.UTF-8 {GPUWATCH} top --url http://127.0.0.1:{port} "
                         f"--interval 500ms")
        screen = self.tmux.wait_text("finetune.py")
        # The plots start with what the agent remembers: more points than top has drawn frames itself.
        plot = re.search(r"(?m)^GPU 0 +([▁▂▃▄▅▆▇█]+)", screen)
        self.assertIsNotNone(plot, screen)
        own = (time.monotonic() - started) / 0.5 + 1
        self.assertGreater(len(plot.group(1)), min(own, 8), screen)
        self.assertIn(f"agent http://127.0.0.1:{port}", screen)
        self.assertRegex(screen, r"(?m)^0\s+NVIDIA H200\s+UTIL \[")
        self.assertRegex(screen, r"mchen\s+.*job 48213\s+python3 finetune.py")
        # The agent's own alerts: its Watchdog is left out, a GPU's fires or is pending.
        screen = self.tmux.wait_for(lambda s: re.search(r"ALERTS\s+\d+ firing, \d+ pending", s), "the alerts")
        self.assertRegex(screen, r"(FIRING|pending)\s+(page|ticket)\s+Gpu\w+\s+GPU \d")
        # The agent goes away: the last frame stays, saying so.
        self.agent.send_signal(signal.SIGTERM)
        self.agent.wait(10)
        self.agent = None
        self.tmux.wait_text("no answer from the agent")
        self.tmux.keys("q")
        self.assert_restored(self.tmux.wait_text("END-STTY"))


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"] + sys.argv[3:])
