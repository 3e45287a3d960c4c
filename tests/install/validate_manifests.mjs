// The Kubernetes manifests of deploy/kubernetes, checked offline:
//   1. rendered from kustomization.yaml (its resources, its namespace) by this script, and compared with a real
//      kustomize (`kustomize build`, or `kubectl kustomize`) where one is installed;
//   2. every document, rendered or left out of the kustomization (podmonitor.yaml), validated against the
//      Kubernetes and Prometheus Operator API schemas (npm: kubernetes-models, @kubernetes-models/prometheus-
//      operator), and no field the schema does not know (a misspelt field would pass the API server's schema
//      silently and be dropped);
//   3. what the DaemonSet promises held against the agent: its config passes `gpuwatch config check`, its port is
//      the config's, the agent started with its arguments answers its probes' paths, and the selectors of the
//      Service, ServiceMonitor and PodMonitor meet the pods and ports they name.
// Usage: node validate_manifests.mjs DEPLOY_DIR GPUWATCH_BINARY SCENARIOS_DIR VERSION
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import YAML from "yaml";

const [dir, gpuwatch, scenarios, version] = process.argv.slice(2);
let failures = 0;
const fail = (message) => {
  console.log("FAIL:", message);
  failures++;
};
const ok = (message) => console.log("ok:", message);
const check = (condition, message) => condition || fail(message);

function parseDocuments(file) {
  const docs = YAML.parseAllDocuments(fs.readFileSync(file, "utf8"));
  for (const doc of docs) {
    if (doc.errors.length) throw new Error(`${file}: ${doc.errors[0].message}`);
  }
  return docs.map((doc) => doc.toJS()).filter((doc) => doc !== null);
}

const key = (doc) => `${doc.kind}/${doc.metadata?.namespace ?? ""}/${doc.metadata?.name}`;
const clusterScoped = new Set(["Namespace", "ClusterRole", "ClusterRoleBinding", "RuntimeClass", "PriorityClass"]);

// 1. The kustomization, rendered: only what this renderer knows, so that it never silently differs from kustomize.
function render() {
  const [kustomization] = parseDocuments(path.join(dir, "kustomization.yaml"));
  const known = new Set(["apiVersion", "kind", "namespace", "resources"]);
  for (const field of Object.keys(kustomization)) {
    if (!known.has(field)) throw new Error(`kustomization.yaml: ${field} is not rendered by this test; teach it`);
  }
  const docs = [];
  for (const resource of kustomization.resources) {
    for (const doc of parseDocuments(path.join(dir, resource))) {
      if (kustomization.namespace && !clusterScoped.has(doc.kind)) {
        doc.metadata.namespace = kustomization.namespace;
      }
      docs.push(doc);
    }
  }
  return { kustomization, docs };
}

