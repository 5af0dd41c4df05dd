"""memreuse: plans, checks and repairs on-chip memory reuse for PyPTO tile kernels.

The functions here run memreuse's Rust engine in-process (no subprocess), on the text of a
program as PyPTO prints it (``pypto.ir.printer.python_print`` or a ``NN_after_*.py`` dump):

- :func:`plan` plans it as ``memreuse plan`` does; ``Plan.ir`` is byte for byte what
  ``memreuse plan --emit ir`` prints, ``Plan.to_json()`` what ``--emit json --lifetimes
  --no-cache`` prints, and in Jupyter a plan shows as the memory viewer (the page
  ``--emit html`` writes).
- :func:`verify` runs both checkers on a planned program (``memreuse verify``).
- :func:`explain` says why two tiles do or do not share a buffer (``memreuse explain``).

:mod:`memreuse.pypto` puts memreuse inside PyPTO's compiler (imported on use; PyPTO is not
needed for anything else). The GIL is released while the engine works, and the functions
may be called from several threads at once.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from . import _native

__version__: str = _native.__version__

__all__ = [
    "Buffer",
    "Diagnostic",
    "Error",
    "FunctionPlan",
    "ParseError",
    "Plan",
    "PlanError",
    "Space",
    "UnsafePlanWarning",
    "Verification",
    "explain",
    "plan",
    "verify",
]


class Error(Exception):
    """Every error memreuse raises."""


class ParseError(Error):
    """The text is not a program memreuse can read; ``diagnostics`` locate why."""

    def __init__(self, message: str, diagnostics: Sequence[Diagnostic] = ()) -> None:
        super().__init__(message)
        self.diagnostics: list[Diagnostic] = list(diagnostics)


class PlanError(Error):
    """A function has no plan (the planner refused it, or its plan cannot be applied)."""

    def __init__(self, message: str, diagnostics: Sequence[Diagnostic] = ()) -> None:
        super().__init__(message)
        self.diagnostics: list[Diagnostic] = list(diagnostics)


class UnsafePlanWarning(UserWarning):
    """PyPTO's plan was unsafe: memreuse repaired it (or, under the guard, found it so).

    ``diagnostic`` is memreuse's finding, with its code (``MR-R001`` ... or ``V003`` ...) and
    location.
    """

    def __init__(self, message: str, diagnostic: Diagnostic | None = None) -> None:
        super().__init__(message)
        self.diagnostic = diagnostic


@dataclass(frozen=True)
class Diagnostic:
    """A finding located in the planned text: ``path:line:col: severity[code]: message``."""

    code: str
    severity: str
    message: str
    path: str
    line: int | None
    col: int | None
    hint: str | None = None
    function: str | None = None

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}:{self.col}"
        return f"{where}: {self.severity}[{self.code}]: {self.message}"

    @classmethod
    def _from_json(cls, entry: Mapping[str, Any], path: str, function: str | None = None) -> Diagnostic:
        return cls(
            code=entry["code"],
            severity=entry["severity"],
            message=entry["message"],
            path=path,
            line=entry.get("line"),
            col=entry.get("col"),
            hint=entry.get("hint"),
            function=entry.get("function", function),
        )


@dataclass(frozen=True)
class Buffer:
    """One allocation after planning: its base, size, offset and the tiles sharing it."""

    base: str
    size: int
    offset: int | None
    pinned: bool
    members: list[str]


@dataclass(frozen=True)
class Space:
    """One memory space of a function: footprint, lower bound and capacity in bytes."""

    space: str
    footprint: int
    lower_bound: int
    capacity: int | None
    tiles: int
    buffers: list[Buffer]


@dataclass(frozen=True)
class FunctionPlan:
    """One function: ``status`` is ``planned`` or ``failed``; repairs are memreuse's changes
    to PyPTO's unsafe decisions (warnings ``MR-R...``), diagnostics everything else."""

    name: str
    status: str
    spaces: list[Space] = field(default_factory=list)
    repairs: list[Diagnostic] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    removed_allocs: list[str] = field(default_factory=list)
    inserted_moves: list[tuple[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Planned, without errors."""
        return self.status == "planned" and not any(d.severity == "error" for d in self.diagnostics)


def _settings(
    backend: str | None, planner: str, exact: bool, addresses: bool, capacity: Mapping[str, int] | None
) -> tuple[str, str, bool, bool, list[tuple[str, int]]]:
    return (backend or "none", planner, exact, addresses, sorted((capacity or {}).items()))


class Plan:
    """The plan of one program (see :func:`plan`)."""

    def __init__(self, text: str, path: str, ir: str | None, document: str, settings: tuple) -> None:
        self._text = text
        self._path = path
        self._ir = ir
        self._json = document
        self._settings = settings
        parsed = json.loads(document)
        (file,) = parsed["files"]
        self.path: str = path
        self.functions: list[FunctionPlan] = [_function(f, path) for f in file["functions"]]

    @property
    def ir(self) -> str:
        """The planned program, byte for byte what ``memreuse plan --emit ir`` prints.

        Raises :class:`PlanError` when a function has no plan (the CLI prints nothing then).
        """
        if self._ir is None:
            failed = [f for f in self.functions if f.status != "planned"]
            raise PlanError(
                "no planned program: " + ", ".join(f"'{f.name}' has no plan" for f in failed),
                [d for f in failed for d in f.diagnostics],
            )
        return self._ir

    @property
    def ok(self) -> bool:
        """Every function planned, none with an error."""
        return self._ir is not None and all(f.ok for f in self.functions)

    @property
    def repairs(self) -> list[Diagnostic]:
        """Every repair of every function, in order."""
        return [r for f in self.functions for r in f.repairs]

    def to_json(self) -> str:
        """The plan as ``memreuse plan --emit json --lifetimes --no-cache`` prints it (schema 4)."""
        return self._json

    def to_html(self) -> str:
        """The memory viewer with this program embedded, as ``--emit html`` writes it."""
        return _native.page(self._text, self._path, self._settings)

    def _repr_html_(self) -> str:
        # The page is a whole document with its own script and style: an iframe keeps it
        # from touching the notebook's page.
        page = html.escape(self.to_html(), quote=True)
        return f'<iframe srcdoc="{page}" style="width:100%;height:640px;border:0"></iframe>'

    def __repr__(self) -> str:
        repairs = len(self.repairs)
        return f"<memreuse.Plan {self.path}: {len(self.functions)} functions, {repairs} repairs>"


def _function(entry: Mapping[str, Any], path: str) -> FunctionPlan:
    name = entry["name"]
    diagnostics = [Diagnostic._from_json(d, path, name) for d in entry.get("diagnostics", [])]
    if entry["status"] != "planned":
        return FunctionPlan(name=name, status=entry["status"], diagnostics=diagnostics)
    spaces = [
        Space(
            space=s["space"],
            footprint=s["footprint"],
            lower_bound=s["lower_bound"],
            capacity=s["capacity"],
            tiles=s["tiles"],
            buffers=[Buffer(b["base"], b["size"], b["offset"], b["pinned"], list(b["members"])) for b in s["buffers"]],
        )
        for s in entry["spaces"]
    ]
    return FunctionPlan(
        name=name,
        status="planned",
        spaces=spaces,
        repairs=[Diagnostic._from_json(d, path, name) for d in entry["repairs"]],
        diagnostics=diagnostics,
        removed_allocs=list(entry["removed_allocs"]),
        inserted_moves=[(m["dst"], m["src"]) for m in entry["inserted_moves"]],
    )


_DEFAULT_PATH = "<string>"


def plan(
    text: str,
    *,
    path: str | None = None,
    backend: str | None = None,
    planner: str = "pypto",
    exact: bool = False,
    addresses: bool = False,
    capacity: Mapping[str, int] | None = None,
) -> Plan:
    """Plans a program's on-chip memory as ``memreuse plan`` does.

    Args:
        text: The program as PyPTO prints it, taken before MemoryReuse.
        path: The file name diagnostics and JSON show (``"<string>"`` when not given). As
            with the CLI, a name containing ``_after_InitMemRef`` makes memreuse run
            MaterializeSemanticAliases first.
        backend: ``"910b"``, ``"950"`` or ``None`` (capacities unknown, target rules off).
        planner: ``"pypto"`` (PyPTO's decision, repaired where unsafe), ``"dsa"`` (the offset
            planner) or ``"none"`` (print back without planning).
        exact: Keep PyPTO's decision even where unsafe, reporting the checkers' findings.
        addresses: Print addressed MemRefs, as AllocateMemoryAddr leaves them.
        capacity: Per-space capacities in bytes overriding the backend's, e.g. ``{"Vec": 131072}``.

    Raises:
        ParseError: The text has no program or does not parse.
        ValueError: An unknown backend, planner or memory space.
    """
    display = path or _DEFAULT_PATH
    settings = _settings(backend, planner, exact, addresses, capacity)
    try:
        ir, document = _native.plan(text, display, settings)
    except ValueError as err:
        if "no @pl.program" in str(err):
            raise ParseError(str(err)) from None
        raise
    except RuntimeError as err:
        raise PlanError(str(err)) from None
    parsed = json.loads(document)
    (file,) = parsed["files"]
    if file["status"] == "failed" and not file["functions"]:
        diagnostics = [Diagnostic._from_json(d, display) for d in file["diagnostics"]]
        first = diagnostics[0] if diagnostics else None
        raise ParseError(f"{display} does not parse" + (f": {first}" if first else ""), diagnostics)
    return Plan(text, display, ir, document, settings)


@dataclass(frozen=True)
class Verification:
    """What both checkers found in a planned program (see :func:`verify`)."""

    path: str
    status: str
    violations: list[Diagnostic]
    _json: str = field(repr=False, default="")

    @property
    def ok(self) -> bool:
        """No violation."""
        return self.status == "verified"

    def to_json(self) -> str:
        """This file's entry as ``memreuse verify --json`` lists it."""
        return self._json


def verify(text: str, *, path: str | None = None, backend: str | None = None, addressed: bool = False) -> Verification:
    """Runs memreuse's two checkers (liveness and values) on an already planned program.

    ``addressed``: the MemRef offsets are addresses (a program after AllocateMemoryAddr).

    Raises:
        ParseError: The text does not parse.
    """
    display = path or _DEFAULT_PATH
    try:
        document = _native.verify(text, display, backend or "none", addressed)
    except RuntimeError as err:
        raise PlanError(str(err)) from None
    report = json.loads(document)
    if report["status"] == "parse_failed":
        diagnostics = [Diagnostic._from_json(d, display) for d in report["diagnostics"]]
        raise ParseError(f"{display} does not parse", diagnostics)
    violations = [Diagnostic._from_json(d, display) for d in report["violations"]]
    return Verification(display, report["status"], violations, document)


def explain(
    text: str, function: str, first: str, second: str, *, path: str | None = None, backend: str | None = None
) -> str:
    """Why tiles ``first`` and ``second`` of ``function`` do or do not share a buffer: both
    lifetimes, the first rule that keeps them apart (or why sharing is safe), and where the
    plan put them (``memreuse explain``).

    Raises:
        PlanError: No such function or tile, or the function cannot be planned.
    """
    display = path or _DEFAULT_PATH
    try:
        answered, answer = _native.explain(
            text, display, function, (first, second), backend or "none"
        )
    except RuntimeError as err:
        raise PlanError(str(err)) from None
    if not answered:
        raise PlanError(answer)
    return answer
