#!/usr/bin/env python3
"""Times a warm `--emit json` against the warm summary plus the bytes the JSON run writes.

    scripts/bench-json-bytes.py BIN TREE ROUNDS [ARGS...]

Plans TREE once into a fresh `--state-dir`, then twice with `--emit json` (the first warm
run stores each file's entry, the second copies them), keeping the document. Each round then
runs, alternating: the warm summary (`-q`), the warm JSON run into /dev/null, `dd` of the
document into /dev/null, the warm JSON run into a file, and `dd` of the document into a
file. ARGS (default `--backend 910b`) go to every plan. Prints the min and median of wall
and CPU seconds of each: the JSON run meets "no slower than the summary plus its bytes"
where its figure is at most the summary's plus the matching `dd`'s.
"""

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def timed(cmd, out):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, stdout=out, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    binary, tree, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    args = sys.argv[4:] or ["--backend", "910b"]
    work = tempfile.mkdtemp(prefix="memreuse-json-bytes-")
    state, document, written = (os.path.join(work, n) for n in ("state", "doc.json", "out.json"))
    plan = [binary, "--state-dir", state, "plan", tree, "-q"] + args
    json = plan + ["--emit", "json"]
    subprocess.run(plan, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    for _ in range(2):
        with open(document, "wb") as out:
            subprocess.run(json, stdout=out, stderr=subprocess.DEVNULL, check=True)
    runs = {
        "summary": lambda: timed(plan, subprocess.DEVNULL),
        "json": lambda: timed(json, subprocess.DEVNULL),
        "bytes": lambda: timed(["dd", f"if={document}", "of=/dev/null", "bs=1M", "status=none"],
                               subprocess.DEVNULL),
        "json > file": lambda: timed_into(json, written),
        "bytes > file": lambda: timed(["dd", f"if={document}", f"of={written}", "bs=1M",
                                       "status=none"], subprocess.DEVNULL),
    }
    figures = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            figures[name].append(run())
    print(f"load average {os.getloadavg()[0]:.2f}, document {os.path.getsize(document) / 1e6:.1f} MB")
    for name, values in figures.items():
        walls, cpus = [v[0] for v in values], [v[1] for v in values]
        print(f"{name:13s} wall min {min(walls):.3f} median {statistics.median(walls):.3f}, "
              f"cpu min {min(cpus):.3f} median {statistics.median(cpus):.3f}")


def timed_into(cmd, path):
    with open(path, "wb") as out:
        return timed(cmd, out)


if __name__ == "__main__":
    main()
