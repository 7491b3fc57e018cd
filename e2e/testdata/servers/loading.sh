#!/bin/sh
# A server that loads forever: one vLLM-style line every 0.2 s, with a worker
# child in its process group, as vLLM and SGLang start workers.
#   SERVER_PIDFILE, CHILD_PIDFILE  where it writes its own and the worker's pid
#   IGNORE_TERM=1                  it and its worker ignore SIGTERM: only
#                                  SIGKILL stops them
[ "$IGNORE_TERM" = 1 ] && trap '' TERM
sleep 1000 &
echo $! > "$CHILD_PIDFILE"
echo $$ > "$SERVER_PIDFILE"
echo "INFO 11-29 16:00:00 [api_server.py:1043] vLLM API server version 0.8.5"
echo "INFO 11-29 16:00:00 [config.py:717] This model supports multiple tasks: {'generate'}. Defaulting to 'generate'."
i=0
while :; do
	i=$((i + 1))
	echo "INFO 11-29 16:00:01 [loader.py:447] Loading weights: shard $i of 1000"
	sleep 0.2
done
