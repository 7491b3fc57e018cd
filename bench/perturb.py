#!/usr/bin/env python3
"""Write variants of startup scenarios that must keep their verdicts.

    bench/perturb.py stale OUT_DIR SCENARIO.json...   # then: evaluate.py --mode watch OUT_DIR/*.json
    bench/perturb.py shift OUT_DIR SCENARIO.json...   # then: evaluate.py --mode run OUT_DIR/*.json

stale: a scenario without stale_log gets, as lines left in its log by an
earlier run, the lines of another of the same server's scenarios that
fails with another cause, an hour old ({ts} and its kin moved back 3600
s). Whoever attaches to the log must not take that run's failure for
this one's.

shift: every event comes 1.5 s later, and so do the expected decision's
bounds: a slow start of the process must not change the verdict. (A
timeout scenario's budget counts from vigil's start, so its variant is
decided 1.5 s "early" and is no finding.)
"""

import json
import os
import random
import re
import sys

STAMP = re.compile(r"\{(ts|vts|iso|epoch)(?::([-+]?\d+))?\}")


def lines_of(sc):
    out = []
    for ev in sc["timeline"]:
        for k in ("out", "err"):
            if k in ev:
                v = ev[k]
                out += v if isinstance(v, list) else [v]
    return out


def an_hour_older(line):
    return STAMP.sub(lambda m: "{%s:%d}" % (m.group(1), int(m.group(2) or 0) - 3600), line)


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("stale", "shift"):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    family, out_dir, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(out_dir, exist_ok=True)
    scs = [(f, json.load(open(f))) for f in files]
    rng = random.Random(7)
    n = 0
    for f, sc in scs:
        v = json.loads(json.dumps(sc))
        if family == "stale":
            if sc.get("stale_log"):
                continue
            others = [o for _, o in scs if o["server"] == sc["server"] and o["id"] != sc["id"]
                      and o["expect"]["verdict"] == "failed" and o["expect"].get("cause") != sc["expect"].get("cause")]
            if not others:
                continue
            o = rng.choice(others)
            v["stale_log"] = [an_hour_older(l) for l in lines_of(o)]
            v["id"] = sc["id"] + "+stale-" + o["id"]
        else:
            for ev in v["timeline"]:
                ev["t"] = round(ev["t"] + 1.5, 3)
            for k in ("decided_by", "not_before"):
                if k in v["expect"]:
                    v["expect"][k] = round(v["expect"][k] + 1.5, 3)
            v["id"] = sc["id"] + "+shift"
        with open(os.path.join(out_dir, os.path.basename(f)), "w") as w:
            json.dump(v, w, indent=1)
        n += 1
    print("%d variants in %s" % (n, out_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
