#!/usr/bin/env python3
"""The ways gpuwatch is installed, as a user or a packager meets them (docs/install.md).

Usage: install_test.py --source DIR --build DIR --work DIR --version X.Y.Z CHECK

  deb-build        CPack builds the .deb from the build tree; dpkg-deb unpacks it into WORK/deb/root
  deb-contents     its file list, owners and modes, control fields, conffiles, maintainer scripts, the unit
  deb-agent        the agent from the unpacked tree on the simulator (scenario and simulator from the package),
                   as an unprivileged user when run as root; /healthz, /readyz, /metrics, SIGHUP, SIGTERM
  unit-verify      systemd-analyze verify and security on the packaged unit
  lintian          lintian on the .deb
  make-install     what `make install` runs, with DESTDIR and two prefixes; an edited config is kept
  dockerfile       deploy/container/Dockerfile read statically (and hadolint where installed)
  container-image  the image built and run on the simulator, where an engine runs and GPUWATCH_TEST_CONTAINER=1

Exit 0: passed, 1: failed, 77: skipped (the line before says why).
"""
import argparse
import glob
import gzip
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import time
import urllib.error
import urllib.request

SKIP = 77
ARGS = None
UNIT = "usr/lib/systemd/system/gpuwatch.service"
CONFIG = "etc/gpuwatch/gpuwatch.yaml"
SIM_DIR = "usr/lib/gpuwatch/sim"
# The kubelet source's gRPC client, loaded only when a pod-resources socket is configured.
KUBELET_MODULE = "usr/lib/gpuwatch/gpuwatch-kubelet.so"
# The HTTP server's event loop for plain HTTP (Boost.Beast, compiled in) and basic auth's bcrypt (libcrypt),
# loaded when the agent starts serving.
HTTP_SERVER_MODULE = "usr/lib/gpuwatch/gpuwatch-http-server.so"
# The event loop for TLS (libmicrohttpd, GnuTLS), loaded only by a server with a certificate.
TLS_SERVER_MODULE = "usr/lib/gpuwatch/gpuwatch-tls-server.so"
# Remote write's protobuf and snappy, loaded only when a receiver is configured.
REMOTE_WRITE_MODULE = "usr/lib/gpuwatch/gpuwatch-remote-write.so"
# top's ncurses terminal, loaded by `gpuwatch top` only.
TERMINAL_MODULE = "usr/lib/gpuwatch/gpuwatch-terminal.so"
# Calendar SLO periods' civil time (abseil), loaded only for a calendar period.
CALENDAR_MODULE = "usr/lib/gpuwatch/gpuwatch-calendar.so"
# The HTTP client's TLS (OpenSSL), loaded only to ask an https:// URL.
TLS_CLIENT_MODULE = "usr/lib/gpuwatch/gpuwatch-tls-client.so"


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def skip(message):
    print("SKIP:", message)
    sys.exit(SKIP)


def run(cmd, **kw):
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    kw.setdefault("timeout", 170)
    return subprocess.run(cmd, **kw)


