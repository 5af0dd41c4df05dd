"""memreuse inside real PyPTO: the pass on the bundled real programs and on kernels of our
own, the PassManager switch, and the guard. SKIPPED without PyPTO (scripts/test installs
../shared/pypto when it is beside the clone)."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import pytest

pytest.importorskip(
    "pypto", reason="PyPTO is not installed (scripts/test installs it from ../shared/pypto when present)"
)

import pypto.language as pl  # noqa: E402
from pypto import backend as pypto_backend  # noqa: E402
from pypto import ir  # noqa: E402
from pypto.backend import BackendType  # noqa: E402
from pypto.backend.pto_backend import generate  # noqa: E402
from pypto.ir.pass_manager import PassManager  # noqa: E402
from pypto.pypto_core import ir as core  # noqa: E402
from pypto.pypto_core import passes  # noqa: E402

import memreuse  # noqa: E402
import memreuse.pypto  # noqa: E402
from conftest import real_programs  # noqa: E402
from kernels import OURS, UNSAFE  # noqa: E402

REAL = real_programs()


def python_print(node) -> str:
    """PyPTO's printer without the format callback it registers where ruff is on the PATH
    (as memreuse.pypto prints)."""
    return core.python_print(node, "pl", False, False, False)


@pytest.fixture(autouse=True)
def ascend910b():
    """The real programs were compiled for Ascend910B; so are ours."""
    pypto_backend.reset_for_testing()
    pypto_backend.set_backend_type(BackendType.Ascend910B)
    yield
    pypto_backend.reset_for_testing()


def parsed(text: str):
    """PyPTO's program for a printed text, or None where its parser cannot read it."""
    try:
        return pl.parse(text)
    except Exception:  # PyPTO raises several kinds; any means "not buildable in memory"
        return None


def rest_of_pipeline(program):
    """PyPTO's passes after MemoryReuse, in its order."""
    manager = PassManager.get_strategy()
    after = manager.pass_names.index("MemoryReuse") + 1
    for pass_ in manager.passes[after:]:
        program = pass_(program)
    return program


def pto_files(program) -> dict[str, str]:
    with tempfile.TemporaryDirectory() as out:
        files = generate(rest_of_pipeline(program), out, skip_ptoas=True)
    return {name: text for name, text in files.items() if name.endswith(".pto")}


@pytest.mark.parametrize("name,before", [(n, b) for n, b, _ in REAL], ids=[n for n, _, _ in REAL])
def test_real_program_through_the_pass(name: str, before: Path) -> None:
    program = parsed(before.read_text())
    if program is None:
        pytest.skip(f"PyPTO's parser cannot read the dump of {name} (it cannot be built in memory)")
    printed_input = python_print(program)
    expected = memreuse.plan(printed_input, backend="910b")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours = memreuse.pypto.memory_reuse()(program)
    # PyPTO's printer ends the program without the newline memreuse's printer (a file) ends
    # it with; every other byte is the same.
    assert python_print(ours) + "\n" == expected.ir
    unsafe = [w for w in caught if issubclass(w.category, memreuse.UnsafePlanWarning)]
    assert len(unsafe) == len(expected.repairs)
    theirs = passes.memory_reuse()(program)
    ours_pto = pto_files(ours)
    assert ours_pto, "PyPTO's backend generated no .pto"
    if python_print(theirs) + "\n" == expected.ir:
        assert ours_pto == pto_files(theirs)


def test_most_real_programs_are_built_in_memory() -> None:
    buildable = [n for n, b, _ in REAL if parsed(b.read_text()) is not None]
    # Upstream re-reads 33 of its 131 dumps; of the bundled subset, these.
    assert len(buildable) >= 4, buildable


def compiled(source: str, out: Path):
    return ir.compile(pl.parse(source), output_dir=str(out), skip_ptoas=True, dump_passes=False)


def pto_of(out: Path) -> dict[str, str]:
    return {str(p.relative_to(out)): p.read_text() for p in sorted(out.rglob("*.pto"))}


@pytest.mark.parametrize("kernel", sorted(OURS))
def test_our_kernels_compile_plain_under_use_and_under_guard(kernel: str, tmp_path: Path) -> None:
    source = OURS[kernel]
    compiled(source, tmp_path / "plain")
    with warnings.catch_warnings():
        warnings.simplefilter("error", memreuse.UnsafePlanWarning)
        with memreuse.pypto.use():
            compiled(source, tmp_path / "use")
        with memreuse.pypto.guard(on_unsafe="raise") as findings:
            compiled(source, tmp_path / "guard")
    assert findings == []
    plain = pto_of(tmp_path / "plain")
    assert plain and plain == pto_of(tmp_path / "use") == pto_of(tmp_path / "guard")


def test_use_replaces_memory_reuse_in_the_pass_manager() -> None:
    with memreuse.pypto.use():
        manager = PassManager.get_strategy()
        names = manager.pass_names
    assert names.count("MemoryReuse") == 1
    assert PassManager.get_strategy().pass_names == names
    with memreuse.pypto.use():
        with passes.PassContext([], memory_planner=passes.MemoryPlanner.DSA_RP):
            assert "MemoryReuse" not in PassManager.get_strategy().pass_names


