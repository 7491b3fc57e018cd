#!/usr/bin/env bash
# Times `vigil explain` against grep on the same 1 GB real-shaped log.
#
#   bench/explain_vs_grep.sh            # 1 GB, several runs with serving traffic
#   SIZE=200M bench/explain_vs_grep.sh  # smaller
#   DENSE=1 bench/explain_vs_grep.sh    # worst case: startups back to back
#   VIGIL=/path/to/vigil bench/...      # an already built binary
#   ROUNDS=9 bench/explain_vs_grep.sh   # more turns of each tool
#
# The log is generated (bench/genlog) from the scenarios' real line formats
# of all five servers: several runs (restarts appended to one file) with
# tracebacks, progress bars redrawn with "\r", and each ready server's
# serving traffic after its startup. It goes to a temporary directory,
# is read once to be in the page cache for both tools, and is removed at
# the end. The two tools run in turn, ROUNDS times each (default 5): on a
# shared machine whose speed drifts from minute to minute, alternating
# gives both the same minutes. The best wall time of each counts (its CPU
# time is shown too: explain uses both cores, so a busy machine slows it
# more than grep). The last line is the ratio of wall times, explain/grep
# (at most 1.00: explain is at least as fast).
set -euo pipefail
cd "$(dirname "$0")/.."

size=${SIZE:-1G}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

vigil=${VIGIL:-}
if [ -z "$vigil" ]; then
  vigil=$tmp/vigil
  CGO_ENABLED=0 go build -o "$vigil" ./cmd/vigil
fi
if ! "$vigil" explain --help >/dev/null 2>&1; then
  echo "explain_vs_grep: $vigil has no explain command" >&2
  exit 2
fi
go build -o "$tmp/genlog" ./bench/genlog
gen=(-size "$size" -o "$tmp/big.log")
if [ -n "${DENSE:-}" ]; then
  gen+=(-dense)
fi
"$tmp/genlog" "${gen[@]}"
bytes=$(stat -c %s "$tmp/big.log")
lines=$(wc -l < "$tmp/big.log")
cat "$tmp/big.log" > /dev/null

pattern='fired up|ready to roll|Traceback|out of memory|Killed|Error'

# once NAME CMD...: one timed run of CMD, appended to $tmp/NAME as its wall
# and CPU time (user + system) in seconds. Output goes to a file, not
# /dev/null: GNU grep notices /dev/null and stops at the first match.
once() {
  local name=$1 out w u s
  shift
  out=$( { TIMEFORMAT='%R %U %S'; time "$@" > "$tmp/out" 2>/dev/null; } 2>&1 ) || true
  read -r w u s <<< "$out"
  awk -v w="$w" -v u="$u" -v s="$s" 'BEGIN { printf "%s %.3f\n", w, u + s }' >> "$tmp/$name"
}

# best NAME: the best wall time among NAME's runs and that run's CPU time.
best() {
  sort -n "$tmp/$1" | head -1
}

load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
for _ in $(seq "${ROUNDS:-5}"); do
  once grep grep -c -E "$pattern" "$tmp/big.log"
  once explain "$vigil" explain "$tmp/big.log"
done
read -r g gc <<< "$(best grep)"
read -r e ec <<< "$(best explain)"
runs=$("$vigil" explain --json "$tmp/big.log" | wc -l || true)

echo "log:     $bytes bytes, $lines lines, $runs runs (${DENSE:+dense, }nproc $(nproc), load average $load)"
echo "grep:    ${g}s wall, ${gc}s CPU  grep -c -E '$pattern' FILE"
echo "explain: ${e}s wall, ${ec}s CPU  vigil explain FILE"
awk -v e="$e" -v g="$g" 'BEGIN { printf "ratio:   %.2f (explain / grep)\n", e / g }'
