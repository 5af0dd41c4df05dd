"""memreuse inside PyPTO's compiler.

- :func:`memory_reuse` is a PyPTO pass named ``MemoryReuse`` that plans every function with
  memreuse: where memreuse's plan is PyPTO's own decision the function is left exactly as
  PyPTO's MemoryReuse leaves it; where memreuse repairs PyPTO's plan, memreuse's plan is
  applied to the in-memory IR (each tile's MemRef, the ``tile.move``s it inserts and the
  statements it drops, the allocations added and removed), with an
  :class:`memreuse.UnsafePlanWarning` per repair; a plan that cannot be applied exactly
  raises :class:`memreuse.PlanError`.
- :func:`use` (or :func:`install` / :func:`uninstall`) makes every ``PassManager`` and
  ``ir.compile`` use that pass in place of PyPTO's MemoryReuse under
  ``MemoryPlanner.PYPTO`` (DSA_RP and PTOAS pipelines have no MemoryReuse and are left alone).
- :func:`guard` keeps PyPTO's planner and checks its output with memreuse's checkers right
  after its MemoryReuse pass.

PyPTO is imported when one of these is first called; ``import memreuse`` never needs it.
What this module relies on from PyPTO is listed in ``docs/python.md``.
"""

from __future__ import annotations

import contextlib
import functools
import json
import threading
import warnings
from typing import Any, Callable, Iterator, Literal

import memreuse
from memreuse import Diagnostic, PlanError, UnsafePlanWarning, _native

__all__ = ["guard", "install", "memory_reuse", "uninstall", "use"]

_PASS_NAME = "MemoryReuse"


@functools.cache
def _pypto() -> Any:
    """PyPTO's modules, imported on first use."""
    try:
        from pypto.pypto_core import ir, passes
    except ImportError as err:  # pragma: no cover - exercised only without PyPTO
        raise ImportError("memreuse.pypto needs PyPTO (pip install pypto)") from err
    return ir, passes


def _print(node: Any) -> str:
    """PyPTO's printer, without the format callback PyPTO registers when ``ruff`` is on the
    ``PATH`` (it runs ruff on every print, and memreuse reads the printer's own output)."""
    ir, _ = _pypto()
    return ir.python_print(node, "pl", False, False, False)


def _backend_name() -> str | None:
    """memreuse's name of the backend PyPTO compiles for, when one is configured."""
    from pypto import backend

    if not backend.is_backend_configured():
        return None
    kind = backend.get_backend_type()
    return {"Ascend910B": "910b", "Ascend950": "950"}.get(getattr(kind, "name", str(kind)).split(".")[-1])


def _printed_functions(text: str) -> dict[str, str]:
    """Each function's printed text by name (a function runs from its decorator to the next)."""
    functions: dict[str, str] = {}
    lines = text.split("\n")
    starts = [i for i, line in enumerate(lines) if line.startswith("    @pl.function")]
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        header = next((l for l in lines[start:end] if l.startswith("    def ")), "")
        name = header[len("    def ") :].split("(", 1)[0]
        functions[name] = "\n".join(lines[start:end])
    return functions


def memory_reuse(
    *,
    backend: str | None = None,
    capacity: dict[str, int] | None = None,
) -> Any:
    """A PyPTO pass named ``MemoryReuse`` that plans every function with memreuse.

    Args:
        backend: ``"910b"``, ``"950"`` or ``None`` for the backend PyPTO is configured for
            (``pypto.backend.set_backend_type``), as PyPTO's own pass reads it.
        capacity: Per-space capacities in bytes overriding the backend's.

    The pass warns :class:`memreuse.UnsafePlanWarning` for each repair of PyPTO's plan and
    raises :class:`memreuse.PlanError` for a function memreuse cannot plan (or whose plan it
    cannot apply in memory).
    """
    _, passes = _pypto()
    reference = passes.memory_reuse()
    properties = passes.PassProperties(
        reference.get_required_properties(),
        reference.get_produced_properties(),
        reference.get_invalidated_properties(),
    )
    capacities = sorted((capacity or {}).items())

    def transform(program: Any) -> Any:
        return _plan_program(program, reference, backend, capacities)

    return passes.create_program_pass(transform, _PASS_NAME, properties)


