#!/bin/sh
# A server that floods its log, then fails: it writes $HEAD_FILE, then
# $FLOOD_SECONDS rounds of $FLOOD_CHUNK bytes of $FLOOD_LINE repeated (one
# round a second at most: each round takes at least one second), then
# $TAIL_FILE, and exits 1. Writes that fail (a full disk) do not stop it.
#   SERVER_PIDFILE   where it writes its pid
#   START_FILE       created just before the flood (its mtime: the start)
#   DONE_FILE        created when the flood is over, just before the tail
#                    (its mtime: the flood's end; vigil may stop the server
#                    as soon as the tail's traceback is in, so nothing
#                    after the tail is sure to run)
echo $$ > "$SERVER_PIDFILE"
cat "$HEAD_FILE"
: > "$START_FILE"
i=0
while [ "$i" -lt "$FLOOD_SECONDS" ]; do
	sleep 1 &
	tick=$!
	yes "$FLOOD_LINE" | head -c "$FLOOD_CHUNK"
	wait "$tick"
	i=$((i + 1))
done
: > "$DONE_FILE"
cat "$TAIL_FILE"
exit 1