def run_ok(cmd, what, **kw):
    r = run(cmd, **kw)
    if r.returncode != 0:
        raise Failure(f"{what} exited {r.returncode}:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return r


def deb_dir():
    return os.path.join(ARGS.work, "deb")


def deb_file():
    debs = glob.glob(os.path.join(deb_dir(), "gpuwatch_*.deb"))
    check(len(debs) == 1, f"expected one gpuwatch_*.deb in {deb_dir()} (from install.deb-build), found {debs}")
    return debs[0]


def root():
    return os.path.join(deb_dir(), "root")


def sources(pattern):
    return sorted(os.path.relpath(p, ARGS.source) for p in glob.glob(os.path.join(ARGS.source, pattern)))


def unit_settings(path):
    """[(key, value)] of a unit file's assignments, in order."""
    out = []
    for line in open(path):
        line = line.strip()
        if line and not line.startswith(("#", ";", "[")) and "=" in line:
            key, value = line.split("=", 1)
            out.append((key.strip(), value.strip()))
    return out


# ---------------------------------------------------------------------------------------------------------------
# The .deb


def deb_build():
    if shutil.which("dpkg-deb") is None:
        raise Failure("dpkg-deb is missing (scripts/install-deps.sh installs dpkg-dev)")
    shutil.rmtree(deb_dir(), ignore_errors=True)
    os.makedirs(deb_dir())
    started = time.time()
    # The build tree's own package rules, into the test's folder (not build/packages, where `make deb` puts it).
    r = run_ok(["cpack", "-G", "DEB", "-B", deb_dir()], "cpack", cwd=ARGS.build)
    deb = deb_file()
    run_ok(["dpkg-deb", "-x", deb, root()], "dpkg-deb -x")
    run_ok(["dpkg-deb", "-e", deb, os.path.join(deb_dir(), "control")], "dpkg-deb -e")
    print(r.stdout.strip().splitlines()[-1])
    print(f"ok: {os.path.basename(deb)} built and unpacked in {time.time() - started:.1f} s")


def expected_files():
    files = {
        "usr/bin/gpuwatch",
        f"{SIM_DIR}/libnvml-sim.so",
        f"{SIM_DIR}/libnvidia-ml.so.1",
        HTTP_SERVER_MODULE,
        TLS_SERVER_MODULE,
        KUBELET_MODULE,
        REMOTE_WRITE_MODULE,
        TERMINAL_MODULE,
        CALENDAR_MODULE,
        TLS_CLIENT_MODULE,
        UNIT,
        "usr/lib/sysusers.d/gpuwatch.conf",
        CONFIG,
        "usr/share/man/man1/gpuwatch.1.gz",
        "usr/share/doc/gpuwatch/copyright",
        "usr/share/doc/gpuwatch/changelog.gz",
        "usr/share/doc/gpuwatch/README.md",
        "usr/share/doc/gpuwatch/install.md",
        "usr/share/doc/gpuwatch/configuration.md",
        "usr/share/doc/gpuwatch/examples/gpuwatch.yaml",
        "usr/share/doc/gpuwatch/examples/gpuwatch.service.d/kernel-log.conf",
        "usr/share/doc/gpuwatch/examples/gpuwatch.service.d/process-libraries.conf",
    }
    files |= {"usr/share/gpuwatch/scenarios/" + os.path.basename(p) for p in sources("scenarios/*.yaml")}
    files |= {"usr/share/gpuwatch/grafana/" + os.path.basename(p) for p in sources("deploy/grafana/*.json")}
    files |= {"usr/share/doc/gpuwatch/runbooks/" + os.path.basename(p) for p in sources("docs/runbooks/*.md")}
    return files


def deb_contents():
    deb = deb_file()
    tar_bytes = run_ok(["dpkg-deb", "--fsys-tarfile", deb], "dpkg-deb --fsys-tarfile", text=False).stdout
    members = {m.name.lstrip("./").rstrip("/"): m for m in tarfile.open(fileobj=io.BytesIO(tar_bytes))}
    members.pop("", None)
    files = {name for name, m in members.items() if not m.isdir()}

    missing = expected_files() - files
    check(not missing, f"missing from the package: {sorted(missing)}")
    # The simulator never lands where the dynamic linker looks: it would shadow the driver's NVML.
    for name in files:
        base = os.path.basename(name)
        if base.startswith(("libnvidia-ml", "libnvml-sim")):
            check(os.path.dirname(name) == SIM_DIR, f"{name}: the simulator outside {SIM_DIR}")
    link = members[f"{SIM_DIR}/libnvidia-ml.so.1"]
    check(link.issym() and link.linkname == "libnvml-sim.so",
          f"{SIM_DIR}/libnvidia-ml.so.1 should link to libnvml-sim.so, is {link.type!r} -> {link.linkname!r}")
    # The binary links none of the optional modules' libraries (HTTP server, kubelet, remote write, terminal,
    # calendar, the TLS client's OpenSSL) nor cpp-httplib (its shared library maps OpenSSL and brotli): they are
    # mapped only where a module is loaded.
    elf = os.path.join(root(), "usr/bin/gpuwatch")
    needed = re.findall(r"\(NEEDED\).*\[(.*)\]", run_ok(["readelf", "-d", elf], "readelf -d").stdout)
    heavy = [n for n in needed if n.startswith(("libgrpc", "libgpr", "libupb", "libabsl_", "libprotobuf", "libsnappy",
                                                 "libncurses", "libtinfo", "libssl", "libcrypto", "libcpp-httplib",
                                                 "libbrotli", "libmicrohttpd", "libgnutls", "libcrypt."))]
    check(needed and not heavy, f"usr/bin/gpuwatch links the optional modules' libraries: {heavy}")
    # Plain HTTP's event loop maps no TLS library: only the TLS loop's module links GnuTLS.
    plain = os.path.join(root(), HTTP_SERVER_MODULE)
    plain_needed = re.findall(r"\(NEEDED\).*\[(.*)\]", run_ok(["readelf", "-d", plain], "readelf -d").stdout)
    tls_libs = [n for n in plain_needed if n.startswith(("libmicrohttpd", "libgnutls", "libssl", "libcrypto"))]
    check(plain_needed and not tls_libs, f"{HTTP_SERVER_MODULE} links TLS libraries: {tls_libs}")
    unexpected = [n for n in files if not n.startswith(("usr/", "etc/gpuwatch/"))]
    check(not unexpected, f"files outside /usr and /etc/gpuwatch: {unexpected}")

    for name, m in members.items():
        check(m.uname == "root" and m.gname == "root", f"{name} is owned by {m.uname}:{m.gname}, not root:root")
        if m.isdir():
            check(m.mode & 0o7777 == 0o755, f"{name}/: mode {oct(m.mode)}")
        elif m.isfile():
            want = 0o755 if name == "usr/bin/gpuwatch" else 0o644
            check(m.mode & 0o7777 == want, f"{name}: mode {oct(m.mode & 0o7777)}, want {oct(want)}")

    control = open(os.path.join(deb_dir(), "control", "control")).read()
    fields = dict(re.findall(r"^([A-Za-z-]+): (.*)$", control, re.M))
    check(fields.get("Package") == "gpuwatch", f"Package: {fields.get('Package')}")
    check(fields.get("Version") == ARGS.version, f"Version {fields.get('Version')}, the project is {ARGS.version}")
    depends = fields.get("Depends", "")
    # The libraries the binary, the simulator and the modules link shared whatever GPUWATCH_STATIC_DEPS says.
    for dep in ("adduser", "libc6", "libstdc++6", "zlib1g", "libyaml-cpp", "libmicrohttpd"):
        check(dep in depends, f"Depends lacks {dep} (dpkg-shlibdeps): {depends}")
    conffiles = open(os.path.join(deb_dir(), "control", "conffiles")).read().split()
    check(conffiles == ["/" + CONFIG], f"conffiles: {conffiles}")
    for script in ("postinst", "prerm", "postrm"):
        path = os.path.join(deb_dir(), "control", script)
        check(os.path.isfile(path) and os.access(path, os.X_OK), f"the package has no executable {script}")
        run_ok(["sh", "-n", path], f"sh -n {script}")
    postinst = open(os.path.join(deb_dir(), "control", "postinst")).read()
    check("adduser --system" in postinst and " gpuwatch" in postinst, "postinst does not create the gpuwatch user")

    with gzip.open(os.path.join(root(), "usr/share/doc/gpuwatch/changelog.gz"), "rt") as f:
        first = f.readline()
    check(first.startswith(f"gpuwatch ({ARGS.version})"),
          f"packaging/debian/changelog's newest entry is {first.strip()!r}, the project is {ARGS.version}")

    settings = unit_settings(os.path.join(root(), UNIT))
    keys = dict(settings)
    check(keys.get("ExecStart") == "/usr/bin/gpuwatch agent --config /etc/gpuwatch/gpuwatch.yaml",
          f"ExecStart={keys.get('ExecStart')}")
    wanted = {
        "User": "gpuwatch", "DynamicUser": "no", "Restart": "on-failure", "RestartPreventExitStatus": "1",
        "StateDirectory": "gpuwatch",
        "ExecReload": "/bin/kill -HUP $MAINPID", "NoNewPrivileges": "yes", "ProtectSystem": "strict",
        "ProtectHome": "yes", "PrivateTmp": "yes", "ProtectKernelTunables": "yes",
        "ProtectKernelModules": "yes", "ProtectControlGroups": "yes", "CapabilityBoundingSet": "",
        "AmbientCapabilities": "", "RestrictAddressFamilies": "AF_INET AF_INET6 AF_UNIX",
        "SystemCallFilter": "@system-service", "DevicePolicy": "closed",
    }
    for key, value in wanted.items():
        check(keys.get(key) == value, f"the unit's {key}={keys.get(key)!r}, want {value!r}")
    devices = [v for k, v in settings if k == "DeviceAllow"]
    for device in ("char-nvidia-frontend rw", "/dev/kmsg r"):
        check(device in devices, f"the unit does not allow {device}: {devices}")
    # Settings that would blind or break the agent: no /dev/nvidia*, no /dev/kmsg, no other users' /proc.
    for key, value in (("PrivateDevices", "yes"), ("ProtectKernelLogs", "yes"), ("ProtectProc", "invisible"),
                       ("PrivateUsers", "yes")):
        check(keys.get(key) != value, f"the unit sets {key}={value}")
    print(f"ok: {len(files)} files as expected, root-owned; control, conffiles, scripts and the unit as designed")


def wait_for(predicate, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise Failure(f"timed out after {seconds} s waiting for {what}")


def http_get(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError:
        return None, ""


class Agent:
    """The agent as a child process whose output goes to a file (read as it grows)."""

    def __init__(self, cmd, log_path, env=None):
        self.log_path = log_path
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, env=env,
                                     start_new_session=True)

    def output(self):
        return open(self.log_path).read()

    def port(self):
        def bound():
            if self.proc.poll() is not None:
                raise Failure(f"the agent exited {self.proc.returncode}:\n{self.output()[-3000:]}")
            m = re.search(r"serving on \S+ \(port (\d+)\)", self.output())
            return m and int(m.group(1))
        return wait_for(bound, 30, "the agent to name its port")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
                raise Failure("the agent did not stop within 15 s of SIGTERM")
        return self.proc.returncode


def deb_agent():
    r = root()
    binary = os.path.join(r, "usr/bin/gpuwatch")
    scenario = os.path.join(r, "usr/share/gpuwatch/scenarios/healthy-8xh200.yaml")
    state = os.path.join(deb_dir(), "state")
    shutil.rmtree(state, ignore_errors=True)
    os.makedirs(state)
    cmd = [binary, "agent", "--config", os.path.join(r, CONFIG), "--sim-scenario", scenario,
           "--listen", "127.0.0.1:0", "--data-dir", state]
    as_user = None
    if os.geteuid() == 0:
        # As the unit runs it: its own unprivileged user (nobody stands in for gpuwatch), no capabilities at all,
        # no new privileges; its state directory is its own, as StateDirectory= makes it.
        if shutil.which("setpriv") is None:
            raise Failure("setpriv is missing (util-linux)")
        os.chown(state, 65534, 65534)
        for path in (deb_dir(), r):
            os.chmod(path, 0o755)
        cmd = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--inh-caps=-all",
               "--bounding-set=-all", "--no-new-privs", "--"] + cmd
        as_user = 65534
    else:
        print(f"note: not root, so the agent runs as this user (uid {os.geteuid()})")
    agent = Agent(cmd, os.path.join(deb_dir(), "agent.log"))
    try:
        port = agent.port()
        url = f"http://127.0.0.1:{port}"
        status = open(f"/proc/{agent.proc.pid}/status").read()
        uid = int(re.search(r"^Uid:\s+(\d+)", status, re.M).group(1))
        cap_eff = re.search(r"^CapEff:\s+(\S+)", status, re.M).group(1)
        if as_user is not None:
            check(uid == as_user, f"the agent runs as uid {uid}, not {as_user}")
            check(int(cap_eff, 16) == 0, f"the agent holds capabilities {cap_eff}")
        sim = os.path.join(r, SIM_DIR, "libnvidia-ml.so.1")
        check(f"NVML library {sim}" in agent.output(),
              f"the agent did not load the packaged simulator {sim}:\n{agent.output()[-2000:]}")

        check(http_get(url + "/healthz") == (200, "ok\n"), f"/healthz: {http_get(url + '/healthz')}")
        wait_for(lambda: http_get(url + "/readyz")[0] == 200, 30, "/readyz to answer 200")
        code, body = http_get(url + "/metrics")
        check(code == 200, f"/metrics answered {code}")
        gpus = set(re.findall(r'^gpu_temperature_celsius\{[^}]*gpu="(\d+)"', body, re.M))
        check(len(gpus) == 8, f"/metrics shows the temperature of {len(gpus)} GPUs, the scenario has 8")

        # `systemctl reload` sends SIGHUP: the agent re-reads the packaged config and keeps running.
        agent.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: "reloaded " + os.path.join(r, CONFIG) in agent.output(), 10, "the reload on SIGHUP")
        check(http_get(url + "/healthz")[0] == 200, "/healthz failed after the reload")
        # History is written where StateDirectory= points, by the service's user.
        wait_for(lambda: os.listdir(state), 10, "the history store in the state directory")
        if as_user is not None:
            owners = {os.stat(os.path.join(dirpath, f)).st_uid
                      for dirpath, _, names in os.walk(state) for f in names}
            check(owners <= {as_user}, f"files in the state directory owned by {owners}")
        rc = agent.stop()
        check(rc == 0, f"the agent exited {rc} on SIGTERM:\n{agent.output()[-2000:]}")
    finally:
        agent.stop() if agent.proc.poll() is None else None
    who = f"uid {as_user} (nobody), no capabilities" if as_user is not None else f"uid {os.geteuid()}"
    print(f"ok: the unpacked package's agent ran as {who} on its own simulator and scenario: "
          "/healthz, /readyz, 8 GPUs on /metrics, reload on SIGHUP, clean stop on SIGTERM")


