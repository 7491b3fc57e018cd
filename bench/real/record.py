#!/usr/bin/env python3
"""Record one real server startup as a vigil scenario (spec/scenario-format.md).

    record.py --out FILE --id ID --port PORT --expect JSON [options] -- CMD...

Runs CMD, stamps every line it writes to stdout and stderr with the time
since the start, polls http://127.0.0.1:PORT/health and keeps every change of
its answer, and writes what happened as a scenario: the real lines at their
real times, the real health answers, and the real end (exit status, signal,
or a hang). The expected verdict is given by the caller: it is what the
server really did, never what vigil says.

Options:
  --signal-at REGEX:SIG   send SIG (STOP, SEGV, KILL) once a line matches REGEX
  --serve-for SECONDS     after the first health 200, keep recording this long
                          and then stop the server (the scenario keeps serving)
  --hide PATH=NAME        write NAME for PATH in lines and argv (no local paths)
  --vigil-arg ARG         an argument for vigil (repeatable)
  --delay SECONDS         shift every event by this much (default 1): a real
                          failure is over in 0.1 s, before an attached vigil
                          has started; the lines and their spacing stay real
  --summary TEXT, --source TEXT
"""

import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

SIGNALS = {"STOP": signal.SIGSTOP, "SEGV": signal.SIGSEGV, "KILL": signal.SIGKILL}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--id", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--expect", required=True)
    ap.add_argument("--signal-at", default="")
    ap.add_argument("--serve-for", type=float, default=1.0)
    ap.add_argument("--delay", type=float, default=1.0)
    ap.add_argument("--hide", action="append", default=[])
    ap.add_argument("--vigil-arg", action="append", default=[])
    ap.add_argument("--summary", default="")
    ap.add_argument("--source", default="a real llama-server (llama.cpp build 10587, commit 3f545bec), recorded by bench/real/llamacpp.sh")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd:
        print("record.py: no command", file=sys.stderr)
        return 2
    hides = [h.split("=", 1) for h in a.hide]

    def hide(s: str) -> str:
        for path, name in hides:
            s = s.replace(path, name)
        return s

    trigger = None
    if a.signal_at:
        pat, sig = a.signal_at.rsplit(":", 1)
        trigger = (re.compile(pat), SIGNALS[sig])

    events = []  # (t, kind, value)
    lock = threading.Lock()
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    fired = threading.Event()
    done = threading.Event()

    def now() -> float:
        return time.monotonic() - t0

    def reader(stream, kind):
        for raw in iter(stream.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\n")
            with lock:
                events.append((now(), kind, hide(line)))
            if trigger and not fired.is_set() and trigger[0].search(line):
                fired.set()
                proc.send_signal(trigger[1])
                with lock:
                    events.append((now(), "sent", trigger[1]))

    def poller():
        last = None
        while not done.is_set():
            code, body = 0, ""
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{a.port}/health", timeout=1) as r:
                    code, body = r.status, r.read().decode()
            except urllib.error.HTTPError as e:
                code, body = e.code, e.read().decode()
            except (TimeoutError, socket.timeout):
                continue  # no answer (a stopped server): the port keeps its state
            except urllib.error.URLError as e:
                if isinstance(e.reason, (TimeoutError, socket.timeout)):
                    continue
            except OSError:
                pass
            if (code, body) != last:
                last = (code, body)
                with lock:
                    events.append((now(), "health", (code, body)))
            time.sleep(0.02)

    threads = [threading.Thread(target=reader, args=(proc.stdout, "out")),
               threading.Thread(target=reader, args=(proc.stderr, "err"))]
    hp = threading.Thread(target=poller)
    for t in threads + [hp]:
        t.start()

    end = None
    deadline = time.monotonic() + 120
    ready_at = None
    while time.monotonic() < deadline:
        rc = proc.poll()
        if rc is not None:
            end = ("exit", rc) if rc >= 0 else ("signal", signal.Signals(-rc).name)
            break
        with lock:
            if ready_at is None and any(k == "health" and v[0] == 200 for _, k, v in events):
                ready_at = now()
            stopped = any(k == "sent" and v == signal.SIGSTOP for _, k, v in events)
        if ready_at is not None and now() - ready_at >= a.serve_for:
            break
        if stopped and fired.is_set():
            time.sleep(2)  # nothing more comes: the process is stopped
            end = ("hang", "idle")
            break
        time.sleep(0.01)
    t_end = now()
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
        os.kill(proc.pid, signal.SIGCONT)
        proc.wait()
    done.set()
    for t in threads + [hp]:
        t.join()

    timeline = []
    hang_at = round(t_end + a.delay, 3)
    stopped_at = next((t for t, k, v in events if k == "sent" and v == signal.SIGSTOP), None)
    for t, kind, v in sorted(events, key=lambda e: e[0]):
        if stopped_at is not None and t > stopped_at:
            continue  # a stopped process prints and answers nothing more
        if t > t_end:
            continue  # what came after the recording stopped the server
        t = round(t + a.delay, 3)
        if kind in ("out", "err"):
            timeline.append({"t": t, kind: v})
        elif kind == "health":
            ev = {"t": t, "health": v[0]}
            if v[0] != 0 and v[1]:
                ev["body"] = v[1]
            timeline.append(ev)
        elif kind == "sent" and v == signal.SIGSTOP:
            end = ("hang", "idle")
            hang_at = t
    if end:
        at = hang_at if end[0] == "hang" else round(t_end + a.delay, 3)
        timeline.append({"t": at, end[0]: end[1]})
    expect = json.loads(a.expect)
    last = max(e["t"] for e in timeline)
    # A stall is only called after --stall-after of quiet (3 s here).
    expect.setdefault("decided_by", round(last + (8 if expect.get("verdict") == "stalled" else 4), 1))
    sc = {
        "id": a.id,
        "server": "llamacpp",
        "source": a.source,
        "summary": a.summary,
        "argv": [hide(w) for w in cmd],
        "timeline": timeline,
        "vigil_args": a.vigil_arg,
        "expect": expect,
    }
    with open(a.out, "w") as f:
        json.dump(sc, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"{a.id}: {len(timeline)} events, end {end}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
