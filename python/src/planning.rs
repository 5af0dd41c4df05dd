//! What the Python functions compute, without Python: each calls the engine's functions the
//! CLI calls (`plan --emit ir|json|html`, `verify`, `explain`) on one text, so the results
//! are the CLI's bytes for the same input and settings (with `--no-cache`).

use std::path::Path;
use std::time::Instant;

use memreuse::backend::Backend;
use memreuse::db::{FileStatus, UnprintedProgram, planned_program};
use memreuse::ir::{self, LineIndex, MemSpace};
use memreuse::json::{
    FileError, FileReport, MissingDetail, diagnostic_json, function_entries, plan_document,
};
use memreuse::plan::{PlanConfig, Planner};
use memreuse::repair;
use memreuse::system::OsSystem;
use memreuse::verify::{Addressing, VerifyOptions, verify_program};
use memreuse_project::{is_init_mem_ref_dump, parse_capacity};
use memreuse_viewer::data::plan_text;
use memreuse_viewer::page::{PageFile, static_page_of};
use serde_json::{Value, json};

/// Python plans in memory: no store (a notebook's plans are planned again).
fn no_cache() -> std::sync::Arc<memreuse::store::Cache> {
    std::sync::Arc::new(memreuse::store::Cache::disabled())
}

/// A setting Python passed that names nothing memreuse knows.
#[derive(Debug, thiserror::Error)]
pub enum PlanFlagsError {
    #[error("unknown backend '{0}' (expected none, 910b or 950)")]
    Backend(String),
    #[error("unknown planner '{0}' (expected pypto, dsa or none)")]
    Planner(String),
    #[error("invalid capacity: {0}")]
    Capacity(String),
}

