//! Every diagnostic code memreuse reports, in one table: its stable id, the severity it is
//! reported with, its class, what it means (the doc comment of its constant) and what to do.
//! `docs/diagnostics.md` is this table rendered ([`markdown_table`]); a test keeps the two
//! equal, and another that no code is spelled anywhere else.

use crate::diagnostics::Severity;

/// Who reports a code, which decides how the tools treat it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// The front end: the input cannot be read as IR.
    Parse,
    /// The planner cannot plan the function (or plans it with a caveat: its warnings).
    Plan,
    /// The planner changed PyPTO's plan to make it safe.
    Repair,
    /// The checkers' verdict on a plan.
    Check,
    /// The engine around the planner (files, the cache).
    Engine,
}

/// One row of the table.
#[derive(Clone, Copy, Debug)]
pub struct CodeInfo {
    pub id: &'static str,
    /// The severity the code is reported with (`--exact` reports the checkers' errors as
    /// warnings: PyPTO's plan is emitted as it is).
    pub severity: Severity,
    pub class: Class,
    /// What the code means, one paragraph.
    pub meaning: &'static str,
    /// What to do about it.
    pub fix: &'static str,
}

macro_rules! code_table {
    ($($(#[doc = $doc:literal])+ $name:ident = $id:literal, $severity:ident, $class:ident, fix $fix:literal;)+) => {
        $($(#[doc = $doc])+ pub const $name: &str = $id;)+

        /// Every code, in the order `docs/diagnostics.md` lists them.
        pub const ALL: &[CodeInfo] = &[$(CodeInfo {
            id: $id,
            severity: Severity::$severity,
            class: Class::$class,
            meaning: concat!($($doc),+),
            fix: $fix,
        }),+];
    };
}

code_table! {
    /// Syntax error in the IR.
    SYNTAX = "E001", Error, Parse,
        fix "Fix the IR at the place shown; memreuse reads what PyPTO's printer writes.";
    /// An unknown dtype.
    UNKNOWN_DTYPE = "E002", Error, Parse,
        fix "Use a dtype PyPTO prints, such as `pl.FP16`, `pl.FP32` or `pl.INT8`.";
    /// An unknown memory space.
    UNKNOWN_MEMORY_SPACE = "E003", Error, Parse,
        fix "Use one of PyPTO's memory spaces, such as `Vec`, `Mat`, `Left`, `Right`, `Acc` or `DDR`.";
    /// A tile without a MemRef.
    MISSING_MEMREF = "E004", Error, Parse,
        fix "Plan a dump taken after InitMemRef, where every tile has its MemRef.";
    /// A MemRef larger than its alloc.
    MEMREF_EXCEEDS_ALLOC = "E006", Error, Parse,
        fix "The dump contradicts itself: dump the program from PyPTO again.";
    /// Two functions with one name.
    DUPLICATE_FUNCTION = "E007", Error, Parse,
        fix "Rename one of the two functions.";
    /// An undefined variable.
    UNDEFINED_VARIABLE = "E008", Error, Parse,
        fix "Define the variable before it is used, or dump the program again.";
    /// Tabs and spaces mixed in indentation.
    MIXED_INDENTATION = "E009", Error, Parse,
        fix "Indent with spaces only.";
    /// A MemRef without a memory space.
    MEMREF_WITHOUT_SPACE = "E010", Error, Parse,
        fix "Plan a dump taken after InitMemRef.";
    /// No `@pl.program` in the file.
    NO_PROGRAM = "E011", Error, Parse,
        fix "Point memreuse at a PyPTO program dump (a file with `@pl.program`).";
    /// Two co-live tiles bound to one slot of a declared allocation.
    DECLARED_SLOT_CO_LIVE = "MR-E001", Error, Plan,
        fix "Give the two tiles different slots, or different allocations.";
    /// A declared allocation without a positive constant byte extent.
    PINNED_EXTENT = "MR-E002", Error, Plan,
        fix "Declare the allocation with a constant, positive size.";
    /// Internal: divergent L0C accumulator buffers would need an Acc-to-Acc `tile.move`.
    ACC_TO_ACC_MOVE = "MR-E003", Error, Plan,
        fix "Report it with the input: the planner reached a state it must not.";
    /// Internal: an accumulator seed across a peeled if-phi refused its retarget.
    ACC_INIT_REFUSED = "MR-E004", Error, Plan,
        fix "Report it with the input: the planner reached a state it must not.";
    /// Internal: a sharing-group member rebased outside its reuse target.
    REBASE_OUT_OF_RANGE = "MR-E005", Error, Plan,
        fix "Report it with the input: the planner reached a state it must not.";
    /// Two loop carries start on overlapping buffers.
    OVERLAPPING_CARRIES = "MR-E006", Error, Plan,
        fix "Give each loop carry an init value of its own (PyPTO rejects this too).";
    /// Overlapping `reserve_buffer` ranges.
    OVERLAPPING_RESERVES = "MR-E007", Error, Plan,
        fix "Make the `reserve_buffer` ranges disjoint.";
    /// With `--addresses`: the plan exceeds a memory space's capacity (AllocateMemoryAddr's
    /// overflow).
    CAPACITY_OVERFLOW = "MR-E008", Error, Plan,
        fix "Use less of the space (smaller or fewer live tiles), or pass the hardware's real capacity with `--capacity`.";
    /// Internal: the plan still fails the checkers after repair (or after 64 repairs);
    /// nothing is emitted for that function.
    UNREPAIRED = "MR-E010", Error, Plan,
        fix "Report it with the input; `--exact` prints PyPTO's plan with the checkers' findings.";
    /// Capacity-gated reuse could not fit a space; fell back to the legacy packing.
    FALLBACK_WARNING = "MR-W001", Warning, Plan,
        fix "Nothing to do: the plan is PyPTO's fallback. Smaller tiles leave the capacity-gated packing room.";
    /// A tile sits on a base no `tile.alloc` defines; planned on its MemRef alone, as PyPTO
    /// does.
    BASE_WITHOUT_ALLOC = "MR-W002", Warning, Plan,
        fix "Nothing to do if it is meant; otherwise define the base with a `tile.alloc`.";
    /// Without `--addresses`: the plan exceeds a space's capacity; MemoryReuse emits it,
    /// AllocateMemoryAddr will stop. With `--planner dsa`: no layout fits the capacity and
    /// PyPTO's plan overflows too, so the solver's smallest layout is emitted.
    CAPACITY_OVERFLOW_AHEAD = "MR-W003", Warning, Plan,
        fix "Use less of the space, or AllocateMemoryAddr will stop on this plan.";
    /// The input itself overwrites a value in place while it is still read (an op whose
    /// output reuses input k — `tile.matmul_acc` accumulates into its argument 0 — over the
    /// value, or over a loop carry started from it, in a space with no copy into itself,
    /// Acc); the other tiles that must then share its buffer (the other arm of an if result
    /// the accumulation is yielded into) overwrite it too. No memory plan can keep the value:
    /// the plan is emitted with exactly these findings, one warning per in-place op, located
    /// at the op, with every read of the lost value and the other writes as notes. Fix the
    /// kernel.
    INPUT_OVERWRITES_LIVE_VALUE = "MR-W004", Warning, Plan,
        fix "Fix the kernel: read the value before the in-place op overwrites it, or copy it first.";
    /// Repair: a tile the packer put on another's buffer keeps its own allocation (a carry or
    /// `if` result through the tile it sits with).
    TILE_KEEPS_OWN_BUFFER = "MR-R001", Warning, Repair,
        fix "Nothing to do: the emitted plan is safe (`--exact` shows PyPTO's).";
    /// Repair: a loop carry on its init value's buffer, where that value is still needed,
    /// gets its own allocation fed by a copy.
    CARRY_GETS_OWN_BUFFER = "MR-R002", Warning, Repair,
        fix "Nothing to do: the emitted plan is safe (`--exact` shows PyPTO's).";
    /// Step 0 left a carry where it was: the retarget would overwrite a value still needed.
    RETARGET_REFUSED = "MR-R003", Warning, Repair,
        fix "Nothing to do: the emitted plan is safe (`--exact` shows PyPTO's).";
    /// Repair: a tile the input put on a buffer it must not use (an upstream Step 0 retarget)
    /// gets a fresh allocation.
    TILE_GETS_FRESH_BUFFER = "MR-R004", Warning, Repair,
        fix "Nothing to do: the emitted plan is safe (`--exact` shows PyPTO's).";
    /// Repair: an `if` result on its then arm's value's buffer gets its own allocation fed by
    /// a copy.
    IF_RESULT_GETS_OWN_BUFFER = "MR-R005", Warning, Repair,
        fix "Nothing to do: the emitted plan is safe (`--exact` shows PyPTO's).";
    /// Repair: a nested loop carry (its init an enclosing loop's iter arg) receives its
    /// yielded value through a `tile.move`, which PyPTO's yield fixup skips.
    NESTED_CARRY_WRITTEN_BACK = "MR-R006", Warning, Repair,
        fix "Nothing to do: the emitted plan is safe (`--exact` shows PyPTO's).";
    /// Repair: loop carries are aligned to their init's buffer although PyPTO reused nothing
    /// in the function (PyPTO aligns carries only after a reuse, leaving a carry where
    /// nothing writes it); reported only where the plan differs for it.
    CARRY_ALIGNED_WITHOUT_REUSE = "MR-R007", Warning, Repair,
        fix "Nothing to do: the emitted plan is safe (`--exact` shows PyPTO's).";
    /// Repair: a loop carry is aligned to where its init really sits — an `if` result on the
    /// buffer its yield fixup puts it on, an init printed without a type on its seed's — not
    /// to the init's MemRef as printed, which PyPTO's alignment reads; reported only where
    /// the plan differs for it.
    CARRY_ALIGNED_TO_WHERE_ITS_INIT_SITS = "MR-R008", Warning, Repair,
        fix "Nothing to do: the emitted plan is safe (`--exact` shows PyPTO's).";
    /// Repair: an `if` arm that yields one value for several results on one buffer copies it
    /// there once, where PyPTO's yield fixup copies it once per result and each copy
    /// overwrites the one before while the yield still reads it.
    ONE_COPY_FOR_SEVERAL_RESULTS = "MR-R009", Warning, Repair,
        fix "Nothing to do: the emitted plan is safe (`--exact` shows PyPTO's).";
    /// Performance hint from the capacity-driven steps (PyPTO's `PerfHint`).
    PERF_HINT = "PH-MR-001", Hint, Plan,
        fix "Optional: the hint says which tiles keep pipeline stages from overlapping.";
    /// Internal: a cached manifest and its file disagree.
    STALE_MANIFEST = "MR-E900", Error, Engine,
        fix "Run again with `--no-cache`, or empty the cache with `memreuse cache clear`.";
    /// The file cannot be read.
    UNREADABLE = "MR-E901", Error, Engine,
        fix "Check that the file exists, is readable and is UTF-8.";
    /// Verify: a MemRef names no surviving alloc.
    MEMREF_WITHOUT_ALLOC = "V001", Error, Check,
        fix "The plan is wrong: plan the dump with memreuse, which repairs, or fix what made the plan.";
    /// Verify: a MemRef outside its alloc.
    MEMREF_OUTSIDE_ALLOC = "V002", Error, Check,
        fix "The plan is wrong: plan the dump with memreuse, which repairs, or fix what made the plan.";
    /// Verify: two co-live tiles share bytes.
    CO_LIVE_OVERLAP = "V003", Error, Check,
        fix "Unsafe where V007 confirms it: plan the dump with memreuse, which repairs.";
    /// Verify: an op's output aliases an operand it must not.
    FORBIDDEN_ALIAS = "V004", Error, Check,
        fix "Unsafe where V007 confirms it: plan the dump with memreuse, which repairs.";
    /// Verify: a loop carry is not in place (not on its init value's buffer).
    CARRY_NOT_IN_PLACE = "V005", Error, Check,
        fix "Unsafe where V007 confirms it: plan the dump with memreuse, which repairs.";
    /// Verify: a view or rename sits on another buffer than its source.
    DETACHED_VIEW = "V006", Error, Check,
        fix "The plan is wrong: plan the dump with memreuse, which repairs, or fix what made the plan.";
    /// Verify (value checker): a read would see another value than the one it names; says
    /// which value was lost, the write that destroyed it and the read (for an op whose output
    /// must not alias an input, V004's case, the read is that op's own read of the input it
    /// writes over).
    VALUE_LOST = "V007", Error, Check,
        fix "The plan is unsafe: plan the dump with memreuse, which repairs (the default).";
    /// Verify: tiles share bytes while both are live (a V003, V004 or V005 of the liveness
    /// checker), but the value checker shows that no read sees a wrong value — a loop reads a
    /// row of a tile through a loop-indexed slice after another row was overwritten, or an
    /// arm that a condition on the loop variable selects reads a value only before it is
    /// overwritten. PyPTO broke its lifetime rule, not the data: its plan is kept and nothing
    /// fails.
    OVERLAP_WITHOUT_LOSS = "V008", Note, Check,
        fix "Nothing to do: no read sees a wrong value.";
}

impl CodeInfo {
    /// [`CodeInfo::meaning`] as one line: its doc comment's lines joined.
    pub fn meaning_line(&self) -> String {
        self.meaning
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The row of `code`, if it is one of memreuse's.
pub fn info(code: &str) -> Option<&'static CodeInfo> {
    ALL.iter().find(|row| row.id == code)
}

/// The table's own `&'static str` for `code` (a stored or received code mapped back).
pub fn known(code: &str) -> Option<&'static str> {
    info(code).map(|row| row.id)
}

/// Whether `code` reports a repair of PyPTO's plan.
pub fn is_repair(code: &str) -> bool {
    info(code).is_some_and(|row| row.class == Class::Repair)
}

/// The table as `docs/diagnostics.md` shows it.
pub fn markdown_table() -> String {
    let mut out = String::from("| Code | Severity | Meaning | What to do |\n|---|---|---|---|\n");
    for row in ALL {
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            row.id,
            row.severity.name(),
            row.meaning_line(),
            row.fix
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_listed_once() {
        for (n, row) in ALL.iter().enumerate() {
            assert!(
                ALL[n + 1..].iter().all(|other| other.id != row.id),
                "{} twice",
                row.id
            );
        }
    }
}
