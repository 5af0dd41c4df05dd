//! Located diagnostics shared by every stage, and their rendering as `file:line:col` reports
//! with a source snippet.

use std::fmt;

use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term;

use crate::{LineIndex, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
    /// A performance hint (PyPTO's `PerfHint`).
    Hint,
    /// A fact worth knowing that needs no action (lifetimes that overlap without a lost value).
    Note,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Hint => "hint",
            Severity::Note => "note",
        }
    }
}

/// One finding about the input, tied to a place in it. Its texts are strings, or (`M`) words
/// that are said once the reader knows how to say the tiles they name (the checkers' findings).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic<M = String> {
    pub severity: Severity,
    /// A stable code, e.g. `E001` or `PH-MR-001`.
    pub code: &'static str,
    pub message: M,
    pub span: Span,
    /// What to do about it, when there is something useful to say.
    pub hint: Option<M>,
    /// Other places the finding involves (where a lost value was defined, what overwrote it).
    pub related: Vec<Related<M>>,
}

/// A secondary place of a diagnostic, with what happens there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Related<M = String> {
    pub span: Span,
    pub message: M,
}

impl<M> Diagnostic<M> {
    pub fn new(severity: Severity, code: &'static str, message: M, span: Span) -> Diagnostic<M> {
        Diagnostic {
            severity,
            code,
            message,
            span,
            hint: None,
            related: Vec::new(),
        }
    }

    pub fn with_hint(mut self, hint: impl Into<M>) -> Diagnostic<M> {
        self.hint = Some(hint.into());
        self
    }

    /// The diagnostic with each of its texts said by `say`.
    pub fn said<N>(&self, mut say: impl FnMut(&M) -> N) -> Diagnostic<N> {
        Diagnostic {
            severity: self.severity,
            code: self.code,
            message: say(&self.message),
            span: self.span,
            hint: self.hint.as_ref().map(&mut say),
            related: self
                .related
                .iter()
                .map(|related| Related {
                    span: related.span,
                    message: say(&related.message),
                })
                .collect(),
        }
    }
}

impl Diagnostic {
    pub fn error(code: &'static str, message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic::new(Severity::Error, code, message.into(), span)
    }

    pub fn note(code: &'static str, message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic::new(Severity::Note, code, message.into(), span)
    }

    pub fn warning(code: &'static str, message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic::new(Severity::Warning, code, message.into(), span)
    }

    /// `file:line:col: severity[code]: message` — the one-line form.
    pub fn one_line(&self, file: &str, text: &str, lines: &LineIndex) -> String {
        let pos = lines.line_col(text, self.span.start);
        format!(
            "{file}:{}:{}: {}[{}]: {}",
            pos.line,
            pos.col,
            self.severity.name(),
            self.code,
            self.message
        )
    }

    /// The related places in the one-line form: `file:line:col: note: message`, one a line.
    pub fn related_lines(&self, file: &str, text: &str, lines: &LineIndex) -> Vec<String> {
        self.related
            .iter()
            .map(|r| {
                let pos = lines.line_col(text, r.span.start);
                format!("{file}:{}:{}: note: {}", pos.line, pos.col, r.message)
            })
            .collect()
    }

    /// The full report: location, message, a snippet with a caret, the related places, and the
    /// hint.
    pub fn render(&self, file: &str, text: &str) -> String {
        self.render_styled(file, text, false)
    }

    /// [`Diagnostic::render`], with ANSI colours when `color` (for a terminal).
    pub fn render_styled(&self, file: &str, text: &str, color: bool) -> String {
        let files = SimpleFile::new(file, text);
        let severity = match self.severity {
            Severity::Error => cs::Severity::Error,
            Severity::Warning => cs::Severity::Warning,
            Severity::Hint => cs::Severity::Help,
            Severity::Note => cs::Severity::Note,
        };
        let end = (self.span.end as usize).min(text.len());
        let start = (self.span.start as usize).min(end);
        let mut diagnostic = cs::Diagnostic::new(severity)
            .with_code(self.code)
            .with_message(&self.message)
            .with_labels(
                std::iter::once(cs::Label::primary((), start..end))
                    .chain(self.related.iter().map(|r| {
                        let end = (r.span.end as usize).min(text.len());
                        let start = (r.span.start as usize).min(end);
                        cs::Label::secondary((), start..end).with_message(&r.message)
                    }))
                    .collect(),
            );
        if let Some(hint) = &self.hint {
            diagnostic = diagnostic.with_notes(vec![format!("hint: {hint}")]);
        }
        let config = term::Config::default();
        let emitted = if color {
            let mut out = term::termcolor::Ansi::new(Vec::new());
            term::emit(&mut out, &config, &files, &diagnostic).map(|()| out.into_inner())
        } else {
            let mut out = term::termcolor::NoColor::new(Vec::new());
            term::emit(&mut out, &config, &files, &diagnostic).map(|()| out.into_inner())
        };
        match emitted {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(_) => self.one_line(file, text, &LineIndex::new(text)),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}[{}]: {}",
            self.severity.name(),
            self.code,
            self.message
        )
    }
}
