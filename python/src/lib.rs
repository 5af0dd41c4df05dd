//! `memreuse._native`, the extension under the Python package `memreuse` (`python/memreuse`):
//! the engine's planning, checking and explaining of one text, each the CLI's own functions
//! (`planning`), and the edits that carry memreuse's plan into PyPTO's in-memory IR
//! (`edits`). Every function releases the GIL while it works, and returns a panic as a
//! `RuntimeError` instead of letting it unwind into Python; the package's Python layer turns
//! results and errors into its API and exceptions.

mod edits;
mod planning;

use std::panic::{AssertUnwindSafe, catch_unwind};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use memreuse::plan::PlanConfig;
use planning::{PlanFlags, PlanningError};

// Planning allocates and frees many small IR nodes; with jemalloc, as in the CLI
// (`cli/src/main.rs`), the default path inside PyPTO takes about 9 % less time than with
// glibc's allocator (docs/python.md). It serves the extension's own Rust allocations only:
// Python's objects keep Python's allocator.
#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Runs `work` without the GIL; a panic becomes a `RuntimeError` naming it.
fn detached<T: Send>(py: Python<'_>, work: impl FnOnce() -> T + Send) -> PyResult<T> {
    py.detach(|| catch_unwind(AssertUnwindSafe(work)))
        .map_err(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            PyRuntimeError::new_err(format!("internal error in memreuse: {what}"))
        })
}

fn value_error(err: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(err.to_string())
}

fn runtime_error(err: impl std::fmt::Display) -> PyErr {
    PyRuntimeError::new_err(err.to_string())
}

/// The settings of `memreuse.plan(...)` as the Python side passes them, one tuple:
/// `(backend, planner, exact, addresses, [(space, bytes)])`.
#[derive(FromPyObject)]
struct PlanArgs(String, String, bool, bool, Vec<(String, i64)>);

impl PlanArgs {
    /// The configuration `memreuse plan` would use for a file at `display` with these flags.
    fn config(&self, display: &str) -> PyResult<PlanConfig> {
        let PlanArgs(backend, planner, exact, addresses, capacity) = self;
        let flags = PlanFlags {
            backend,
            planner,
            exact: *exact,
            addresses: *addresses,
            capacity,
        };
        planning::config(&flags, display).map_err(value_error)
    }
}

/// Plans `text` as `memreuse plan --no-cache --emit ir|json` would plan a file at `display`:
/// `(ir, json)`, `ir` being `None` where the CLI prints no program. `ValueError` for unknown
/// settings and text without a program.
#[pyfunction]
fn plan(
    py: Python<'_>,
    text: String,
    display: String,
    settings: PlanArgs,
) -> PyResult<(Option<String>, String)> {
    let config = settings.config(&display)?;
    match detached(py, || planning::plan(&text, &display, config))? {
        Ok(planned) => Ok((planned.ir, planned.json)),
        Err(PlanningError::NotAProgram) => Err(value_error(PlanningError::NotAProgram)),
        Err(err) => Err(runtime_error(err)),
    }
}

/// The memory viewer's page for `text`, as `plan --emit html` writes it.
#[pyfunction]
fn page(py: Python<'_>, text: String, display: String, settings: PlanArgs) -> PyResult<String> {
    let config = settings.config(&display)?;
    detached(py, || planning::page(&text, &display, config))
}

/// Both checkers on a planned `text`: the JSON of one file as `memreuse verify --json`
/// lists it.
#[pyfunction]
fn verify(
    py: Python<'_>,
    text: String,
    display: String,
    backend: String,
    addressed: bool,
) -> PyResult<String> {
    let report = detached(py, || {
        planning::verify(&text, &display, &backend, addressed)
    })?
    .map_err(value_error)?;
    Ok(report.to_string())
}

/// `memreuse explain`: `(True, explanation)`, or `(False, why there is none)`.
#[pyfunction]
fn explain(
    py: Python<'_>,
    text: String,
    display: String,
    function: String,
    pair: (String, String),
    backend: String,
) -> PyResult<(bool, String)> {
    let (first, second) = pair;
    let config =
        planning::config(&PlanFlags::pypto(&backend, &[]), &display).map_err(value_error)?;
    let answer = detached(py, || {
        planning::explain(&text, &function, (&first, &second), &config)
    })?;
    Ok(match answer {
        Ok(text) => (true, text),
        Err(err) => (false, err.to_string()),
    })
}

/// The PyPTO pass's planning of a program (see `planning::plan_for_pass`): `(ir, repairs,
/// (parse, plan, print) seconds)`, each repair `(function, code, message, line, col)`.
/// `ValueError` when the text does not parse or a function cannot be planned.
#[pyfunction]
#[allow(clippy::type_complexity)]
fn plan_for_pass(
    py: Python<'_>,
    text: String,
    display: String,
    backend: String,
    capacity: Vec<(String, i64)>,
) -> PyResult<(
    String,
    Vec<(String, String, String, u32, u32)>,
    (f64, f64, f64),
)> {
    let config =
        planning::config(&PlanFlags::pypto(&backend, &capacity), &display).map_err(value_error)?;
    let (ir, repairs, phases) =
        detached(py, || planning::plan_for_pass(&text, &display, config))?.map_err(value_error)?;
    let repairs = repairs
        .into_iter()
        .map(|r| (r.function, r.code.to_owned(), r.message, r.line, r.col))
        .collect();
    Ok((ir, repairs, (phases.parse, phases.plan, phases.print)))
}

/// What memreuse's `planned` program changes in PyPTO's printed output `pypto`, as JSON
/// (see `edits::plan_edits`).
#[pyfunction]
fn plan_edits(py: Python<'_>, pypto: String, planned: String) -> PyResult<String> {
    let edits = detached(py, || edits::plan_edits(&pypto, &planned))?.map_err(runtime_error)?;
    Ok(edits.to_string())
}

#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(plan, module)?)?;
    module.add_function(wrap_pyfunction!(page, module)?)?;
    module.add_function(wrap_pyfunction!(verify, module)?)?;
    module.add_function(wrap_pyfunction!(explain, module)?)?;
    module.add_function(wrap_pyfunction!(plan_for_pass, module)?)?;
    module.add_function(wrap_pyfunction!(plan_edits, module)?)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
