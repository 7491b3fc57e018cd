#!/bin/sh
# A server that says it is ready and then keeps logging: it writes
# $HEAD_FILE (a startup through its ready line), then one line every 0.1 s
# until it is killed. Its pid goes to $SERVER_PIDFILE.
echo $$ > "$SERVER_PIDFILE"
cat "$HEAD_FILE"
i=0
while :; do
	i=$((i + 1))
	echo "[2026-11-29 10:00:11 TP0] Decode batch. #running-req: 1, #token: $i, token usage: 0.00, gen throughput (token/s): 50.00, #queue-req: 0"
	sleep 0.1
done
