#!/usr/bin/env bash
# Runs every fuzz target of a sanitizer build for a while and prints one line per target: how long it ran,
# how many inputs it tried, how large its corpus grew, and whether it found a crash (the input is kept as
# <build>/tests/fuzz/<target>-crash-* to rerun with `<target> FILE`).
# Usage: scripts/fuzz.sh BUILD_DIR SECONDS_PER_TARGET [TARGET...]
set -uo pipefail
build=${1:?usage: fuzz.sh BUILD_DIR SECONDS [TARGET...]}
seconds=${2:?usage: fuzz.sh BUILD_DIR SECONDS [TARGET...]}
shift 2
repo=$(cd "$(dirname "$0")/.." && pwd)
dir="$build/tests/fuzz"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for t in "$dir"/fuzz_*; do [ -x "$t" ] && [ -f "$t" ] && targets+=("$(basename "$t")"); done
fi
[ ${#targets[@]} -gt 0 ] || { echo "fuzz: no fuzz targets in $dir (run make sanitized)" >&2; exit 2; }

failed=0
printf '%-20s %8s %12s %8s %s\n' target seconds inputs corpus result
for t in "${targets[@]}"; do
  mkdir -p "$dir/corpus/$t"
  log="$dir/$t.log"
  start=$(date +%s)
  "$dir/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$dir/$t-" "$dir/corpus/$t" "$repo/tests/fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  took=$(( $(date +%s) - start ))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  size=$(find "$dir/corpus/$t" -type f | wc -l)
  result="ok"
  if [ $rc -ne 0 ]; then
    result="FAILED (exit $rc; see $log)"
    failed=1
  fi
  printf '%-20s %8s %12s %8s %s\n' "$t" "$took" "${runs:-?}" "$size" "$result"
done
exit $failed