def _plan_program(program: Any, reference: Any, backend: str | None, capacity: list[tuple[str, int]]) -> Any:
    """The pass: PyPTO's result where it is memreuse's plan, else memreuse's plan applied to
    it (see docs/python.md)."""
    text = _print(program)
    path = f"<{program.name} before MemoryReuse>"
    # Planned here rather than on a thread beside PyPTO's pass: that pass holds the GIL, so
    # a thread would only start once it is done, and pay for the hand-over.
    try:
        ours, repairs, _ = _native.plan_for_pass(text, path, backend or _backend_name() or "none", capacity)
    except (ValueError, RuntimeError) as err:
        raise PlanError(str(err)) from None
    theirs = reference(program)
    for function, code, message, line, col in repairs:
        repair = Diagnostic(code, "warning", message, path, line, col, function=function)
        warnings.warn(UnsafePlanWarning(f"{repair} (in function '{function}')", repair), stacklevel=2)
    # PyPTO's result is printed even where memreuse repairs nothing: memreuse's plan is
    # then its model of PyPTO's decision, which the PyPTO installed does not always make
    # (docs/python.md, "What it costs").
    # PyPTO's printer ends without the newline memreuse's (a file's) ends with.
    their_text = _print(theirs) + "\n"
    if their_text == ours:
        # memreuse's plan is PyPTO's decision: PyPTO's result stands as it is.
        return theirs
    edits = json.loads(_native.plan_edits(their_text, ours))
    result = _apply(theirs, edits)
    wanted = _printed_functions(ours)
    got = _printed_functions(_print(result) + "\n")
    for edit in edits:
        name = edit["function"]
        if got.get(name) != wanted.get(name):
            raise PlanError(
                f"memreuse's plan of '{name}' could not be applied to PyPTO's IR in memory "
                "(the rewritten function does not print as memreuse planned it)"
            )
    return result


def _apply(program: Any, edits: list[dict[str, Any]]) -> Any:
    """PyPTO's ``program`` with memreuse's edits applied in memory (see ``edits.rs``)."""
    ir, _ = _pypto()
    by_function = {e["function"]: e for e in edits}
    for edit in edits:
        if edit["unsupported"]:
            raise PlanError(
                f"memreuse's plan of '{edit['function']}' cannot be applied to PyPTO's IR in "
                f"memory yet: {'; '.join(edit['unsupported'])}"
            )
    return _Replanner(ir, by_function).visit_program(program)


def _walk_vars(ir: Any, function: Any) -> tuple[dict[str, list[Any]], dict[str, Any]]:
    """Every variable of ``function`` by name (definitions and uses, by identity), and its
    allocations' statements by the name of the base they define."""
    collector = _collector(ir)()
    collector.visit_function(function)
    return {name: list(found.values()) for name, found in collector.by_name.items()}, collector.allocs


@functools.cache
def _collector(ir: Any) -> type:
    """The visitor of :func:`_walk_vars` (made once: a class costs more to make than a small
    function to walk)."""

    class Collector(_descending(ir.IRVisitor)):
        def __init__(self) -> None:
            super().__init__()
            self.by_name: dict[str, dict[int, Any]] = {}
            self.allocs: dict[str, Any] = {}

        def visit_var(self, op: Any) -> None:
            self.by_name.setdefault(op.name_hint, {})[op.unique_id] = op
            super().visit_var(op)

        def visit_iter_arg(self, op: Any) -> None:
            self.by_name.setdefault(op.name_hint, {})[op.unique_id] = op
            super().visit_iter_arg(op)

        def visit_assign_stmt(self, op: Any) -> None:
            value = op.value
            if isinstance(value, ir.Call) and value.op.name == "tile.alloc":
                self.allocs[op.var.name_hint] = op
            super().visit_assign_stmt(op)

    return Collector


