#!/usr/bin/env python3
"""Times a warm `--emit json` against the warm summary plus the bytes the JSON run writes.

    scripts/bench-json-bytes.py BIN TREE ROUNDS [ARGS...]

For the default document and then the `--lifetimes` one, each in a fresh `--state-dir` of
its own (as a user who asks for one of them has; a store holding both kinds of entries
costs a warm run more), plans TREE once, then twice with `--emit json` (the first warm run
stores each file's entry, the second copies them), keeping the document. Each round then
runs, alternating, for each of them: the warm summary (`-q`), the warm JSON run into
/dev/null, `dd` of the document into /dev/null, the warm JSON run into a file, and `dd` of
the document into a file. ARGS (default `--backend 910b`) go to every plan. Prints the min
and median of wall and CPU seconds of each: a JSON run meets "no slower than the summary
plus its bytes" where its figure is at most its summary's plus the matching `dd`'s.
"""

import os
import resource
import shutil
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
    written = os.path.join(work, "out.json")
    runs, documents = {}, {}
    for name, flags in (("json", []), ("json --lifetimes", ["--lifetimes"])):
        state = os.path.join(work, f"state{len(documents)}")
        plan = [binary, "--state-dir", state, "plan", tree, "-q"] + args
        json = plan + ["--emit", "json"] + flags
        document = os.path.join(work, f"doc{len(documents)}.json")
        subprocess.run(plan, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        for _ in range(2):
            with open(document, "wb") as out:
                subprocess.run(json, stdout=out, stderr=subprocess.DEVNULL, check=True)
        documents[name] = document
        dd = ["dd", f"if={document}", "bs=1M", "status=none"]
        runs.update({
            f"{name}: summary": lambda plan=plan: timed(plan, subprocess.DEVNULL),
            name: lambda json=json: timed(json, subprocess.DEVNULL),
            f"{name}: bytes": lambda dd=dd: timed(dd + ["of=/dev/null"], subprocess.DEVNULL),
            f"{name} > file": lambda json=json: timed_into(json, written),
            f"{name}: bytes > file": lambda dd=dd: timed(dd + [f"of={written}"],
                                                         subprocess.DEVNULL),
        })
    figures = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            figures[name].append(run())
    sizes = ", ".join(f"{name} {os.path.getsize(d) / 1e6:.1f} MB" for name, d in documents.items())
    print(f"load average {os.getloadavg()[0]:.2f}, documents: {sizes}")
    for name, values in figures.items():
        walls, cpus = [v[0] for v in values], [v[1] for v in values]
        print(f"{name:31s} wall min {min(walls):.3f} median {statistics.median(walls):.3f}, "
              f"cpu min {min(cpus):.3f} median {statistics.median(cpus):.3f}")
    shutil.rmtree(work)


def timed_into(cmd, path):
    with open(path, "wb") as out:
        return timed(cmd, out)


if __name__ == "__main__":
    main()
