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
//! * `V004` no op output shares bytes with an operand it must not alias (rules §6.1.4, §13);
//! * `V005` loop carries and if results are realised in place: the value a loop yields sits
//!   where its iter arg sits, and every `if` arm yields from where the `if` result sits
//!   (checked where the carry or result is read at all: a misplaced one nothing reads corrupts
//!   nothing);
//! * `V006` a view, an in-place result or a bare alias sits on its source's buffer;
//! * `V007` every read sees the value it names: the value checker (`values/`, below).
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
//! (rules §S2) while accepting an in-place `next = add(acc, x)` or a `tile.move` before the
//! yield.
//!
//! A write of tile `w` at step `d` clobbers tile `v` (different storage value, intersecting
//! bytes on the same base) iff `v` is defined at or before `d` and `v` is read after `d` on a
//! path from `d`: a read in the `else` arm of an `if` whose `then` arm holds the write (or the
//! reverse) is on no such path, so tiles of mutually exclusive arms never conflict. A read at
//! `d` itself is fine: inputs are read before outputs are written (rules §5.6 "touching").
//!
//! Byte ranges come from constant MemRef offsets; a symbolic offset takes the range of the tile
//! it views or renames (a runtime row slice lies inside its source), else the whole base. Conflicts are found by a sweep over each base's
//! tiles sorted by definition step, keeping only tiles still live, so the cost is
//! `O(n log n)` plus the number of co-live tiles per base at each write.

//! # The value checker (`values/`: the facts it reads, the cells of a region, the interpreter)
//!
//! A second, semantic check that shares nothing with the liveness model: an abstract
//! interpretation that tracks which SSA values each byte range of each buffer holds, along
//! every path (loops iterated to a fixpoint, `if` arms joined; a loop whose variable places a
//! view or decides a condition, with a small known trip count, iteration by iteration), and
//! checks at every read that the operand's bytes hold the operand. `V003`–`V006` find where a
//! plan breaks liveness, aliasing or placement rules; `V007` finds the read that would see the
//! wrong data, names the value lost and the write (or the loop back edge, or the rename) that
//! destroyed it — for a forbidden alias (`V004`), the op's read of the input it overwrites.
//!
//! The value checker's verdict is the plan's: unsafe means a read sees a wrong value. The
//! liveness checker reasons per tile, not per iteration or per byte read, so its findings are a
//! superset: a `V003`–`V005` finding whose tiles lose no value is a note, `V008` (lifetimes
//! overlap, no value lost). Where values are lost, the findings about the tiles that lose them
//! stand (`tests/checkers_agree.rs` holds that then the liveness checker always has one); only
//! `V006` also rejects a detached view that nothing reads, which `V007` lets pass.

mod allocs;
mod finding;
mod forbid;
mod identity;
mod liveness;
mod options;
mod overlap;
mod scalars;
mod text;
pub mod values;

use liveness::Liveness;
use memreuse_ir::diagnostics::Diagnostic;
use memreuse_ir::{Function, Name, Program, VarId};
use rustc_hash::FxHashSet;

pub use finding::{Clobber, Finding, is_violation};
use memreuse_ir::codes;
pub use options::{Addressing, Backend, VerifyOptions};
use text::Words;
pub use text::{Text, Worded};

/// Checks one planned function with both checkers; an empty result means the plan is sound.
/// Without the input it was planned from, every tile must sit on a base some alloc defines.
pub fn verify_function(f: &Function, opts: &VerifyOptions) -> Vec<Diagnostic> {
    diagnostics(f, &check_with(f, opts, &FxHashSet::default()))
}

/// What checking a plan needs to know of its input, taken before the input is planned in place.
#[derive(Clone, Debug, Default)]
pub struct PlanInput {
    /// Bases the input already used without an alloc: PyPTO plans such tiles on their MemRefs
    /// alone (rules §3.3), so these are not allocs the plan removed.
    allocless: FxHashSet<Name>,
}

