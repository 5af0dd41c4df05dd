"""The Rust extension under :mod:`memreuse` (internal: use the package's functions)."""

__version__: str

def plan(
    text: str,
    display: str,
    backend: str,
    planner: str,
    exact: bool,
    addresses: bool,
    capacity: list[tuple[str, int]],
) -> tuple[str | None, str]: ...
def page(
    text: str,
    display: str,
    backend: str,
    planner: str,
    exact: bool,
    addresses: bool,
    capacity: list[tuple[str, int]],
) -> str: ...
def verify(text: str, display: str, backend: str, addressed: bool) -> str: ...
def explain(
    text: str, display: str, function: str, first: str, second: str, backend: str
) -> tuple[bool, str]: ...
def plan_edits(pypto: str, planned: str) -> str: ...
def plan_for_pass(
    text: str, display: str, backend: str, capacity: list[tuple[str, int]]
) -> tuple[str, list[tuple[str, str, str, int, int]], tuple[float, float, float]]: ...
