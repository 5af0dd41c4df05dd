//! The plan as JSON (docs/json.md, schema 3). Field order is fixed; the same input gives
//! the same bytes.

use serde_json::{Map, Value, json};

use crate::db::FunctionOutcome;
use crate::diagnostics::Diagnostic;
use crate::ir::LineIndex;
use crate::plan::PlanReport;
use crate::repair::is_repair;

/// 2: `repairs` (the safe planner's repairs of PyPTO's plan) beside `diagnostics`.
/// 3: a space's `capacity` is `null` where unknown (was 0).
pub const SCHEMA_VERSION: u32 = 3;

use crate::ir::codes;

/// One input file: its path as given, its text, and either every function in order
/// (planned or failed) or why it has none.
pub struct FileReport<'a> {
    pub path: &'a str,
    pub text: &'a str,
    pub functions: Vec<FunctionEntry<'a>>,
    /// Why the file gave no functions at all.
    pub error: Option<FileError<'a>>,
}

/// A file that could not be planned as a whole.
pub enum FileError<'a> {
    /// It could not be read (the message says why).
    Unreadable(&'a str),
    /// It does not parse (located in `text`).
    Parse(&'a [Diagnostic]),
}

/// One function of a file: its plan, or why it has none.
pub enum FunctionEntry<'a> {
    Planned(FunctionReport<'a>),
    Failed(FailedFunction<'a>),
}

/// A function that got no plan. `failure` is `plan` (the planner refused it, PyPTO's
/// ValueError) or `verify` (its plan failed the checker: an internal error, never emitted).
pub struct FailedFunction<'a> {
    pub name: &'a str,
    pub failure: &'static str,
    pub diagnostics: &'a [Diagnostic],
}

/// One planned function: its name, the blake3 digest of its planned canonical bytes, what
/// the planner decided (spans located in the file's text), and whether the plan came from
/// the cache.
pub struct FunctionReport<'a> {
    pub name: &'a str,
    pub digest: [u8; 32],
    pub report: &'a PlanReport,
    pub cached: bool,
}

/// A planned function whose report was asked for without its detail: JSON needs it all.
#[derive(Debug, thiserror::Error)]
#[error("internal error: the report of '{0}' lacks its detail")]
pub struct MissingDetail(pub String);

/// The entries of a planned file's functions, in order; `cached` says which plans the cache
/// served. Every planned function's report must be detailed (`add_report_detail`).
pub fn function_entries<'a>(
    functions: &'a [FunctionOutcome],
    cached: impl Fn(&FunctionOutcome) -> bool,
) -> Result<Vec<FunctionEntry<'a>>, MissingDetail> {
    functions
        .iter()
        .map(|f| match &f.result {
            Ok(planned) => {
                let report = planned
                    .report
                    .detailed()
                    .ok_or_else(|| MissingDetail(f.name.to_string()))?;
                Ok(FunctionEntry::Planned(FunctionReport {
                    name: &f.name,
                    digest: planned.planned_digest,
                    report,
                    cached: cached(f),
                }))
            }
            Err((kind, diagnostics)) => Ok(FunctionEntry::Failed(FailedFunction {
                name: &f.name,
                failure: kind.name(),
                diagnostics,
            })),
        })
        .collect()
}

pub fn plan_document(backend: &str, planner: &str, files: &[FileReport]) -> Value {
    json!({
        "schema": SCHEMA_VERSION,
        "tool": concat!("memreuse ", env!("CARGO_PKG_VERSION")),
        "backend": backend,
        "planner": planner,
        "files": files.iter().map(file_json).collect::<Vec<_>>(),
    })
}