def test_use_is_undone_on_exit() -> None:
    original = PassManager.__dict__["_get_pass_factories"]
    with memreuse.pypto.use():
        assert PassManager.__dict__["_get_pass_factories"] is not original
    assert PassManager.__dict__["_get_pass_factories"] is original
    memreuse.pypto.install()
    memreuse.pypto.uninstall()
    assert PassManager.__dict__["_get_pass_factories"] is original


def test_an_unsafe_pypto_plan_is_repaired_through_pyptos_backend(tmp_path: Path) -> None:
    program = pl.parse(UNSAFE)
    with pytest.warns(memreuse.UnsafePlanWarning, match="MR-R00"):
        with memreuse.pypto.use():
            compiled(UNSAFE, tmp_path / "use")
    assert pto_of(tmp_path / "use")
    compiled(UNSAFE, tmp_path / "plain")
    assert pto_of(tmp_path / "use") != pto_of(tmp_path / "plain")
    del program


def test_the_guard_raises_on_an_unsafe_pypto_plan(tmp_path: Path) -> None:
    with pytest.raises(memreuse.PlanError, match="unsafe"):
        with memreuse.pypto.guard(on_unsafe="raise"):
            compiled(UNSAFE, tmp_path)


def test_the_guard_warns_on_an_unsafe_pypto_plan(tmp_path: Path) -> None:
    with pytest.warns(memreuse.UnsafePlanWarning, match="unsafe"):
        with memreuse.pypto.guard() as findings:
            compiled(UNSAFE, tmp_path)
    assert findings and findings[0].code.startswith("V")


FORMAT_CALLBACK = """
import os, sys, tempfile, warnings
sys.path[:0] = sys.argv[1:]
import pypto.language as pl
from pypto import backend, ir
from pypto.backend import BackendType
from pypto.pypto_core import ir as core
import memreuse, memreuse.pypto
from kernels import UNSAFE

backend.set_backend_type(BackendType.Ascend910B)
core.register_format_callback(lambda code: "not a program")
assert core.python_print(pl.parse(UNSAFE)) == "not a program"
out = tempfile.mkdtemp()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with memreuse.pypto.use():
        ir.compile(pl.parse(UNSAFE), output_dir=out, skip_ptoas=True, dump_passes=False)
print("use warned", sorted({w.message.diagnostic.code for w in caught if w.category is memreuse.UnsafePlanWarning}))
try:
    with memreuse.pypto.guard(on_unsafe="raise"):
        ir.compile(pl.parse(UNSAFE), output_dir=out, skip_ptoas=True, dump_passes=False)
except memreuse.PlanError as err:
    print("guard raised", err.diagnostics[0].code)
sys.stdout.flush()
# PyPTO aborts at exit while a Python format callback is registered, and cannot unregister one.
os._exit(0)
"""


def test_pyptos_format_callback_is_not_run() -> None:
    """PyPTO runs `ruff format` on every print when ruff is on the PATH (a format callback
    `import pypto.ir` registers); the pass and the guard print without it, so they read
    the printer's own output whatever the callback makes of it."""
    tests = Path(__file__).resolve().parent
    stub = tests.parents[2] / "shared" / "pypto" / "torch-stub"
    run = subprocess.run(
        [sys.executable, "-c", FORMAT_CALLBACK, str(tests), str(stub)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "use warned ['MR-R002']" in run.stdout and "guard raised V" in run.stdout, run.stdout


def test_the_guard_takes_warn_or_raise() -> None:
    with pytest.raises(ValueError, match="on_unsafe"):
        with memreuse.pypto.guard(on_unsafe="loudly"):  # type: ignore[arg-type]
            pass


GENERATED = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "generated"


def generated_programs() -> list[tuple[str, str, Path]]:
    """(name, backend, input of MemoryReuse) of the generated corpus beside the clone."""
    manifest = GENERATED / "MANIFEST.tsv"
    if not manifest.is_file():
        return []
    rows = [line.split("\t") for line in manifest.read_text().splitlines()[1:]]
    return [(r[0], r[1], GENERATED / f"{r[0]}.input.py") for r in rows if r[3] == "ok"]


def test_generated_programs_are_planned_exactly_or_refused() -> None:
    """Over ../shared/conformance/generated: where memreuse repairs PyPTO's plan, the pass
    applies memreuse's plan exactly (the result prints as `plan` prints) or raises
    PlanError; it never returns anything else."""
    programs = generated_programs()
    if not programs:
        pytest.skip("../shared/conformance/generated is not beside the clone")
    applied = refused = unchanged = 0
    for name, backend, path in programs:
        pypto_backend.reset_for_testing()
        if backend != "none":
            pypto_backend.set_backend_type({"910b": BackendType.Ascend910B, "950": BackendType.Ascend950}[backend])
        program = parsed(path.read_text())
        if program is None:
            continue
        try:
            expected = memreuse.plan(python_print(program), backend=None if backend == "none" else backend)
        except memreuse.ParseError:
            continue  # PyPTO prints names its printer never defines (`x__FREE_VAR`)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", memreuse.UnsafePlanWarning)
            try:
                result = memreuse.pypto.memory_reuse()(program)
            except memreuse.PlanError:
                refused += 1
                continue
        assert python_print(result) + "\n" == expected.ir, name
        if expected.repairs:
            applied += 1
        else:
            unchanged += 1
    print(f"generated: {applied} repaired plans applied, {refused} refused, {unchanged} PyPTO's plan kept")
    assert applied > 100 and refused == 0
