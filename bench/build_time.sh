#!/usr/bin/env bash
# What a from-scratch build costs, as CI builds it (no ccache): the main tree (`make build`) and the sanitizer
# tree's `sanitized` target, each configured afresh in a temporary directory. On a machine shared with other
# builds wall time says little, so every compile and link runs under /usr/bin/time and the figures are CPU
# seconds (user + sys), summed per tree, with the costliest objects. docs/benchmarks.md, "Build time".
#   bench/build_time.sh [WORK_DIR]     (default: a new directory under /tmp; kept, with the per-object logs)
# Knobs (environment): JOBS (nproc), TREES ("main sanitize"), TOP (15 objects listed per tree).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d /tmp/gpuwatch-build-time.XXXXXX)}
jobs=${JOBS:-$(nproc)}
mkdir -p "$work"

# The launcher every compile and link goes through: one line per output, "user sys wall output".
launcher=$work/cpu_launcher.sh
cat >"$launcher" <<'EOF'
#!/usr/bin/env bash
out=unknown prev=
for a in "$@"; do [ "$prev" = "-o" ] && out=$a; prev=$a; done
exec /usr/bin/time -f "%U %S %e $out" -a -o "$CPU_LOG" "$@"
EOF
chmod +x "$launcher"
launch=(-DCMAKE_C_COMPILER_LAUNCHER="$launcher" -DCMAKE_CXX_COMPILER_LAUNCHER="$launcher"
        -DCMAKE_C_LINKER_LAUNCHER="$launcher" -DCMAKE_CXX_LINKER_LAUNCHER="$launcher")

for tree in ${TREES:-main sanitize}; do
  dir=$work/$tree
  rm -rf "$dir"
  case $tree in
    main) flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUWATCH_WERROR=ON) target=all ;;
    sanitize) flags=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Sanitize
                     -DGPUWATCH_SANITIZE=ON -DGPUWATCH_WERROR=ON) target=sanitized ;;
    *) echo "build_time: unknown tree $tree (main, sanitize)" >&2; exit 1 ;;
  esac
  cmake -S "$root" -B "$dir" -G Ninja "${flags[@]}" "${launch[@]}" >"$work/$tree-configure.log"
  log=$work/$tree.cpu
  : >"$log"
  CPU_LOG=$log CCACHE_DISABLE=1 /usr/bin/time -f '%e %U %S' -o "$work/$tree.total" \
    ninja -C "$dir" -j "$jobs" "$target" >"$work/$tree-build.log"
  read -r wall user sys <"$work/$tree.total"
  echo "$tree: $(wc -l <"$log") steps, $(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.0f", u + s}') CPU s" \
       "(user $user, sys $sys), $wall s wall at -j $jobs"
  awk '{printf "%8.1f  %s\n", $1 + $2, $4}' "$log" | sort -rn | head -n "${TOP:-15}"
done
echo "logs: $work"