def _memory_space(ir: Any, printed: str) -> Any:
    """``pl.Mem.Vec`` / ``pl.MemorySpace.Vec`` as PyPTO's enum."""
    prefix, _, name = printed.rpartition(".")
    if prefix not in ("pl.Mem", "pl.MemorySpace") or name not in ir.MemorySpace.__members__:
        raise PlanError(f"memreuse's plan passes '{printed}' where PyPTO takes a memory space")
    return ir.MemorySpace[name]


class _FunctionEdits:
    """memreuse's edits of one function, resolved against PyPTO's variables of it."""

    def __init__(self, ir: Any, func: Any, edit: dict[str, Any]) -> None:
        self.ir = ir
        self.name = func.name
        self.names, allocs = _walk_vars(ir, func)
        # The printer tells variables of one name apart as NAME, NAME_1, NAME_2, ... in the
        # order it meets them, which is the order they were collected in.
        self.printed = {
            var.unique_id: name if n == 0 else f"{name}_{n}"
            for name, found in self.names.items()
            for n, var in enumerate(found)
        }
        self.bases = {name: stmt.var for name, stmt in allocs.items()}
        self.top_allocs: list[tuple[int, Any]] = []
        for alloc in edit["added_allocs"]:
            self.top_allocs.append((alloc["index"], self._alloc(func, allocs, alloc)))
        self.removed = set(edit["removed"])
        self.placements = {
            self.original(name).unique_id: self.placement(placed) for name, placed in edit["memrefs"].items()
        }
        self.inserted: dict[str, list[dict[str, Any]]] = {}
        for stmt in edit["inserted"]:
            self.inserted.setdefault(stmt["after"], []).append(stmt)
        self.inserted_by_name = {stmt["name"]: stmt for stmt in edit["inserted"]}
        self.new_vars: dict[str, Any] = {}
        self.init_values: dict[str, str] = edit["init_values"]
        self.yields = {tuple(y["yielded"]): y["values"] for y in edit["yields"]}

    def name_of(self, var: Any) -> str:
        """The name the printer gives ``var``."""
        return self.printed.get(var.unique_id, var.name_hint)

    def original(self, name: str) -> Any:
        found = self.names.get(name, [])[:1]
        base, _, number = name.rpartition("_")
        if not found and number.isdigit() and len(self.names.get(base, [])) > int(number):
            found = [self.names[base][int(number)]]
        if len(found) != 1:
            raise PlanError(
                f"cannot tell which variable of '{self.name}' PyPTO prints as '{name}' "
                f"({len(found)} carry that name): memreuse's plan cannot be applied in memory"
            )
        return found[0]

    def placement(self, placed: list[Any]) -> tuple[Any, int, int, str | None]:
        base_name, offset, size, dtype = placed
        base = self.bases.get(base_name)
        if base is None:
            raise PlanError(f"memreuse's plan of '{self.name}' names an unknown allocation '{base_name}'")
        return base, offset, size, dtype

    def _alloc(self, func: Any, allocs: dict[str, Any], alloc: dict[str, Any]) -> Any:
        """A ``tile.alloc`` assignment modelled on one of PyPTO's own in the same space."""
        ir = self.ir
        like = next((s for s in allocs.values() if _alloc_space(s) == alloc["space"]), None)
        if like is None:
            raise PlanError(
                f"memreuse adds an allocation in {alloc['space']} to '{func.name}', where PyPTO "
                "has none to model it on: it cannot be applied in memory yet"
            )
        space_arg, size_arg = like.value.args[0], like.value.args[1]
        size = ir.ConstInt(alloc["size"], size_arg.dtype, size_arg.span)
        call = ir.create_op_call("tile.alloc", [space_arg, size], {}, like.value.span)
        base = ir.Var(alloc["name"], like.var.type, like.var.span)
        self.bases[alloc["name"]] = base
        return ir.AssignStmt(base, call, like.span)

    def tile_type(self, old: Any, placement: tuple[Any, int, int, str | None], space: Any = None) -> Any:
        from pypto import DataType

        base, offset, size, dtype = placement
        span = old.memref.span if old.memref else base.span
        # An offset printed as a bare number is an INDEX constant; `pl.const(N, pl.INT64)`
        # is the INT64 one.
        offset_expr = self.ir.ConstInt(offset, getattr(DataType, dtype or "INDEX"), span)
        memref = self.ir.MemRef(base, offset_expr, size, span)
        return self.ir.TileType(old.shape, old.dtype, memref, old.tile_view, space or old.memory_space)


