//! Turning a file's outcome into the answer to `query` or `explain`. The daemon and the
//! CLI's in-process fallback share this, so both print the same thing.

use memreuse::db::{FailureKind, FileOutcome, FileStatus};
use memreuse::ir;
use memreuse::json::{
    FailedFunction, FileError, FileReport, FunctionEntry, FunctionReport, plan_document,
};
use memreuse::plan::PlanConfig;
use memreuse::plan::explain::explain;

use crate::protocol::Answer;

/// The answer to `query FILE[::FUNCTION]`. `display` names the file in output; `outcome`'s
/// reports must be complete (`Workspace::add_report_detail`, `Snapshot::detailed_outcome`).
/// Diagnostics get ANSI colours when `color`.
pub fn query_answer(
    outcome: &FileOutcome,
    display: &str,
    function: Option<&str>,
    (backend, planner): (&str, &str),
    color: bool,
) -> Answer {
    let text = outcome.text.held().unwrap_or("");
    let mut answer = Answer::default();
    let document = |error: Option<FileError>, functions: Vec<FunctionEntry>| {
        let file = FileReport {
            path: display,
            text,
            functions,
            error,
        };
        plan_document(backend, planner, &[file])
    };
    let functions = match &*outcome.status {
        FileStatus::NeedsText => {
            answer.diagnostics = format!("error: the text of {display} was not loaded\n");
            answer.failed = true;
            return answer;
        }
        FileStatus::Unreadable(err) => {
            let message = format!("cannot read {display}: {err}");
            answer.diagnostics = format!("error: {message}\n");
            answer.document = Some(document(Some(FileError::Unreadable(&message)), Vec::new()));
            answer.failed = true;
            return answer;
        }
        FileStatus::NotAProgram => {
            answer.diagnostics = format!("error: {display} holds no @pl.program\n");
            answer.failed = true;
            return answer;
        }
        FileStatus::ParseFailed(diagnostics) => {
            for d in diagnostics {
                answer
                    .diagnostics
                    .push_str(&d.render_styled(display, text, color));
            }
            answer.document = Some(document(Some(FileError::Parse(diagnostics)), Vec::new()));
            answer.failed = true;
            return answer;
        }
        FileStatus::Planned { functions, .. } => functions,
    };
    if let Some(name) = function
        && !functions.iter().any(|f| f.name == name)
    {
        let names: Vec<&str> = functions.iter().map(|f| f.name.as_str()).collect();
        answer.diagnostics = format!(
            "error: no function '{name}' in {display} (it has: {})\n",
            names.join(", ")
        );
        answer.failed = true;
        return answer;
    }
    let mut entries = Vec::new();
    for f in functions
        .iter()
        .filter(|f| function.is_none_or(|name| f.name == name))
    {
        match &f.result {
            Ok(planned) => {
                let Some(report) = planned.report.detailed() else {
                    answer.failed = true;
                    answer.diagnostics.push_str(&format!(
                        "error: internal error: the report of '{}' lacks its detail\n",
                        f.name
                    ));
                    continue;
                };
                entries.push(FunctionEntry::Planned(FunctionReport {
                    name: &f.name,
                    digest: planned.planned_digest,
                    report,
                    cached: !f.computed,
                }))
            }
            Err((kind, diagnostics)) => {
                answer.failed = true;
                if *kind == FailureKind::Verify {
                    answer.diagnostics.push_str(&format!(
                        "error: internal error: the plan of '{}' still fails verification after repair; nothing was emitted\n",
                        f.name
                    ));
                }
                for d in diagnostics {
                    answer
                        .diagnostics
                        .push_str(&d.render_styled(display, text, color));
                    answer
                        .diagnostics
                        .push_str(&format!("  in function '{}'\n", f.name));
                }
                entries.push(FunctionEntry::Failed(FailedFunction {
                    name: &f.name,
                    failure: kind.name(),
                    diagnostics,
                }));
            }
        }
    }
    answer.document = Some(document(None, entries));
    answer
}

/// The answer to `explain FILE::FUNCTION FIRST SECOND` over the file's current `text`.
pub fn explain_answer(
    text: &str,
    display: &str,
    function: &str,
    config: &PlanConfig,
    (first, second): (&str, &str),
    color: bool,
) -> Answer {
    let mut answer = Answer::default();
    let program = match ir::parse_program(text) {
        Ok(program) => program,
        Err(err) => {
            for d in &err.diagnostics {
                answer
                    .diagnostics
                    .push_str(&d.render_styled(display, text, color));
            }
            answer.failed = true;
            return answer;
        }
    };
    let Some(f) = program.functions.iter().find(|f| f.name == function) else {
        let names: Vec<&str> = program.functions.iter().map(|f| f.name.as_str()).collect();
        answer.diagnostics = format!(
            "error: no function '{function}' in {display} (it has: {})\n",
            names.join(", ")
        );
        answer.failed = true;
        return answer;
    };
    match explain(f, text, config, first, second) {
        Ok(mut explained) => {
            explained.extend(memreuse::repair::emitted_placement(
                f,
                config,
                (first, second),
            ));
            answer.text = explained;
        }
        Err(err) => {
            answer.diagnostics = format!("error: {err}\n");
            answer.failed = true;
        }
    }
    answer
}