def unit_verify():
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        skip("systemd-analyze is not installed (Debian's systemd package): the unit is not verified here")
    # The packaged unit, with ExecStart naming the unpacked binary (verify checks that it is executable) and
    # the rest as shipped; offline, against this machine's units (/bin/kill, the targets it orders against).
    folder = os.path.join(deb_dir(), "verify")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    unit = os.path.join(folder, "gpuwatch.service")
    text = open(os.path.join(root(), UNIT)).read()
    check("ExecStart=/usr/bin/gpuwatch " in text, "the unit's ExecStart does not start /usr/bin/gpuwatch")
    with open(unit, "w") as f:
        f.write(text.replace("ExecStart=/usr/bin/gpuwatch ", f"ExecStart={root()}/usr/bin/gpuwatch "))
    # verify also opens the unit's Documentation=man:gpuwatch(1): the packaged page, found through MANPATH.
    v = run([analyze, "verify", unit], env=dict(os.environ, MANPATH=os.path.join(root(), "usr/share/man")))
    check(v.returncode == 0 and not (v.stdout + v.stderr).strip(),
          f"systemd-analyze verify exited {v.returncode}:\n{v.stdout}{v.stderr}")
    print("ok: systemd-analyze verify finds nothing in gpuwatch.service")
    s = run([analyze, "security", "--offline=yes", "--no-pager", unit])
    m = re.search(r"Overall exposure level for gpuwatch.service: ([\d.]+) (\S+)", s.stdout + s.stderr)
    check(m, f"systemd-analyze security printed no exposure level:\n{s.stdout[-2000:]}{s.stderr}")
    # 0 (locked down) to 10 (unprotected). The agent needs the network, the GPUs' devices, the kernel log and
    # other users' /proc, which costs about 2; past 3 something was loosened.
    check(float(m.group(1)) <= 3.0, f"exposure {m.group(1)} {m.group(2)}:\n{s.stdout}")
    print(f"ok: systemd-analyze security rates the unit {m.group(1)} {m.group(2)}")


