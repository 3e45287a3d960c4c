# Helpers the side-by-side benchmark scripts share (wait_ready calls the script's `die`): a work folder and the
# servers they start, both removed or stopped on exit; waiting for a server; a process's CPU time.

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Waits (at most 15 s) until URL answers 200; fails if PID exits first.
wait_ready() {
  local url=$1 pid=$2
  for _ in $(seq 1 150); do
    curl -fsSk -o /dev/null "$url" 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || die "the server for $url exited (log: see above)"
    sleep 0.1
  done
  die "$url did not answer within 15 s"
}

# utime+stime of PID, in seconds.
cpu_seconds() {
  local stat
  stat=$(<"/proc/$1/stat")
  stat=${stat##*) }  # the command name may hold spaces: fields start after its closing parenthesis
  read -r -a f <<<"$stat"
  awk -v u="${f[11]}" -v s="${f[12]}" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.6f", (u + s) / hz}'
}
