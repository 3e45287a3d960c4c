#!/usr/bin/env bash
# Installs the Debian packages that gpuwatch's build, tests, demo and benchmarks need, and the npm packages of
# the install tests (tests/install/package.json) and of the web dashboards (web/package.json: the bundler that
# rebuilds web/dist, uPlot, and playwright-core, which drives Debian's chromium in the browser tests).
# Idempotent and fast when everything is present: it asks dpkg first and calls apt only for what is missing.
#   scripts/install-deps.sh          everything
#   scripts/install-deps.sh build    only what building and packaging gpuwatch needs (the container's build stage)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  # build (GTest too: configuring the tree finds it)
  cmake ninja-build g++ pkg-config make libgtest-dev libgmock-dev
  # libraries
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libcpp-httplib-dev zlib1g-dev libzstd-dev libfmt-dev libspdlog-dev
  libsqlite3-dev sqlite3 libmicrohttpd-dev libgnutls28-dev libre2-dev libncurses-dev
  # the HTTP client: Boost.Beast (header-only) for http://; OpenSSL in the TLS client module for https://
  libboost-dev libssl-dev
  # SLOs' calendar periods: civil time and time zones (abseil's time library; the zones from tzdata)
  libabsl-dev tzdata
  # the kubelet's PodResources API (gRPC over a unix socket; the client and the tests' fake kubelet)
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  # remote write: protobuf messages (protoc generates them at build time) and snappy
  libsnappy-dev
  # the listener: bcrypt (libxcrypt's crypt_r) for basic auth; TLS is GnuTLS, above
  libcrypt-dev
  # packaging: the .deb (CPack's DEB generator: dpkg-deb, dpkg-shlibdeps, file)
  dpkg-dev file gzip
)
if [ "${1:-all}" != "build" ]; then
  packages+=(
    # tests (clang and its runtime libraries for the sanitizer build and the fuzz targets)
    clang libclang-rt-14-dev prometheus prometheus-alertmanager curl
    # gpuwatch top's tests drive it in a tmux session (send-keys, capture-pane)
    tmux procps
    # remote-write receivers; certificates the TLS tests make
    victoria-metrics gnutls-bin openssl
    # install tests: the package's checks, the unit's (systemd-analyze), the manifests' schemas (node, npm)
    lintian systemd util-linux nodejs
    # the web dashboards' browser tests (driven by playwright-core from web/node_modules)
    chromium
    # benchmarks
    libbenchmark-dev prometheus-node-exporter wrk hyperfine linux-perf valgrind python3 time iproute2
    # style
    clang-format
  )
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Debian's nodejs may come without npm (another vendor's nodejs bundles it): then Debian's npm package, in the same
# apt call (one `apt-get update` on a fresh machine, not two).
if [ "${1:-all}" != "build" ] && ! command -v npm >/dev/null 2>&1; then
  missing+=(npm)
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if [ ${#missing[@]} -ne 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
  # The Debian packages start services we do not want running in the background of a build machine.
  for svc in prometheus prometheus-alertmanager prometheus-node-exporter victoria-metrics; do
    if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet "$svc" 2>/dev/null; then
      $SUDO systemctl stop "$svc" || true
    fi
  done
fi

# The npm packages the install tests validate the Kubernetes manifests with, and the web dashboards' bundler and
# browser driver, as the lock files pin them.
if [ "${1:-all}" != "build" ]; then
  for dir in tests/install web; do
    lock=$dir/package-lock.json
    stamp=$dir/node_modules/.package-lock.json
    if [ ! -f "$stamp" ] || [ "$lock" -nt "$stamp" ]; then
      echo "install-deps: npm ci in $dir"
      npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error
    fi
  done
fi