# Informational tags that are true and not fixed yet, so not overridden in the package; each says why.
KNOWN_LINTIAN_INFO = {
    "hardening-no-fortify-functions": "the tree is not compiled with -D_FORTIFY_SOURCE=2 yet (it links with full "
                                      "RELRO); turning it on rebuilds every object and is a change of its own",
}


def lintian():
    tool = shutil.which("lintian")
    if tool is None:
        skip("lintian is not installed (scripts/install-deps.sh installs it): the package is not linted here")
    # Overrides, each with its reason, travel in the package (packaging/debian/lintian-overrides).
    r = run([tool, "--fail-on", "error,warning", "--display-info", "--tag-display-limit", "0", deb_file()],
            timeout=170)
    print(r.stdout + r.stderr)
    tags = [line for line in r.stdout.splitlines() if re.match(r"^[EW]: ", line)]
    check(r.returncode == 0 and not tags, f"lintian exited {r.returncode} with {len(tags)} errors or warnings")
    infos = [line for line in r.stdout.splitlines() if line.startswith("I: ")]
    known = [line for line in infos if any(f": {tag} " in line for tag in KNOWN_LINTIAN_INFO)]
    check(infos == known, f"lintian's informational tags: {[i for i in infos if i not in known]}")
    for tag, why in KNOWN_LINTIAN_INFO.items():
        if any(f": {tag} " in line for line in known):
            print(f"note: lintian says {tag}, known: {why}")
    print("ok: lintian reports no error or warning, and no information but the known")