fn file_json(file: &FileReport) -> Value {
    let lines = LineIndex::new(file.text);
    let functions: Vec<Value> = file
        .functions
        .iter()
        .map(|entry| {
            let function = match entry {
                FunctionEntry::Planned(function) => function,
                FunctionEntry::Failed(failed) => {
                    return json!({
                        "name": failed.name,
                        "status": "failed",
                        "failure": failed.failure,
                        "diagnostics": failed.diagnostics.iter().map(|d| diagnostic_json(d, file.text, &lines)).collect::<Vec<_>>(),
                    });
                }
            };
            let report = function.report;
            // The source line of statement `n`, where the report knows it.
            let line_of = |n: u32| {
                report
                    .statement_spans
                    .get(n as usize)
                    .map(|span| lines.line(span.start))
            };
            let digest = blake3::Hash::from_bytes(function.digest).to_hex().to_string();
            json!({
                "name": function.name,
                "status": "planned",
                "digest": digest,
                "cached": function.cached,
                "spaces": report.spaces.iter().map(|s| json!({
                    "space": s.space.name(),
                    "capacity": s.capacity,
                    "lower_bound": s.lower_bound,
                    "footprint": s.footprint,
                    "pypto_footprint": s.pypto_footprint,
                    "tiles": s.tiles,
                    "buffers_before": s.buffers_before,
                    "bytes_before": s.bytes_before,
                    "bytes_after": s.bytes_after,
                    "buffers": s.buffers.iter().map(|b| json!({
                        "base": b.base.as_str(),
                        "size": b.size,
                        "offset": b.offset,
                        "pinned": b.pinned,
                        "members": b.members.iter().map(|m| m.as_str()).collect::<Vec<_>>(),
                    })).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
                "removed_allocs": report.removed_allocs.iter().map(|a| a.as_str()).collect::<Vec<_>>(),
                "inserted_moves": report.inserted_moves.iter().map(|m| json!({
                    "line": lines.line_col(file.text, m.span.start).line,
                    "dst": m.destination.as_str(),
                    "src": m.source.as_str(),
                })).collect::<Vec<_>>(),
                "lifetimes": report.lifetimes.iter().map(|l| json!({
                    "var": l.var.as_str(),
                    "space": l.space.name(),
                    "size": l.size,
                    "def": l.def,
                    "last_use": l.last,
                    "def_line": line_of(l.def),
                    "last_use_line": line_of(l.last),
                })).collect::<Vec<_>>(),
                "diagnostics": report.diagnostics.iter().filter(|d| !is_repair(d)).map(|d| diagnostic_json(d, file.text, &lines)).collect::<Vec<_>>(),
                "repairs": report.diagnostics.iter().filter(|d| is_repair(d)).map(|d| repair_json(d, file.text, &lines)).collect::<Vec<_>>(),
            })
        })
        .collect();
    let diagnostics: Vec<Value> = match &file.error {
        None => Vec::new(),
        Some(FileError::Parse(diagnostics)) => diagnostics
            .iter()
            .map(|d| diagnostic_json(d, file.text, &lines))
            .collect(),
        Some(FileError::Unreadable(message)) => vec![json!({
            "code": codes::UNREADABLE,
            "severity": "error",
            "message": message,
            "line": null,
            "col": null,
        })],
    };
    let failed = file.error.is_some()
        || file
            .functions
            .iter()
            .any(|f| matches!(f, FunctionEntry::Failed(_)));
    let mut map = Map::new();
    map.insert("path".into(), Value::from(file.path));
    map.insert(
        "status".into(),
        Value::from(if failed { "failed" } else { "planned" }),
    );
    map.insert("diagnostics".into(), Value::from(diagnostics));
    map.insert("functions".into(), Value::from(functions));
    Value::Object(map)
}

/// A repair: a diagnostic with its hint (why PyPTO's decision is unsafe, step by step).
fn repair_json(d: &Diagnostic, text: &str, lines: &LineIndex) -> Value {
    let mut value = diagnostic_json(d, text, lines);
    if let Value::Object(map) = &mut value {
        map.insert(
            "hint".into(),
            d.hint.as_deref().map_or(Value::Null, Value::from),
        );
    }
    value
}

pub fn diagnostic_json(d: &Diagnostic, text: &str, lines: &LineIndex) -> Value {
    let pos = lines.line_col(text, d.span.start);
    let mut value = json!({
        "code": d.code,
        "severity": d.severity.name(),
        "message": d.message,
        "line": pos.line,
        "col": pos.col,
    });
    // The value checker's findings name other places too (where the lost value was defined,
    // what overwrote it).
    if !d.related.is_empty()
        && let Value::Object(map) = &mut value
    {
        let related = d.related.iter().map(|r| {
            let pos = lines.line_col(text, r.span.start);
            json!({ "message": r.message, "line": pos.line, "col": pos.col })
        });
        map.insert("related".into(), Value::from(related.collect::<Vec<_>>()));
    }
    value
}