def _alloc_space(alloc: Any) -> str:
    """The memory space of a ``tile.alloc`` statement, as its base's name says it
    (``mem_vec_3`` is in ``Vec``)."""
    parts = alloc.var.name_hint.split("_")
    return parts[1].capitalize() if len(parts) > 2 and parts[0] == "mem" else ""


def _stmt_key(ir: Any, stmt: Any, name_of: Callable[[Any], str]) -> str | None:
    """The printed name memreuse's edits anchor a statement by (see ``edits.rs``)."""
    if isinstance(stmt, ir.AssignStmt):
        return name_of(stmt.var)
    if isinstance(stmt, (ir.ForStmt, ir.IfStmt)) and stmt.return_vars:
        return name_of(stmt.return_vars[0])
    if isinstance(stmt, ir.ForStmt):
        return name_of(stmt.loop_var)
    return None


_COMPOUND_STATEMENTS = (
    "for_stmt",
    "while_stmt",
    "if_stmt",
    "in_core_scope_stmt",
    "cluster_scope_stmt",
    "hierarchy_scope_stmt",
    "spmd_scope_stmt",
    "split_aiv_scope_stmt",
    "runtime_scope_stmt",
    "comm_domain_scope_stmt",
)


@functools.cache
def _descending(base: type) -> type:
    """``base`` (PyPTO's ``IRVisitor`` or ``IRMutator``) with every compound statement's visit
    overridden to call its own: PyPTO visits a body through the Python overrides only when
    the statement holding it was visited through Python, so without these a nested block
    would never reach an override of ``visit_seq_stmts``, ``visit_assign_stmt`` or
    ``visit_var``."""

    def passing_on(name: str) -> Callable[[Any, Any], Any]:
        def visit(self: Any, op: Any) -> Any:
            return getattr(super(descending, self), name)(op)

        return visit

    methods = {f"visit_{kind}": passing_on(f"visit_{kind}") for kind in _COMPOUND_STATEMENTS}
    descending = type(f"Descending{base.__name__}", (base,), methods)
    return descending


def _places(ir: Any, stmts: Any, owner: str | None, edits: _FunctionEdits) -> Iterator[tuple[Any, str]]:
    """Each statement of a block with its place, named as ``edits.rs`` names places: after
    the last statement with a key (``^OWNER`` at the start) and the N without one since."""
    previous, skipped = f"^{owner}", 0
    for stmt in stmts:
        yield stmt, f"{previous}+{skipped}"
        key = _stmt_key(ir, stmt, edits.name_of)
        previous, skipped = (key, 0) if key else (previous, skipped + 1)


class _Replanner:
    """Rewrites the functions named in ``edits`` as memreuse planned them (see ``edits.rs``):
    tiles onto their new MemRefs, statements inserted after their anchors, loop inits and
    yields fed from the inserted copies, allocations added and removed at the top level."""

    def __init__(self, ir: Any, edits: dict[str, dict[str, Any]]) -> None:
        self._ir = ir
        self._edits = edits

    def visit_program(self, program: Any) -> Any:
        return _mutator(self._ir)(self._edits).visit_program(program)