# ---------------------------------------------------------------------------------------------------------------
# make install


def install_into(destdir, prefix):
    env = dict(os.environ, DESTDIR=destdir)
    return run_ok(["cmake", "--install", ARGS.build, "--prefix", prefix], f"cmake --install --prefix {prefix}",
                  env=env)


def make_install():
    makefile = open(os.path.join(ARGS.source, "Makefile")).read()
    check(re.search(r'^install:.*\n\tDESTDIR="\$\(DESTDIR\)" cmake --install \$\(BUILD\) --prefix "\$\(PREFIX\)"',
                    makefile, re.M), "the Makefile's install target is not the command this test runs")
    base = os.path.join(ARGS.work, "make-install")
    shutil.rmtree(base, ignore_errors=True)

    # PREFIX=/usr/local: everything under it, the config in /usr/local/etc/gpuwatch, the unit naming both.
    dest = os.path.join(base, "local")
    install_into(dest, "/usr/local")
    tree = os.path.join(dest, "usr/local")
    for f in ("bin/gpuwatch", "lib/gpuwatch/sim/libnvidia-ml.so.1", "lib/gpuwatch/gpuwatch-http-server.so",
              "lib/gpuwatch/gpuwatch-tls-server.so", "lib/gpuwatch/gpuwatch-kubelet.so",
              "lib/gpuwatch/gpuwatch-remote-write.so", "lib/gpuwatch/gpuwatch-terminal.so",
              "lib/gpuwatch/gpuwatch-calendar.so", "lib/gpuwatch/gpuwatch-tls-client.so",
              "lib/systemd/system/gpuwatch.service",
              "lib/sysusers.d/gpuwatch.conf", "etc/gpuwatch/gpuwatch.yaml", "share/man/man1/gpuwatch.1.gz",
              "share/gpuwatch/scenarios/incidents-8xh200.yaml", "share/doc/gpuwatch/runbooks/GpuXidCritical.md"):
        check(os.path.lexists(os.path.join(tree, f)), f"make install PREFIX=/usr/local: no {f}")
    outside = [os.path.relpath(os.path.join(d, n), dest) for d, _, names in os.walk(dest) for n in names
               if not os.path.join(d, n).startswith(tree + "/")]
    check(not outside, f"make install PREFIX=/usr/local wrote outside the prefix: {outside}")
    keys = dict(unit_settings(os.path.join(tree, "lib/systemd/system/gpuwatch.service")))
    check(keys["ExecStart"] == "/usr/local/bin/gpuwatch agent --config /usr/local/etc/gpuwatch/gpuwatch.yaml",
          f"PREFIX=/usr/local unit: ExecStart={keys['ExecStart']}")
    # The installed binary finds the installed simulator ("the one next to gpuwatch").
    status = run([os.path.join(tree, "bin/gpuwatch"), "status", "--sim-scenario",
                  os.path.join(tree, "share/gpuwatch/scenarios/healthy-8xh200.yaml")], timeout=60)
    check(status.returncode == 0, f"the installed gpuwatch status exited {status.returncode}:\n"
          f"{status.stdout[-1500:]}{status.stderr[-1500:]}")
    check(os.path.join(ARGS.build, "sim-lib") not in status.stdout + status.stderr,
          "the installed binary used the build tree's simulator")
    # ... and the installed modules: top loads its terminal module, whose own check then refuses a pipe.
    top = run([os.path.join(tree, "bin/gpuwatch"), "top", "--sim-scenario",
               os.path.join(tree, "share/gpuwatch/scenarios/healthy-8xh200.yaml")], timeout=60)
    check("top draws on a terminal" in top.stderr and "module_missing" not in top.stderr,
          f"the installed gpuwatch top did not load the installed terminal module:\n{top.stderr[-1500:]}")
    # An agent whose HTTP server module is gone refuses to start and names the module, rather than running
    # unreachable; one-shot commands, which never serve, still work.
    server_module = os.path.join(tree, "lib/gpuwatch/gpuwatch-http-server.so")
    os.rename(server_module, server_module + ".moved")
    try:
        agent = run([os.path.join(tree, "bin/gpuwatch"), "agent", "--listen", "127.0.0.1:0", "--store", "off",
                     "--data-dir", os.path.join(base, "agent-state"), "--sim-scenario",
                     os.path.join(tree, "share/gpuwatch/scenarios/healthy-8xh200.yaml")], timeout=60)
        check(agent.returncode == 5 and "module_missing: the HTTP server module" in agent.stderr
              and server_module in agent.stderr,
              f"the installed agent without its server module exited {agent.returncode}:\n{agent.stderr[-1500:]}")
        status = run([os.path.join(tree, "bin/gpuwatch"), "status", "--sim-scenario",
                      os.path.join(tree, "share/gpuwatch/scenarios/healthy-8xh200.yaml")], timeout=60)
        check(status.returncode == 0, f"gpuwatch status needed the server module:\n{status.stderr[-1500:]}")
    finally:
        os.rename(server_module + ".moved", server_module)
    # Without the TLS client module an https agent URL is refused by name; plain http needs no module.
    tls_module = os.path.join(tree, "lib/gpuwatch/gpuwatch-tls-client.so")
    os.rename(tls_module, tls_module + ".moved")
    try:
        query = run([os.path.join(tree, "bin/gpuwatch"), "query", "--url", "https://127.0.0.1:1", "--data-dir",
                     os.path.join(base, "agent-state"), "up"], timeout=60)
        check(query.returncode == 5 and "module_missing: the TLS client module" in query.stderr
              and tls_module in query.stderr,
              f"gpuwatch query over https without the TLS module exited {query.returncode}:\n{query.stderr[-1500:]}")
        query = run([os.path.join(tree, "bin/gpuwatch"), "query", "--url", "http://127.0.0.1:1", "--data-dir",
                     os.path.join(base, "agent-state"), "up"], timeout=60)
        check("module_missing" not in query.stderr, f"plain http needed the TLS module:\n{query.stderr[-1500:]}")
    finally:
        os.rename(tls_module + ".moved", tls_module)

    # An edited config survives a reinstall; the example stays beside the docs.
    config = os.path.join(tree, "etc/gpuwatch/gpuwatch.yaml")
    with open(config, "a") as f:
        f.write("# edited by the admin\n")
    again = install_into(dest, "/usr/local")
    check("edited by the admin" in open(config).read(), "a reinstall replaced the edited config")
    check("Keeping: " in again.stdout, "a reinstall did not say it keeps the config")

    # PREFIX=/usr: the config goes to /etc/gpuwatch, as the .deb has it.
    dest = os.path.join(base, "usr")
    install_into(dest, "/usr")
    check(os.path.isfile(os.path.join(dest, "etc/gpuwatch/gpuwatch.yaml")),
          "PREFIX=/usr: no /etc/gpuwatch/gpuwatch.yaml")
    check(not os.path.exists(os.path.join(dest, "usr/etc")), "PREFIX=/usr: a /usr/etc was made")
    keys = dict(unit_settings(os.path.join(dest, UNIT)))
    check(keys["ExecStart"] == "/usr/bin/gpuwatch agent --config /etc/gpuwatch/gpuwatch.yaml",
          f"PREFIX=/usr unit: ExecStart={keys['ExecStart']}")
    shutil.rmtree(base, ignore_errors=True)
    print("ok: make install honours DESTDIR and PREFIX (/usr/local, /usr); the installed binary finds its "
          "simulator and its modules; an edited config is kept")


