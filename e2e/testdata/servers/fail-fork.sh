#!/bin/sh
# A server that fails to start (a CUDA out-of-memory traceback) and leaves a
# worker child behind that ignores SIGTERM, as a wedged rank does.
#   SERVER_PIDFILE, CHILD_PIDFILE  where it writes its own and the worker's pid
#   STAY=1                         the server itself stays after the failure
#                                  (also ignoring SIGTERM) instead of exit 1
trap '' TERM
sleep 1000 &
echo $! > "$CHILD_PIDFILE"
echo $$ > "$SERVER_PIDFILE"
echo "INFO 11-29 16:00:00 [api_server.py:1043] vLLM API server version 0.8.5"
sleep 0.3
cat <<'TRACEBACK'
ERROR 11-29 16:00:01 [engine.py:448] CUDA out of memory. Tried to allocate 1.50 GiB.
Traceback (most recent call last):
  File "/usr/lib/python3/dist-packages/vllm/worker/worker.py", line 183, in load_model
    self.model_runner.load_model()
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 79.10 GiB of which 612.56 MiB is free.
TRACEBACK
if [ "$STAY" = 1 ]; then
	wait
fi
exit 1
