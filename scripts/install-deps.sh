#!/usr/bin/env bash
# Installs the Debian packages that gpuwatch's build, tests, demo and benchmarks need.
# Idempotent and fast when everything is present: it asks dpkg first and calls apt only for what is missing.
set -euo pipefail

packages=(
  # build
  cmake ninja-build g++ pkg-config make
  # libraries
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libcpp-httplib-dev zlib1g-dev libzstd-dev libfmt-dev libspdlog-dev
  libsqlite3-dev sqlite3 libmicrohttpd-dev libgnutls28-dev libre2-dev
  # tests (clang and its runtime libraries for the sanitizer build and the fuzz targets)
  libgtest-dev libgmock-dev clang libclang-rt-14-dev prometheus prometheus-alertmanager curl
  # benchmarks
  libbenchmark-dev prometheus-node-exporter victoria-metrics wrk hyperfine linux-perf valgrind python3
  # style
  clang-format
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
# The Debian packages start services we do not want running in the background of a build machine.
for svc in prometheus prometheus-alertmanager prometheus-node-exporter victoria-metrics; do
  if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet "$svc" 2>/dev/null; then
    $SUDO systemctl stop "$svc" || true
  fi
done
