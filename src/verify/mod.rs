//! The independent verifier: checks a *planned* function (after MemoryReuse, optionally after
//! AllocateMemoryAddr) from the program text alone, without calling the packer or the planner's
//! lifetime analysis — in the spirit of regalloc2's `checker.rs`. Every plan that leaves the
//! tool must pass it.
//!
//! # What is checked
//!
//! * `V001` every on-chip tile's MemRef names a base defined by a `tile.alloc`/`tensor.alloc`;
//! * `V002` its byte range `[offset, offset + size)` lies inside that alloc;
//! * `V003` no tile is written over bytes another tile still needs (the liveness model below);
//! * `V004` no op output shares bytes with an operand it must not alias (SPEC §6.1.4, §13);
//! * `V005` loop carries and if results are realised in place: the value a loop yields sits
//!   where its iter arg sits, and every `if` arm yields from where the `if` result sits
//!   (checked where the carry or result is read at all: a misplaced one nothing reads corrupts
//!   nothing);
//! * `V006` a view, an in-place result or a bare alias sits on its source's buffer;
//! * `V007` every read sees the value it names: the value checker (`values.rs`, below).
//!
//! # The liveness model (`liveness.rs`)
//!
//! Every statement gets a *step* number in program order; a `for` also gets a head step (init
//! values read, iter args defined) and an end step after its body (return vars defined); an
//! `if` gets a condition step, an else-entry step between its arms and an exit step (return
//! vars defined). A tile is *written* at its definition step when an op produces it (in-place
//! ops included; a tuple item `x = t[k]` at the step of the op that made `t`); views, bare
//! aliases, iter args and return vars are renames and write nothing.
//! A read of a tile defined before a loop, made inside that loop, counts as a read at the end
//! of the outermost such loop (the next iteration reads it again).
//!
//! Tiles that are one storage value — a view, in-place result (`reuses_input`) or bare alias
//! and its source, on the same base — never conflict with each other. Loop carries and if
//! phis are *not* merged: the init value, the iter arg, the yielded value and the return var
//! are distinct tiles on one buffer (which `V005` checks), each live only over its own steps.
//! That is what lets the checker see a carry write-back that clobbers an iter arg still read
//! (SPEC §S2) while accepting an in-place `next = add(acc, x)` or a `tile.move` before the
//! yield.
//!
//! A write of tile `w` at step `d` clobbers tile `v` (different storage value, intersecting
//! bytes on the same base) iff `v` is defined at or before `d` and `v` is read after `d` on a
//! path from `d`: a read in the `else` arm of an `if` whose `then` arm holds the write (or the
//! reverse) is on no such path, so tiles of mutually exclusive arms never conflict. A read at
//! `d` itself is fine: inputs are read before outputs are written (SPEC §5.6 "touching").
//!
//! Byte ranges come from constant MemRef offsets; a symbolic offset takes the range of the tile
//! it views or renames (a runtime row slice lies inside its source), else the whole base. Conflicts are found by a sweep over each base's
//! tiles sorted by definition step, keeping only tiles still live, so the cost is
//! `O(n log n)` plus the number of co-live tiles per base at each write.

//! # The value checker (`values.rs`)
//!
//! A second, semantic check that shares nothing with the liveness model: an abstract
//! interpretation that tracks which SSA values each byte range of each buffer holds, along
//! every path (loops iterated to a fixpoint, `if` arms joined), and checks at every read that
//! the operand's bytes hold the operand. `V003`, `V005` and `V006` find where a plan breaks
//! liveness or placement rules; `V007` finds the read that would see the wrong data, names the
//! value lost and the write (or the loop back edge, or the rename) that destroyed it. The two
//! agree on which plans corrupt data (`tests/checkers_agree.rs`); only `V006` also rejects a
//! detached view that nothing reads, which `V007` lets pass.

mod allocs;
mod forbid;
mod identity;
mod liveness;
mod overlap;
pub mod values;

use crate::diagnostics::Diagnostic;
use crate::ir::{Function, Program};
use liveness::Liveness;

/// Stable codes of the verifier's diagnostics.
pub mod codes {
    pub const MEMREF_WITHOUT_ALLOC: &str = "V001";
    pub const MEMREF_OUTSIDE_ALLOC: &str = "V002";
    pub const CO_LIVE_OVERLAP: &str = "V003";
    pub const FORBIDDEN_ALIAS: &str = "V004";
    pub const CARRY_NOT_IN_PLACE: &str = "V005";
    pub const DETACHED_VIEW: &str = "V006";
    pub const VALUE_LOST: &str = "V007";
}

pub use crate::backend::Backend;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VerifyOptions {
    pub backend: Backend,
    /// AllocateMemoryAddr ran (SPEC §8): in the functions it addresses (InCore, AIC, AIV),
    /// MemRef offsets are absolute addresses, so a base's tiles only have to fit in an
    /// alloc-sized window starting at their lowest offset, and tiles of different bases can
    /// overlap.
    pub addressed: bool,
    /// With `addressed`: every function's offsets are addresses, whatever its type (plans of
    /// the offset planner).
    pub every_function_addressed: bool,
}

impl VerifyOptions {
    fn addressed_in(&self, f: &Function) -> bool {
        self.addressed
            && (self.every_function_addressed
                || matches!(
                    f.function_type(),
                    crate::ir::FunctionType::InCore
                        | crate::ir::FunctionType::Aic
                        | crate::ir::FunctionType::Aiv
                ))
    }
}

/// Checks one planned function with both checkers; an empty result means the plan is sound.
pub fn verify_function(f: &Function, opts: &VerifyOptions) -> Vec<Diagnostic> {
    let mut out = check_liveness(f, opts);
    out.extend(check_values(f, opts));
    out.sort_by_key(|d| (d.span.start, d.code));
    out
}

/// The liveness checker alone: `V001`–`V006`.
pub fn check_liveness(f: &Function, opts: &VerifyOptions) -> Vec<Diagnostic> {
    let opts = &VerifyOptions {
        addressed: opts.addressed_in(f),
        ..*opts
    };
    let liveness = Liveness::of(f);
    let mut out = allocs::check(f, &liveness, opts);
    out.extend(overlap::check(f, &liveness, opts.addressed));
    out.extend(forbid::check(f, &liveness, opts));
    out.extend(identity::check(f, &liveness));
    out
}

/// The value checker alone: `V007` (see [`values::check`] for its findings as data).
pub fn check_values(f: &Function, opts: &VerifyOptions) -> Vec<Diagnostic> {
    values::diagnostics(f, opts)
}

/// Checks every function of a program; each diagnostic comes with its function's index.
pub fn verify_program(p: &Program, opts: &VerifyOptions) -> Vec<(usize, Diagnostic)> {
    p.functions
        .iter()
        .enumerate()
        .flat_map(|(i, f)| verify_function(f, opts).into_iter().map(move |d| (i, d)))
        .collect()
}