@functools.cache
def _mutator(ir: Any) -> type:
    """The mutator of :class:`_Replanner` (made once, as :func:`_collector`)."""

    class Mutator(_descending(ir.IRMutator)):
        def __init__(self, by_function: dict[str, dict[str, Any]]) -> None:
            super().__init__()
            self.by_function = by_function
            self.edits: _FunctionEdits | None = None
            self.replaced: dict[int, Any] = {}
            self.depth = 0
            # Enclosing loops and ifs: [kind, ident, depth of their blocks, blocks seen].
            self.owners: list[list[Any]] = []
            # Per depth, the idents of the loops and ifs of the block being visited.
            self.idents: dict[int, list[str]] = {}

        def visit_function(self, func: Any) -> Any:
            edit = self.by_function.get(func.name)
            if edit is None:
                return func
            self.edits = _FunctionEdits(ir, func, edit)
            self.replaced = {}
            self.depth = 0
            return super().visit_function(func)

        def current(self, name: str) -> Any:
            """The variable printed as ``name`` in the rewritten function."""
            assert self.edits is not None
            if name in self.edits.inserted_by_name:
                return self.inserted_var(name)
            return self.visit_expr(self.edits.original(name))

        def inserted_var(self, name: str) -> Any:
            assert self.edits is not None
            made = self.edits.new_vars.get(name)
            if made is None:
                stmt = self.edits.inserted_by_name[name]
                operand = self.current(stmt["operand"])
                space = stmt["kwargs"].get("target_memory")
                placement = self.edits.placement(stmt["memref"])
                retyped = self.edits.tile_type(
                    operand.type, placement, _memory_space(ir, space) if space else None
                )
                made = ir.Var(name, retyped, operand.span)
                self.edits.new_vars[name] = made
                self.edits.printed[made.unique_id] = name
            return made

        def inserted_stmt(self, stmt: dict[str, Any]) -> Any:
            kwargs = {}
            for key, printed in stmt["kwargs"].items():
                if key != "target_memory":
                    raise PlanError(
                        f"memreuse inserts '{stmt['name']}' with '{key}={printed}', which "
                        "cannot be built in memory yet"
                    )
                kwargs[key] = _memory_space(ir, printed)
            var = self.inserted_var(stmt["name"])
            operand = self.current(stmt["operand"])
            call = ir.create_op_call(stmt["op"], [operand], kwargs, operand.span)
            return ir.AssignStmt(var, call, operand.span)

        def retyped(self, op: Any) -> Any | None:
            assert self.edits is not None
            placement = self.edits.placements.get(op.unique_id)
            return None if placement is None else self.edits.tile_type(op.type, placement)

        def visit_var(self, op: Any) -> Any:
            if self.edits is None:
                return super().visit_var(op)
            if op.unique_id in self.replaced:
                return self.replaced[op.unique_id]
            retyped = self.retyped(op)
            if retyped is None:
                return super().visit_var(op)
            new = ir.Var(op.name_hint, retyped, op.span)
            self.replaced[op.unique_id] = new
            self.edits.printed[new.unique_id] = self.edits.name_of(op)
            return new

        def visit_iter_arg(self, op: Any) -> Any:
            if self.edits is None:
                return super().visit_iter_arg(op)
            if op.unique_id in self.replaced:
                return self.replaced[op.unique_id]
            retyped = self.retyped(op)
            init = self.edits.init_values.get(op.name_hint)
            if retyped is None and init is None:
                return super().visit_iter_arg(op)
            value = self.current(init) if init is not None else self.visit_expr(op.initValue)
            new = ir.IterArg(op.name_hint, retyped or op.type, value, op.span)
            self.replaced[op.unique_id] = new
            self.edits.printed[new.unique_id] = self.edits.name_of(op)
            return new

        def visit_yield_stmt(self, op: Any) -> Any:
            visited = super().visit_yield_stmt(op)
            if self.edits is None:
                return visited
            key = tuple(self.edits.name_of(v) if isinstance(v, ir.Var) else None for v in op.value)
            values = self.edits.yields.get(key)
            if values is None:
                return visited
            return ir.YieldStmt([self.current(name) for name in values], visited.span)

        def enter(self, kind: str) -> None:
            """A loop or ``if`` of the block being visited: its blocks' owner."""
            assert self.edits is not None
            ident = self.idents[self.depth - 1].pop(0) if self.idents.get(self.depth - 1) else ""
            self.owners.append([kind, ident, self.depth, 0])

        def inserted_chain(self, place: str) -> list[Any]:
            """memreuse's statements inserted at ``place``, each followed by those it
            anchors."""
            assert self.edits is not None
            chain = []
            for inserted in self.edits.inserted.get(place, []):
                chain.append(self.inserted_stmt(inserted))
                chain.extend(self.inserted_chain(f"{inserted['name']}+0"))
            return chain

        def visit_for_stmt(self, op: Any) -> Any:
            if self.edits is None:
                return super().visit_for_stmt(op)
            self.enter("for")
            try:
                visited = super().visit_for_stmt(op)
                # A body of one statement is no SeqStmts: what memreuse inserts at its
                # start makes it one.
                if isinstance(visited.body, ir.SeqStmts):
                    return visited
                chain = self.inserted_chain(f"^for {self.owners[-1][1]}+0")
                if not chain:
                    return visited
                body = ir.SeqStmts([*chain, visited.body], visited.body.span)
                return ir.ForStmt(
                    visited.loop_var,
                    visited.start,
                    visited.stop,
                    visited.step,
                    visited.iter_args,
                    body,
                    visited.return_vars,
                    visited.span,
                    visited.kind,
                    visited.attrs,
                )
            finally:
                self.owners.pop()

        def visit_if_stmt(self, op: Any) -> Any:
            if self.edits is None:
                return super().visit_if_stmt(op)
            self.enter("if")
            try:
                visited = super().visit_if_stmt(op)
                # As for loops: an arm of one statement with insertions becomes a SeqStmts.
                ident = self.owners[-1][1]
                arms = [visited.then_body, visited.else_body]
                for n, (arm, kind) in enumerate(zip(arms, ("then", "else"))):
                    if arm is None or isinstance(arm, ir.SeqStmts):
                        continue
                    chain = self.inserted_chain(f"^{kind} {ident}+0")
                    if chain:
                        arms[n] = ir.SeqStmts([*chain, arm], arm.span)
                if arms[0] is visited.then_body and arms[1] is visited.else_body:
                    return visited
                return ir.IfStmt(visited.condition, arms[0], arms[1], visited.return_vars, visited.span)
            finally:
                self.owners.pop()

        def owner(self) -> str | None:
            """The owner of the block about to be visited (see ``edits.rs``)."""
            if self.depth == 0:
                return "function"
            if not self.owners or self.owners[-1][2] != self.depth:
                return None
            owner = self.owners[-1]
            kind = owner[0]
            if kind == "if":
                kind = "then" if owner[3] == 0 else "else"
            owner[3] += 1
            return f"{kind} {owner[1]}"

        def visit_seq_stmts(self, op: Any) -> Any:
            if self.edits is None:
                return super().visit_seq_stmts(op)
            edits = self.edits
            owner = self.owner()
            def removed(stmt: Any) -> bool:
                return isinstance(stmt, ir.AssignStmt) and edits.name_of(stmt.var) in edits.removed

            # The loops' and ifs' idents in this block, in order, for `enter`: their key,
            # else their place among the statements both plans have.
            self.idents[self.depth] = [
                _stmt_key(ir, s, edits.name_of) or f"@{place}"
                for s, place in _places(ir, [s for s in op.stmts if not removed(s)], owner, edits)
                if isinstance(s, (ir.ForStmt, ir.IfStmt))
            ]
            self.depth += 1
            try:
                visited = super().visit_seq_stmts(op)
            finally:
                self.depth -= 1
            stmts: list[Any] = []
            previous, skipped = f"^{owner}", 0
            for stmt in [*(s for s in visited.stmts if not removed(s)), None]:
                # Places count memreuse's inserted statements too: the last one is the
                # anchor of what follows.
                chain = self.inserted_chain(f"{previous}+{skipped}")
                if chain:
                    stmts.extend(chain)
                    previous, skipped = edits.name_of(chain[-1].var), 0
                if stmt is None:
                    break
                stmts.append(stmt)
                key = _stmt_key(ir, stmt, edits.name_of)
                previous, skipped = (key, 0) if key else (previous, skipped + 1)
            if self.depth == 0:
                for index, alloc in sorted(edits.top_allocs, key=lambda pair: pair[0]):
                    stmts.insert(index, alloc)
            if len(stmts) == len(visited.stmts) and all(a is b for a, b in zip(stmts, visited.stmts)):
                return visited
            return ir.SeqStmts(stmts, visited.span)

    return Mutator


