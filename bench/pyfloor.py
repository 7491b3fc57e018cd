#!/usr/bin/env python3
"""A minimal Python asyncio streaming client: a lower bound on the CPU cost of
Python benchmark clients such as SGLang's bench_serving or `vllm bench serve`.

It does per chunk what those clients do at the least (a timestamp, json.loads,
a check for text), over raw asyncio streams with keep-alive connections and
no aiohttp, so any real Python client spends at least this much CPU.
Standard library only.

  pyfloor.py URL CONCURRENCY REQUESTS OUTPUT_LEN INPUT_LEN

Prints one JSON line: requests, seconds, cpu_s, cpu_ms_per_req, req_s,
ttft_ms and itl_ms (means).
"""
import asyncio
import json
import random
import resource
import sys
import time
from urllib.parse import urlsplit


async def read_chunked_body(reader):
    """Yield the pieces of an HTTP/1.1 chunked body as they arrive."""
    while True:
        size = int((await reader.readline()).split(b";")[0], 16)
        if size == 0:
            await reader.readline()
            return
        data = await reader.readexactly(size + 2)
        yield data[:-2]


async def one(reader, writer, host, body, stats):
    writer.write(b"POST /v1/completions HTTP/1.1\r\nHost: " + host.encode() +
                 b"\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: " +
                 str(len(body)).encode() + b"\r\n\r\n" + body)
    start = time.perf_counter()
    status = await reader.readline()
    chunked = False
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b""):
            break
        if line.lower().startswith(b"transfer-encoding:") and b"chunked" in line.lower():
            chunked = True
    if b" 200 " not in status or not chunked:
        raise RuntimeError("unexpected answer: %r" % status)
    buf = b""
    times = []
    async for piece in read_chunked_body(reader):
        now = time.perf_counter()
        buf += piece
        while b"\n\n" in buf:
            event, buf = buf.split(b"\n\n", 1)
            data = event[len(b"data: "):]
            if data == b"[DONE]":
                continue
            obj = json.loads(data)
            choices = obj.get("choices") or []
            if choices and choices[0].get("text"):
                times.append(now)
    if times:
        stats["ttft"].append(times[0] - start)
        stats["itl"].extend(b - a for a, b in zip(times, times[1:]))


async def worker(url, n, counter, body_for, stats):
    u = urlsplit(url)
    reader, writer = await asyncio.open_connection(u.hostname, u.port)
    while counter[0] < n:
        counter[0] += 1
        await one(reader, writer, u.netloc, body_for(counter[0]), stats)
    writer.close()


async def main(url, conc, n, out_len, in_len):
    words = "the of and to in is was for on that with as by at from".split()
    rng = random.Random(1)
    prompt = " ".join(rng.choice(words) for _ in range(in_len))

    def body_for(i):
        return json.dumps({"model": "fake-model", "prompt": "%d %s" % (i, prompt), "max_tokens": out_len,
                           "stream": True, "stream_options": {"include_usage": True},
                           "ignore_eos": True, "temperature": 0}).encode()

    stats = {"ttft": [], "itl": []}
    counter = [0]
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    await asyncio.gather(*(worker(url, n, counter, body_for, stats) for _ in range(conc)))
    secs = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    mean = lambda xs: 1000 * sum(xs) / len(xs) if xs else 0
    print(json.dumps({"requests": n, "seconds": round(secs, 3), "cpu_s": round(cpu, 3),
                      "cpu_ms_per_req": round(1000 * cpu / n, 3), "req_s": round(n / secs, 1),
                      "ttft_ms": round(mean(stats["ttft"]), 3), "itl_ms": round(mean(stats["itl"]), 3)}))


if __name__ == "__main__":
    url, conc, n, out_len, in_len = sys.argv[1], *map(int, sys.argv[2:6])
    asyncio.run(main(url, conc, n, out_len, in_len))
