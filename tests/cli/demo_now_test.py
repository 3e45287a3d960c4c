#!/usr/bin/env python3
"""`make demo`'s script as a user runs it, then Prometheus's own client asking the agent for now.

What promtool reads at now must be what /metrics shows (the demo's history keeps to the wall clock, though
its scenario plays 10x faster), no sample may lie ahead of the clock, and a second run on the same kept
history folder says that it keeps it.
Usage: demo_now_test.py SOURCE_DIR BUILD_DIR
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from loopback_port import free_port  # noqa: E402

SOURCE, BUILD = sys.argv[1], sys.argv[2]


def get(url):
    with urllib.request.urlopen(url, timeout=5) as r:
        return r.read().decode()


def metric_values(body, name):
    """{gpu: value} of one family in a text exposition."""
    out = {}
    for m in re.finditer(r"^" + name + r"\{([^}]*)\} (\S+)$", body, re.M):
        gpu = re.search(r'gpu="(\d+)"', m.group(1))
        if gpu:
            out[gpu.group(1)] = float(m.group(2))
    return out


def fail(message, log=""):
    print("FAIL:", message)
    if log:
        print("--- demo output ---\n" + log[-4000:])
    sys.exit(1)


def start_demo(data_dir, port, seconds):
    env = dict(os.environ, DEMO_SECONDS=str(seconds), DEMO_DATA_DIR=data_dir, DEMO_TIME_SCALE="10")
    return subprocess.Popen(
        [os.path.join(SOURCE, "scripts/demo.sh"), BUILD, "scenarios/incidents-8xh200.yaml", f"127.0.0.1:{port}"],
        cwd=SOURCE, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True)


def wait_ready(url, demo):
    deadline = time.time() + 60
    while time.time() < deadline:
        if demo.poll() is not None:
            fail("the demo exited early", demo.stdout.read())
        try:
            get(url + "/readyz")
            return
        except OSError:
            time.sleep(0.2)
    fail("the agent never became ready")


def finish(demo):
    try:
        out, _ = demo.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(demo.pid, signal.SIGTERM)
        out, _ = demo.communicate()
        fail("the demo did not end after DEMO_SECONDS", out)
    if demo.returncode != 0:
        fail(f"the demo exited {demo.returncode}", out)
    return out


def promtool_instant(url, query):
    r = subprocess.run(["promtool", "query", "instant", "-o", "json", url, query], capture_output=True,
                       text=True, timeout=30)
    if r.returncode != 0:
        fail("promtool query instant failed: " + r.stderr)
    return json.loads(r.stdout)


def main():
    if shutil.which("promtool") is None:
        fail("promtool is missing (scripts/install-deps.sh installs the prometheus package)")
    work = tempfile.mkdtemp(prefix="gpuwatch-demo-")
    data_dir = os.path.join(work, "data")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    demo = start_demo(data_dir, port, 30)
    try:
        wait_ready(url, demo)
        # 15 s of wall time is the scenario's minute 2.5: its first faults have begun.
        time.sleep(15)
        checked = 0
        for family in ("gpu_temperature_celsius", "gpu_power_watts", "gpu_memory_used_bytes"):
            # /metrics before and after the query: promtool's value at now must be one of the two readings.
            before = metric_values(get(url + "/metrics"), family)
            result = promtool_instant(url, family)
            after = metric_values(get(url + "/metrics"), family)
            now = time.time()
            if len(result) != len(before) or not result:
                fail(f"{family}: promtool found {len(result)} series at now, /metrics shows {len(before)}")
            for series in result:
                gpu = series["metric"]["gpu"]
                stamp, value = series["value"][0], float(series["value"][1])
                if stamp > now + 1:
                    fail(f"{family} GPU {gpu}: evaluated at {stamp}, ahead of the clock ({now})")
                if not any(abs(value - seen.get(gpu, float("nan"))) <= 1e-9 * max(1, abs(value))
                           for seen in (before, after)):
                    fail(f"{family} GPU {gpu}: promtool says {value} at now, /metrics said "
                         f"{before.get(gpu)} then {after.get(gpu)}")
                checked += 1
        # The newest stored sample is within a few intervals of now, never after it.
        newest = promtool_instant(url, "timestamp(gpu_temperature_celsius)")
        for series in newest:
            t = float(series["value"][1])
            if not time.time() - 10 < t <= time.time() + 0.5:
                fail(f"newest sample of GPU {series['metric']['gpu']} at {t}, the clock says {time.time()}")
        out = finish(demo)
        if "GPU 0's temperature over the demo" not in out:
            fail("the demo's closing history query is missing", out)
        print(f"ok: {checked} series agree between promtool at now and /metrics")

        # A second run on the same history folder keeps it, and says so.
        demo = start_demo(data_dir, port, 2)
        out = finish(demo)
        if f"keeping the history already in {data_dir}" not in out:
            fail("a second run on a kept history folder did not say it keeps it", out)
        if "history: refused" in out:
            fail("the second run's samples were refused", out)
        print("ok: the second run says it keeps the history, and its samples are stored")
    finally:
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGTERM)
            demo.wait()
        shutil.rmtree(work, ignore_errors=True)


main()
