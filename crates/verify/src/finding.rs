//! What the checkers report: located diagnostics with stable codes, and for a clobber the two
//! tiles, so a repair can separate them.

use memreuse_ir::VarId;
use memreuse_ir::diagnostics::Diagnostic;

/// One finding of the checker; for a tile written over bytes another still needs (`V003`) or
/// over an operand it must not alias (`V004`), the two tiles, so a repair can separate them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub diagnostic: Diagnostic,
    pub clobber: Option<Clobber>,
}

/// `writer`'s write destroys bytes `victim` still needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clobber {
    pub victim: VarId,
    pub writer: VarId,
}

impl Finding {
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

impl From<Diagnostic> for Finding {
    fn from(diagnostic: Diagnostic) -> Finding {
        Finding {
            diagnostic,
            clobber: None,
        }
    }
}