# ---------------------------------------------------------------------------------------------------------------
# The container image


def dockerfile_instructions(path):
    """[(INSTRUCTION, arguments)], continuation lines joined, comments dropped."""
    out, current = [], ""
    for line in open(path):
        stripped = line.strip()
        if not stripped or (stripped.startswith("#") and not current):
            continue
        if stripped.startswith("#"):
            continue
        current += " " + stripped[:-1] if stripped.endswith("\\") else " " + stripped
        if not stripped.endswith("\\"):
            word, _, rest = current.strip().partition(" ")
            out.append((word.upper(), rest.strip()))
            current = ""
    return out


def dockerfile():
    path = os.path.join(ARGS.source, "deploy/container/Dockerfile")
    steps = dockerfile_instructions(path)
    args = dict(re.match(r"(\w+)=(\S+)", a).groups() for i, a in steps if i == "ARG" and "=" in a)
    stages, current = [], None
    for instruction, rest in steps:
        if instruction == "FROM":
            image = re.sub(r"\$\{(\w+)\}", lambda m: args.get(m.group(1), ""), rest.split()[0])
            current = {"image": image, "steps": []}
            stages.append(current)
        elif current is not None:
            current["steps"].append((instruction, rest))
    check(len(stages) >= 2, "the Dockerfile should build in one stage and run in another")
    for stage in stages:
        check(stage["image"].startswith("debian:"), f"stage FROM {stage['image']}: not a Debian base")
    build, final = stages[0]["steps"], stages[-1]["steps"]
    check(any(i == "RUN" and "scripts/install-deps.sh" in r for i, r in build),
          "the build stage does not install its packages with scripts/install-deps.sh")
    for instruction, rest in steps:
        check(instruction != "ADD", f"ADD {rest}: use COPY (nothing is fetched at build time)")
        check(not (instruction == "RUN" and re.search(r"\b(curl|wget|git clone)\b", rest)),
              f"RUN {rest[:80]}: downloads at build time")
        if instruction == "COPY" and "--from=" not in rest:
            for src in rest.split()[:-1]:
                check(os.path.exists(os.path.join(ARGS.source, src)), f"COPY {src}: no such path in the repository")
    users = [r for i, r in final if i == "USER"]
    check(users, "the runtime stage sets no USER: it would run as root")
    uid = users[-1].split(":")[0]
    check(uid.isdigit() and int(uid) != 0, f"USER {users[-1]}: want a numeric non-root uid (runAsNonRoot checks it)")
    check(("EXPOSE", "19400") in final, "the runtime stage does not EXPOSE 19400")
    entry = [r for i, r in final if i == "ENTRYPOINT"]
    check(entry and "/usr/bin/gpuwatch" in entry[-1], f"ENTRYPOINT {entry}: not the packaged binary")
    for instruction, rest in final:
        if instruction == "HEALTHCHECK":
            check(rest.startswith("NONE") or "gpuwatch" in rest, f"HEALTHCHECK {rest}: needs a tool the image lacks")
    daemonset = open(os.path.join(ARGS.source, "deploy/kubernetes/daemonset.yaml")).read()
    check(f"runAsUser: {uid}" in daemonset, f"the DaemonSet's runAsUser is not the image's uid {uid}")
    ignore = open(os.path.join(ARGS.source, ".dockerignore")).read().split()
    for pattern in ("build", "build-*", ".git"):
        check(pattern in ignore, f".dockerignore does not leave out {pattern}")
    print(f"ok: Dockerfile: {len(stages)} Debian stages, packages from install-deps.sh, runs as uid {uid}, "
          "EXPOSE 19400, the packaged binary")
    hadolint = shutil.which("hadolint")
    if hadolint:
        run_ok([hadolint, path], "hadolint")
        print("ok: hadolint")
    else:
        print("note: hadolint is not installed (Debian has no package for it); the static checks above stand in")


