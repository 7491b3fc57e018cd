#!/usr/bin/env bash
# Times `vigil explain` of this tree against an earlier revision, on one
# core, the two alternated: on a shared machine whose speed drifts by tens
# of percent from minute to minute, runs of one binary after the other
# compare the minutes rather than the binaries.
#
#   bench/explain_ab.sh REV                  # 200 MB dense log, 8 rounds
#   DENSE= SIZE=1G bench/explain_ab.sh REV   # the normal log
#   ROUNDS=12 bench/explain_ab.sh REV
#
# Each round runs both binaries once, pinned to one CPU with taskset (Go
# then runs on one core, so the time is CPU time); it prints each round
# and, per binary, the best time and the mean of the per-round ratios.
set -euo pipefail
cd "$(dirname "$0")/.."

rev=${1:?usage: bench/explain_ab.sh REV}
size=${SIZE:-200M}
dense=${DENSE-1}
rounds=${ROUNDS:-8}
tmp=$(mktemp -d)
cleanup() {
  git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

git worktree add -q --detach "$tmp/base" "$rev"
(cd "$tmp/base" && CGO_ENABLED=0 go build -o "$tmp/vigil.base" ./cmd/vigil)
CGO_ENABLED=0 go build -o "$tmp/vigil.new" ./cmd/vigil
go build -o "$tmp/genlog" ./bench/genlog
gen=(-size "$size" -o "$tmp/log")
if [ -n "$dense" ]; then
  gen+=(-dense)
fi
"$tmp/genlog" "${gen[@]}"
cat "$tmp/log" >/dev/null

cpu=$(taskset -pc $$ | sed 's/.*: *//; s/[,-].*//')
one() {
  local out
  out=$( { TIMEFORMAT='%R'; time taskset -c "$cpu" "$1" explain "$tmp/log" >"$tmp/out" 2>/dev/null; } 2>&1 ) || true
  echo "$out"
}
echo "log: $(stat -c %s "$tmp/log") bytes${dense:+, dense}; $rev against this tree, one core (CPU $cpu), $rounds rounds"
for r in $(seq "$rounds"); do
  b=$(one "$tmp/vigil.base")
  n=$(one "$tmp/vigil.new")
  echo "round $r: $rev ${b}s, this tree ${n}s"
done | tee "$tmp/rounds"
awk '{ b = $4 + 0; n = $7 + 0; if (NR == 1 || b < mb) mb = b; if (NR == 1 || n < mn) mn = n; q += n / b }
  END { printf "best: %s %.3fs, this tree %.3fs; mean per-round ratio %.3f (this tree / %s)\n", rev, mb, mn, q / NR, rev }' rev="$rev" "$tmp/rounds"