/// Why a text gave no result at all (a function without a plan is a result: JSON lists it).
#[derive(Debug, thiserror::Error)]
pub enum PlanningError {
    #[error("the text holds no @pl.program")]
    NotAProgram,
    #[error("the engine gave no outcome for the text")]
    NoOutcome,
    #[error(transparent)]
    MissingDetail(#[from] MissingDetail),
    #[error(transparent)]
    Unprinted(#[from] UnprintedProgram),
    #[error("cannot write JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// The arguments of `memreuse.plan(...)`, as the CLI's flags give them.
pub struct PlanFlags<'a> {
    pub backend: &'a str,
    pub planner: &'a str,
    pub exact: bool,
    pub addresses: bool,
    /// `(space, bytes)`, as `--capacity SPACE=BYTES`.
    pub capacity: &'a [(String, i64)],
}

impl<'a> PlanFlags<'a> {
    /// PyPTO's planner with its defaults: what the PyPTO pass and `explain` plan with.
    pub fn pypto(backend: &'a str, capacity: &'a [(String, i64)]) -> PlanFlags<'a> {
        PlanFlags {
            backend,
            planner: "pypto",
            exact: false,
            addresses: false,
            capacity,
        }
    }
}

/// The configuration `memreuse plan` would use for a file at `display` with these flags (and
/// no `memreuse.toml`): Step 0 runs for `*_after_InitMemRef*` dumps, as `auto` says.
pub fn config(flags: &PlanFlags, display: &str) -> Result<PlanConfig, PlanFlagsError> {
    let backend = Backend::from_name(flags.backend)
        .ok_or_else(|| PlanFlagsError::Backend(flags.backend.to_owned()))?;
    let planner = match flags.planner {
        "pypto" => Planner::Pypto,
        "dsa" => Planner::Dsa,
        "none" => Planner::None,
        other => return Err(PlanFlagsError::Planner(other.to_owned())),
    };
    let mut config = PlanConfig {
        backend,
        planner,
        exact: flags.exact,
        assign_addresses: flags.addresses,
        materialize_aliases: is_init_mem_ref_dump(Path::new(display)),
        ..PlanConfig::default()
    };
    for (space, bytes) in flags.capacity {
        let (space, bytes): (MemSpace, i64) =
            parse_capacity(&format!("{space}={bytes}")).map_err(PlanFlagsError::Capacity)?;
        config.capacity_overrides[space as usize] = Some(bytes);
    }
    Ok(config)
}

/// One planned text: the program as `--emit ir` prints it (`None` when a function has no
/// plan or the text does not parse: the CLI prints nothing then), and the document `--emit
/// json` prints, newline included.
pub struct PlannedText {
    pub ir: Option<String>,
    pub json: String,
}

pub fn plan(text: &str, display: &str, config: PlanConfig) -> Result<PlannedText, PlanningError> {
    let outcome = plan_text(&OsSystem, Path::new(display), text, config, &no_cache())
        .ok_or(PlanningError::NoOutcome)?;
    let (ir, report) = match &*outcome.status {
        FileStatus::NotAProgram => return Err(PlanningError::NotAProgram),
        FileStatus::NeedsText | FileStatus::Unreadable(_) => return Err(PlanningError::NoOutcome),
        FileStatus::ParseFailed(diagnostics) => (
            None,
            FileReport {
                path: display,
                text,
                functions: Vec::new(),
                error: Some(FileError::Parse(diagnostics)),
            },
        ),
        FileStatus::Planned { header, functions } => {
            let all_planned = functions.iter().all(|f| f.result.is_ok());
            let ir = match all_planned {
                true => Some(planned_program(header, functions, &[])?),
                false => None,
            };
            let report = FileReport {
                path: display,
                text,
                functions: function_entries(functions, |_| false)?,
                error: None,
            };
            (ir, report)
        }
    };
    let document = plan_document(config.backend.name(), config.planner.name(), &[report]);
    let mut json = serde_json::to_string_pretty(&document)?;
    json.push('\n');
    Ok(PlannedText { ir, json })
}

/// The memory viewer's page for one text, as `plan --emit html` writes it.
pub fn page(text: &str, display: &str, config: PlanConfig) -> String {
    let names: Vec<String> = match ir::parse_program(text) {
        Ok(program) => program
            .functions
            .iter()
            .map(|f| f.name.to_string())
            .collect(),
        Err(_) => Vec::new(),
    };
    let file = PageFile {
        display,
        text,
        unreadable: None,
        materialize_aliases: config.materialize_aliases,
        functions: names.iter().map(String::as_str).collect(),
    };
    static_page_of(&OsSystem, &[file], &config, &no_cache())
}

/// Both checkers on an already planned text, as `memreuse verify --json` reports one file:
/// `{"path", "status": "verified" | "violations" | "parse_failed", "violations": [...],
/// "diagnostics": [...]}` (violations name their function).
pub fn verify(
    text: &str,
    display: &str,
    backend: &str,
    addressed: bool,
) -> Result<Value, PlanFlagsError> {
    let backend =
        Backend::from_name(backend).ok_or_else(|| PlanFlagsError::Backend(backend.to_owned()))?;
    let lines = LineIndex::new(text);
    let program = match ir::parse_program(text) {
        Ok(program) => program,
        Err(err) => {
            let diagnostics: Vec<Value> = err
                .diagnostics
                .iter()
                .map(|d| diagnostic_json(d, text, &lines))
                .collect();
            return Ok(json!({"path": display, "status": "parse_failed",
                             "diagnostics": diagnostics, "violations": []}));
        }
    };
    let options = VerifyOptions {
        backend,
        addressing: match addressed {
            true => Addressing::AllocateMemoryAddr,
            false => Addressing::Offsets,
        },
    };
    let violations: Vec<Value> = verify_program(&program, &options)
        .iter()
        .map(|(index, d)| {
            let mut entry = diagnostic_json(d, text, &lines);
            entry["function"] = Value::from(program.functions[*index].name.as_str());
            entry
        })
        .collect();
    let status = match violations.is_empty() {
        true => "verified",
        false => "violations",
    };
    Ok(json!({"path": display, "status": status, "diagnostics": [], "violations": violations}))
}

/// Why `explain` has no answer.
#[derive(Debug, thiserror::Error)]
pub enum ExplainFailure {
    #[error("the text does not parse: {0}")]
    Parse(String),
    #[error("no function '{function}' in the text (it has: {known})")]
    NoFunction { function: String, known: String },
    #[error("{0}")]
    Explain(String),
}

/// `memreuse explain FILE::FUNCTION FIRST SECOND`: both lifetimes, the first rule that keeps
/// the tiles apart (or why sharing is safe), and where the plan put them.
pub fn explain(
    text: &str,
    function: &str,
    tiles: (&str, &str),
    config: &PlanConfig,
) -> Result<String, ExplainFailure> {
    let program = ir::parse_program(text).map_err(|err| {
        let messages: Vec<&str> = err.diagnostics.iter().map(|d| d.message.as_str()).collect();
        ExplainFailure::Parse(messages.join("; "))
    })?;
    let Some(f) = program.functions.iter().find(|f| f.name == function) else {
        let known: Vec<&str> = program.functions.iter().map(|f| f.name.as_str()).collect();
        return Err(ExplainFailure::NoFunction {
            function: function.to_owned(),
            known: known.join(", "),
        });
    };
    memreuse::plan::explain::explain(f, text, config, tiles.0, tiles.1)
        .map_err(|err| ExplainFailure::Explain(err.to_string()))
}

/// A repair of a function memreuse planned for the PyPTO pass: the function, the code,
/// the message and where in the text.
pub struct PassRepair {
    pub function: String,
    pub code: &'static str,
    pub message: String,
    pub line: u32,
    pub col: u32,
}

/// Why the PyPTO pass gets no plan of a text.
#[derive(Debug, thiserror::Error)]
pub enum PassPlanError {
    #[error("{path}:{line}:{col}: {message}")]
    Parse {
        path: String,
        line: u32,
        col: u32,
        message: String,
    },
    #[error("memreuse cannot plan function '{function}': {reason}")]
    Function { function: String, reason: String },
}

/// Where [`plan_for_pass`]'s time went, in seconds: reading the text, planning and checking
/// (repairs included), printing the plan. For the benchmark (`scripts/bench-pypto.py`),
/// which compares the planning with PyPTO's own pass.
pub struct PassPhases {
    pub parse: f64,
    pub plan: f64,
    pub print: f64,
}

/// The lean path of the PyPTO pass (`memreuse.pypto.memory_reuse`): the whole program
/// planned and checked (`repair::plan_program_repairs`, the planner and checkers `plan`
/// runs, without the engine's cache, reports or JSON), printed, and its repairs located.
/// The pass only needs to know whether PyPTO's decision stands and, where it does not,
/// memreuse's program; the tests hold its text equal to [`plan`]'s.
pub fn plan_for_pass(
    text: &str,
    display: &str,
    config: PlanConfig,
) -> Result<(String, Vec<PassRepair>, PassPhases), PassPlanError> {
    let started = Instant::now();
    let lines = LineIndex::new(text);
    let program = ir::parse_program(text).map_err(|err| {
        let first = err.diagnostics.first();
        let at = first.map(|d| lines.line_col(text, d.span.start));
        PassPlanError::Parse {
            path: display.to_owned(),
            line: at.map_or(0, |a| a.line),
            col: at.map_or(0, |a| a.col),
            message: first.map_or_else(String::new, |d| d.message.clone()),
        }
    })?;
    let parsed = Instant::now();
    let options = repair::verify_options(&config);
    let planned =
        repair::plan_program_repairs(&program, &config, &options).map_err(|(index, err)| {
            let reason = match err {
                repair::SafePlanError::Plan(err) => err.0.message,
                repair::SafePlanError::Unrepaired(findings) => format!(
                    "its plan still fails the checkers after repair ({} findings)",
                    findings.len()
                ),
            };
            PassPlanError::Function {
                function: program.functions[index].name.to_string(),
                reason,
            }
        })?;
    let checked = Instant::now();
    let printed = ir::print_program(&planned.program);
    let phases = PassPhases {
        parse: (parsed - started).as_secs_f64(),
        plan: (checked - parsed).as_secs_f64(),
        print: checked.elapsed().as_secs_f64(),
    };
    let mut repairs = Vec::new();
    for (function, function_repairs) in program.functions.iter().zip(&planned.repairs) {
        for d in function_repairs {
            let at = lines.line_col(text, d.span.start);
            repairs.push(PassRepair {
                function: function.name.to_string(),
                code: d.code,
                message: d.message.clone(),
                line: at.line,
                col: at.col,
            });
        }
    }
    Ok((printed, repairs, phases))
}
