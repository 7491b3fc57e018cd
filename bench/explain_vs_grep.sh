#!/usr/bin/env bash
# Times `vigil explain` against grep on the same 1 GB real-shaped log.
#
#   bench/explain_vs_grep.sh            # 1 GB, several runs with serving traffic
#   SIZE=200M bench/explain_vs_grep.sh  # smaller
#   DENSE=1 bench/explain_vs_grep.sh    # worst case: startups back to back
#   VIGIL=/path/to/vigil bench/...      # an already built binary
#
# The log is generated (bench/genlog) from the scenarios' real line formats
# of all five servers: several runs (restarts appended to one file) with
# tracebacks, progress bars redrawn with "\r", and each ready server's
# serving traffic after its startup. It goes to a temporary directory,
# is read once to be in the page cache for both tools, and is removed at
# the end. Each tool runs three times; the best wall time counts (its CPU
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

# best CMD...: the best wall time of three runs and the CPU time (user +
# system) of that run, in seconds. Output goes to a file, not /dev/null:
# GNU grep notices /dev/null and stops at the first match.
best() {
  local bw="" bc="" out w u s
  for _ in 1 2 3; do
    out=$( { TIMEFORMAT='%R %U %S'; time "$@" > "$tmp/out" 2>/dev/null; } 2>&1 ) || true
    read -r w u s <<< "$out"
    if [ -z "$bw" ] || awk -v a="$w" -v b="$bw" 'BEGIN { exit !(a < b) }'; then
      bw=$w
      bc=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f", u + s }')
    fi
  done
  echo "$bw $bc"
}

load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
read -r g gc <<< "$(best grep -c -E "$pattern" "$tmp/big.log")"
read -r e ec <<< "$(best "$vigil" explain "$tmp/big.log")"
runs=$("$vigil" explain --json "$tmp/big.log" | wc -l || true)

echo "log:     $bytes bytes, $lines lines, $runs runs (${DENSE:+dense, }nproc $(nproc), load average $load)"
echo "grep:    ${g}s wall, ${gc}s CPU  grep -c -E '$pattern' FILE"
echo "explain: ${e}s wall, ${ec}s CPU  vigil explain FILE"
awk -v e="$e" -v g="$g" 'BEGIN { printf "ratio:   %.2f (explain / grep)\n", e / g }'
