#!/usr/bin/env python3
"""Times `memreuse plan TREE ARGS` for several builds, alternating, in one run.

    scripts/bench-side-by-side.py [--warm] ROUNDS TREE "ARGS" BIN...

Each round runs every binary once (in reverse order on odd rounds, so that none always runs
first); without `--no-cache` in ARGS each run gets a fresh, empty `--state-dir`. With
`--warm`, each binary instead plans TREE once into a `--state-dir` of its own before the
rounds, and every round runs warm on it. Prints each round, then per binary the min and
median of wall and CPU seconds and the peak RSS: compare builds by the ratio of their mins,
taken in the same minutes (the machine is shared).
"""
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    argv = sys.argv[1:]
    warm = argv[:1] == ["--warm"]
    argv = argv[1:] if warm else argv
    if len(argv) < 4:
        sys.exit(__doc__)
    rounds, tree, args, bins = int(argv[0]), argv[1], shlex.split(argv[2]), argv[3:]
    results = {b: [] for b in bins}
    stores = {}
    if warm:
        for b in bins:
            stores[b] = tempfile.mkdtemp(prefix="memreuse-bench-warm-")
            subprocess.run([b, "plan", tree] + args + ["--state-dir", stores[b]],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    for r in range(rounds):
        for b in bins if r % 2 == 0 else bins[::-1]:
            state = stores.get(b) or tempfile.mkdtemp(prefix="memreuse-bench-")
            cmd = [b, "plan", tree] + args
            if "--no-cache" not in args:
                cmd += ["--state-dir", state]
            started = time.time()
            child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _, status, usage = os.wait4(child.pid, 0)
            wall = time.time() - started
            if not warm:
                shutil.rmtree(state, ignore_errors=True)
            if status != 0:
                print(f"warning: {b} exited with status {status >> 8}", file=sys.stderr)
            results[b].append((wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024))
        print(f"round {r}: " + "  ".join(
            f"{os.path.basename(b)} {results[b][-1][0]:.2f} s / {results[b][-1][1]:.2f} s cpu" for b in bins
        ), flush=True)
    for state in stores.values():
        shutil.rmtree(state, ignore_errors=True)
    print(f"load average {os.getloadavg()[0]:.2f}")
    for b in bins:
        wall = [x[0] for x in results[b]]
        cpu = [x[1] for x in results[b]]
        print(f"{b}: wall min {min(wall):.3f} median {statistics.median(wall):.3f}, "
              f"cpu min {min(cpu):.3f} median {statistics.median(cpu):.3f}, "
              f"peak rss {max(x[2] for x in results[b]):.0f} MB")


main()