_installed_lock = threading.Lock()
_installed: list[tuple[Any, Any]] = []


def install(**settings: Any) -> None:
    """Every ``PassManager`` built from now on (so every ``ir.compile``) runs
    :func:`memory_reuse` with ``settings`` in place of PyPTO's MemoryReuse. Undo with
    :func:`uninstall`; calls nest."""
    _, passes = _pypto()
    from pypto.ir.pass_manager import PassManager

    with _installed_lock:
        original = PassManager.__dict__["_get_pass_factories"]
        factories = original.__func__

        def replanned(strategy: Any, **kwargs: Any) -> tuple[Any, ...]:
            return tuple(
                (lambda: memory_reuse(**settings)) if factory is passes.memory_reuse else factory
                for factory in factories(strategy, **kwargs)
            )

        PassManager._get_pass_factories = staticmethod(replanned)
        _installed.append((PassManager, original))


def uninstall() -> None:
    """Undoes the last :func:`install`."""
    with _installed_lock:
        if not _installed:
            return
        manager, original = _installed.pop()
        manager._get_pass_factories = original


@contextlib.contextmanager
def use(**settings: Any) -> Iterator[None]:
    """Inside the block, PyPTO compiles with memreuse's MemoryReuse (see :func:`install`)::

        with memreuse.pypto.use():
            ir.compile(program, skip_ptoas=True)
    """
    install(**settings)
    try:
        yield
    finally:
        uninstall()


