#!/usr/bin/env bash
# client_cost.sh: measure vigil's benchmark client against the fast fake
# OpenAI server in bench/fakeopenai, in one run:
#
#   1. timing accuracy: mean TTFT and ITL against the injected delays (50 ms
#      before the first token, 10 ms between tokens) at concurrency 1 and 16,
#      and output tokens and tokens/s against what the server really sent,
#      also when the server stops before max_tokens and sends no usage;
#   2. CPU time per streamed 256-token request, with real delays and at the
#      highest rate;
#   3. the highest request rate the client sustains on one core
#      (GOMAXPROCS=1, pinned with taskset), with the server on another core.
#
# With python3 it also runs bench/pyfloor.py, a minimal asyncio client (a
# lower bound on the cost of Python clients such as SGLang's bench_serving),
# on the same server. It checks the issue's targets (TTFT/ITL/tok/s within
# 2%, at least 10x less CPU than bench_serving's ~2 ms per request) and
# exits 1 when one is missed.
#
# Usage: bench/client_cost.sh        (from anywhere; needs go and jq)
# Env:   QUICK=1 for fewer requests; NO_PYTHON=1 to skip the Python floor.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v jq >/dev/null || { echo "client_cost.sh: needs jq" >&2; exit 2; }
tmp=$(mktemp -d)
server_pid=""
cleanup() {
	[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/vigil" ./cmd/vigil
go build -o "$tmp/fakeopenai" ./bench/fakeopenai

# Pin the client and the server to different cores when there are two.
client_pin=() server_pin=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
	client_pin=(taskset -c 0) server_pin=(taskset -c 1)
fi

start_server() { # args for fakeopenai; sets $url
	[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
	"${server_pin[@]}" "$tmp/fakeopenai" "$@" >"$tmp/url" &
	server_pid=$!
	for _ in $(seq 50); do [ -s "$tmp/url" ] && break; sleep 0.1; done
	url=$(head -1 "$tmp/url")
}

# bench ARGS...: one vigil bench run, its JSON in $tmp/out.json. Timing runs
# are not pinned, so that a busy core (other work on the machine) does not
# delay the client; rate runs set ONE_CORE=1 to pin the client to one core.
bench() {
	if [ "${ONE_CORE:-}" ]; then
		GOMAXPROCS=1 "${client_pin[@]}" "$tmp/vigil" bench --url "$url" --json --output-len 256 "$@" >"$tmp/out.json"
	else
		"$tmp/vigil" bench --url "$url" --json --output-len 256 "$@" >"$tmp/out.json"
	fi
}

fail=0
check() { # name value limit: value must be <= limit
	if awk -v v="$2" -v l="$3" 'BEGIN{exit !(v <= l)}'; then echo "  PASS $1"; else echo "  FAIL $1"; fail=1; fi
}
pct() { awk -v got="$1" -v want="$2" 'BEGIN{d=(got-want)/want*100; printf "%+.2f", d}'; }
abs() { awk -v x="$1" 'BEGIN{print (x<0)?-x:x}'; }

n1=8 n16=64 nfast=8000
[ "${QUICK:-}" ] && n1=3 n16=32 nfast=3000

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine adds noise)"
echo "== 1. timing accuracy: server waits 50 ms for the first token, then 10 ms between tokens"
start_server -ttft 50ms -itl 10ms
for spec in "1 $n1" "16 $n16"; do
	set -- $spec
	before=$(curl -s "$url/stats" | jq .tokens)
	bench --concurrency "$1" --requests "$2" --warmup 0
	sent=$(( $(curl -s "$url/stats" | jq .tokens) - before ))
	read -r ttft itl toks toks_s dur cpu send < <(jq -r '.levels[0] | "\(.ttft_ms.mean) \(.itl_ms.mean) \(.output_tokens) \(.output_tok_s) \(.duration_s) \(.client_cpu_ms_per_req) \(.send_ms.mean)"' "$tmp/out.json")
	sent_s=$(awk -v s="$sent" -v d="$dur" 'BEGIN{printf "%.3f", s/d}')
	printf "c=%-3s TTFT %s ms (%s%%)  ITL %s ms (%s%%)  tokens %s, server sent %s  tok/s %s vs %s sent (%s%%)  send %s ms  CPU %s ms/request\n" \
		"$1" "$ttft" "$(pct "$ttft" 50)" "$itl" "$(pct "$itl" 10)" "$toks" "$sent" "$toks_s" "$sent_s" "$(pct "$toks_s" "$sent_s")" "$send" "$cpu"
	check "c=$1 TTFT within 2%" "$(abs "$(pct "$ttft" 50)")" 2
	check "c=$1 ITL within 2%" "$(abs "$(pct "$itl" 10)")" 2
	check "c=$1 tok/s within 2% of sent" "$(abs "$(pct "$toks_s" "$sent_s")")" 2
	eval "delayed_cpu_$1=$cpu"
done

echo "== server stops after 200 of 256 tokens and sends no usage (c=16)"
start_server -ttft 50ms -itl 10ms -stop-after 200 -no-usage
before=$(curl -s "$url/stats" | jq .tokens)
bench --concurrency 16 --requests 32 --warmup 0
sent=$(( $(curl -s "$url/stats" | jq .tokens) - before ))
read -r toks from toks_s dur < <(jq -r '.levels[0] | "\(.output_tokens) \(.tokens_from) \(.output_tok_s) \(.duration_s)"' "$tmp/out.json")
sent_s=$(awk -v s="$sent" -v d="$dur" 'BEGIN{printf "%.3f", s/d}')
printf "c=16  tokens %s (from %s), server sent %s  tok/s %s vs %s sent (%s%%)\n" "$toks" "$from" "$sent" "$toks_s" "$sent_s" "$(pct "$toks_s" "$sent_s")"
check "early stop: tok/s within 2% of sent" "$(abs "$(pct "$toks_s" "$sent_s")")" 2

echo "== 2-3. highest rate: server sends 256 tokens at once, client on one core"
start_server
best_rate=0 best_cpu=0 best_util=0 best_c=0
for c in 16 64; do
	ONE_CORE=1 bench --concurrency "$c" --requests "$nfast" --warmup 1
	read -r rate cpu toks_s dur < <(jq -r '.levels[0] | "\(.req_s) \(.client_cpu_ms_per_req) \(.output_tok_s) \(.duration_s)"' "$tmp/out.json")
	util=$(awk -v c="$cpu" -v n="$nfast" -v d="$dur" 'BEGIN{printf "%.0f", c*n/1000/d*100}')
	printf "c=%-3s %s req/s (%s tok/s), CPU %s ms/request, client core %s%% busy\n" "$c" "$rate" "$toks_s" "$cpu" "$util"
	if awk -v a="$rate" -v b="$best_rate" 'BEGIN{exit !(a > b)}'; then best_rate=$rate best_cpu=$cpu best_util=$util best_c=$c; fi
done
echo "one core sustains $best_rate req/s at c=$best_c (client core ${best_util}% busy; below 100% the server was the limit)"
awk -v r="$best_rate" -v u="$best_util" 'BEGIN{ if (u > 0) printf "at 100%% of its core the client would sustain about %.0f req/s (%.1fM tokens/s)\n", r*100/u, r*100/u*256/1e6 }'
check "CPU per 256-token request <= 0.2 ms (10x under bench_serving's ~2 ms)" "$best_cpu" 0.2

if [ -z "${NO_PYTHON:-}" ] && command -v python3 >/dev/null; then
	echo "== Python asyncio floor (bench/pyfloor.py) on the same server and core"
	py=$("${client_pin[@]}" python3 bench/pyfloor.py "$url" 16 $((nfast / 4)) 256 1024)
	echo "highest rate, c=16: $py"
	py_fast=$(echo "$py" | jq .cpu_ms_per_req)
	start_server -ttft 50ms -itl 10ms
	py=$("${client_pin[@]}" python3 bench/pyfloor.py "$url" 16 32 256 1024)
	echo "50 ms / 10 ms delays, c=16: $py"
	py_slow=$(echo "$py" | jq .cpu_ms_per_req)
	awk -v a="$py_fast" -v b="$best_cpu" -v c="$py_slow" -v d="$delayed_cpu_16" 'BEGIN{
		printf "vigil uses %.1fx less CPU per request than the Python floor at the highest rate, %.1fx with delays (c=16)\n", a/b, c/d}'
fi

echo "== summary: CPU per 256-token request: ${best_cpu} ms at the highest rate, ${delayed_cpu_16} ms (c=16) and ${delayed_cpu_1} ms (c=1) with 50 ms / 10 ms delays"
exit $fail
