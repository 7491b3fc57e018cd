#!/bin/sh
# A server that writes the files $CHUNKS_DIR/0, 1, 2, ... to stdout in
# order, $CHUNK_DELAY seconds apart, then exits with $EXIT_CODE, or with
# EXIT_CODE=hang stays (idle) until it is killed. The log vigil writes must
# be exactly the chunks, byte for byte. Its pid goes to $SERVER_PIDFILE.
echo $$ > "$SERVER_PIDFILE"
i=0
while [ -f "$CHUNKS_DIR/$i" ]; do
	if [ "$i" -gt 0 ]; then
		sleep "$CHUNK_DELAY"
	fi
	cat "$CHUNKS_DIR/$i"
	i=$((i + 1))
done
if [ "$EXIT_CODE" = hang ]; then
	exec sleep 1000
fi
exit "$EXIT_CODE"
