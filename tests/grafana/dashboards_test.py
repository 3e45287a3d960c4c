#!/usr/bin/env python3
"""gpuwatch's Grafana dashboards (deploy/grafana/*.json), every query of them, on both data sources they are
made for: a real Prometheus scraping a simulated agent, and the agent itself (its Prometheus query API).

Each dashboard is parsed; its query variables are resolved in order, as Grafana does (label_values() with and
without a selector, query_result(), each with the variables before it substituted), each with "All" selected;
every panel target is expanded the way Grafana's Prometheus data source expands it (multi-value/All as a regex
alternation with regex escaping, or the variable's custom all value, $__interval and $__rate_interval from the
range, the panel width and the scrape interval, $__range) and asked as Grafana asks it (a range query with the
aligned range and step, or an instant query at the range's end). Every variable and every target must answer
with data on both sides, the variables with the same values. Then each value of each workload variable
(namespace, pod, Slurm job, user, process) is chosen in turn, the variables after it resolved again under that
choice (pods depend on the namespace), and every target that filters by workload must still answer with data.
The node's pods are named by the fake kubelet (tests/kubelet) serving the scenario's pods, as on a cluster.
Usage: dashboards_test.py SOURCE_DIR BUILD_DIR
"""
import glob
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from loopback_port import free_port  # noqa: E402

SOURCE, BUILD = sys.argv[1], sys.argv[2]
GPUWATCH = os.path.join(BUILD, "gpuwatch")
SIM = os.path.join(BUILD, "sim-lib", "libnvidia-ml.so.1")
SCENARIO = os.path.join(SOURCE, "tests", "grafana", "dashboards-4xh200.yaml")
KUBELET = os.path.join(BUILD, "tests", "kubelet", "fake_kubelet_serve")
DASHBOARDS = sorted(glob.glob(os.path.join(SOURCE, "deploy", "grafana", "*.json")))
SCRAPE_SECONDS = 1    # Prometheus's scrape interval, and the agent's sampling interval
PANEL_PIXELS = 1000   # Grafana's maxDataPoints for a panel is its width in pixels
RANGES = {"now-15m": 900, "now-1h": 3600}  # time ranges a user picks
WORKLOAD_VARIABLES = ["namespace", "pod", "slurm_job", "user", "process"]


def read_json(path):
    with open(path) as f:
        return json.load(f)


def get_json(port, path, params):
    url = f"http://127.0.0.1:{port}{path}?" + urllib.parse.urlencode(params, doseq=True)
    try:
        with urllib.request.urlopen(url, timeout=20) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as e:
        return {"status": "error", "error": f"HTTP {e.code}: {e.read()[:300]!r}"}
    except OSError as e:  # not listening yet, or gone
        return {"status": "error", "error": str(e)}


# Grafana's kbn.roundInterval: the interval a panel's width gives, rounded to a readable one.
ROUNDING = [(0.015, 0.010), (0.035, 0.020), (0.075, 0.050), (0.15, 0.1), (0.35, 0.2), (0.75, 0.5), (1.5, 1),
            (3.5, 2), (7.5, 5), (12.5, 10), (17.5, 15), (25, 20), (45, 30), (90, 60), (210, 120), (450, 300),
            (750, 600), (1050, 900), (1500, 1200), (2700, 1800), (5400, 3600), (9000, 7200), (16200, 10800),
            (32400, 21600), (86400, 43200)]


def round_interval(seconds):
    for below, rounded in ROUNDING:
        if seconds < below:
            return rounded
    return 86400


def duration_text(seconds):
    if seconds >= 1 and seconds == int(seconds):
        seconds = int(seconds)
        for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
            if seconds % size == 0:
                return f"{seconds // size}{unit}"
        return f"{seconds}s"
    return f"{int(seconds * 1000)}ms"


def regex_escape(value):
    # Grafana's prometheusRegularEscape then prometheusSpecialRegexEscape, as a multi-value variable gets.
    value = value.replace("\\", "\\\\\\\\")
    return re.sub(r"([$^*{}\[\]+?.()|])", r"\\\\\1", value)


def interpolate(variable, values, all_selected):
    if all_selected and variable.get("includeAll") and variable.get("allValue"):
        return variable["allValue"]  # Grafana puts a custom all value in verbatim
    if not variable.get("multi") and not variable.get("includeAll"):
        return values[0].replace("\\", "\\\\").replace("'", "\\\\'")
    if len(values) == 1:
        return regex_escape(values[0])
    return "(" + "|".join(regex_escape(v) for v in values) + ")"


