#!/usr/bin/env bash
# test_under_load.sh: the whole test suite, RUNS times in a row, while
# busy loops keep every core loaded (what `stress -c N` does), so that a
# test whose result depends on the machine's speed shows up. Each busy
# loop ends by itself after LIMIT seconds and is also killed, by its PID,
# when the script ends. It prints one line per run and exits 1 if any run
# failed; each run's output is kept in OUT.
#
# Usage: bench/test_under_load.sh [PACKAGES...]      (default ./...)
# Env:   RUNS=3 LOAD=<cores> LIMIT=3600 OUT=<temp dir> GOFLAGS_TEST="-race -timeout 30m" (a loaded machine runs e2e past go test's 10-minute default)
set -uo pipefail
cd "$(dirname "$0")/.."

runs=${RUNS:-3} load=${LOAD:-$(nproc)} limit=${LIMIT:-3600}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
pkgs=("$@")
[ ${#pkgs[@]} -eq 0 ] && pkgs=(./...)
read -r -a testflags <<<"${GOFLAGS_TEST:--race -timeout 30m}"

hogs=()
cleanup() {
	for pid in "${hogs[@]}"; do
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
}
trap cleanup EXIT

for _ in $(seq "$load"); do
	# A bounded spin: it ends by itself even if the trap never runs.
	bash -c 'end=$((SECONDS + '"$limit"')); while [ "$SECONDS" -lt "$end" ]; do :; done' &
	hogs+=("$!")
done
echo "load: $load busy loops (pids ${hogs[*]}), up to ${limit}s; output in $out"

failed=0
for i in $(seq "$runs"); do
	t0=$SECONDS
	if go test -count=1 "${testflags[@]}" "${pkgs[@]}" >"$out/run$i.txt" 2>&1; then
		echo "run $i: ok ($((SECONDS - t0))s, load average $(cut -d' ' -f1-3 /proc/loadavg))"
	else
		failed=1
		echo "run $i: FAIL ($((SECONDS - t0))s): $(grep -E '^(--- FAIL|FAIL|panic)' "$out/run$i.txt" | head -5 | tr '\n' ' ')"
	fi
done
exit "$failed"