def _guard_check(
    on_unsafe: str, backend: str | None, findings: list[Diagnostic]
) -> Callable[[Any, Any], None]:
    def after_pass(pass_: Any, program: Any) -> None:
        if pass_.get_name() != _PASS_NAME:
            return
        path = f"<{program.name} after MemoryReuse>"
        checked = memreuse.verify(_print(program), path=path, backend=backend or _backend_name())
        if checked.ok:
            return
        findings.extend(checked.violations)
        first = checked.violations[0]
        message = (
            f"PyPTO's MemoryReuse plan of {program.name} is unsafe: {len(checked.violations)} "
            f"violations, first {first} (in function '{first.function}')"
        )
        if on_unsafe == "raise":
            raise PlanError(message, checked.violations)
        warnings.warn(UnsafePlanWarning(message, first), stacklevel=2)

    return after_pass


@contextlib.contextmanager
def guard(
    on_unsafe: Literal["warn", "raise"] = "warn", *, backend: str | None = None
) -> Iterator[list[Diagnostic]]:
    """Checks PyPTO's own MemoryReuse output with memreuse's checkers right after the pass,
    in every compile inside the block (a ``PassContext`` holding a ``CallbackInstrument``;
    ``ir.compile`` inherits its instruments). An unsafe plan warns
    :class:`memreuse.UnsafePlanWarning` or, with ``on_unsafe="raise"``, raises
    :class:`memreuse.PlanError`. Yields the list the findings are collected in::

        with memreuse.pypto.guard(on_unsafe="raise"):
            ir.compile(program, skip_ptoas=True)
    """
    if on_unsafe not in ("warn", "raise"):
        raise ValueError(f"on_unsafe must be 'warn' or 'raise', not {on_unsafe!r}")
    _, passes = _pypto()
    findings: list[Diagnostic] = []
    instrument = passes.CallbackInstrument(
        after_pass=_guard_check(on_unsafe, backend, findings), name="memreuse.guard"
    )
    outer = passes.PassContext.current()
    instruments = list(outer.get_instruments()) if outer else []
    if outer is None:
        context = passes.PassContext(instruments + [instrument])
    else:
        context = passes.PassContext(
            instruments + [instrument],
            outer.get_verification_level(),
            outer.get_diagnostic_phase(),
            outer.get_disabled_diagnostics(),
            outer.get_memory_planner(),
            outer.get_enable_pypto_l0c_double_buffer(),
            outer.get_runtime(),
        )
    with context:
        yield findings
