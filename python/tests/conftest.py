"""Shared fixtures: the repository's data, the memreuse command line to compare with, and
PyPTO when it is installed (with the torch stand-in of ../shared/pypto when torch is not)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
REAL = REPO / "tests" / "data" / "real"
SHARED_PYPTO = REPO.parent / "shared" / "pypto"


def _add_torch_stub() -> None:
    """PyPTO imports torch for dtype tables only; ../shared/pypto/torch-stub stands in."""
    stub = SHARED_PYPTO / "torch-stub"
    try:
        import torch  # noqa: F401
    except ImportError:
        if stub.is_dir():
            sys.path.insert(0, str(stub))


_add_torch_stub()


def cli_binary() -> Path | None:
    """The memreuse command line built in this clone (the newest of release and debug), or
    $MEMREUSE_BIN."""
    if os.environ.get("MEMREUSE_BIN"):
        return Path(os.environ["MEMREUSE_BIN"])
    built = [REPO / "target" / kind / "memreuse" for kind in ("release", "debug")]
    built = [b for b in built if b.is_file()]
    if not built:
        found = shutil.which("memreuse")
        return Path(found) if found else None
    return max(built, key=lambda b: b.stat().st_mtime)


@pytest.fixture(scope="session")
def cli(tmp_path_factory: pytest.TempPathFactory):
    """Runs the memreuse command line (with a throwaway state dir) and returns its result."""
    binary = cli_binary()
    if binary is None:
        pytest.skip("no memreuse command line to compare with: run `cargo build` first")
    state = tmp_path_factory.mktemp("state")

    def run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(binary), "--state-dir", str(state), *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            check=False,
        )

    return run


def real_programs() -> list[tuple[str, Path, Path]]:
    """(name, input of MemoryReuse, upstream's output) of every bundled real program."""
    found = []
    for directory in sorted(p for p in REAL.iterdir() if p.is_dir()):
        before = next(directory.glob("*_after_MaterializeSemanticAliases.py"), None)
        after = next(directory.glob("*_after_MemoryReuse.py"), None)
        if before and after:
            found.append((directory.name, before, after))
    return found


def pytest_configure(config: pytest.Config) -> None:
    """CI with ../shared beside the clone sets MEMREUSE_REQUIRE_PYPTO: its PyPTO tests must
    run, so PyPTO missing there is an error rather than a skip."""
    if os.environ.get("MEMREUSE_REQUIRE_PYPTO"):
        try:
            import pypto  # noqa: F401
        except ImportError as err:
            raise pytest.UsageError(f"MEMREUSE_REQUIRE_PYPTO is set but PyPTO cannot be imported: {err}")
