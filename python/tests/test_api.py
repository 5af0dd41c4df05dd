"""The package without PyPTO: plan, verify and explain against the command line's output."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import memreuse
from conftest import REPO, cli_binary, real_programs

REPAIR = REPO / "tests" / "data" / "repair" / "r002_loop_init_read_after_loop.py"
EXAMPLES = sorted((REPO / "examples" / "kernels").rglob("*.py"))
REAL = real_programs()


def relative(path: Path) -> str:
    return str(path.relative_to(REPO))


@pytest.mark.parametrize("backend", [None, "910b"])
@pytest.mark.parametrize("path", [p for _, p, _ in REAL] + EXAMPLES[:4], ids=lambda p: p.parent.name)
def test_ir_is_the_cli_emit_ir(cli, path: Path, backend: str | None) -> None:
    flags = ["--backend", backend] if backend else []
    printed = cli("plan", relative(path), "--emit", "ir", "--no-cache", *flags)
    assert printed.returncode == 0, printed.stderr
    planned = memreuse.plan(path.read_text(), path=relative(path), backend=backend)
    assert planned.ok
    assert planned.ir == printed.stdout


@pytest.mark.parametrize("path", [REPAIR] + [p for _, p, _ in REAL[:3]], ids=lambda p: p.stem)
def test_to_json_is_the_cli_emit_json(cli, path: Path) -> None:
    printed = cli("plan", relative(path), "--emit", "json", "--lifetimes", "--no-cache")
    assert printed.returncode == 0, printed.stderr
    assert memreuse.plan(path.read_text(), path=relative(path)).to_json() == printed.stdout


def test_html_is_the_cli_emit_html(cli, tmp_path: Path) -> None:
    printed = cli("plan", relative(REPAIR), "--emit", "html", "--out", str(tmp_path / "out"), "--no-cache")
    assert printed.returncode == 0, printed.stderr
    planned = memreuse.plan(REPAIR.read_text(), path=relative(REPAIR))
    assert planned.to_html() == (tmp_path / "out" / "index.html").read_text()
    assert planned._repr_html_().startswith("<iframe srcdoc=")


def test_functions_describe_the_plan() -> None:
    planned = memreuse.plan(REPAIR.read_text(), path="r002.py")
    (main,) = planned.functions
    assert main.name == "main" and main.status == "planned" and main.ok
    (vec,) = main.spaces
    assert vec.space == "Vec" and vec.footprint >= vec.lower_bound > 0 and vec.capacity is None
    assert {m for b in vec.buffers for m in b.members} >= {"a", "nxt", "d"}
    (repair,) = main.repairs
    assert (repair.code, repair.severity, repair.path, repair.line, repair.col) == ("MR-R002", "warning", "r002.py", 19, 13)
    assert "a_carry" in repair.message and repair.hint
    assert ("nxt_mv", "nxt") in main.inserted_moves
    assert planned.repairs == [repair]


def test_settings_reach_the_engine() -> None:
    text = REPAIR.read_text()
    assert memreuse.plan(text, capacity={"Vec": 65536}).functions[0].spaces[0].capacity == 65536
    assert memreuse.plan(text, backend="910b").functions[0].spaces[0].capacity
    assert memreuse.plan(text, exact=True).functions[0].repairs == []
    assert memreuse.plan(text, planner="none").ir != memreuse.plan(text).ir
    assert "0x" not in memreuse.plan(text).ir
    with pytest.raises(ValueError, match="unknown backend"):
        memreuse.plan(text, backend="910c")
    with pytest.raises(ValueError, match="unknown planner"):
        memreuse.plan(text, planner="best")


def test_parse_errors_are_located() -> None:
    text = REPAIR.read_text().replace("pl.tile.exp(acc)", "pl.tile.exp(acc")
    with pytest.raises(memreuse.ParseError) as raised:
        memreuse.plan(text, path="broken.py")
    assert isinstance(raised.value, memreuse.Error)
    (first, *_) = raised.value.diagnostics
    assert first.path == "broken.py" and first.line and first.col and first.severity == "error"
    with pytest.raises(memreuse.ParseError, match="no @pl.program"):
        memreuse.plan("x = 1\n")


def test_verify_finds_upstreams_unsafe_plan() -> None:
    unsafe = [after for name, _, after in REAL if "prefill_indexer_compressor" in name]
    assert unsafe, "the bundled unsafe program is missing"
    checked = memreuse.verify(unsafe[0].read_text(), path="after.py", backend="910b")
    assert not checked.ok and checked.violations
    assert all(v.function and v.line for v in checked.violations)
    assert json.loads(checked.to_json())["status"] == "violations"
    safe = [after for name, _, after in REAL if "hello_world" in name][0]
    assert memreuse.verify(safe.read_text(), backend="910b").ok


def test_explain_names_the_rule() -> None:
    answer = memreuse.explain(REPAIR.read_text(), "main", "a", "d")
    assert "a" in answer and "d" in answer
    with pytest.raises(memreuse.PlanError, match="no function 'nope'"):
        memreuse.explain(REPAIR.read_text(), "nope", "a", "d")


def test_planning_from_several_threads_gives_each_its_plan() -> None:
    texts = [p.read_text() for _, p, _ in REAL] * 3
    alone = [memreuse.plan(t).ir for t in texts]
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(lambda t: memreuse.plan(t).ir, texts))
    assert together == alone


def test_no_input_makes_the_engine_panic_into_python() -> None:
    # Truncations of a real program at every tenth of its length: each is a located
    # ParseError or a plan, never an uncaught panic (pyo3's PanicException is no Exception).
    text = REAL[0][1].read_text()
    for cut in range(1, 10):
        try:
            memreuse.plan(text[: len(text) * cut // 10])
        except memreuse.Error:
            pass


def test_python_m_memreuse_runs_the_command_line() -> None:
    binary = cli_binary()
    if binary is None:
        pytest.skip("no memreuse command line built")
    done = subprocess.run(
        [sys.executable, "-m", "memreuse", "--version"],
        capture_output=True,
        text=True,
        env={"MEMREUSE_BIN": str(binary), "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert done.returncode == 0 and done.stdout.startswith("memreuse ")


def test_python_m_memreuse_without_the_command_line_says_how_to_get_it() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memreuse", "--version"],
        capture_output=True,
        text=True,
        env={"PATH": "/nonexistent"},
        check=False,
    )
    assert done.returncode == 2 and "cargo install --path cli" in done.stderr


def test_unsafe_plan_warning_is_a_user_warning() -> None:
    assert issubclass(memreuse.UnsafePlanWarning, UserWarning)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        warnings.warn(memreuse.UnsafePlanWarning("x"))


REPAIRS = sorted((REPO / "tests" / "data" / "repair").glob("*.py"))


@pytest.mark.parametrize("backend", [None, "910b"])
@pytest.mark.parametrize(
    "path", [p for _, p, _ in REAL] + [p for p in REPAIRS if not p.name.endswith(".out.py")], ids=lambda p: p.stem
)
def test_the_pypto_pass_plans_as_the_cli(path: Path, backend: str | None) -> None:
    """The pass's lean path (`_native.plan_for_pass`) prints the program `plan` prints and
    makes the same repairs."""
    from memreuse import _native

    text = path.read_text()
    planned = memreuse.plan(text, path="p.py", backend=backend)
    if not planned.ok:
        with pytest.raises(ValueError):
            _native.plan_for_pass(text, "p.py", backend or "none", [])
        return
    ir, repairs, phases = _native.plan_for_pass(text, "p.py", backend or "none", [])
    assert ir == planned.ir
    assert [(r[1], r[3], r[4]) for r in repairs] == [(r.code, r.line, r.col) for r in planned.repairs]
    assert all(seconds >= 0 for seconds in phases)
