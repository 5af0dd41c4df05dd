#!/usr/bin/env python3
"""Times PyPTO's compile of our kernels plain, under `memreuse.pypto.use()` and under
`memreuse.pypto.guard()`, alternating in one run, and memreuse's planning against PyPTO's
MemoryReuse pass on the same programs.

    .venv/bin/python scripts/bench-pypto.py [ROUNDS]
    .venv/bin/python scripts/bench-pypto.py corpus [ROUNDS]

Needs the package and PyPTO in the interpreter (scripts/test installs both into .venv; put
../shared/pypto/torch-stub on PYTHONPATH, or let this script do it). Each round compiles
every kernel once per mode, the modes in a rotating order so none always runs first; the
times are this process's CPU time (the machine is shared), the ratios those of the per-mode
sums of per-kernel medians. The planning comparison captures each
program as it enters MemoryReuse, then times, alternating, PyPTO's pass on it and memreuse's
planning of its printed text (`_native.plan_for_pass`, what the pass runs: parse, plan,
check, repair, print), with and without PyPTO's printing of it.

`corpus` makes only that comparison, on the programs of the generated conformance corpus
(`../shared/conformance/generated`) upstream accepts, each with its backend: PyPTO's pass
against memreuse's default path (plan, check, repair: `plan_for_pass`'s planning phase),
alternating, ROUNDS (default 5) times each.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python" / "tests"))
sys.path.insert(0, str(REPO.parent / "shared" / "pypto" / "torch-stub"))

import pypto.language as pl  # noqa: E402
from pypto import backend as pypto_backend  # noqa: E402
from pypto import ir  # noqa: E402
from pypto.backend import BackendType  # noqa: E402
from pypto.ir.printer import python_print  # noqa: E402
from pypto.pypto_core import passes  # noqa: E402

import memreuse  # noqa: E402
import memreuse.pypto  # noqa: E402
from memreuse import _native  # noqa: E402
from kernels import OURS, UNSAFE  # noqa: E402

KERNELS = {**OURS, "unsafe": UNSAFE}


def compile_once(program, out: str, mode: str) -> float:
    # CPU time of this process: other work on the (shared) machine does not count.
    started = time.process_time()
    if mode == "use":
        with memreuse.pypto.use():
            ir.compile(program, output_dir=out, skip_ptoas=True, dump_passes=False)
    elif mode == "guard":
        with memreuse.pypto.guard():
            ir.compile(program, output_dir=out, skip_ptoas=True, dump_passes=False)
    else:
        ir.compile(program, output_dir=out, skip_ptoas=True, dump_passes=False)
    return time.process_time() - started


def memory_reuse_inputs(programs) -> list:
    """Each program as it enters MemoryReuse in a plain compile."""
    captured = []

    def before(pass_, program) -> None:
        if pass_.get_name() == "MemoryReuse":
            captured.append(program)

    with passes.PassContext([passes.CallbackInstrument(before_pass=before)]):
        for program in programs:
            ir.compile(program, output_dir=tempfile.mkdtemp(), skip_ptoas=True, dump_passes=False)
    return captured


def timed(work, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    if sys.argv[1:2] == ["corpus"]:
        compare_corpus(int(sys.argv[2]) if len(sys.argv) > 2 else 5)
        return
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    pypto_backend.reset_for_testing()
    pypto_backend.set_backend_type(BackendType.Ascend910B)
    warnings.simplefilter("ignore", memreuse.UnsafePlanWarning)
    programs = {name: pl.parse(source) for name, source in KERNELS.items()}
    modes = ["plain", "use", "guard"]
    times: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as out:
        for mode in modes:  # one warm-up compile each
            for name, program in programs.items():
                compile_once(program, out, mode)
        for round_ in range(rounds):
            order = modes[round_ % 3 :] + modes[: round_ % 3]
            for name, program in programs.items():
                for mode in order:
                    times.setdefault((mode, name), []).append(compile_once(program, out, mode))
    total = {m: sum(statistics.median(times[(m, n)]) for n in programs) for m in modes}
    print(f"ir.compile of {len(programs)} kernels ({', '.join(programs)}), {rounds} rounds, CPU medians:")
    for name in programs:
        row = "  ".join(f"{m} {statistics.median(times[(m, name)]) * 1e3:7.2f} ms" for m in modes)
        print(f"  {name:16} {row}")
    safe = [n for n in programs if n != "unsafe"]
    safe_total = {m: sum(statistics.median(times[(m, n)]) for n in safe) for m in modes}
    print(
        f"  total: plain {total['plain'] * 1e3:.2f} ms, use() {total['use'] / total['plain']:.3f}x, "
        f"guard() {total['guard'] / total['plain']:.3f}x; the kernels PyPTO plans safely: "
        f"use() {safe_total['use'] / safe_total['plain']:.3f}x, guard() {safe_total['guard'] / safe_total['plain']:.3f}x"
    )
    inputs = memory_reuse_inputs(programs.values())
    compare_planning(f"our {len(inputs)} kernels", inputs, max(20, rounds))
    real = sorted((REPO.parent / "shared" / "conformance" / "real").glob("*/*_after_MaterializeSemanticAliases.py"))
    buildable = []
    for dump in real:
        try:
            buildable.append(pl.parse(dump.read_text()))
        except Exception:  # PyPTO's parser cannot read most dumps (issue 31)
            continue
    if buildable:
        compare_planning(f"the {len(buildable)} real programs PyPTO can build", buildable, 5)


def compare_planning(what: str, inputs: list, repeat: int) -> None:
    """PyPTO's MemoryReuse against the pass's planning on each program, alternating."""
    pypto_s = planning_s = total_s = printing_s = 0.0
    for program in inputs:
        text = python_print(program)
        pypto: list[float] = []
        phases: list[tuple[float, float, float]] = []
        printing: list[float] = []
        for _ in range(repeat):  # alternating, as the compiles above
            started = time.perf_counter()
            passes.memory_reuse()(program)
            pypto.append(time.perf_counter() - started)
            phases.append(_native.plan_for_pass(text, "p", "910b", [])[2])
            started = time.perf_counter()
            python_print(program)
            printing.append(time.perf_counter() - started)
        pypto_s += statistics.median(pypto)
        planning_s += statistics.median(p[1] for p in phases)
        total_s += statistics.median(sum(p) for p in phases)
        printing_s += statistics.median(printing)
    print(
        f"MemoryReuse on {what}, medians summed: PyPTO's pass {pypto_s * 1e6:.0f} us; "
        f"memreuse's planning (plan, check, repair) {planning_s * 1e6:.0f} us ({pypto_s / planning_s:.1f}x faster), "
        f"with reading and printing the text {total_s * 1e6:.0f} us ({pypto_s / total_s:.1f}x), "
        f"and PyPTO's python_print of the input {printing_s * 1e6:.0f} us"
    )


def compare_corpus(repeat: int) -> None:
    """PyPTO's MemoryReuse against memreuse's default path on each accepted generated program."""
    generated = REPO.parent / "shared" / "conformance" / "generated"
    if not (generated / "MANIFEST.tsv").is_file():
        sys.exit(f"no corpus at {generated}: put ../shared beside the clone")
    backends = {"950": BackendType.Ascend950, "910b": BackendType.Ascend910B}
    pypto_s = ours_s = 0.0
    ratios: list[tuple[float, str]] = []
    for row in (generated / "MANIFEST.tsv").read_text().splitlines()[1:]:
        name, backend, _pre, outcome = row.split("\t")[:4]
        if outcome != "ok":
            continue
        pypto_backend.reset_for_testing()
        if backend in backends:
            pypto_backend.set_backend_type(backends[backend])
        text = (generated / f"{name}.input.py").read_text()
        program = pl.parse(text)
        pypto: list[float] = []
        ours: list[float] = []
        for _ in range(repeat):
            started = time.perf_counter()
            passes.memory_reuse()(program)
            pypto.append(time.perf_counter() - started)
            ours.append(_native.plan_for_pass(text, name, backend, [])[2][1])
        pypto_s += statistics.median(pypto)
        ours_s += statistics.median(ours)
        ratios.append((statistics.median(pypto) / statistics.median(ours), name))
    ratios.sort()
    print(
        f"MemoryReuse on the {len(ratios)} accepted generated programs, {repeat} rounds, medians "
        f"summed: PyPTO's pass {pypto_s * 1e3:.1f} ms; memreuse's default path (plan, check, "
        f"repair) {ours_s * 1e3:.1f} ms ({pypto_s / ours_s:.2f}x faster); "
        f"{sum(r >= 10 for r, _ in ratios)} programs 10x faster or more, "
        f"{sum(r < 1 for r, _ in ratios)} slower than PyPTO's pass; the least: "
        + ", ".join(f"{name} {r:.2f}x" for r, name in ratios[:5])
    )


if __name__ == "__main__":
    main()
