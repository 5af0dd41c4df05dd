//! What the checkers report: located diagnostics with stable codes, and for a clobber the two
//! tiles, so a repair can separate them.

use memreuse_ir::diagnostics::{Diagnostic, Severity};
use memreuse_ir::{Function, Span, VarId};

use crate::text::{Worded, Words};

/// One finding of the checker; for a tile written over bytes another still needs (`V003`) or
/// over an operand it must not alias (`V004`), the two tiles, so a repair can separate them.
/// Its words keep their tiles: it is said by name ([`Finding::diagnostic`]) only where it is
/// shown, and a reader that says tiles its own way (the repair) reads `worded`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub worded: Worded,
    pub clobber: Option<Clobber>,
}

/// `writer`'s write destroys bytes `victim` still needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clobber {
    pub victim: VarId,
    pub writer: VarId,
}

impl Finding {
    pub(crate) fn new(worded: Worded, clobber: Option<Clobber>) -> Finding {
        Finding { worded, clobber }
    }

    /// The finding as the checker says it about the plan `f` it was found in, each tile by
    /// its name.
    pub fn diagnostic(&self, f: &Function) -> Diagnostic {
        self.worded.by_name(f)
    }

    pub fn code(&self) -> &'static str {
        self.worded.code
    }

    pub fn span(&self) -> Span {
        self.worded.span
    }

    /// Whether the finding makes the plan unsafe (or breaks a placement rule); a note does not.
    pub fn is_unsafe(&self) -> bool {
        is_unsafe(self.worded.severity)
    }
}

/// Whether a diagnostic of the checkers makes a plan unsafe (or breaks a placement rule): every
/// one but the notes of lifetimes that overlap without a lost value (`V008`).
pub fn is_violation(d: &Diagnostic) -> bool {
    is_unsafe(d.severity)
}

/// A checker's finding of this severity makes the plan unsafe: all but notes.
fn is_unsafe(severity: Severity) -> bool {
    severity != Severity::Note
}
