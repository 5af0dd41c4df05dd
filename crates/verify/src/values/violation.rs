//! A read that sees the wrong value, and why the value is not where the read expects it.

use memreuse_ir::{Span, VarId};

/// Why a value is not where a read expects it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// The op that produced `writer`, at `at`, wrote over the value's bytes.
    Overwritten { writer: VarId, at: Span },
    /// At a loop's back edge (the yield at `at`) the iter arg takes the value yielded for it,
    /// which does not sit on all of the iter arg's bytes.
    CarryNotInPlace {
        iter_arg: VarId,
        yielded: Option<VarId>,
        at: Span,
    },
    /// `target` is a rename (view, alias, iter arg, loop or `if` result, at `at`) of `source`,
    /// which does not hold all of `target`'s bytes there.
    RenameNotInPlace {
        target: VarId,
        source: Option<VarId>,
        at: Span,
    },
    /// The op at `at` reads the value while it writes `writer` over its bytes: its op-table
    /// row says the output must not alias this input.
    ReadWhileWritten {
        writer: VarId,
        at: Span,
        why: MustNotAlias,
    },
}

/// Why an op's output must not alias one of its inputs (its op-table row).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MustNotAlias {
    /// The op is not in-place safe: no input may share its output's bytes.
    NotInPlaceSafe { op: &'static str },
    /// The op must not write over its argument `arg`.
    ForbiddenArgument { op: &'static str, arg: usize },
    /// A widening cast writes wider elements than it reads.
    WideningCast { op: &'static str },
}

/// How a rename explains a target it could not place.
#[derive(Clone, Copy)]
pub(super) enum RenameKind {
    Carry,
    Rename,
}

impl RenameKind {
    pub(super) fn cause(self, target: VarId, source: Option<VarId>, at: Span) -> Cause {
        match self {
            RenameKind::Carry => Cause::CarryNotInPlace {
                iter_arg: target,
                yielded: source,
                at,
            },
            RenameKind::Rename => Cause::RenameNotInPlace { target, source, at },
        }
    }
}

/// A read that sees the wrong value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueViolation {
    /// The tile the read expects.
    pub lost: VarId,
    /// The operand that reads it.
    pub read: Span,
    /// What destroyed it or kept it away; `None` when nothing ever placed it there.
    pub cause: Option<Cause>,
    /// The bytes the read expected it on (a view at a loop-indexed offset: this iteration's).
    pub bytes: Option<(i64, i64)>,
}
