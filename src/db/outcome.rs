//! What planning a file gives its callers: per file a status, per function a plan (its report
//! as complete as it was asked for) or a located failure.

use std::path::PathBuf;
use std::sync::Arc;

use super::source_file::SourceFile;
use crate::diagnostics::Diagnostic;
use crate::ir::{Name, ProgramHeader};
use crate::plan::PlanReport;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// The planner refused the function (PyPTO's ValueError).
    Plan,
    /// The plan failed the independent verifier: an internal error, never emitted.
    Verify,
}

impl FailureKind {
    /// As JSON names it (`"failure"`).
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::Plan => "plan",
            FailureKind::Verify => "verify",
        }
    }
}

/// The outcome of one file.
#[derive(Clone, Debug)]
pub struct FileOutcome {
    pub file: SourceFile,
    pub path: PathBuf,
    pub text: OutcomeText,
    /// Shared with the database's memo (`file_result`): a run's outcomes do not copy every
    /// report.
    pub status: Arc<FileStatus>,
}

/// The text a file's outcome was planned from, as the outcome holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutcomeText {
    Held(Arc<str>),
    /// Let go once the outcome was complete ([`super::Texts::Released`]): a text read again
    /// for the outcome must have this blake3 digest.
    Released([u8; 32]),
    /// Never read: a stamp vouched for the file.
    Unread,
}

impl OutcomeText {
    /// The text as the database holds it: [`OutcomeText::Unread`] where it holds none.
    pub(crate) fn of(text: &Option<Arc<str>>) -> OutcomeText {
        text.clone().map_or(OutcomeText::Unread, OutcomeText::Held)
    }

    pub fn held(&self) -> Option<&str> {
        match self {
            OutcomeText::Held(text) => Some(text),
            OutcomeText::Released(_) | OutcomeText::Unread => None,
        }
    }
}

impl FileOutcome {
    /// Drops the planned texts, for a caller that prints none: without the memo that shared
    /// them (a one-shot run, [`super::StageRetention::OneShot`]) the texts are freed.
    pub(crate) fn drop_planned_texts(&mut self) {
        if let FileStatus::Planned { functions, .. } = &*self.status
            && functions
                .iter()
                .any(|f| f.result.as_ref().is_ok_and(|p| p.planned_text.is_some()))
            && let FileStatus::Planned { functions, .. } = Arc::make_mut(&mut self.status)
        {
            for planned in functions.iter_mut().filter_map(|f| f.result.as_mut().ok()) {
                planned.planned_text = None;
            }
        }
    }
}

#[derive(Clone, Debug)]
pub enum FileStatus {
    /// The text is needed but was not loaded (internal: `Workspace::plan` loads it).
    NeedsText,
    /// The text could not be read.
    Unreadable(String),
    NotAProgram,
    ParseFailed(Vec<Diagnostic>),
    Planned {
        header: ProgramHeader,
        functions: Vec<FunctionOutcome>,
    },
}

#[derive(Clone, Debug)]
pub struct FunctionOutcome {
    pub name: Name,
    /// The plan with its report located in this file, or the located failure.
    pub result: Result<Planned, (FailureKind, Vec<Diagnostic>)>,
    /// Whether the workspace planned it (`false`: it came from the cache).
    pub computed: bool,
}

#[derive(Clone, Debug)]
pub struct Planned {
    pub report: Report,
    /// blake3 of the planned function's canonical bytes.
    pub planned_digest: [u8; 32],
    /// The planned function as printed in its program; `None` when the plan was served
    /// from a file manifest (see [`super::Workspace::planned_texts`]) or dropped
    /// (`FileOutcome::drop_planned_texts`).
    pub planned_text: Option<Arc<str>>,
}

/// A plan's report, as complete as it was asked for.
#[derive(Clone, Debug)]
pub enum Report {
    /// The figures a summary prints (each space's counts, inserted moves, diagnostics)
    /// without the per-buffer and per-variable detail (`spaces[].buffers`, `removed_allocs`,
    /// `lifetimes`, `statement_spans` are empty): a file manifest carries no more, and
    /// statement places are located only when asked for (see
    /// [`super::Workspace::add_report_detail`]).
    Summary(PlanReport),
    /// The complete report.
    Detailed(PlanReport),
}

impl Report {
    /// The figures a summary prints, which a detailed report has too.
    pub fn summary(&self) -> &PlanReport {
        match self {
            Report::Summary(report) | Report::Detailed(report) => report,
        }
    }

    /// The complete report; `None` for a summary.
    pub fn detailed(&self) -> Option<&PlanReport> {
        match self {
            Report::Summary(_) => None,
            Report::Detailed(report) => Some(report),
        }
    }
}

/// Why a file's planned program cannot be printed.
#[derive(Debug, thiserror::Error)]
pub enum UnprintedProgram {
    #[error("function '{0}' has no plan")]
    Unplanned(String),
    #[error("the planned text of function '{0}' was served from a manifest and is not at hand")]
    TextNotAtHand(String),
}

/// The planned program of a file whose every function was planned: each function's planned
/// text (or, where a manifest served the plan, the one in `stored`, by index) under `header`.
pub fn planned_program(
    header: &ProgramHeader,
    functions: &[FunctionOutcome],
    stored: &[Option<Arc<str>>],
) -> Result<String, UnprintedProgram> {
    let mut texts = Vec::with_capacity(functions.len());
    for (i, function) in functions.iter().enumerate() {
        let Ok(planned) = &function.result else {
            return Err(UnprintedProgram::Unplanned(function.name.to_string()));
        };
        let text = planned
            .planned_text
            .as_ref()
            .or(stored.get(i).and_then(Option::as_ref))
            .ok_or_else(|| UnprintedProgram::TextNotAtHand(function.name.to_string()))?;
        texts.push(&**text);
    }
    Ok(header.assemble(texts))
}