impl PlanInput {
    pub fn of(input: &Function) -> PlanInput {
        PlanInput {
            allocless: allocs::bases_without_alloc(input),
        }
    }
}

/// Checks the plan `planned` made of the input `input` describes: as [`verify_function`],
/// except for the bases the input already used without an alloc.
pub fn verify_plan(input: &PlanInput, planned: &Function, opts: &VerifyOptions) -> Vec<Diagnostic> {
    diagnostics(planned, &check_plan(input, planned, opts))
}

/// [`verify_plan`] with each finding's tiles, ordered by location and code.
pub fn check_plan(input: &PlanInput, planned: &Function, opts: &VerifyOptions) -> Vec<Finding> {
    check_with(planned, opts, &input.allocless)
}

/// `findings` about the plan `f` as the checker says them.
fn diagnostics(f: &Function, findings: &[Finding]) -> Vec<Diagnostic> {
    findings
        .iter()
        .map(|finding| finding.diagnostic(f))
        .collect()
}

/// [`check_plan`] for a repair's trial that has to separate the tiles named `victim` and
/// `writer` (names, not ids: the tiles the planner's fixups insert get new ids in every plan):
/// `None` as soon as an unsafe finding names that clobber, else every finding, as
/// [`check_plan`] gives them. A trial that keeps the pair usually loses the victim's value
/// again, which the value checker tells from the victim's region alone: the other regions'
/// losses are explained, and the liveness checker run, only for a trial that gets past that.
pub fn check_plan_separating(
    input: &PlanInput,
    planned: &Function,
    opts: &VerifyOptions,
    (victim, writer): (&str, &str),
) -> Option<Vec<Finding>> {
    let name = |v: VarId| planned.vars[v].name.as_str();
    let is_pair = |v: VarId, w: VarId| name(v) == victim && name(w) == writer;
    let names_pair = |findings: &[Finding]| {
        findings
            .iter()
            .any(|f| f.is_unsafe() && f.clobber.is_some_and(|c| is_pair(c.victim, c.writer)))
    };
    let mut values = values::Analysis::of(planned, opts);
    if values.surely_reports_clobber(&|v| name(v) == victim, &is_pair) {
        return None;
    }
    let values = ValueFindings::of(values.findings());
    if names_pair(&values.findings) {
        return None;
    }
    let liveness = liveness_findings(planned, opts, &input.allocless);
    let findings = ordered(liveness, values);
    (!names_pair(&findings)).then_some(findings)
}

/// Both checkers, ordered by location and code.
fn check_with(f: &Function, opts: &VerifyOptions, allocless: &FxHashSet<Name>) -> Vec<Finding> {
    ordered(
        liveness_findings(f, opts, allocless),
        value_findings(f, opts),
    )
}

/// The findings of both checkers, ordered by location and code (the liveness checker's first
/// among equals). Unsafe means a read sees a wrong value: a finding of the liveness checker
/// about shared bytes (`V003`–`V005`) that the value checker refutes — no value it names is
/// lost, or none at all where it names none — is a note (`V008`).
fn ordered(liveness: Vec<Finding>, values: ValueFindings) -> Vec<Finding> {
    let judged: Vec<Finding> = liveness
        .iter()
        .cloned()
        .map(|finding| values.judge(finding))
        .collect();
    // Where values are lost but none through a tile the liveness checker names (a carry that
    // does not receive its init, say), its findings stand: they are the same plan's fault.
    let names_a_loss = judged
        .iter()
        .any(|f| f.is_unsafe() && is_about_shared_bytes(f));
    let mut out = if values.findings.is_empty() || names_a_loss {
        judged
    } else {
        liveness
    };
    out.extend(values.findings);
    out.sort_by_key(|finding| (finding.span().start, finding.code()));
    out
}

/// Whether a liveness finding is about bytes two tiles share while both are live (which the
/// value checker can refute), not about where an alloc or a view is.
fn is_about_shared_bytes(finding: &Finding) -> bool {
    matches!(
        finding.code(),
        codes::CO_LIVE_OVERLAP | codes::FORBIDDEN_ALIAS | codes::CARRY_NOT_IN_PLACE
    )
}

