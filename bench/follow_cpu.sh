#!/usr/bin/env bash
# follow_cpu.sh: what `vigil watch --log FILE` costs while the log grows at
# a steady rate. A writer (bench/linewriter) appends RATE lines per second
# in bursts of BURST lines, one write per line, for SECS seconds; vigil
# watches the file. It prints vigil's CPU time as a share of one core and
# per 1,000 lines/s, its voluntary context switches per line (all threads), and the
# writer's own CPU for scale. Beside vigil, on the same file, runs
# bench/followfloor: the least a Go follower of this design (fsnotify, a 3 ms
# coalescing window, one read to the end) costs; the last line is vigil's CPU
# over the floor's, both measured in this run.
#
# Usage: bench/follow_cpu.sh            (Linux: reads /proc)
# Env:   VIGIL=/path/to/vigil; RATE=1000 BURST=10 SECS=10
set -euo pipefail
cd "$(dirname "$0")/.."

rate=${RATE:-1000} burst=${BURST:-10} secs=${SECS:-10}
tmp=$(mktemp -d)
writer_pid="" vigil_pid="" floor_pid=""
cleanup() {
	local p
	for p in "$vigil_pid" "$floor_pid" "$writer_pid"; do
		[ -n "$p" ] || continue
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

vigil=${VIGIL:-}
if [ -z "$vigil" ]; then
	vigil=$tmp/vigil
	go build -o "$vigil" ./cmd/vigil
fi
go build -o "$tmp/linewriter" ./bench/linewriter
go build -o "$tmp/followfloor" ./bench/followfloor
hz=$(getconf CLK_TCK)

# cpu PID: user + system clock ticks of the process, all threads.
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# switches PID: voluntary context switches (a thread waiting for work),
# all threads; involuntary ones only say how busy the machine is.
switches() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^voluntary_ctxt_switches/ {s += $2} END {print s}'; }

: >"$tmp/server.log"
"$tmp/linewriter" -o "$tmp/server.log" -rate "$rate" -burst "$burst" -for "$((secs + 2))s" >"$tmp/writer.out" &
writer_pid=$!
# A closed port: health probes fail fast; the log alone drives vigil.
"$vigil" watch --log "$tmp/server.log" --pid "$writer_pid" --server vllm --url http://127.0.0.1:9 \
	--no-history --timeout 10m --stall-after 10m >/dev/null 2>&1 &
vigil_pid=$!
"$tmp/followfloor" "$tmp/server.log" >"$tmp/floor.out" &
floor_pid=$!
sleep 1 # let vigil start and catch up
c0=$(cpu "$vigil_pid") s0=$(switches "$vigil_pid") l0=$(wc -l <"$tmp/server.log")
f0=$(cpu "$floor_pid") fs0=$(switches "$floor_pid")
sleep "$secs"
c1=$(cpu "$vigil_pid") s1=$(switches "$vigil_pid") l1=$(wc -l <"$tmp/server.log")
f1=$(cpu "$floor_pid") fs1=$(switches "$floor_pid")
wait "$writer_pid" || true
writer_pid=""
read -r wcpu wlines <"$tmp/writer.out"

lines=$((l1 - l0))
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "writer:  $rate lines/s in bursts of $burst, one write per line; its own CPU ${wcpu} ms for $wlines lines"
awk -v c="$((c1 - c0))" -v f="$((f1 - f0))" -v hz="$hz" -v s="$secs" -v n="$lines" -v sw="$((s1 - s0))" -v fsw="$((fs1 - fs0))" -v r="$rate" -v w="$wcpu" -v wl="$wlines" 'BEGIN {
	ms = c * 1000 / hz
	fms = f * 1000 / hz
	printf "vigil:   %.0f ms CPU over %d s and %d lines: %.2f%% of a core, %.2f%% per 1,000 lines/s, %.2f voluntary context switches per line\n", ms, s, n, ms / (s * 10), ms / (s * 10) * 1000 / r, sw / n
	if (w > 0) printf "         %.2fx the writer'"'"'s own CPU per line\n", (ms / n) / (w / wl)
	printf "floor:   %.0f ms CPU: %.2f%% of a core, %.2f voluntary context switches per line (bench/followfloor)\n", fms, fms / (s * 10), fsw / n
	if (fms > 0) printf "ratio:   %.2f (vigil / floor)\n", ms / fms
}'
