//! What the checkers report: located diagnostics with stable codes, and for a clobber the two
//! tiles, so a repair can separate them.

use memreuse_ir::diagnostics::Diagnostic;
use memreuse_ir::{Function, VarId};

use crate::text::Worded;

/// One finding of the checker; for a tile written over bytes another still needs (`V003`) or
/// over an operand it must not alias (`V004`), the two tiles, so a repair can separate them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// As the checker says it, each tile by its name.
    pub diagnostic: Diagnostic,
    /// The same words with their tiles kept, for a reader that says them its own way.
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
    /// `worded` about the plan `f`.
    pub(crate) fn new(worded: Worded, f: &Function, clobber: Option<Clobber>) -> Finding {
        Finding {
            diagnostic: worded.by_name(f),
            worded,
            clobber,
        }
    }

    /// Whether the finding makes the plan unsafe (or breaks a placement rule); a note does not.
    pub fn is_unsafe(&self) -> bool {
        is_violation(&self.diagnostic)
    }
}

/// Whether a diagnostic of the checkers makes a plan unsafe (or breaks a placement rule): every
/// one but the notes of lifetimes that overlap without a lost value (`V008`).
pub fn is_violation(d: &Diagnostic) -> bool {
    d.severity != memreuse_ir::diagnostics::Severity::Note
}