def expand(text, chosen, builtins):
    # Longest names first, so $__rate_interval is not read as $__range...
    names = sorted(list(chosen) + list(builtins), key=len, reverse=True)
    for name in names:
        value = chosen.get(name, builtins.get(name))
        text = text.replace("${" + name + "}", value).replace("$" + name, value)
    return text


class Side:
    """One data source: Prometheus or the agent, both speaking Prometheus's HTTP API."""

    def __init__(self, name, port):
        self.name, self.port = name, port

    def label_values(self, label, match, start, end):
        params = {"start": int(start), "end": int(math.ceil(end))}
        if match:
            params["match[]"] = match
        r = get_json(self.port, f"/api/v1/label/{label}/values", params)
        assert r.get("status") == "success", f"{self.name}: label_values({match}, {label}): {r}"
        return r["data"]

    def instant(self, expr, t):
        return get_json(self.port, "/api/v1/query", {"query": expr, "time": f"{t:.3f}"})

    def range(self, expr, start, end, step):
        return get_json(self.port, "/api/v1/query_range",
                        {"query": expr, "start": f"{start:.3f}", "end": f"{end:.3f}", "step": str(step)})


class Dashboards(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        try:
            cls.start()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def start(cls):
        cls.agent = cls.prometheus = cls.kubelet = None
        cls.folder = tempfile.mkdtemp(prefix="gpuwatch-grafana-")
        root = os.path.join(cls.folder, "proc")
        subprocess.run([GPUWATCH, "sim", "proc-tree", "--nvml-library", SIM, "--sim-scenario", SCENARIO,
                        "--proc-root", root], check=True, capture_output=True)
        socket_path = os.path.join(cls.folder, "pod-resources", "kubelet.sock")
        os.makedirs(os.path.dirname(socket_path))
        cls.kubelet = subprocess.Popen([KUBELET, SIM, SCENARIO, socket_path], stdout=subprocess.PIPE, text=True)
        assert cls.kubelet.stdout.readline().strip() == "ready", "the fake kubelet did not start"
        agent_port, prometheus_port = free_port(), free_port()
        env = dict(os.environ, GPUWATCH_SIM_EPOCH=str(int(time.time())), GPUWATCH_SIM_TIME_SCALE="1",
                   GPUWATCH_SIM_MODE="scaled")
        cls.agent = subprocess.Popen(
            [GPUWATCH, "agent", "--listen", f"127.0.0.1:{agent_port}", "--nvml-library", SIM, "--sim-scenario",
             SCENARIO, "--proc-root", root, "--kmsg", "", "--interval", f"{SCRAPE_SECONDS}s",
             "--pod-resources-socket", socket_path,
             "--data-dir", os.path.join(cls.folder, "agent-data")],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cls.instance = f"127.0.0.1:{agent_port}"
        with open(os.path.join(cls.folder, "prometheus.yml"), "w") as f:
            f.write(f"global:\n  scrape_interval: {SCRAPE_SECONDS}s\n  scrape_timeout: {SCRAPE_SECONDS}s\n"
                    f"scrape_configs:\n  - job_name: gpuwatch\n    static_configs:\n"
                    f"      - targets: ['{cls.instance}']\n")
        cls.prometheus = subprocess.Popen(
            ["/usr/bin/prometheus", f"--config.file={cls.folder}/prometheus.yml",
             f"--storage.tsdb.path={cls.folder}/tsdb", f"--web.listen-address=127.0.0.1:{prometheus_port}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cls.sides = [Side("prometheus", prometheus_port), Side("agent", agent_port)]
        # Enough scrapes for every rate() and increase() in the panels: 4 scrape intervals and then some.
        deadline = time.time() + 90
        while time.time() < deadline:
            r = get_json(prometheus_port, "/api/v1/query", {"query": "count_over_time(gpu_up[1m])"})
            if r.get("status") == "success" and r["data"]["result"] and \
                    float(r["data"]["result"][0]["value"][1]) >= 15:
                break
            time.sleep(1)
        else:
            raise AssertionError("Prometheus did not scrape the agent for 15 s")

    @classmethod
    def tearDownClass(cls):
        for p in (cls.prometheus, cls.agent, cls.kubelet):
            if p is None:
                continue
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(cls.folder, ignore_errors=True)

    def resolve_variables(self, dashboard, side, start, end, builtins, fixed=None):
        """Every query variable with "All" selected, or the value `fixed` gives it: name -> its interpolated
        text; and each variable's values (those it offers, the variables before it substituted)."""
        fixed = fixed or {}
        chosen, values = {}, {}
        for v in dashboard["templating"]["list"]:
            if v["type"] == "datasource":
                continue
            self.assertEqual(v["type"], "query", v["name"])
            query = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
            query = expand(query, chosen, builtins)
            m = re.fullmatch(r"label_values\((?:(.*),\s*)?(\w+)\)", query)
            if m:
                found = side.label_values(m.group(2), m.group(1), start, end)
            else:
                m = re.fullmatch(r"query_result\((.*)\)", query)
                self.assertIsNotNone(m, f"{v['name']}: a query Grafana's variable editor does not make: {query}")
                r = side.instant(m.group(1), end)
                self.assertEqual(r.get("status"), "success", r)
                found = []
                for s in r["data"]["result"]:
                    labels = ", ".join(f'{k}="{x}"' for k, x in s["metric"].items() if k != "__name__")
                    found.append(f'{s["metric"].get("__name__", "")}{{{labels}}} {s["value"][1]} '
                                 f'{int(s["value"][0] * 1000)}')
            if v.get("regex"):
                found = [x for x in found if re.search(v["regex"], x)]
            self.assertTrue(found, f"{side.name}: variable {v['name']} ({query}) has no values")
            values[v["name"]] = found
            if v["name"] in fixed:
                self.assertIn(fixed[v["name"]], found, f"{side.name}: {v['name']} does not offer the value chosen")
                chosen[v["name"]] = interpolate(v, [fixed[v["name"]]], False)
            else:
                chosen[v["name"]] = interpolate(v, found, True)
        return chosen, values

    def ask(self, side, expr, target, start, end, interval, span):
        if target.get("instant"):
            return side.instant(expr, end)
        # Grafana aligns the range to the step, which is never under range/11000.
        step = max(interval, span / 11000)
        return side.range(expr, math.floor(start / step) * step, math.floor(end / step) * step, step)

    def window(self, range_from):
        end = time.time()
        span = RANGES[range_from]
        interval = max(round_interval(span / PANEL_PIXELS), SCRAPE_SECONDS)
        builtins = {"__interval": duration_text(interval), "__interval_ms": str(int(interval * 1000)),
                    "__rate_interval": duration_text(max(interval + SCRAPE_SECONDS, 4 * SCRAPE_SECONDS)),
                    "__range": duration_text(span), "__range_s": str(span), "__range_ms": str(span * 1000)}
        return end - span, end, span, interval, builtins

    def ask_panels(self, path, range_from):
        dashboard = read_json(path)
        name = os.path.basename(path)
        start, end, span, interval, builtins = self.window(range_from)
        variable_values = {}
        asked = 0
        for side in self.sides:
            chosen, values = self.resolve_variables(dashboard, side, start, end, builtins)
            variable_values[side.name] = values
            targets = [(p["title"], t) for p in dashboard["panels"] for t in p.get("targets", [])]
            targets += [("annotation " + a["name"], a) for a in dashboard["annotations"]["list"] if "expr" in a]
            self.assertGreater(len(targets), 5, name)
            for title, target in targets:
                expr = expand(target["expr"], chosen, builtins)
                self.assertNotIn("$", expr, f"{name} {title}: a variable left unexpanded")
                r = self.ask(side, expr, target, start, end, interval, span)
                asked += 1
                with self.subTest(dashboard=name, range=range_from, side=side.name, panel=title):
                    self.assertEqual(r.get("status"), "success", f"{expr}: {r}")
                    self.assertTrue(r["data"]["result"], f"no data for {expr}")
                    # All workloads means all: the processes outside any pod or job are kept too.
                    unfiltered = target["expr"]
                    for v in WORKLOAD_VARIABLES:
                        unfiltered = unfiltered.replace(f', {v}=~"${v}"', "")
                    if unfiltered != target["expr"]:
                        everything = self.ask(side, expand(unfiltered, chosen, builtins), target, start, end,
                                              interval, span)
                        self.assertEqual(len(r["data"]["result"]), len(everything["data"]["result"]), expr)
        print(f"\n  {name} over {range_from}: {asked} queries and {len(variable_values['agent'])} variables on the two sides",
              end=" ", flush=True)
        self.assertEqual(variable_values["agent"], variable_values["prometheus"], name)
        self.assertEqual(variable_values["agent"]["instance"], [self.instance])
        self.assertEqual(variable_values["agent"]["gpu"], ["0", "1", "2", "3"])
        # The scenario's workloads, each named: the kubelet's pods, the cgroup's Slurm job, the users.
        self.assertEqual(variable_values["agent"]["namespace"], ["inference", "research"])
        self.assertEqual(variable_values["agent"]["pod"], ["train-1", "vllm-0"])
        self.assertEqual(variable_values["agent"]["slurm_job"], ["5150"])
        self.assertEqual(variable_values["agent"]["user"], ["ana", "bob", "root", "svc-infer"])

    def ask_each_workload(self, path):
        """Each value of each workload variable chosen in turn (the others at All): the variables after it
        offer only what goes with it, and every target that filters by workload answers with data."""
        dashboard = read_json(path)
        name = os.path.basename(path)
        start, end, span, interval, builtins = self.window("now-15m")
        targets = [(p["title"], t) for p in dashboard["panels"] for t in p.get("targets", [])
                   if any("$" + v in t["expr"] for v in WORKLOAD_VARIABLES)]
        self.assertTrue(targets, f"{name}: no panel filters by workload")
        asked = 0
        for side in self.sides:
            _, offered = self.resolve_variables(dashboard, side, start, end, builtins)
            for variable in WORKLOAD_VARIABLES:
                for value in offered[variable]:
                    chosen, values = self.resolve_variables(dashboard, side, start, end, builtins,
                                                            {variable: value})
                    if variable == "namespace":  # the chain: a namespace's pods only
                        self.assertEqual(values["pod"], {"research": ["train-1"], "inference": ["vllm-0"]}[value])
                    for title, target in targets:
                        expr = expand(target["expr"], chosen, builtins)
                        r = self.ask(side, expr, target, start, end, interval, span)
                        asked += 1
                        with self.subTest(dashboard=name, side=side.name, variable=variable, value=value,
                                          panel=title):
                            self.assertEqual(r.get("status"), "success", f"{expr}: {r}")
                            self.assertTrue(r["data"]["result"], f"no data for {expr}")
        print(f"\n  {name}: {asked} queries with a workload chosen", end=" ", flush=True)

    def test_dashboards_are_grafana_json_on_native_names(self):
        self.assertEqual([os.path.basename(p) for p in DASHBOARDS],
                         ["gpuwatch-debug.json", "gpuwatch-executive.json", "gpuwatch-oncall.json"])
        with open(os.path.join(SOURCE, "docs", "metrics.md")) as f:
            native = f.read()
        for path in DASHBOARDS:
            d = read_json(path)
            self.assertTrue(d["uid"] and d["title"] and d["panels"], path)
            names = {v["name"] for v in d["templating"]["list"]}
            self.assertTrue({"datasource", "instance", "gpu"} | set(WORKLOAD_VARIABLES) <= names, path)
            variables = {v["name"]: v for v in d["templating"]["list"]}
            self.assertIn("$namespace", variables["pod"]["definition"], f"{path}: pods depend on the namespace")
            for p in d["panels"]:
                for t in p.get("targets", []):
                    self.assertEqual(t["datasource"]["uid"], "${datasource}", f"{path} {p['title']}")
                    if "gpu_process_" in t["expr"]:  # a per-process figure filters by every workload variable
                        for v in WORKLOAD_VARIABLES:
                            self.assertIn(f'{v}=~"${v}"', t["expr"], f"{path} {p['title']}")
                    for metric in re.findall(r"\b((?:gpu|gpuwatch)_[a-z_]+|ALERTS)\b",
                                             re.sub(r'"[^"]*"', "", t["expr"])):
                        self.assertIn(f"`{metric}`", native, f"{path} {p['title']}: {metric} is no gpuwatch name")

    def test_every_query_has_data_over_the_last_15_minutes(self):
        for path in DASHBOARDS:
            self.ask_panels(path, "now-15m")

    def test_every_query_has_data_over_the_last_hour(self):
        for path in DASHBOARDS:
            self.ask_panels(path, "now-1h")

    def test_every_workload_chosen_has_data(self):
        for path in DASHBOARDS:
            self.ask_each_workload(path)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"] + sys.argv[3:])