def container_engine():
    for engine in ("docker", "podman"):
        if shutil.which(engine) and run([engine, "info"], timeout=30).returncode == 0:
            return engine
    return None


def container_image():
    engine = container_engine()
    if engine is None:
        skip("no container engine runs here (docker or podman whose `info` answers): the image is not built; "
             "install.dockerfile checks its definition")
    if os.environ.get("GPUWATCH_TEST_CONTAINER") != "1":
        skip(f"{engine} runs, but building the image is a full build: set GPUWATCH_TEST_CONTAINER=1 to run it")
    tag = f"gpuwatch-test:{ARGS.version}"
    run_ok([engine, "build", "-f", "deploy/container/Dockerfile", "-t", tag, "."], f"{engine} build",
           cwd=ARGS.source, timeout=2300)
    name = f"gpuwatch-test-{os.getpid()}"
    run_ok([engine, "run", "-d", "--rm", "--name", name, "-p", "127.0.0.1::19400", "--read-only",
            "--tmpfs", "/var/lib/gpuwatch:uid=19400,gid=19400", "--cap-drop", "ALL", tag, "agent",
            "--sim-scenario", "/usr/share/gpuwatch/scenarios/healthy-8xh200.yaml"], f"{engine} run")
    try:
        port = run_ok([engine, "port", name, "19400/tcp"], f"{engine} port").stdout.split(":")[-1].strip()
        url = f"http://127.0.0.1:{port}"
        wait_for(lambda: http_get(url + "/readyz")[0] == 200, 60, "the container's /readyz")
        check("gpu_temperature_celsius" in http_get(url + "/metrics")[1], "the container's /metrics has no GPUs")
        user = run_ok([engine, "exec", name, "id", "-u"], f"{engine} exec id").stdout.strip()
        check(user == "19400", f"the container runs as uid {user}")
    finally:
        run([engine, "rm", "-f", name], timeout=60)
    print(f"ok: {engine} built the image; it ran the agent on the simulator as uid 19400, read-only, no capabilities")


CHECKS = {
    "deb-build": deb_build, "deb-contents": deb_contents, "deb-agent": deb_agent, "unit-verify": unit_verify,
    "lintian": lintian, "make-install": make_install, "dockerfile": dockerfile, "container-image": container_image,
}


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    for flag in ("--source", "--build", "--work", "--version"):
        parser.add_argument(flag, required=True)
    parser.add_argument("check", choices=sorted(CHECKS))
    ARGS = parser.parse_args()
    try:
        CHECKS[ARGS.check]()
    except Failure as e:
        print("FAIL:", e)
        sys.exit(1)


main()