/// The value checker's findings, and every name of a datum it found lost (reported or not).
struct ValueFindings {
    findings: Vec<Finding>,
    lost: FxHashSet<VarId>,
}

impl ValueFindings {
    fn of((found, lost): (Vec<values::LocatedViolation>, Vec<VarId>)) -> ValueFindings {
        ValueFindings {
            findings: found
                .into_iter()
                .map(|(worded, clobber)| {
                    let clobber = clobber.map(|(victim, writer)| Clobber { victim, writer });
                    Finding::new(worded, clobber)
                })
                .collect(),
            lost: lost.into_iter().collect(),
        }
    }

    /// `finding` of the liveness checker as it stands once the value checker has spoken.
    fn judge(&self, finding: Finding) -> Finding {
        let about_shared_bytes = is_about_shared_bytes(&finding);
        let confirmed = match finding.clobber {
            Some(clobber) => self.lost.contains(&clobber.victim),
            None => !self.lost.is_empty(),
        };
        if !about_shared_bytes || confirmed {
            return finding;
        }
        let worded = finding.worded;
        let mut note = Worded::note(
            codes::OVERLAP_WITHOUT_LOSS,
            worded.message.then(
                "; yet no read sees a wrong value: each takes bytes the write left intact on its iteration and path",
            ),
            worded.span,
        )
        .with_hint(
            "the value checker follows the bytes every read takes (iteration by iteration where \
             a loop variable places a view or picks an arm) and each finds its value: the \
             overlap breaks the lifetime rule, not the data, so the plan is kept",
        );
        note.related = worded.related;
        Finding::new(note, None)
    }
}

fn value_findings(f: &Function, opts: &VerifyOptions) -> ValueFindings {
    ValueFindings::of(values::findings(f, opts))
}

/// The liveness checker alone: `V001`–`V006`.
pub fn check_liveness(f: &Function, opts: &VerifyOptions) -> Vec<Diagnostic> {
    diagnostics(f, &liveness_findings(f, opts, &FxHashSet::default()))
}

fn liveness_findings(
    f: &Function,
    opts: &VerifyOptions,
    allocless: &FxHashSet<Name>,
) -> Vec<Finding> {
    // Narrowed to this function: its offsets are addresses or they are not.
    let opts = &VerifyOptions {
        addressing: if opts.addressed_in(f) {
            Addressing::EveryFunction
        } else {
            Addressing::Offsets
        },
        ..*opts
    };
    let liveness = Liveness::of(f);
    let mut out: Vec<Finding> = allocs::check(f, &liveness, opts, allocless)
        .into_iter()
        .map(|worded| Finding::new(worded, None))
        .collect();
    out.extend(overlap::check(f, &liveness, opts.addressed()));
    out.extend(forbid::check(f, &liveness, opts));
    let identity = identity::check(f, &liveness).into_iter();
    out.extend(identity.map(|worded| Finding::new(worded, None)));
    out
}

/// The value checker alone: `V007` (see [`values::check`] for its findings as data).
pub fn check_values(f: &Function, opts: &VerifyOptions) -> Vec<Diagnostic> {
    values::diagnostics(f, opts)
}

/// The diagnostics of [`verify_program`] that make a plan unsafe ([`is_violation`]).
pub fn program_violations(p: &Program, opts: &VerifyOptions) -> Vec<(usize, Diagnostic)> {
    let mut found = verify_program(p, opts);
    found.retain(|(_, d)| is_violation(d));
    found
}

/// Checks every function of a program; each diagnostic comes with its function's index.
pub fn verify_program(p: &Program, opts: &VerifyOptions) -> Vec<(usize, Diagnostic)> {
    p.functions
        .iter()
        .enumerate()
        .flat_map(|(i, f)| verify_function(f, opts).into_iter().map(move |d| (i, d)))
        .collect()
}
