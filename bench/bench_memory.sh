#!/usr/bin/env bash
# bench_memory.sh: the benchmark client's peak memory (RSS) against the
# number of requests. It runs `vigil bench` at the highest rate (the fake
# server in bench/fakeopenai sends all 256 tokens at once) for a growing
# number of requests and prints each run's maximum RSS. Latencies go into
# fixed-size histograms, so RSS should stay flat; the issue's limit is
# 64 MB at 20,000 requests of 256 tokens, checked at the end (exit 1 on a
# miss).
#
# Usage: bench/bench_memory.sh           (needs go, jq and GNU time)
# Env:   VIGIL=/path/to/vigil to measure an already built binary;
#        CONC=16 the concurrency; COUNTS="2000 20000" the request counts.
set -euo pipefail
cd "$(dirname "$0")/.."

[ -x /usr/bin/time ] || { echo "bench_memory.sh: needs GNU time (/usr/bin/time)" >&2; exit 2; }
command -v jq >/dev/null || { echo "bench_memory.sh: needs jq" >&2; exit 2; }
tmp=$(mktemp -d)
server_pid=""
cleanup() {
	[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

vigil=${VIGIL:-}
if [ -z "$vigil" ]; then
	vigil=$tmp/vigil
	go build -o "$vigil" ./cmd/vigil
fi
go build -o "$tmp/fakeopenai" ./bench/fakeopenai
"$tmp/fakeopenai" >"$tmp/url" &
server_pid=$!
for _ in $(seq 50); do [ -s "$tmp/url" ] && break; sleep 0.1; done
url=$(head -1 "$tmp/url")

conc=${CONC:-16}
fail=0
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); concurrency $conc, 256 tokens per request"
for n in ${COUNTS:-2000 5000 20000}; do
	/usr/bin/time -f '%M' -o "$tmp/rss" "$vigil" bench --url "$url" --json --output-len 256 \
		--concurrency "$conc" --requests "$n" --warmup 1 >"$tmp/out.json"
	kb=$(tail -1 "$tmp/rss")
	read -r done itl99 < <(jq -r '.levels[0] | "\(.completed) \(.itl_ms.p99)"' "$tmp/out.json")
	printf "requests %6d  completed %6d  max RSS %6.1f MB  ITL p99 %s ms\n" "$n" "$done" "$(awk -v k="$kb" 'BEGIN{print k/1024}')" "$itl99"
	if [ "$n" -eq 20000 ] && [ "$kb" -gt $((64 * 1024)) ]; then
		echo "  FAIL max RSS over 64 MB at 20,000 requests"
		fail=1
	fi
done
exit $fail