function realKustomize() {
  for (const [tool, args] of [["kustomize", ["build", dir]], ["kubectl", ["kustomize", dir]]]) {
    const r = spawnSync(tool, args, { encoding: "utf8" });
    if (r.error) continue;  // not installed
    if (r.status !== 0) throw new Error(`${tool} ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
    return { tool: `${tool} ${args[0]}`, docs: YAML.parseAllDocuments(r.stdout).map((d) => d.toJS()) };
  }
  return null;
}

// 2. Schemas. A document is validated by its kind's model; its fields are read through a proxy that records
// which keys the schema's validator looked at, so a key it never read is one the schema does not have. Objects
// the validator enumerates (maps: labels, data, resources) may hold any key.
const modelModules = {
  v1: "kubernetes-models/v1",
  "apps/v1": "kubernetes-models/apps/v1",
  "monitoring.coreos.com/v1": "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1",
};

function recordingProxy(value, at, reads, enumerated, cache) {
  if (value === null || typeof value !== "object") return value;
  if (cache.has(value)) return cache.get(value);
  const proxy = new Proxy(value, {
    get(target, prop, receiver) {
      if (typeof prop === "string") reads.add(`${at}/${prop}`);
      return recordingProxy(Reflect.get(target, prop, receiver), `${at}/${String(prop)}`, reads, enumerated, cache);
    },
    has(target, prop) {
      if (typeof prop === "string") reads.add(`${at}/${prop}`);
      return Reflect.has(target, prop);
    },
    ownKeys(target) {
      enumerated.add(at);
      return Reflect.ownKeys(target);
    },
  });
  cache.set(value, proxy);
  return proxy;
}

function unknownFields(value, at, reads, enumerated, out) {
  if (value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => unknownFields(item, `${at}/${i}`, reads, enumerated, out));
    return;
  }
  const touched = enumerated.has(at) || [...Object.keys(value)].some((k) => reads.has(`${at}/${k}`));
  for (const [k, v] of Object.entries(value)) {
    const child = `${at}/${k}`;
    if (!enumerated.has(at) && touched && !reads.has(child)) {
      out.push(child);
      continue;
    }
    unknownFields(v, child, reads, enumerated, out);
  }
}

async function validate(doc, where) {
  const module = modelModules[doc.apiVersion];
  if (!module) return fail(`${where}: no schema for apiVersion ${doc.apiVersion}`);
  const Model = (await import(module))[doc.kind];
  if (!Model) return fail(`${where}: ${doc.apiVersion} has no kind ${doc.kind}`);
  const model = new Model(doc);
  try {
    model.validate();
  } catch (e) {
    return fail(`${where}: ${e.message}`);
  }
  const reads = new Set();
  const enumerated = new Set();
  const data = model.toJSON();
  model.validate.call(recordingProxy(data, "", reads, enumerated, new WeakMap()));
  const unknown = [];
  unknownFields(data, "", reads, enumerated, unknown);
  // The top level is read by the model itself: apiVersion, kind, metadata and the kind's own fields.
  check(unknown.length === 0, `${where}: fields the ${doc.kind} schema does not have: ${unknown.join(", ")}`);
}

// 3. The agent.
function httpGet(url) {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: 3000 }, (res) => {
      let body = "";
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode, body }));
    });
    req.on("error", () => resolve({ status: 0, body: "" }));
    req.on("timeout", () => req.destroy());
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(what, seconds, probe) {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value) return value;
    await sleep(100);
  }
  throw new Error(`timed out after ${seconds} s waiting for ${what}`);
}

async function checkAgainstAgent(daemonset, configmap) {
  const container = daemonset.spec.template.spec.containers[0];
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "gpuwatch-k8s-"));
  try {
    // The ConfigMap's gpuwatch.yaml as the pod sees it, checked as the admin would before applying it.
    const mount = container.volumeMounts.find((m) => m.name === "config");
    const config = path.join(work, "gpuwatch.yaml");
    fs.writeFileSync(config, configmap.data["gpuwatch.yaml"]);
    const checked = spawnSync(gpuwatch, ["config", "check", config], { encoding: "utf8" });
    check(checked.status === 0, `the ConfigMap's gpuwatch.yaml fails config check:\n${checked.stderr}`);
    const listen = /^\s+listen: (\S+)$/m.exec(checked.stdout)?.[1] ?? "";
    const port = container.ports.find((p) => p.name === "metrics");
    check(listen.endsWith(`:${port?.containerPort}`),
          `the container's metrics port ${port?.containerPort} is not the config's listen ${listen}`);
    check(port?.containerPort === 19400, `the metrics port is ${port?.containerPort}, the agent's default 19400`);

    // The agent with the DaemonSet's arguments (its config file, the node's name), on the simulator.
    const args = container.args.map((a) =>
      a === `${mount.mountPath}/gpuwatch.yaml` ? config : a.replace("$(NODE_NAME)", "gpu-node-1"));
    check(args[0] === "agent", `the container's args start with ${args[0]}, not agent`);
    args.push("--listen", "127.0.0.1:0", "--data-dir", path.join(work, "data"), "--kmsg", "",
              "--sim-scenario", path.join(scenarios, "healthy-8xh200.yaml"));
    const agent = spawn(gpuwatch, args, { stdio: ["ignore", "pipe", "pipe"] });
    let log = "";
    agent.stdout.on("data", (d) => (log += d));
    agent.stderr.on("data", (d) => (log += d));
    let exited = null;
    agent.on("exit", (code) => (exited = code));
    try {
      const bound = await waitFor("the agent's port", 30, async () => {
        if (exited !== null) throw new Error(`the agent exited ${exited}:\n${log}`);
        return /serving on \S+ \(port (\d+)\)/.exec(log)?.[1];
      });
      const base = `http://127.0.0.1:${bound}`;
      for (const [name, probe] of [["liveness", container.livenessProbe], ["readiness", container.readinessProbe]]) {
        const get = probe?.httpGet;
        if (!get) {
          fail(`the container has no ${name} probe over HTTP`);
          continue;
        }
        check(get.port === "metrics" || get.port === 19400, `the ${name} probe asks port ${get.port}`);
        const answered = await waitFor(`${get.path} to answer 200`, 30,
                                       async () => (await httpGet(base + get.path)).status === 200);
        check(answered, `${get.path} does not answer`);
      }
      check(container.livenessProbe?.httpGet?.path === "/healthz", "the liveness probe is not /healthz");
      check(container.readinessProbe?.httpGet?.path === "/readyz", "the readiness probe is not /readyz");
      const gpus = JSON.parse((await httpGet(`${base}/api/v1/gpus`)).body || "{}");
      check(gpus.node?.hostname === "gpu-node-1",
            `--hostname $(NODE_NAME) did not name the node: ${JSON.stringify(gpus.node)}`);
    } finally {
      agent.kill("SIGTERM");
      await waitFor("the agent to stop", 15, async () => exited !== null);
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

function matches(selector, labels) {
  return Object.entries(selector ?? {}).every(([k, v]) => labels?.[k] === v) && Object.keys(selector ?? {}).length > 0;
}

function checkDaemonSet(ds) {
  const pod = ds.spec.template.spec;
  const container = pod.containers[0];
  check(pod.hostPID === true, "hostPID is not true (NVML reports host pids)");
  check(pod.nodeSelector?.["nvidia.com/gpu.present"] === "true", "no nodeSelector nvidia.com/gpu.present: \"true\"");
  const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));
  check(pod.runtimeClassName === "nvidia" || env.NVIDIA_VISIBLE_DEVICES === "all",
        "neither runtimeClassName nvidia nor NVIDIA_VISIBLE_DEVICES=all: NVML would not be in the container");
  check(pod.securityContext?.runAsNonRoot === true && pod.securityContext?.runAsUser > 0, "the pod may run as root");
  const sc = container.securityContext ?? {};
  check(sc.readOnlyRootFilesystem === true, "the root file system is writable");
  check(sc.allowPrivilegeEscalation === false, "privilege escalation is allowed");
  check(sc.privileged !== true, "the container is privileged");
  check(sc.capabilities?.drop?.includes("ALL"), "capabilities are not all dropped");
  check(!(sc.capabilities?.add?.length), `capabilities added: ${sc.capabilities?.add}`);
  const mounts = Object.fromEntries(container.volumeMounts.map((m) => [m.mountPath, m]));
  for (const p of ["/var/lib/kubelet/pod-resources", "/dev/kmsg"]) {
    check(mounts[p]?.readOnly === true, `${p} is not mounted read-only`);
  }
  const writable = container.volumeMounts.filter((m) => !m.readOnly).map((m) => m.mountPath);
  check(writable.includes("/var/lib/gpuwatch"), "no writable /var/lib/gpuwatch for the history");
  for (const kind of ["requests", "limits"]) {
    check(container.resources?.[kind]?.memory && container.resources?.[kind]?.cpu, `no cpu and memory ${kind}`);
  }
  check(container.image?.endsWith(`:${version}`), `image ${container.image} is not this version (${version})`);
}

async function main() {
  const { kustomization, docs } = render();
  const byKind = (kind) => docs.filter((d) => d.kind === kind);
  ok(`rendered ${docs.length} documents from kustomization.yaml (${docs.map((d) => d.kind).join(", ")})`);
  const real = realKustomize();
  if (real) {
    const mine = new Map(docs.map((d) => [key(d), d]));
    const theirs = new Map(real.docs.filter(Boolean).map((d) => [key(d), d]));
    check(isDeepStrictEqual([...mine.keys()].sort(), [...theirs.keys()].sort()),
          `${real.tool} renders ${[...theirs.keys()]}, this test ${[...mine.keys()]}`);
    for (const [k, d] of mine) check(isDeepStrictEqual(d, theirs.get(k)), `${real.tool} renders ${k} otherwise`);
    ok(`${real.tool} renders the same documents`);
  } else {
    console.log("note: neither kustomize nor kubectl is installed: the rendering is this test's alone");
  }

  // Every manifest, also those the kustomization leaves out (the PodMonitor alternative).
  const files = fs.readdirSync(dir).filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml").sort();
  const unlisted = files.filter((f) => !kustomization.resources.includes(f));
  const all = [...docs.map((d) => [d, `rendered ${key(d)}`])];
  for (const f of unlisted) for (const d of parseDocuments(path.join(dir, f))) all.push([d, `${f} ${key(d)}`]);
  for (const [doc, where] of all) await validate(doc, where);
  if (!failures) ok(`${all.length} documents valid against the Kubernetes and Prometheus Operator schemas`);

  const [ds] = byKind("DaemonSet");
  const [cm] = byKind("ConfigMap");
  const [svc] = byKind("Service");
  const [sm] = byKind("ServiceMonitor");
  const pm = unlisted.flatMap((f) => parseDocuments(path.join(dir, f))).find((d) => d.kind === "PodMonitor");
  if (!ds || !cm || !svc || !sm || !pm) {
    throw new Error("expected a DaemonSet, a ConfigMap, a Service, a ServiceMonitor and a PodMonitor");
  }
  checkDaemonSet(ds);
  const podLabels = ds.spec.template.metadata.labels;
  const container = ds.spec.template.spec.containers[0];
  check(matches(ds.spec.selector.matchLabels, podLabels), "the DaemonSet's selector misses its pods");
  check(ds.spec.template.spec.volumes.find((v) => v.name === "config")?.configMap?.name === cm.metadata.name,
        "the config volume is not the ConfigMap");
  check(matches(svc.spec.selector, podLabels), "the Service selects no agent pod");
  check(svc.spec.ports.some((p) => p.targetPort === "metrics" && p.name === "metrics"),
        "the Service has no metrics port");
  check(matches(sm.spec.selector.matchLabels, svc.metadata.labels), "the ServiceMonitor selects no Service");
  check(sm.spec.endpoints.every((e) => svc.spec.ports.some((p) => p.name === e.port) && e.path === "/metrics"),
        "a ServiceMonitor endpoint names no Service port or another path than /metrics");
  check(matches(pm.spec.selector.matchLabels, podLabels), "the PodMonitor selects no agent pod");
  check(pm.spec.podMetricsEndpoints.every((e) => container.ports.some((p) => p.name === e.port)),
        "a PodMonitor endpoint names no container port");
  for (const d of docs) {
    if (!clusterScoped.has(d.kind)) check(d.metadata.namespace === kustomization.namespace, `${key(d)}: namespace`);
  }
  await checkAgainstAgent(ds, cm);
  if (failures) {
    console.log(`${failures} problem(s)`);
    process.exit(1);
  }
  ok("the DaemonSet, Service, ServiceMonitor and PodMonitor agree with each other and with the agent's port, " +
     "probes, config and flags");
}

main().catch((e) => {
  console.log("FAIL:", e.message);
  process.exit(1);
});
