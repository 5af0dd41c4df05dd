//! memreuse-repair, safe planning (ARCHITECTURE "Safe planning"): PyPTO's decision, checked;
//! where the checker finds a tile written over bytes another still needs, the plan is
//! repaired — one tile group at a time leaves the shared buffer for its own allocation — and
//! checked again, until it passes. Each repair is a located warning that says what PyPTO
//! decided and why it is unsafe.
//!
//! Unsafe means a read sees a wrong value: a liveness finding the value checker refutes is a
//! note (`V008`, lifetimes overlap without a lost value), which asks for no repair and goes
//! into the report as it is; a trial separates a pair when no violation names it any more.
//!
//! The loop: while a violation names two tiles (`V003`, `V004`, `V007`), the first one (by
//! location, then code) is separated by the first edit of `candidates` that separates it —
//! `MR-R001` keep a group off the shared buffer (writer, then victim), `MR-R002`/`MR-R005`
//! detach the loop carry or `if` result that sits on the victim's buffer (the one whose
//! storage the writer is — an in-place result or view of it — first, then one whose init is
//! the victim, then outer before inner), `MR-R004` move an upstream retarget to a fresh
//! allocation (with the views and in-place results on it: one of those never moves alone,
//! which would leave it off its source's base, `V006`, a finding no edit repairs). Each trial plans the function from the edited input (an `MR-R001` trial keeps
//! the input, so it finishes from the input's packing, `plan::Planning::kept`, which gives the
//! same plan: the packing is kept from the input's first plan ([`plan_checked`]), made at its
//! first trial (a first plan the engine made), or kept from the trial of the edit that made
//! the input; under `--planner dsa` a trial lays spaces out
//! with the solver's greedy portfolio alone, and the repaired input is laid out with its search
//! once at the end, kept where both checkers pass it); a trial the planner refuses, or after
//! which the pair (by name) is still a finding, is undone; a trial whose function one undone
//! this round already planned is undone unchecked (the checkers would see the same function),
//! and a keep-own trial that keeps the same intervals apart as one undone this round is undone
//! before it is finished (`Planning::kept_own`). A trial costs what deciding it takes: a
//! plan finished from a packing leaves the report rows only the report reads (space and
//! lifetime rows, whether realigned-carry warnings stand) for the plan emitted (`Planned`),
//! and the check of a trial that keeps its pair stops at the victim's region of the value
//! checker (`verify::check_plan_separating`). Each edit is made at most once, so the
//! loop ends; at 64 rounds, or when no edit separates the first finding and it is no hazard
//! of the input itself (below), the function is an internal error
//! (`MR-E010`, or the last findings). No edit inserts a copy the hardware lacks: a carry or
//! `if` result in Acc is never detached (no Acc-to-Acc `tile.move`, `ops::tile_move_exists`).
//!
//! Detaching own inits. A round first separates, in one trial, every open pair whose victim is
//! the init of a loop carry or `if` result that sits on the victim's buffer with the writer on
//! or inside it (an `MR-R002`/`MR-R005` candidate whose init is the victim): the place's writes
//! reach its init's bytes wherever the packer puts the other groups, so detaching it is the
//! edit such a pair needs, and the keep-own trials before it are skipped (over the conformance
//! corpus none of the 75 pairs a keep-own trial separated had such a candidate). The edits are
//! made in the order of their findings, planned and checked once; a pair the trial leaves
//! named is left to the one-pair rounds above for the rest of the repair, and the trial is
//! made once more without it (`Repair::detach_own_inits`). A function with k such pairs thus
//! costs about one plan and check for them, not k (ARCHITECTURE "What a repair costs").
//!
//! One victim's writers. PyPTO's lifetimes can end a loop or `if` result too early, and the
//! packer then puts later tiles on its buffer, each a pair that a one-pair round separates by
//! keeping the writer's group on its own allocation (`MR-R001`). Where a round's leading open
//! pairs — at least three, before any value the value checker finds lost — have one victim,
//! are each first found by the liveness checker at the writer's write (`V003`) and are each
//! first separated so, one trial keeps every writer but the last apart and their repairs are
//! made at once (`Repair::keep_writers_off_one_victim`); the last pair's round follows as
//! usual. That gives what the rounds give, in their order, because keeping a group apart
//! under PyPTO's planner moves that group alone and whole onto its own allocation and changes
//! nothing else:
//!
//! * A pair whose writer is kept apart no longer shares bytes; no other pair is added, and no
//!   value that was kept is lost: the checkers find only fewer pairs and fewer lost values.
//! * The one finding that can move is a lost value's, found at its first failing read, which
//!   can be an earlier read once a writer is gone where a loop repeats reads. So the victim
//!   must be the only value lost on its buffer, no other name may read its datum there (a
//!   view, alias or in-place result of it, a carry or `if` result fed from it, found lost
//!   through it), and each read of it before the last pair's finding must be outside loops.
//! * The victim's writers then stay its open pairs with the same findings as long as it is
//!   still lost, which holds in every round if it holds in the trial (fewer writers lose no
//!   more): the trial must find it lost, and find the last pair first.
//!
//! The trial also checks what the first point rests on: every loop carry's and `if` result's
//! tiles sit together as before (so the fixups after packing make the same copies), and the
//! tiles it moved sit alone. A trial that fails a check is dropped, and that victim's writers
//! go one round each. Debug builds replay the rounds a merged trial stands for and hold each
//! to it (`Repair::assert_rounds_agree`).
//!
//! Hazards of the input itself (`MR-W004`). Some inputs lose a value in every plan: an op whose
//! output reuses input k (`tile.matmul_acc` accumulates into its argument 0: a hardware fact)
//! overwrites a tile that is read later, and with no Acc-to-Acc `tile.move` nothing can copy it
//! away — nor give a loop carry started from it, or the other arm of an `if` result the
//! accumulation is yielded into, a buffer of its own (those then overwrite it too). When no
//! edit separates a pair, the pair is accepted as such a hazard only if (1) every finding of
//! the plan for it is, by code, tiles' names and locations, a finding of the input *planned
//! with no reuse at all* (every group on its own allocation, Step 0 off: only the input's own
//! MemRefs and PyPTO's mandatory placements remain — in-place results, views, carries in place,
//! accumulator if-phis coalesced, rules §7.4), and (2) the input overwrites the victim in place
//! before the read, directly or through a loop carry started from it in a space with no copy
//! into itself, and the writer is that op's result or is yielded with it into one `if` result.
//! The plan is then emitted with those findings only, as one located warning per in-place op
//! (at the op, every pair's read and other write as notes: one op's write can lose the value
//! to several tiles); every other finding is still repaired or refused, and [`input_hazards`]
//! — the gate each returned plan passes — runs the checkers again and lets nothing else
//! through.
//!
//! Why "planned with no reuse" and not "the input as given": the input is not a plan. Checked
//! as given, its if result sits on another Acc buffer than the accumulator yielded into it (the
//! checker reports that misplacement, which the mandatory coalescing removes) and the in-place
//! write itself is no finding (the value checker keeps an in-place op's input name); the write
//! that really destroys the value in every plan — the other arm's, once coalesced onto the
//! accumulator — only appears once PyPTO's mandatory placements are applied. Planning with no
//! reuse applies exactly those and no optional sharing, so a finding there is not caused by any
//! reuse decision; condition (2) ties it to the op table's in-place row, and the repair loop
//! having failed first keeps repairable ones (a carry in Vec, an upstream retarget) repaired.
//!
//! Diagnostics name only the user's tiles: a tile the fixups or a repair inserted is said to be
//! "a copy memreuse inserted for" the user's tile it copies. A repair says PyPTO put a tile on
//! a buffer only where PyPTO's own plan has it there (`PlacedBy`); where the repairs before it
//! moved it, or PyPTO refused the function (rules §S2), it says "once the repairs before this
//! one are made".
//!
//! Guarantees: deterministic (fixed orders, no hash-order iteration, fresh names and bases
//! numbered from the function); every returned plan passed both checkers, except for the
//! input's own hazards just described; where PyPTO's plan passes them, no edit is made. Not
//! guaranteed: minimality. The loop is greedy — a later edit can make an earlier one
//! unnecessary, and nothing searches for the fewest groups or bytes moved off.
//!
//! The machine: a `Repair` holds the input as repaired so far, the groups kept apart, the
//! repairs made and the plan they give; each `round` either finds nothing open (`Passed`, then
//! `emit`), or separates the open pairs of own inits in one `Trial` (`detach_own_inits`), or
//! the leading pairs of one victim but the last (`keep_writers_off_one_victim`), or else one
//! pair by the first `Trial` that does (`first_separating`), or accepts the pair as a hazard
//! of the input; every edit (`Action`) is made at most once.
//!
//! This crate sits above `plan` and `verify` and shares nothing with the checker but its
//! findings: the planner never calls the checker. Pure, as they are: no files, threads or
//! clocks.

use rustc_hash::{FxHashMap, FxHashSet};

use memreuse_ir as ir;
use memreuse_ir::diagnostics;
use memreuse_plan as plan;
use memreuse_verify as verify;

use crate::diagnostics::{Diagnostic, Severity};
use crate::ir::walk::{final_yield_values, find_stmt, for_each_stmt};
use crate::ir::{Expr, FreshBases, Function, LoopKind, Name, Stmt, StmtKind, Type, VarId};
use crate::isolate::{Place, StorageRoots, detach, fresh_buffer, place_anchor};
use crate::plan::seats::Seats;
use crate::plan::{
    Completion, FunctionPlan, LayoutSearch, PlanConfig, PlanError, PlanOptions, Planning,
    ReportToDo, plan_function,
};
use crate::verify::{
    Addressing, Clobber, Finding, PlanInput, VerifyOptions, Worded, check_plan,
    check_plan_separating,
};
use std::cell::OnceCell;
use std::rc::Rc;
use std::sync::Arc;

use crate::ir::codes;

mod isolate;
mod message;
use message::{AFTER_EARLIER_REPAIRS, Made, Placed, PlacedBy, RepairText, UserNames, Who};

/// Whether a diagnostic of a plan's report is one of its repairs.
pub fn is_repair(d: &Diagnostic) -> bool {
    codes::is_repair(d.code)
}

/// Whether a diagnostic of a plan's report is a hazard the input itself carries, which no
/// plan removes (the plan is otherwise safe).
pub fn is_input_hazard(d: &Diagnostic) -> bool {
    d.code == codes::INPUT_OVERWRITES_LIVE_VALUE
}

/// Why no safe plan came out.
#[derive(Debug)]
pub enum SafePlanError {
    /// PyPTO's pass itself fails (its ValueError or internal error).
    Plan(PlanError),
    /// The checker's findings on the last plan tried, which no repair removed.
    Unrepaired(Vec<Diagnostic>),
}

/// How a function is made safe: with which configuration, checked with which options, and
/// what of the emitted plan's report is made (all of it, or the diagnostics for a caller
/// that reads only those).
#[derive(Clone, Copy)]
struct Safely<'a> {
    config: &'a PlanConfig,
    options: &'a VerifyOptions,
    report: Completion,
}

impl<'a> Safely<'a> {
    /// The emitted plan's report made whole.
    fn whole(config: &'a PlanConfig, options: &'a VerifyOptions) -> Safely<'a> {
        Safely {
            config,
            options,
            report: Completion::Whole,
        }
    }
}

/// Repairs are rare and each separates one pair of tiles; a plan needing more is reported.
const MAX_ROUNDS: usize = 64;

/// One way to separate two tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Action {
    /// The sharing group of this tile keeps its own allocation.
    KeepOwn(VarId),
    /// The loop carry or `if` result leaves its init's buffer.
    Detach(Place),
    /// This tile (and its views) moves to a fresh allocation: the input put it on a buffer
    /// it must not use (an upstream Step 0 retarget).
    Fresh(VarId),
}

/// What the checkers are told of a plan made with `config`: its backend, and whether its
/// MemRefs hold addresses (`--addresses`, or the offset planner's, which addresses every
/// function).
pub fn verify_options(config: &PlanConfig) -> VerifyOptions {
    let addressing = if config.planner == crate::plan::Planner::Dsa {
        Addressing::EveryFunction
    } else if config.assign_addresses {
        Addressing::AllocateMemoryAddr
    } else {
        Addressing::Offsets
    };
    VerifyOptions {
        backend: config.backend,
        addressing,
    }
}

/// A plan with the checkers' findings on it.
#[derive(Clone, Debug)]
pub struct Checked {
    pub plan: FunctionPlan,
    pub findings: Vec<Finding>,
}

impl Checked {
    /// `plan`, a plan of the input `plan_input` describes, checked with `options`.
    pub fn of(plan: FunctionPlan, plan_input: &PlanInput, options: &VerifyOptions) -> Checked {
        let findings = check_plan(plan_input, &plan.function, options);
        Checked { plan, findings }
    }
}

/// The line `explain` adds when the plan memreuse emits for `f` puts tiles `a` and `b`
/// elsewhere than PyPTO's own plan does (a repair moved one of them): `explain` follows PyPTO's
/// decision, and the user reads the emitted plan. `None` where both plans agree on them.
pub fn emitted_placement(
    f: &Function,
    config: &PlanConfig,
    (a, b): (&str, &str),
) -> Option<String> {
    let pypto = plan_function(f, config, &PlanOptions::default()).ok()?;
    let emitted = plan_checked(f, config, &verify_options(config)).ok()?;
    let base = |planned: &Function, name: &str| {
        planned
            .vars
            .iter()
            .filter(|(_, v)| v.name == name)
            .last()
            .and_then(|(_, v)| Some(v.ty.as_ref()?.memref()?.base.to_string()))
    };
    let placed = |planned: &Function| (base(planned, a), base(planned, b));
    let (Some(x), Some(y)) = placed(&emitted.function) else {
        return None;
    };
    if placed(&pypto.function) == (Some(x.clone()), Some(y.clone())) {
        return None;
    }
    let outcome = if x == y {
        format!("both on '{x}'")
    } else {
        format!("'{a}' on '{x}', '{b}' on '{y}'")
    };
    Some(format!(
        "emitted plan: {outcome} — memreuse repaired PyPTO's plan above, which is unsafe here (`memreuse plan` says why, warnings MR-R…)\n"
    ))
}

/// Plans `input` as PyPTO does and checks the plan. With `config.exact` the plan is returned
/// as is, the checker's findings added to its report as warnings; otherwise unsafe decisions
/// are repaired until the checker passes. The input is borrowed: planning works on a copy, and
/// only a plan that needs repairs copies it again (each trial plans a copy of its own).
pub fn plan_checked(
    input: &Function,
    config: &PlanConfig,
    options: &VerifyOptions,
) -> Result<FunctionPlan, SafePlanError> {
    let safely = Safely::whole(config, options);
    plan_checked_editing(input, safely).map(|(plan, _)| plan)
}

/// [`plan_checked`] given PyPTO's plan of `input`, `first`, already checked with `options`
/// (the engine memoizes it stage by stage and checks it before it repairs anything), and what
/// the checkers need of `input`.
pub fn plan_checked_from(
    input: &Function,
    plan_input: &PlanInput,
    first: Result<Checked, PlanError>,
    config: &PlanConfig,
    options: &VerifyOptions,
) -> Result<FunctionPlan, SafePlanError> {
    let plans = InputPlans::planned();
    let first = first.map(|Checked { plan, findings }| (Planned::whole(plan), findings));
    let safely = Safely::whole(config, options);
    repair_checked(input, plan_input, first, plans, safely).map(|(plan, _)| plan)
}

/// The input as the repairs of [`plan_checked`] leave it (`None`: as given). Repairs add
/// statements (a `tile.alloc` per new buffer, the `tile.move`s feeding it), and the plan's
/// lifetimes number the statements of that function: the viewer locates them there.
pub fn repaired_input(
    input: &Function,
    config: &PlanConfig,
    options: &VerifyOptions,
) -> Result<Option<Function>, SafePlanError> {
    let safely = Safely::whole(config, options);
    plan_checked_editing(input, safely).map(|(_, edited)| edited)
}

fn plan_checked_editing(
    input: &Function,
    safely: Safely<'_>,
) -> Result<(FunctionPlan, Option<Function>), SafePlanError> {
    let Safely {
        config, options, ..
    } = safely;
    let plan_input = PlanInput::of(input);
    // PyPTO's plan finished from a packing that is kept: the input's trials that keep a group
    // on its own allocation finish from it instead of packing the input again. Its report is
    // made whole only if it is the plan emitted, as a trial's.
    let (first, plans) = if InputPlans::packs(input, config) && !config.exact {
        let planning = Rc::new(Planning::kept(Arc::new(input.clone()), config));
        let first = planning
            .trial(&FxHashSet::default())
            .map(|(plan, to_do)| Planned {
                plan,
                rest: Some((Rc::clone(&planning), to_do)),
            });
        (first, InputPlans::packed(planning))
    } else {
        let first = plan_function(input, config, &PlanOptions::default()).map(Planned::whole);
        (first, InputPlans::planned())
    };
    let first = first.map(|plan| {
        let findings = check_plan(&plan_input, &plan.function, options);
        (plan, findings)
    });
    repair_checked(input, &plan_input, first, plans, safely)
}

fn repair_checked(
    input: &Function,
    plan_input: &PlanInput,
    first: Result<(Planned, Vec<Finding>), PlanError>,
    plans: InputPlans,
    safely: Safely<'_>,
) -> Result<(FunctionPlan, Option<Function>), SafePlanError> {
    let (mut repair, check) = match begin(input, plan_input, first, plans, safely)? {
        Begun::Exact(plan) => return Ok((*plan, None)),
        Begun::Rounds(repair, check) => (repair, check),
    };
    for _ in 0..MAX_ROUNDS {
        if repair.round(&check)? == Round::Passed {
            return repair.emit(&check, safely.report);
        }
    }
    Err(SafePlanError::Unrepaired(vec![Diagnostic::error(
        codes::UNREPAIRED,
        format!(
            "the plan of '{}' still fails the checker after {MAX_ROUNDS} repairs",
            input.name
        ),
        input.span,
    )]))
}

/// How the repair of a checked plan begins.
enum Begun<'a> {
    /// `--exact`: PyPTO's plan as it is, the checkers' findings in its report.
    Exact(Box<FunctionPlan>),
    /// The rounds to make, and what their trials are planned and checked with.
    Rounds(Box<Repair<'a>>, Check<'a>),
}

/// The repair of `first`, PyPTO's plan of `input` checked, before its first round: a plan
/// PyPTO's planner refuses for loop carries on one buffer (rules §S2) is planned with them
/// separated.
fn begin<'a>(
    input: &'a Function,
    plan_input: &'a PlanInput,
    first: Result<(Planned, Vec<Finding>), PlanError>,
    mut plans: InputPlans,
    safely: Safely<'a>,
) -> Result<Begun<'a>, SafePlanError> {
    let Safely {
        config,
        options,
        report,
    } = safely;
    if config.exact {
        let (plan, findings) = first.map_err(SafePlanError::Plan)?;
        let mut plan = plan.made(report);
        let names = UserNames::of(input.vars.len(), &plan.function);
        plan.report.diagnostics.extend(findings.iter().map(|f| {
            // `--exact` emits PyPTO's plan whatever the checkers find: what makes it
            // unsafe is a warning.
            let severity = if f.is_unsafe() {
                Severity::Warning
            } else {
                f.worded.severity
            };
            let worded = Worded {
                severity,
                ..f.worded.clone()
            };
            names.word(&plan.function, &worded)
        }));
        return Ok(Begun::Exact(Box::new(plan)));
    }
    // The input as repaired so far, once an edit changed it.
    let mut edited: Option<Function> = None;
    let mut own = FxHashSet::default();
    let mut repairs = Vec::new();
    let mut pypto = PyptoPlan::Round;
    let (plan, findings) = match first {
        // PyPTO's yield fixup would write one carry over the other (rules §S2 rejects it).
        Err(err) if err.0.code == codes::OVERLAPPING_CARRIES => {
            pypto = PyptoPlan::Refused;
            // The offset planner's trials plan without its search: they may not be refused.
            if InputPlans::packs(input, config) {
                plans.refused = Some(err);
            }
            let (planned, separated) = plan_separating(
                input,
                &mut plans,
                config,
                &mut own,
                &mut repairs,
                PlacedBy::Pypto,
            );
            // The separated input is another input, with plans of its own.
            if let Some(separated) = separated {
                plans = separated.plans;
                edited = Some(separated.input);
            }
            planned.map(|plan| {
                let findings = check_plan(plan_input, &plan.function, options);
                (plan, findings)
            })
        }
        first => first,
    }
    .map_err(SafePlanError::Plan)?;
    let check = Check {
        plan_input,
        user_vars: input.vars.len(),
        config,
        options,
    };
    let repair = Repair {
        original: input,
        from_trial: edited.is_some() || !own.is_empty(),
        edited,
        plans,
        own,
        repairs,
        plan,
        findings,
        applied: FxHashSet::default(),
        bases: None,
        unshared: None,
        inherent: Vec::new(),
        one_at_a_time: Vec::new(),
        unmerged: Vec::new(),
        pypto,
    };
    Ok(Begun::Rounds(Box::new(repair), check))
}

/// The repair between two rounds: the input as repaired so far, the groups kept apart, the
/// repairs made, and the plan they give with the checkers' findings on it.
struct Repair<'a> {
    original: &'a Function,
    /// The input as repaired so far, once an edit changed it.
    edited: Option<Function>,
    /// The plans of the input as repaired so far: the trials that keep one more group on its
    /// own allocation share its packing (the plan is its first, or was finished from it); an
    /// edit of the input starts afresh, from the packing its trial made.
    plans: InputPlans,
    own: FxHashSet<VarId>,
    repairs: Vec<Diagnostic>,
    plan: Planned,
    findings: Vec<Finding>,
    /// Whether `plan` is a trial's, laid out without the offset planner's search.
    from_trial: bool,
    /// The edits made: each is made once.
    applied: FxHashSet<Action>,
    /// The names of allocations the input as repaired so far does not use yet, once found
    /// (finding them reads every variable, [`FreshBases`]).
    bases: Option<FreshBases>,
    /// The hazards of the input itself (module doc): the unshared plan's findings, computed
    /// once a finding resists every edit, and the findings accepted as such.
    unshared: Option<Vec<FindingKey>>,
    inherent: Vec<FindingKey>,
    /// The pairs a trial detaching own inits left named: separated one at a time.
    one_at_a_time: Vec<(Name, Name)>,
    /// The victims whose writers' merged trial did not show the rounds it stands for.
    unmerged: Vec<VarId>,
    pypto: PyptoPlan,
}

/// What a round of the repair came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Round {
    /// No finding is left open: the plan is the one to emit.
    Passed,
    /// The open pairs of own inits, or else the first open finding's pair, were separated;
    /// or that pair was accepted as a hazard of the input.
    Separated,
}

impl Repair<'_> {
    /// Separates the open pairs of own inits at once where that trial succeeds; else the
    /// leading pairs of one victim but the last, where one trial provably makes their rounds;
    /// else the pair of the first open finding that names two tiles, by the first edit that
    /// separates it (the others often follow from the same decision), or accepts it as a hazard
    /// the input itself carries; an error where neither can be.
    fn round(&mut self, check: &Check<'_>) -> Result<Round, SafePlanError> {
        let (planned, inherent) = (&self.plan.function, &self.inherent);
        if !self.findings.iter().any(|f| is_open(f, planned, inherent)) {
            return Ok(Round::Passed);
        }
        let input = self.edited.as_ref().unwrap_or(self.original);
        let sites = Sites::of(input, &self.plan.function, &self.pypto, check.user_vars);
        let (detached, left_named) = self.detach_own_inits(&sites, check);
        self.one_at_a_time.extend(left_named);
        if let Some(trial) = detached {
            self.adopt(trial);
            return Ok(Round::Separated);
        }
        // The merged trial finishes from the input's packing; `sites` borrows the rest.
        let mut plans = std::mem::take(&mut self.plans);
        let merged = self.keep_writers_off_one_victim(&sites, check, &mut plans);
        self.plans = plans;
        match merged {
            Merged::Trial(trial) => {
                self.adopt(*trial);
                return Ok(Round::Separated);
            }
            Merged::NotShown(victim) => self.unmerged.push(victim),
            Merged::NoChain => {}
        }
        let planned = &self.plan.function;
        let Some((finding, pair)) = first_open_pair(&self.findings, planned, &self.inherent) else {
            let findings = std::mem::take(&mut self.findings);
            return Err(unrepaired(findings, check.user_vars, planned));
        };
        let trials = Trials {
            sites: &sites,
            own: &self.own,
            finding,
            pair,
            bases: self.bases,
        };
        let Some(trial) = first_separating(&trials, &mut self.plans, &self.applied, check) else {
            // No edit separates the pair: accepted only as a hazard the input itself carries.
            let (original, config, options) = (self.original, check.config, check.options);
            let unshared = self
                .unshared
                .get_or_insert_with(|| unshared_findings(original, config, options));
            if input_hazard(original, planned, &self.findings, pair, unshared).is_none() {
                let findings = std::mem::take(&mut self.findings);
                return Err(unrepaired(findings, check.user_vars, &self.plan.function));
            }
            let names = pair_names(planned, pair);
            let pair_of = |f: &Finding| f.clobber.map(|c| pair_names(planned, c));
            for f in self.findings.iter().filter(|f| pair_of(f) == Some(names)) {
                self.inherent.extend(key(planned, f));
            }
            return Ok(Round::Separated);
        };
        self.adopt(trial);
        Ok(Round::Separated)
    }

    /// The input, groups, plan and findings a trial that separated its pairs leaves.
    fn adopt(&mut self, trial: Trial) {
        self.applied.extend(trial.edits);
        if trial.input.is_some() {
            self.edited = trial.input;
            self.plans = trial.plans;
        }
        let replaced = std::mem::replace(&mut self.plan, trial.plan);
        if let PyptoPlan::Round = self.pypto {
            self.pypto = PyptoPlan::Kept(Box::new(replaced.plan.function));
        }
        (self.own, self.findings) = (trial.own, trial.findings);
        self.bases = trial.bases;
        self.from_trial = true;
        self.repairs.extend(trial.repairs);
    }

    /// The open pairs whose victim is the init of a loop carry or `if` result on the victim's
    /// buffer, each separated by detaching that place (module doc, "Detaching own inits"),
    /// all in one trial; `None` where no pair is one, or where the trial, and a second one
    /// without the pairs the first left named, does not separate every pair it detaches. With
    /// it, the pairs those trials left named: the one-pair rounds separate them from now on.
    fn detach_own_inits(
        &self,
        sites: &Sites<'_>,
        check: &Check<'_>,
    ) -> (Option<Trial>, Vec<(Name, Name)>) {
        let mut detaches = self.own_init_detaches(sites, check);
        let mut left = Vec::new();
        for _ in 0..2 {
            if detaches.is_empty() {
                break;
            }
            match self.detach_all(sites, &detaches, check) {
                Ok(trial) => return (Some(trial), left),
                Err(left_named) => {
                    detaches.retain(|d| !left_named.contains(&d.names));
                    left.extend(left_named);
                }
            }
        }
        (None, left)
    }

    /// The rounds that keep the leading writers of one victim off its buffer, made in one
    /// trial where it provably gives what those rounds give (module doc, "One victim's
    /// writers").
    fn keep_writers_off_one_victim(
        &self,
        sites: &Sites<'_>,
        check: &Check<'_>,
        plans: &mut InputPlans,
    ) -> Merged {
        let planned = &self.plan.function;
        let Some(chain) = self.writers_of_one_victim(sites, check) else {
            return Merged::NoChain;
        };
        let Some(next) = chain.last() else {
            return Merged::NoChain;
        };
        let victim = next.pair.victim;
        let until = self.findings[next.finding].span().start;
        if self.unmerged.contains(&victim)
            || !losses_stay_after(planned, sites, &self.findings, victim, until)
        {
            return Merged::NoChain;
        }
        match self.merged_trial(sites, check, plans, &chain) {
            Some(trial) => Merged::Trial(Box::new(trial)),
            None => Merged::NotShown(victim),
        }
    }

    /// The trial that keeps every writer of `chain` but the last apart, if it shows the rounds
    /// it stands for: it moves the kept groups whole and alone, and finds the last pair
    /// first, with the victim still lost.
    fn merged_trial(
        &self,
        sites: &Sites<'_>,
        check: &Check<'_>,
        plans: &mut InputPlans,
        chain: &[Writer],
    ) -> Option<Trial> {
        let planned = &self.plan.function;
        // The last pair's round is left as it is: the trial must find it first.
        let (next, merged) = chain.split_last()?;
        let mut own = self.own.clone();
        own.extend(merged.iter().map(|w| w.group));
        let mut repairs = Vec::new();
        let input = self.edited.as_ref().unwrap_or(self.original);
        let (trial, separated) = plan_separating(
            input,
            plans,
            check.config,
            &mut own,
            &mut repairs,
            PlacedBy::EarlierRepairs,
        );
        let plan = trial
            .ok()
            .filter(|_| separated.is_none() && repairs.is_empty())?;
        if !moved_whole_and_alone(planned, &plan.function) {
            return None;
        }
        let findings = check_plan(check.plan_input, &plan.function, check.options);
        let next_finding = &self.findings[next.finding];
        let first_open = first_open_pair(&findings, &plan.function, &self.inherent);
        let victim_lost = findings.iter().any(|f| {
            f.is_unsafe()
                && f.code() == codes::VALUE_LOST
                && f.clobber.is_some_and(|c| c.victim == next.pair.victim)
        });
        let merged_pairs: Vec<(&str, &str)> =
            merged.iter().map(|w| pair_names(planned, w.pair)).collect();
        if first_open.map(|(f, _)| f) != Some(next_finding)
            || !victim_lost
            || names_a_pair_of(&findings, &plan.function, &merged_pairs)
        {
            return None;
        }
        let user_names = sites.user_names();
        let repairs: Vec<Diagnostic> = merged
            .iter()
            .map(|w| {
                w.text.warning(
                    &Made::default(),
                    &self.findings[w.finding],
                    planned,
                    user_names,
                )
            })
            .collect();
        if cfg!(debug_assertions) {
            self.assert_rounds_agree(check, plans, chain, &repairs);
        }
        Some(Trial {
            edits: merged.iter().map(|w| Action::KeepOwn(w.group)).collect(),
            input: None,
            plans: InputPlans::default(),
            own,
            repairs,
            plan,
            findings,
            bases: self.bases,
        })
    }

    /// Debug builds make the rounds a merged trial stands for and hold each to it: the round
    /// that keeps one writer more apart finds the next writer's pair first, with the same
    /// finding, and makes the same repair of it.
    fn assert_rounds_agree(
        &self,
        check: &Check<'_>,
        plans: &mut InputPlans,
        chain: &[Writer],
        repairs: &[Diagnostic],
    ) {
        let input = self.edited.as_ref().unwrap_or(self.original);
        let pypto = match &self.pypto {
            PyptoPlan::Round => PyptoPlan::Kept(Box::new(self.plan.function.clone())),
            PyptoPlan::Kept(f) => PyptoPlan::Kept(f.clone()),
            PyptoPlan::Refused => PyptoPlan::Refused,
        };
        let mut own = self.own.clone();
        for (j, writer) in chain.iter().enumerate().skip(1) {
            own.insert(chain[j - 1].group);
            let mut own_j = own.clone();
            let (plan, _) = plan_separating(
                input,
                plans,
                check.config,
                &mut own_j,
                &mut Vec::new(),
                PlacedBy::EarlierRepairs,
            );
            let Ok(plan) = plan else {
                panic!("a merged round's plan is refused");
            };
            let findings = check_plan(check.plan_input, &plan.function, check.options);
            let first = first_open_pair(&findings, &plan.function, &self.inherent).map(|(f, _)| f);
            assert_eq!(
                first,
                Some(&self.findings[writer.finding]),
                "round {j} of a merged chain"
            );
            let kept: Vec<(&str, &str)> = chain[..j]
                .iter()
                .map(|w| pair_names(&self.plan.function, w.pair))
                .collect();
            assert!(
                !names_a_pair_of(&findings, &plan.function, &kept),
                "round {j} of a merged chain keeps a pair"
            );
            let Some(repair) = repairs.get(j) else {
                continue;
            };
            let sites = Sites::of(input, &plan.function, &pypto, check.user_vars);
            let (action, text) = candidates(&sites, &own, writer.pair, false)
                .into_iter()
                .find(|(action, _)| !self.applied.contains(action))
                .expect("a candidate");
            assert_eq!(
                action,
                Action::KeepOwn(writer.group),
                "round {j} of a merged chain"
            );
            let finding = &self.findings[writer.finding];
            let said = text.warning(
                &Made::default(),
                finding,
                &plan.function,
                sites.user_names(),
            );
            assert_eq!(&said, repair, "round {j} of a merged chain");
        }
    }

    /// The open pairs that lead the round's findings when they are at least three, all of one
    /// victim, each first found by the liveness checker (the co-live overlap at its writer's
    /// write) and first separated by keeping the writer's group on its own allocation, up to
    /// the first value the value checker finds lost.
    fn writers_of_one_victim(&self, sites: &Sites<'_>, check: &Check<'_>) -> Option<Vec<Writer>> {
        // Keep-own trials finish from one packing only under PyPTO's planner.
        if check.config.planner != crate::plan::Planner::Pypto {
            return None;
        }
        let planned = &self.plan.function;
        // A function that loses more values than are reported may show others once some are
        // kept: every loss must be in view.
        let losses = self
            .findings
            .iter()
            .filter(|f| f.code() == codes::VALUE_LOST);
        if losses.count() >= verify::values::MAX_REPORTED {
            return None;
        }
        let mut leading: Vec<(usize, Clobber)> = Vec::new();
        for (at, finding) in self.findings.iter().enumerate() {
            // Once a writer is kept apart, a value lost at a read before the next pair's
            // finding can be found lost there again, by another writer: the chain ends there.
            if finding.code() == codes::VALUE_LOST {
                break;
            }
            let Some(pair) = finding
                .clobber
                .filter(|_| is_open(finding, planned, &self.inherent))
            else {
                continue;
            };
            if leading.iter().any(|&(_, p)| p == pair) {
                continue;
            }
            let same_victim = leading
                .first()
                .is_none_or(|&(_, p)| p.victim == pair.victim);
            if !same_victim || finding.code() != codes::CO_LIVE_OVERLAP {
                break;
            }
            leading.push((at, pair));
        }
        if leading.len() < 3 {
            return None;
        }
        let mut chain: Vec<Writer> = Vec::new();
        for (at, pair) in leading {
            let offsets = false;
            let first = candidates(sites, &self.own, pair, offsets)
                .into_iter()
                .find(|(action, _)| !self.applied.contains(action));
            let Some((Action::KeepOwn(group), text)) = first else {
                break;
            };
            let keeps_writer =
                matches!(text, RepairText::KeepsOwn { tile, .. } if tile == pair.writer);
            if !keeps_writer || chain.iter().any(|w| w.group == group) {
                break;
            }
            chain.push(Writer {
                pair,
                group,
                text,
                finding: at,
            });
        }
        (chain.len() >= 3).then_some(chain)
    }

    /// For each open pair (once, at its first finding) whose victim is the init of a place
    /// the pair could be separated by detaching, the first such place of [`candidates`].
    fn own_init_detaches(&self, sites: &Sites<'_>, check: &Check<'_>) -> Vec<OwnInitDetach> {
        let planned = &self.plan.function;
        let offsets = check.config.planner == crate::plan::Planner::Dsa;
        let mut seen: Vec<(&str, &str)> = Vec::new();
        let mut out: Vec<OwnInitDetach> = Vec::new();
        for (at, finding) in self.findings.iter().enumerate() {
            let Some(pair) = finding.clobber else {
                continue;
            };
            let names = pair_names(planned, pair);
            if seen.contains(&names) || !is_open(finding, planned, &self.inherent) {
                continue;
            }
            seen.push(names);
            let names = (Name::from(names.0), Name::from(names.1));
            if self.one_at_a_time.contains(&names) {
                continue;
            }
            let detach = candidates(sites, &self.own, pair, offsets)
                .into_iter()
                .find(|(action, text)| {
                    matches!(text, RepairText::Detaches { init, .. } if *init == pair.victim)
                        && !self.applied.contains(action)
                        && !out.iter().any(|d| d.action == *action)
                });
            if let Some((action, text)) = detach {
                out.push(OwnInitDetach {
                    action,
                    text,
                    finding: at,
                    names,
                });
            }
        }
        out
    }

    /// The trial that makes every edit of `detaches` at once, if it separates each one's
    /// pair; else the pairs it leaves named (all of them where the planner refuses it).
    fn detach_all(
        &self,
        sites: &Sites<'_>,
        detaches: &[OwnInitDetach],
        check: &Check<'_>,
    ) -> Result<Trial, Vec<(Name, Name)>> {
        let planned = &self.plan.function;
        let input = self.edited.as_ref().unwrap_or(self.original);
        let user_names = sites.user_names();
        let mut edited = input.clone();
        let mut own = self.own.clone();
        let mut bases = self.bases.unwrap_or_else(|| FreshBases::of(&input.vars));
        let mut repairs = Vec::new();
        let mut edits = Vec::new();
        let mut left_named = Vec::new();
        for d in detaches {
            let Some(made) = apply(d.action, &mut edited, &mut own, &mut bases) else {
                left_named.push(d.names.clone());
                continue;
            };
            let finding = &self.findings[d.finding];
            repairs.push(d.text.warning(&made, finding, planned, user_names));
            edits.push(d.action);
        }
        let all_named = || detaches.iter().map(|d| d.names.clone()).collect::<Vec<_>>();
        if edits.is_empty() {
            return Err(all_named());
        }
        let mut plans = InputPlans::planned();
        let (trial, separated) = plan_separating(
            &edited,
            &mut plans,
            check.config,
            &mut own,
            &mut repairs,
            PlacedBy::EarlierRepairs,
        );
        let Ok(plan) = trial else {
            return Err(all_named());
        };
        let findings = check_plan(check.plan_input, &plan.function, check.options);
        let named: Vec<(&str, &str)> = findings
            .iter()
            .filter(|f| f.is_unsafe())
            .filter_map(|f| Some(pair_names(&plan.function, f.clobber?)))
            .collect();
        left_named.extend(
            detaches
                .iter()
                .filter(|d| named.contains(&(d.names.0.as_str(), d.names.1.as_str())))
                .map(|d| d.names.clone()),
        );
        if !left_named.is_empty() {
            return Err(left_named);
        }
        let (input, plans, bases) =
            Separated::or_edited(separated, (Some(edited), plans, Some(bases)));
        Ok(Trial {
            edits,
            input,
            plans,
            own,
            repairs,
            plan,
            findings,
            bases,
        })
    }

    /// The plan that passed, its report made as `report` asks: with the repairs made, the
    /// hazards of the input it still carries (the gate every plan with findings passes) and
    /// the notes.
    fn emit(
        self,
        check: &Check<'_>,
        report: Completion,
    ) -> Result<(FunctionPlan, Option<Function>), SafePlanError> {
        let Repair {
            original,
            edited,
            own,
            mut repairs,
            mut plan,
            findings,
            from_trial,
            mut unshared,
            ..
        } = self;
        let (config, options) = (check.config, check.options);
        let (unsafe_findings, mut notes): (Vec<Finding>, Vec<Finding>) =
            findings.into_iter().partition(Finding::is_unsafe);
        if from_trial && unsafe_findings.is_empty() && config.planner == crate::plan::Planner::Dsa {
            // The repaired input laid out with the search too, kept where it passes both
            // checkers as the trial's layout did.
            let repaired = edited.as_ref().unwrap_or(original);
            let keeping = PlanOptions {
                own_buffer: &own,
                ..PlanOptions::default()
            };
            if let Ok(full) = plan_function(repaired, config, &keeping) {
                let full_findings = check_plan(check.plan_input, &full.function, options);
                if full_findings.iter().all(|f| !f.is_unsafe()) {
                    (plan, notes) = (Planned::whole(full), full_findings);
                }
            }
        }
        // The plan emitted: its report is made.
        let mut plan = plan.made(report);
        // The gate every plan with findings passes: each is one the input itself carries.
        if !unsafe_findings.is_empty() {
            let unshared =
                unshared.get_or_insert_with(|| unshared_findings(original, config, options));
            let Some(hazards) = hazards_of(original, &plan.function, &unsafe_findings, unshared)
            else {
                return Err(unrepaired(unsafe_findings, check.user_vars, &plan.function));
            };
            // The input's hazards name the input's tiles, never a copy.
            repairs.extend(hazards);
        }
        if !notes.is_empty() {
            let names = UserNames::of(check.user_vars, &plan.function);
            repairs.extend(notes.iter().map(|f| names.word(&plan.function, &f.worded)));
        }
        plan.report.diagnostics.extend(repairs);
        Ok((plan, edited))
    }
}

/// The trial that separated a round's pair: its edit, the input it leaves where it edited it
/// (with that input's plans), the groups it keeps apart, its repairs, and its plan with the
/// checkers' findings.
struct Trial {
    /// The edits it made, each made once.
    edits: Vec<Action>,
    input: Option<Function>,
    plans: InputPlans,
    own: FxHashSet<VarId>,
    repairs: Vec<Diagnostic>,
    plan: Planned,
    findings: Vec<Finding>,
    /// The names of allocations its input does not use yet, where they are known.
    bases: Option<FreshBases>,
}

/// Whether a round repairs `finding` of `planned`: it is unsafe (notes, lifetimes that overlap
/// without a lost value, ask for no repair) and not among the input's own hazards.
fn is_open(finding: &Finding, planned: &Function, inherent: &[FindingKey]) -> bool {
    finding.is_unsafe() && key(planned, finding).is_none_or(|k| !inherent.contains(&k))
}

/// Whether, once any of the victim's writers are kept off its buffer, no value can be found
/// lost at a read before `until` (the last merged pair's finding): the value checker finds
/// a value lost at its first failing read, which moves only where loops repeat reads, and
/// keeping writers apart loses no value that was kept (module doc, "One victim's writers").
/// So: every value the round's findings say lost on the victim's buffer is the victim, no
/// other name reads the victim's datum there (a view, an alias or in-place result, a carry
/// or `if` result fed from it, which are found lost through it), and every read of the
/// victim before `until` is outside any loop.
fn losses_stay_after(
    planned: &Function,
    sites: &Sites<'_>,
    findings: &[Finding],
    victim: VarId,
    until: u32,
) -> bool {
    let Some(buffer) = base(planned, victim) else {
        return false;
    };
    let others_lost = findings
        .iter()
        .filter(|f| f.code() == codes::VALUE_LOST)
        .any(|f| match f.clobber {
            Some(c) => c.victim != victim && base(planned, c.victim).as_ref() == Some(&buffer),
            None => true,
        });
    let renamed = planned
        .vars
        .iter()
        .any(|(v, _)| v != victim && sites.planned_roots.root(v) == victim);
    !others_lost && !renamed && !read_early_or_renamed(&planned.body, victim, until, false)
}

/// Whether `v` is fed to a loop carry or yielded, or read before `until` inside a loop.
fn read_early_or_renamed(body: &[Stmt], v: VarId, until: u32, in_loop: bool) -> bool {
    let mut found = false;
    let mut reads = |e: &Expr, in_loop: bool| {
        e.for_each_var_use(&mut |u, span| found |= u == v && in_loop && span.start < until);
    };
    for stmt in body {
        match &stmt.kind {
            StmtKind::Assign { value, .. } | StmtKind::Eval(value) => reads(value, in_loop),
            StmtKind::Return { values } => values.iter().for_each(|e| reads(e, in_loop)),
            StmtKind::Yield { values } => {
                if values.iter().any(|e| e.as_var() == Some(v)) {
                    return true;
                }
                values.iter().for_each(|e| reads(e, in_loop));
            }
            StmtKind::For(l) => {
                if l.init_values.iter().any(|e| e.as_var() == Some(v)) {
                    return true;
                }
                // A `while_` loop reads its condition on every iteration.
                let repeated = in_loop || l.kind == LoopKind::While;
                l.bounds.iter().for_each(|e| reads(e, repeated));
                if read_early_or_renamed(&l.body, v, until, true) {
                    return true;
                }
            }
            StmtKind::If(i) => {
                reads(&i.cond, in_loop);
                let arms = std::iter::once(&i.then_body[..]).chain(i.else_body.as_deref());
                for arm in arms {
                    if read_early_or_renamed(arm, v, until, in_loop) {
                        return true;
                    }
                }
            }
            StmtKind::With(w) => {
                reads(&w.context, in_loop);
                if read_early_or_renamed(&w.body, v, until, in_loop) {
                    return true;
                }
            }
            StmtKind::Pass => {}
        }
    }
    found
}

/// Whether an unsafe finding of `f` names one of `pairs` (victim and writer, by name).
fn names_a_pair_of(findings: &[Finding], f: &Function, pairs: &[(&str, &str)]) -> bool {
    findings.iter().any(|finding| {
        finding.is_unsafe()
            && finding
                .clobber
                .is_some_and(|c| pairs.contains(&pair_names(f, c)))
    })
}

/// What became of a round's leading pairs of one victim.
enum Merged {
    /// They are not a chain to merge: too few, their losses might be found earlier, or this
    /// victim's merged trial failed before.
    NoChain,
    /// The merged trial did not show the rounds it stands for: this victim's writers are kept
    /// apart one round each from now on.
    NotShown(VarId),
    /// The merged trial, which stands for all but the last pair's rounds.
    Trial(Box<Trial>),
}

/// A writer of the victim of a round's leading pairs: its pair, its sharing group, the
/// warning of keeping that group on its own allocation, and the pair's first finding (an index
/// into the round's findings).
struct Writer {
    pair: Clobber,
    group: VarId,
    text: RepairText,
    finding: usize,
}

/// Whether the groups `trial` keeps apart moved whole and alone: the tiles it moved to one
/// buffer shared one before and nothing else is on it, and the tiles of every loop carry and
/// `if` result (its init, iter arg, yielded values and result) share a buffer exactly where
/// they do in `planned`. The fixups after packing read only how those sit, so they make the
/// same copies in both plans, and in every plan between that keeps some of those groups apart.
fn moved_whole_and_alone(planned: &Function, trial: &Function) -> bool {
    if planned.vars.len() != trial.vars.len() {
        return false;
    }
    let mut places: Vec<Vec<VarId>> = Vec::new();
    let yielded = |body: &[Stmt], k: usize| {
        final_yield_values(body).and_then(|values| values.get(k)?.as_var())
    };
    for_each_stmt(&planned.body, &mut |stmt| match &stmt.kind {
        StmtKind::For(l) => {
            for (k, &iter_arg) in l.iter_args.iter().enumerate() {
                let mut tiles = vec![iter_arg];
                tiles.extend(l.init_values.get(k).and_then(Expr::as_var));
                tiles.extend(yielded(&l.body, k));
                tiles.extend(l.return_vars.get(k).copied());
                places.push(tiles);
            }
        }
        StmtKind::If(i) => {
            for (k, &result) in i.return_vars.iter().enumerate() {
                let mut tiles = vec![result];
                tiles.extend(yielded(&i.then_body, k));
                tiles.extend(i.else_body.as_deref().and_then(|body| yielded(body, k)));
                places.push(tiles);
            }
        }
        _ => {}
    });
    // A group kept apart sits alone on its buffer: the tiles `trial` moved to one buffer
    // were on one buffer together before, and nothing else is on it.
    let mut moved_to: FxHashMap<String, Option<String>> = FxHashMap::default();
    for (v, _) in trial.vars.iter() {
        if let Some(now) = base(trial, v)
            && base(planned, v).as_ref() != Some(&now)
        {
            let before = base(planned, v);
            if moved_to
                .insert(now, before.clone())
                .is_some_and(|b| b != before)
            {
                return false;
            }
        }
    }
    let alone = trial.vars.iter().all(|(v, _)| match base(trial, v) {
        Some(now) => !moved_to.contains_key(&now) || base(planned, v).as_ref() != Some(&now),
        None => true,
    });
    if !alone {
        return false;
    }
    let together = |f: &Function, a: VarId, b: VarId| base(f, a) == base(f, b);
    places.iter().all(|tiles| {
        tiles.iter().enumerate().all(|(i, &a)| {
            tiles[i + 1..]
                .iter()
                .all(|&b| together(planned, a, b) == together(trial, a, b))
        })
    })
}

/// The first open finding that names two tiles, with them: the pair a round separates.
fn first_open_pair<'f>(
    findings: &'f [Finding],
    planned: &Function,
    inherent: &[FindingKey],
) -> Option<(&'f Finding, Clobber)> {
    findings
        .iter()
        .filter(|f| is_open(f, planned, inherent))
        .find_map(|f| Some((f, f.clobber?)))
}

/// An open pair's victim is the init of a place it can be separated by detaching: the edit,
/// its repair's words, the finding (an index into the round's findings) and the pair's names.
struct OwnInitDetach {
    action: Action,
    text: RepairText,
    finding: usize,
    names: (Name, Name),
}

/// What one round's trials start from: the input as repaired so far and its plan (with where
/// their tiles sit), the groups it keeps apart, and the finding whose pair of tiles they
/// separate.
#[derive(Clone, Copy)]
struct Trials<'a> {
    /// The round's input and plan, and where their tiles sit.
    sites: &'a Sites<'a>,
    own: &'a FxHashSet<VarId>,
    finding: &'a Finding,
    pair: Clobber,
    /// The names of allocations `input` does not use yet, where they are known.
    bases: Option<FreshBases>,
}

/// What every trial is planned and checked with: the input as the checkers see it, how many
/// of a plan's variables are the user's, and the configuration.
#[derive(Clone, Copy)]
struct Check<'a> {
    plan_input: &'a PlanInput,
    user_vars: usize,
    config: &'a PlanConfig,
    options: &'a VerifyOptions,
}

/// The first trial, in the order of [`candidates`], that separates the round's pair, with
/// `plans` the plans of the round's input; an edit in `applied` is not made again (a pair it
/// did not keep apart stays a finding).
fn first_separating(
    trials: &Trials<'_>,
    plans: &mut InputPlans,
    applied: &FxHashSet<Action>,
    check: &Check<'_>,
) -> Option<Trial> {
    let Trials {
        sites,
        own,
        finding,
        pair,
        mut bases,
    } = *trials;
    let (input, planned) = (sites.input, sites.planned);
    let Check {
        plan_input,
        config,
        options,
        ..
    } = *check;
    let names = pair_names(planned, pair);
    let offsets = config.planner == crate::plan::Planner::Dsa;
    let user_names = sites.user_names();
    let mut kept_the_pair = KeptThePair::default();
    for (action, text) in candidates(sites, own, pair, offsets) {
        // An edit is made once: a pair it did not keep apart stays a finding.
        if applied.contains(&action) {
            continue;
        }
        let mut trial_own = own.clone();
        // Each edit is of a copy of `input`, and names its allocation from `input`'s names.
        let mut trial_bases = bases;
        // Only an edit of the input copies it; keeping a group on its own buffer does not.
        let (trial_input, made) = match action {
            Action::KeepOwn(v) => {
                trial_own.insert(v);
                // Keeping the same intervals apart as a trial that kept the pair would
                // plan its function again.
                let kept = plans.kept_own(&trial_own);
                if kept.is_some_and(|kept| kept_the_pair.kept_own.contains(&kept)) {
                    continue;
                }
                (None, Made::default())
            }
            _ => {
                let mut trial_input = input.clone();
                let input_bases = *bases.get_or_insert_with(|| FreshBases::of(&input.vars));
                let edit_bases = trial_bases.insert(input_bases);
                let Some(made) = apply(action, &mut trial_input, &mut trial_own, edit_bases) else {
                    continue;
                };
                (Some(trial_input), made)
            }
        };
        let mut trial_repairs = vec![text.warning(&made, finding, planned, user_names)];
        // An edited input is packed once and kept: its later trials finish from it.
        let mut trial_plans = InputPlans::planned();
        let (planned, separated) = match &trial_input {
            Some(trial_input) => plan_separating(
                trial_input,
                &mut trial_plans,
                config,
                &mut trial_own,
                &mut trial_repairs,
                PlacedBy::EarlierRepairs,
            ),
            None => plan_separating(
                input,
                plans,
                config,
                &mut trial_own,
                &mut trial_repairs,
                PlacedBy::EarlierRepairs,
            ),
        };
        // An edit the planner cannot plan from is no repair.
        let Ok(trial) = planned else {
            continue;
        };
        // A plan this round's trials made before, which kept the pair, keeps it again: the
        // checkers see the same function.
        if kept_the_pair.functions.contains(&trial.function) {
            continue;
        }
        // Tiles the fixups insert get new ids in every plan; their names stay.
        let Some(trial_findings) =
            check_plan_separating(plan_input, &trial.function, options, names)
        else {
            // Finished from the input's packing with just one more group kept apart.
            let keeps_one_more =
                trial_input.is_none() && separated.is_none() && trial_own.len() == own.len() + 1;
            if keeps_one_more && let Some(kept) = plans.kept_own(&trial_own) {
                kept_the_pair.kept_own.push(kept);
            }
            kept_the_pair.functions.push(trial.plan.function);
            continue;
        };
        let (trial_input, trial_plans, trial_bases) =
            Separated::or_edited(separated, (trial_input, trial_plans, trial_bases));
        return Some(Trial {
            edits: vec![action],
            input: trial_input,
            plans: trial_plans,
            own: trial_own,
            repairs: trial_repairs,
            plan: trial,
            findings: trial_findings,
            bases: trial_bases,
        });
    }
    None
}

/// An input whose loop carries that start from one tile [`plan_separating`] gave allocations
/// of their own, with its plans: planned there, its packing is kept for the trials after.
struct Separated {
    input: Function,
    plans: InputPlans,
}

/// The input a trial leaves (`None`: the round's), with its plans and where its allocations'
/// names go on from (`None`: found when first needed).
type TrialInput = (Option<Function>, InputPlans, Option<FreshBases>);

impl Separated {
    /// What a trial leaves: the input `plan_separating` separated, when it did, else `edited`.
    /// The separated input has plans of its own, and its allocations were named without the
    /// edit's names.
    fn or_edited(separated: Option<Separated>, edited: TrialInput) -> TrialInput {
        match separated {
            Some(separated) => (Some(separated.input), separated.plans, None),
            None => edited,
        }
    }
}

/// Plans `input`; when the yield fixup refuses loop carries on one buffer (`MR-E006`, the
/// seed's S2), separates them first and adds those repairs to `repairs`: carries that start
/// from one tile in the input get their own allocations (the input so edited is returned,
/// with its plans), and a carry whose init the packer put on another carry's init's buffer
/// keeps that init on its own allocation (the refused loop's inits in carry order: the first
/// whose keeping changes the plan, since the one that kept the buffer changes nothing).
fn plan_separating(
    input: &Function,
    plans: &mut InputPlans,
    config: &PlanConfig,
    own: &mut FxHashSet<VarId>,
    repairs: &mut Vec<Diagnostic>,
    by: PlacedBy,
) -> (Result<Planned, PlanError>, Option<Separated>) {
    let overlapping = |r: &Result<Planned, PlanError>| matches!(r, Err(e) if e.0.code == codes::OVERLAPPING_CARRIES);
    let mut planned = plans.plan(input, config, own);
    if !overlapping(&planned) {
        return (planned, None);
    }
    let mut edited = None;
    let mut separated_input = input.clone();
    let separated = separate_shared_inits(&mut separated_input, by);
    if !separated.is_empty() {
        repairs.extend(separated);
        // Planned several times as a rule (the rounds' trials that keep a group apart): its
        // packing is kept from its first plan.
        let mut separated_plans = InputPlans::planned();
        planned = separated_plans.plan(&separated_input, config, own);
        edited = Some(Separated {
            input: separated_input,
            plans: separated_plans,
        });
    }
    let (current, plans) = match &mut edited {
        Some(separated) => (&separated.input, &mut separated.plans),
        None => (input, plans),
    };
    // Each round keeps one more init off the packer's shared buffer; a loop has few carries.
    // An init whose group is the buffer's first keeps the buffer already: keeping it on its own
    // plans the same function and the same refusal, and the next init is tried instead.
    for _ in 0..MAX_ROUNDS {
        let refusal = match &planned {
            Err(err) if err.0.code == codes::OVERLAPPING_CARRIES => err.0.clone(),
            _ => break,
        };
        let same_refusal = |e: &PlanError| {
            e.0.code == refusal.code
                && e.0.message == refusal.message
                && e.0.span.range() == refusal.span.range()
        };
        let mut kept = false;
        for (init, repair) in inits_packed_onto_another(current, own, &refusal, by) {
            own.insert(init);
            let trial = plans.plan(current, config, own);
            if matches!(&trial, Err(e) if same_refusal(e)) {
                own.remove(&init);
                continue;
            }
            repairs.push(repair);
            planned = trial;
            kept = true;
            break;
        }
        if !kept {
            break;
        }
    }
    (planned, edited)
}

/// The plans of one input that differ only in the groups kept on their own allocation (the
/// trials that keep one more group apart): from the second on, they finish from one packing
/// of the input instead of packing it again. Belongs to one input.
#[derive(Default)]
struct InputPlans {
    /// Whether the input was planned before: the next plan packs it and keeps the packing.
    planned: bool,
    packed: Option<Rc<Planning>>,
    /// PyPTO's planner's refusal of the input keeping no group apart, once it refused it: the
    /// plan asked for again is that refusal (the separations ask first), not made again.
    refused: Option<PlanError>,
}

/// A trial's plan, whose report may lack the rows nothing but the report reads: most trials'
/// plans are dropped (the trial is undone, or a later round's plan is emitted), so those rows
/// are made only for the plan emitted.
struct Planned {
    plan: FunctionPlan,
    /// The packing it was finished from and what its report still needs.
    rest: Option<(Rc<Planning>, Option<ReportToDo>)>,
}

impl Planned {
    fn whole(plan: FunctionPlan) -> Planned {
        Planned { plan, rest: None }
    }

    /// The plan with its report completed as `report` asks (whole: as planning it in one go
    /// reports it).
    fn made(self, report: Completion) -> FunctionPlan {
        match self.rest {
            Some((packed, to_do)) => packed.complete(self.plan, to_do, report),
            None => self.plan,
        }
    }
}

impl std::ops::Deref for Planned {
    type Target = FunctionPlan;
    fn deref(&self) -> &FunctionPlan {
        &self.plan
    }
}

impl InputPlans {
    /// For an input planned before, or whose plans are expected to be several (an edit's
    /// trial, whose packing the next round's trials reuse when it is kept).
    fn planned() -> InputPlans {
        InputPlans {
            planned: true,
            packed: None,
            refused: None,
        }
    }

    /// For an input whose first plan was finished from `packed`, its packing.
    fn packed(packed: Rc<Planning>) -> InputPlans {
        InputPlans {
            planned: true,
            packed: Some(packed),
            refused: None,
        }
    }

    /// The intervals a plan of the input keeping the groups of `own` apart keeps on their own
    /// allocation, once the input is packed.
    fn kept_own(&self, own: &FxHashSet<VarId>) -> Option<Vec<usize>> {
        self.packed.as_ref()?.kept_own(own)
    }

    /// Whether trials of `input` finish from its packing: PyPTO's planner packs it.
    fn packs(input: &Function, config: &PlanConfig) -> bool {
        config.planner == crate::plan::Planner::Pypto && crate::plan::is_planned(input)
    }

    /// `input` planned as a trial (the offset planner without its search). The first plan is made in one
    /// go: most inputs are planned once, and keeping their packing would cost a copy. A plan
    /// finished from the packing leaves the report rows only the report reads to be made if
    /// it is the plan emitted ([`Planned::complete`]).
    fn plan(
        &mut self,
        input: &Function,
        config: &PlanConfig,
        own: &FxHashSet<VarId>,
    ) -> Result<Planned, PlanError> {
        if let Some(refused) = self.refused.as_ref().filter(|_| own.is_empty()) {
            return Err(refused.clone());
        }
        if !InputPlans::packs(input, config) || !std::mem::replace(&mut self.planned, true) {
            let options = PlanOptions {
                own_buffer: own,
                search: LayoutSearch::Greedy,
            };
            return plan_function(input, config, &options).map(Planned::whole);
        }
        let packed = self
            .packed
            .get_or_insert_with(|| Rc::new(Planning::kept(Arc::new(input.clone()), config)));
        let (plan, to_do) = packed.trial(own)?;
        Ok(Planned {
            plan,
            rest: Some((Rc::clone(packed), to_do)),
        })
    }
}

/// The trials of one round that did not separate its pair: a later trial that plans one of
/// their functions again keeps the pair too, and is not checked again (keeping either of two
/// tiles of one loop carry off a buffer often plans the same).
#[derive(Default)]
struct KeptThePair {
    functions: Vec<Function>,
    /// For the trials that kept one more group off the shared buffer: the intervals the
    /// input's packing kept on their own ([`Planning::kept_own`]), which fix the function
    /// before it is planned.
    kept_own: Vec<Vec<usize>>,
}

/// For the loop of the carries `MR-E006` names (its span is the later carry's iter arg): the
/// inits of its carries, in carry order, each with its repair. The packer put one of the two
/// on the other's buffer, but which is not known: the one whose group is that buffer's first
/// kept its own, and keeping it apart changes nothing ([`plan_separating`] tries the next).
fn inits_packed_onto_another(
    input: &Function,
    own: &FxHashSet<VarId>,
    refusal: &Diagnostic,
    by: PlacedBy,
) -> Vec<(VarId, Diagnostic)> {
    let Some(carries) = loop_carries_at(input, &input.body, refusal.span) else {
        return Vec::new();
    };
    let seats = Seats::of(&input.body);
    let name = |v: VarId| input.vars[v].name.as_str();
    let mut out: Vec<(VarId, Diagnostic)> = Vec::new();
    for (arg, init) in carries {
        let grouped = seats.defined(init);
        if own.contains(&grouped) || out.iter().any(|&(g, _)| g == grouped) {
            continue;
        }
        let Some(init_base) = seats
            .with_memref(&input.vars, init)
            .and_then(|v| base(input, v))
        else {
            continue;
        };
        let packing = match by {
            PlacedBy::Pypto => "PyPTO's packing puts".to_owned(),
            PlacedBy::EarlierRepairs => format!("{AFTER_EARLIER_REPAIRS}, the packer puts"),
        };
        let message = format!(
            "{packing} '{}', the init of loop carry '{}', on the buffer of another carry's init, so their writebacks overwrite each other ({}: {}); the repaired plan keeps '{}' on its own allocation '{init_base}'",
            name(init),
            name(arg),
            refusal.code,
            refusal.message,
            name(grouped),
        );
        let d = Diagnostic::warning(codes::TILE_KEEPS_OWN_BUFFER, message, refusal.span);
        out.push((grouped, d));
    }
    out
}

/// The carries of the loop whose iter arg is defined at `span` (spans take no part in
/// equality: compared by their bytes), those whose init is a variable, as (iter arg, init).
fn loop_carries_at(
    f: &Function,
    body: &[Stmt],
    span: crate::ir::Span,
) -> Option<Vec<(VarId, VarId)>> {
    let defines = |stmt: &Stmt| match &stmt.kind {
        StmtKind::For(l) => l
            .iter_args
            .iter()
            .any(|&arg| f.vars[arg].span.range() == span.range()),
        _ => false,
    };
    let StmtKind::For(l) = &find_stmt(body, &defines)?.kind else {
        return None;
    };
    let carries = l.iter_args.iter().zip(&l.init_values);
    Some(
        carries
            .filter_map(|(&a, init)| Some((a, init.as_var()?)))
            .collect(),
    )
}

/// Run when the yield fixup refuses carries on one buffer (`MR-E006`, seed S2): loop carries
/// whose init is one tile, and `if` results whose then arm yields one tile while the else arm
/// yields two, sit on one buffer in PyPTO's plan. Every one but the first gets its own.
fn separate_shared_inits(f: &mut Function, by: PlacedBy) -> Vec<Diagnostic> {
    let mut shared = Vec::new();
    shared_inits(f, &f.body, &mut shared);
    let mut repairs = Vec::new();
    let mut bases = FreshBases::of(&f.vars);
    let mut made = Vec::new();
    for (place, first, span) in shared {
        let (anchor, code, what) = match place {
            Place::Carry(arg) => (arg, codes::CARRY_GETS_OWN_BUFFER, "loop carries"),
            Place::IfResult(r) => (r, codes::IF_RESULT_GETS_OWN_BUFFER, "if results"),
        };
        let (anchor_name, first_name) = (f.vars[anchor].name.clone(), f.vars[first].name.clone());
        let Some(detached) = detach(f, place, &mut bases) else {
            continue;
        };
        // A loop inside one separated here may start from the copy that separation made.
        let by = if made.contains(&detached.shared_base) {
            PlacedBy::EarlierRepairs
        } else {
            by
        };
        made.push(detached.new_base.clone());
        let keeps = match by {
            PlacedBy::Pypto => format!("PyPTO keeps {what} '{first_name}' and '{anchor_name}'"),
            PlacedBy::EarlierRepairs => {
                format!("{AFTER_EARLIER_REPAIRS}, {what} '{first_name}' and '{anchor_name}' sit")
            }
        };
        let message = format!(
            "{keeps} on one buffer, '{}', because both start from '{}', so their writebacks overwrite each other (the seed's S2 rejects this); the repaired plan feeds '{anchor_name}' from '{}', a copy of '{}' in its own allocation '{}'",
            detached.shared_base, detached.init, detached.copy, detached.init, detached.new_base
        );
        repairs.push(Diagnostic::warning(code, message, span));
    }
    repairs
}

fn shared_inits(f: &Function, body: &[Stmt], out: &mut Vec<(Place, VarId, crate::ir::Span)>) {
    let var = |e: &crate::ir::Expr| e.as_var();
    for_each_stmt(body, &mut |stmt| match &stmt.kind {
        StmtKind::For(l) => {
            for j in 1..l.iter_args.len().min(l.init_values.len()) {
                let Some(init) = var(&l.init_values[j]) else {
                    continue;
                };
                let first = (0..j).find(|&i| {
                    var(&l.init_values[i])
                        .is_some_and(|s| base(f, s).is_some() && base(f, s) == base(f, init))
                });
                if let Some(i) = first {
                    out.push((Place::Carry(l.iter_args[j]), l.iter_args[i], stmt.span));
                }
            }
        }
        StmtKind::If(i) => {
            let values = |arm: &[Stmt]| final_yield_values(arm).map(<[Expr]>::to_vec);
            let then_values = values(&i.then_body);
            let else_values = i.else_body.as_deref().and_then(values);
            let Some((t, e)) = then_values.zip(else_values) else {
                return;
            };
            for j in 1..t.len().min(i.return_vars.len()) {
                let Some(init) = var(&t[j]) else { continue };
                let first = (0..j).find(|&k| {
                    var(&t[k]) == Some(init) && e.get(k).and_then(var) != e.get(j).and_then(var)
                });
                if let Some(k) = first {
                    let place = Place::IfResult(i.return_vars[j]);
                    out.push((place, i.return_vars[k], stmt.span));
                }
            }
        }
        _ => {}
    });
}

/// Applies an edit of the input (`Detach` or `Fresh`); what it made, for its warning, or
/// `None` when it does not apply. A new allocation is named from `bases`, those of `input`.
fn apply(
    action: Action,
    input: &mut Function,
    own: &mut FxHashSet<VarId>,
    bases: &mut FreshBases,
) -> Option<Made> {
    match action {
        // Not an edit of the input: the caller tells the packer to keep the group apart.
        Action::KeepOwn(_) => Some(Made::default()),
        Action::Detach(place) => {
            let detached = detach(input, place, bases)?;
            // The new allocation is the place's alone: the packer, whose lifetimes called the
            // shared buffer safe, must not put it back beside the value it protects.
            own.insert(detached.copy_var);
            Some(Made {
                copy: Some(detached.copy),
                new_base: Some(detached.new_base),
            })
        }
        Action::Fresh(tile) => {
            let fresh = fresh_buffer(input, tile, bases)?;
            own.insert(tile);
            Some(Made {
                copy: None,
                new_base: Some(fresh),
            })
        }
    }
}

/// A round's input and plan, with what the candidates of its pairs and their warnings read
/// from them, found once for all its pairs: where carries and `if` results sit in each, the
/// storage roots and places of each, and how the plan's tiles are named.
struct Sites<'a> {
    input: &'a Function,
    planned: &'a Function,
    input_seats: Seats,
    planned_seats: Seats,
    planned_roots: StorageRoots,
    /// The input's storage roots, found when first asked.
    input_roots: OnceCell<StorageRoots>,
    /// How many of the plan's variables are the user's, and how the warnings name its tiles
    /// (an inserted copy by the user's tile it copies), found when first asked.
    user_vars: usize,
    user_names: OnceCell<UserNames>,
    /// PyPTO's own plan, which the warnings say PyPTO made.
    pypto: &'a PyptoPlan,
    /// Where carries and `if` results sit in PyPTO's kept plan, found when first asked.
    pypto_seats: OnceCell<Seats>,
}

impl<'a> Sites<'a> {
    fn of(
        input: &'a Function,
        planned: &'a Function,
        pypto: &'a PyptoPlan,
        user_vars: usize,
    ) -> Sites<'a> {
        Sites {
            input,
            planned,
            input_seats: Seats::of(&input.body),
            planned_seats: Seats::of(&planned.body),
            planned_roots: StorageRoots::of(planned),
            input_roots: OnceCell::new(),
            user_vars,
            user_names: OnceCell::new(),
            pypto,
            pypto_seats: OnceCell::new(),
        }
    }

    /// The storage roots and places of the round's input.
    fn input_roots(&self) -> &StorageRoots {
        self.input_roots
            .get_or_init(|| StorageRoots::of(self.input))
    }

    /// How the warnings name the plan's tiles.
    fn user_names(&self) -> &UserNames {
        self.user_names
            .get_or_init(|| UserNames::of(self.user_vars, self.planned))
    }

    /// Who put `tile` of the round's plan on `base`: PyPTO, where its own plan has the tile
    /// of that name there too.
    fn placed_by(&self, tile: VarId, base: &str) -> PlacedBy {
        let pypto = match self.pypto {
            PyptoPlan::Round => return PlacedBy::Pypto,
            PyptoPlan::Refused => return PlacedBy::EarlierRepairs,
            PyptoPlan::Kept(pypto) => pypto,
        };
        let seats = self.pypto_seats.get_or_init(|| Seats::of(&pypto.body));
        let name = &self.planned.vars[tile].name;
        // A user's tile has its id in every plan; an inserted one is found by its name.
        let in_pypto = if pypto.vars.get(tile).is_some_and(|v| v.name == *name) {
            Some(tile)
        } else {
            let named = pypto.vars.iter().filter(|(_, v)| v.name == *name);
            named.map(|(id, _)| id).last()
        };
        let pypto_base =
            in_pypto.and_then(|v| crate::base(pypto, seats.with_memref(&pypto.vars, v)?));
        if pypto_base.as_deref() == Some(base) {
            PlacedBy::Pypto
        } else {
            PlacedBy::EarlierRepairs
        }
    }
}

/// PyPTO's own plan of the function, which a repair's warning says PyPTO made.
enum PyptoPlan {
    /// The round's plan: no trial has replaced it yet.
    Round,
    /// Kept once a trial replaced it.
    Kept(Box<Function>),
    /// None: PyPTO refused the function (its yield fixup would write one carry over another,
    /// rules §S2), so the first plan is already a repair's.
    Refused,
}

/// The ways to separate the pair, best first: a tile the packer moved onto the other's buffer
/// goes back to its own (the writer first); else a loop carry or `if` result that sits on the
/// victim's buffer gets one of its own — the one whose storage the writer is (an in-place
/// result or view of an `if` result, a carry or a loop result) or one enclosing the write,
/// one whose init is the victim first, then outer before inner; else the writer, if the input
/// already put it there, moves to a fresh allocation with the tile whose view or in-place
/// result it is (an assignment's value: a carry's or an `if` result's storage moves with its
/// place, above). Each comes with what its warning says, worded once [`apply`] has made the
/// copy and allocation it names.
fn candidates(
    sites: &Sites<'_>,
    own: &FxHashSet<VarId>,
    pair: Clobber,
    offsets: bool,
) -> Vec<(Action, RepairText)> {
    let Clobber { victim, writer } = pair;
    let Sites {
        input,
        planned,
        ref input_seats,
        ref planned_seats,
        ref planned_roots,
        ..
    } = *sites;
    // A carry or `if` result printed without a type sits where its init sits.
    let seat_base = |seats: &Seats, f: &Function, v: VarId| base(f, seats.with_memref(&f.vars, v)?);
    let planned_base = |v: VarId| seat_base(planned_seats, planned, v);
    let input_base = |v: VarId| {
        (v.index() < input.vars.len())
            .then(|| seat_base(input_seats, input, v))
            .flatten()
    };
    let mut out = Vec::new();
    for (tile, other) in [(writer, victim), (victim, writer)] {
        let (Some(now), Some(own_base)) = (planned_base(tile), input_base(tile)) else {
            continue;
        };
        // A carry or `if` result keeps its own buffer through the tile it sits with.
        let grouped = input_seats.defined(tile);
        let kept = if grouped == tile {
            Who::Tile(tile)
        } else {
            Who::SitsWith {
                group: grouped,
                tile,
            }
        };
        // The offset planner keeps every group on its own allocation, at an address that may
        // overlap another's.
        let overlapping = offsets && now == own_base;
        if (now != own_base || overlapping) && !own.contains(&grouped) {
            let placed = if overlapping {
                Placed::Overlapping
            } else {
                let by = sites.placed_by(tile, &now);
                Placed::OnBuffer { now, own_base, by }
            };
            let text = RepairText::KeepsOwn {
                tile,
                other,
                kept,
                placed,
            };
            out.push((Action::KeepOwn(grouped), text));
        }
    }
    let Some(victim_base) = planned_base(victim) else {
        return out;
    };
    let mut places = Vec::new();
    // The carry or `if` result the writer is the storage of (an in-place result of an `if`
    // result, a view of an iter arg): it leaves with the place, never alone.
    if let Some(place) = planned_roots.storage_place(writer)
        && let Some((anchor, init)) = place_anchor(&planned.body, place)
    {
        places.push((0, place, anchor, init));
    }
    enclosing_places(&planned.body, writer, 0, &mut Vec::new(), &mut places);
    // A place whose init is the victim itself first, then outermost first.
    let mut places: Vec<_> = places
        .into_iter()
        .filter(|&(_, _, anchor, init)| {
            // An untyped return var sits where its init sits.
            planned_base(anchor)
                .or_else(|| planned_base(init))
                .as_deref()
                == Some(victim_base.as_str())
                && planned_base(init).as_deref() == Some(victim_base.as_str())
                && anchor.index() < input.vars.len()
        })
        .collect();
    places.sort_by_key(|&(depth, _, anchor, init)| (init != victim, depth, anchor.index()));
    // The writer's own place may enclose it too: each place is tried once.
    let mut tried = Vec::new();
    places.retain(|&(_, place, _, _)| {
        let first = !tried.contains(&place);
        tried.push(place);
        first
    });
    for (_, place, anchor, init) in places {
        let text = RepairText::Detaches {
            place,
            anchor,
            init,
            base: victim_base.clone(),
            // A carry or `if` result sits on its init's buffer (rules §3.1).
            by: sites.placed_by(init, &victim_base),
        };
        out.push((Action::Detach(place), text));
    }
    // The packer may have moved both onto a third buffer: what counts is that the input put
    // them on one. A view, alias or in-place result moves with the tile whose storage it is.
    // The input's storage roots walk the whole input: found for a pair the input put on one
    // base, once a round.
    if let Some(writer_base) = input_base(writer)
        && Some(&writer_base) == input_base(victim).as_ref()
        && let input_roots = sites.input_roots()
        && let root = input_roots.root(writer)
        && root != victim
        && input_roots.place(root).is_none()
    {
        let moved = if root == writer {
            Who::Tile(writer)
        } else {
            Who::StorageOf { root, tile: writer }
        };
        let text = RepairText::Fresh {
            writer,
            victim,
            base: writer_base,
            moved,
        };
        out.push((Action::Fresh(root), text));
    }
    out
}

/// The places of every loop and `if` enclosing `v`'s definition, with their depth, the
/// variable on the place and its init.
fn enclosing_places(
    body: &[Stmt],
    v: VarId,
    depth: usize,
    stack: &mut Vec<(usize, Place, VarId, VarId)>,
    out: &mut Vec<(usize, Place, VarId, VarId)>,
) -> bool {
    for stmt in body {
        let found = match &stmt.kind {
            StmtKind::Assign { target, .. } => *target == v,
            StmtKind::For(f) => {
                let before = stack.len();
                for (&arg, init) in f.iter_args.iter().zip(&f.init_values) {
                    if let Some(init) = init.as_var() {
                        stack.push((depth, Place::Carry(arg), arg, init));
                    }
                }
                let inside =
                    f.iter_args.contains(&v) || enclosing_places(&f.body, v, depth + 1, stack, out);
                if inside && out.is_empty() {
                    out.extend(stack.iter().copied());
                }
                stack.truncate(before);
                inside
            }
            StmtKind::If(i) => {
                let before = stack.len();
                if let Some(values) = final_yield_values(&i.then_body) {
                    for (&result, value) in i.return_vars.iter().zip(values) {
                        if let Some(value) = value.as_var() {
                            stack.push((depth, Place::IfResult(result), result, value));
                        }
                    }
                }
                let inside = enclosing_places(&i.then_body, v, depth + 1, stack, out)
                    || i.else_body
                        .as_deref()
                        .is_some_and(|e| enclosing_places(e, v, depth + 1, stack, out));
                if inside && out.is_empty() {
                    out.extend(stack.iter().copied());
                }
                stack.truncate(before);
                inside || i.return_vars.contains(&v)
            }
            StmtKind::With(w) => enclosing_places(&w.body, v, depth, stack, out),
            _ => false,
        };
        if found {
            return true;
        }
    }
    false
}

/// The names of a clobber's two tiles.
fn pair_names(f: &Function, pair: Clobber) -> (&str, &str) {
    (
        f.vars[pair.victim].name.as_str(),
        f.vars[pair.writer].name.as_str(),
    )
}

fn base(f: &Function, v: VarId) -> Option<String> {
    match &f.vars.get(v)?.ty {
        Some(Type::Tile(t)) => t.memref.as_ref().map(|m| m.base.to_string()),
        _ => None,
    }
}

/// The error for findings no edit repairs, each as the user is told of it.
fn unrepaired(findings: Vec<Finding>, user_vars: usize, planned: &Function) -> SafePlanError {
    let names = UserNames::of(user_vars, planned);
    SafePlanError::Unrepaired(
        findings
            .into_iter()
            .map(|f| names.word(planned, &f.worded))
            .collect(),
    )
}

/// What identifies a finding across two plans of one input: its code, its two tiles' names and
/// where it points (the read or the write, the definitions), not its text, whose step numbers
/// move when a plan inserts statements. `None` for a finding that names no two tiles.
#[derive(Clone, Debug, PartialEq, Eq)]
struct FindingKey {
    code: &'static str,
    victim: String,
    writer: String,
    span: crate::ir::Span,
    related: Vec<crate::ir::Span>,
}

fn key(planned: &Function, finding: &Finding) -> Option<FindingKey> {
    let (victim, writer) = pair_names(planned, finding.clobber?);
    Some(FindingKey {
        code: finding.code(),
        victim: victim.to_string(),
        writer: writer.to_string(),
        span: finding.span(),
        related: finding
            .worded
            .related
            .iter()
            .map(|related| related.span)
            .collect(),
    })
}

/// The findings on the input planned with no reuse at all: every sharing group keeps its own
/// allocation and Step 0 retargets nothing, so tiles share only what the input and PyPTO's
/// mandatory placements make them share (in-place results, views, loop carries in place,
/// accumulator if-phis coalesced, rules §7.4). Loop carries that start from one tile in the
/// input, which the yield fixup refuses (`MR-E006`), are first separated as the repair
/// separates them (their copies keep their own allocations too). Empty when that plan cannot
/// be made.
fn unshared_findings(
    input: &Function,
    config: &PlanConfig,
    options: &VerifyOptions,
) -> Vec<FindingKey> {
    let every_tile = |f: &Function| -> FxHashSet<VarId> { f.vars.iter().map(|(v, _)| v).collect() };
    // PyPTO's placements, whichever planner made the plan checked against them.
    let unshared = PlanConfig {
        planner: crate::plan::Planner::Pypto,
        materialize_aliases: false,
        exact: false,
        ..*config
    };
    let plan_keeping_all = |f: &Function| {
        let own_buffer = every_tile(f);
        let options = PlanOptions {
            own_buffer: &own_buffer,
            ..PlanOptions::default()
        };
        plan_function(f, &unshared, &options)
    };
    let mut planned = plan_keeping_all(input);
    if matches!(&planned, Err(e) if e.0.code == codes::OVERLAPPING_CARRIES) {
        let mut separated = input.clone();
        if !separate_shared_inits(&mut separated, PlacedBy::Pypto).is_empty() {
            planned = plan_keeping_all(&separated);
        }
    }
    let Ok(plan) = planned else {
        return Vec::new();
    };
    let options = VerifyOptions {
        backend: options.backend,
        ..verify_options(&unshared)
    };
    check_plan(&PlanInput::of(input), &plan.function, &options)
        .iter()
        .filter(|f| f.is_unsafe())
        .filter_map(|f| key(&plan.function, f))
        .collect()
}

/// The checkers on `planned`, a plan of `input` made with `config`, as the gate before it
/// leaves the tool: `Ok` with a warning per hazard the input itself carries when every finding
/// is one (none when the plan passes), `Err` with the findings otherwise. Safe planning passes
/// every plan it returns through this gate.
pub fn input_hazards(
    input: &Function,
    planned: &Function,
    config: &PlanConfig,
    options: &VerifyOptions,
) -> Result<Vec<Diagnostic>, Vec<Diagnostic>> {
    let mut findings = check_plan(&PlanInput::of(input), planned, options);
    // Lifetimes that overlap without a lost value (notes) pass.
    findings.retain(Finding::is_unsafe);
    if findings.is_empty() {
        return Ok(Vec::new());
    }
    let unshared = unshared_findings(input, config, options);
    hazards_of(input, planned, &findings, &unshared)
        .ok_or_else(|| findings.iter().map(|f| f.diagnostic(planned)).collect())
}

/// A warning per op of the input that overwrites a value in place, when every finding is a
/// hazard the input itself carries ([`input_hazard`]); `None` when one is not. The pairs one
/// op's write makes (its result over the value, and each tile that must share its buffer) are
/// one warning, located at the op, with every pair's read and other write as notes.
fn hazards_of(
    input: &Function,
    planned: &Function,
    findings: &[Finding],
    unshared: &[FindingKey],
) -> Option<Vec<Diagnostic>> {
    let mut pairs = Vec::new();
    let mut hazards: Vec<Vec<InputHazard>> = Vec::new();
    for finding in findings {
        let pair = finding.clobber?;
        let names = pair_names(planned, pair);
        if pairs.contains(&names) {
            continue;
        }
        pairs.push(names);
        let hazard = input_hazard(input, planned, findings, pair, unshared)?;
        match hazards.iter_mut().find(|of_op| of_op[0].same_op(&hazard)) {
            Some(of_op) => of_op.push(hazard),
            None => hazards.push(vec![hazard]),
        }
    }
    Some(
        hazards
            .iter()
            .map(|of_op| hazard_warning(input, of_op))
            .collect(),
    )
}

/// A pair of tiles no edit separates, as a hazard the input itself carries: the op of the
/// input that overwrites the victim in place, and where the victim is read after it.
struct InputHazard {
    victim: VarId,
    writer: VarId,
    /// The victim's space.
    space: crate::ir::MemSpace,
    root: InPlace,
    read: crate::ir::Span,
    /// The `if` result the writer and the op's result are yielded into, when the writer is
    /// not the op's result itself.
    phi: Option<VarId>,
}

impl InputHazard {
    fn same_op(&self, other: &InputHazard) -> bool {
        self.victim == other.victim && self.root.result == other.root.result
    }
}

/// The hazard of `pair`, which no edit separates, when it is one the input itself carries:
/// every finding of the plan for the pair is one of the unshared plan's (so no reuse decision
/// makes it); its victim is a tile of the input that an op of the input overwrites in place
/// ("output reuses input k") before the read; and the writer is that op's result, or is yielded
/// with it into one `if` result in a space with no copy into itself (Acc), so both arms must
/// write one buffer. `None` otherwise: the pair stays an error.
fn input_hazard(
    input: &Function,
    planned: &Function,
    findings: &[Finding],
    pair: Clobber,
    unshared: &[FindingKey],
) -> Option<InputHazard> {
    let names = pair_names(planned, pair);
    let of_pair: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.clobber.is_some_and(|c| pair_names(planned, c) == names))
        .collect();
    let in_unshared = |f: &&Finding| key(planned, f).is_some_and(|k| unshared.contains(&k));
    if !of_pair.iter().all(in_unshared) {
        return None;
    }
    let Clobber { victim, writer } = pair;
    let user =
        |v: VarId| v.index() < input.vars.len() && input.vars[v].name == planned.vars[v].name;
    if !user(victim) || !user(writer) {
        return None;
    }
    // Where the victim is read with the wrong value: the value checker names the first write
    // that destroyed it, which may be another writer's.
    let lost_read = |f: &&Finding| {
        f.code() == codes::VALUE_LOST
            && f.clobber
                .is_some_and(|c| planned.vars[c.victim].name == names.0)
    };
    let read = of_pair
        .iter()
        .copied()
        .find(lost_read)
        .or_else(|| findings.iter().find(lost_read))
        .map_or(of_pair.first()?.span(), |f| f.span());
    let space = match &input.vars[victim].ty {
        Some(Type::Tile(t)) => t.space?,
        _ => return None,
    };
    // With no copy within the space, a loop carry started from the victim stays on its buffer.
    let no_copy = !crate::ir::ops::tile_move_exists(space, space);
    let mut on_victim = vec![victim];
    if no_copy {
        carried_from(&input.body, &mut on_victim);
    }
    let root = on_victim
        .iter()
        .flat_map(|&v| in_place_over(&input.body, v))
        .filter(|r| r.span.start < read.start)
        .min_by_key(|r| r.span.start)?;
    let phi = if writer == root.result {
        None
    } else {
        let phi = shared_if_result(&input.body, root.result, writer)?;
        if !no_copy {
            return None;
        }
        Some(phi)
    };
    Some(InputHazard {
        victim,
        writer,
        space,
        root,
        read,
        phi,
    })
}

/// The warning for the hazards of one in-place op (see [`hazards_of`]).
fn hazard_warning(input: &Function, of_op: &[InputHazard]) -> Diagnostic {
    let InputHazard {
        victim,
        space,
        ref root,
        ..
    } = of_op[0];
    let name = |v: VarId| input.vars[v].name.as_str();
    let (v, a, space) = (name(victim), name(root.result), space.name());
    let over = if root.over == victim {
        String::new()
    } else {
        format!(
            ", the loop carry '{}' started from '{v}', which with no {space}-to-{space} tile.move stays on its buffer",
            name(root.over)
        )
    };
    let why: String = of_op
        .iter()
        .filter_map(|h| Some((h.phi?, h.writer)))
        .map(|(phi, writer)| {
            let w = name(writer);
            format!(
                "; the if result '{}' is '{a}' in one arm and '{w}' in the other, and with no {space}-to-{space} tile.move both must be computed on one buffer, so '{w}' is written over '{v}' too",
                name(phi),
            )
        })
        .collect();
    let message = format!(
        "the input overwrites '{v}' in place ({} puts its result '{a}' over its argument {}{over}) while '{v}' is still read{why}; no memory plan can keep '{v}', so the plan keeps this hazard: fix the kernel",
        root.callee, root.argument,
    );
    let at = input.vars[root.result].span;
    let mut d = Diagnostic::warning(codes::INPUT_OVERWRITES_LIVE_VALUE, message, at).with_hint(
        format!("read '{v}' before '{a}' overwrites it, or compute '{a}' from a tile of its own"),
    );
    for hazard in of_op {
        if !d.related.iter().any(|r| r.span == hazard.read) {
            d.related.push(crate::ir::diagnostics::Related {
                span: hazard.read,
                message: format!("'{v}' is read here, after it was overwritten"),
            });
        }
    }
    for hazard in of_op.iter().filter(|h| h.phi.is_some()) {
        d.related.push(crate::ir::diagnostics::Related {
            span: input.vars[hazard.writer].span,
            message: format!("'{}' is written over '{v}' here", name(hazard.writer)),
        });
    }
    d
}

/// An op of the input whose result lands on an argument's buffer.
struct InPlace {
    result: VarId,
    /// The argument it lands on.
    over: VarId,
    callee: String,
    argument: usize,
    span: crate::ir::Span,
}

/// The assignments of `body` that overwrite `victim` in place, in program order.
fn in_place_over(body: &[Stmt], victim: VarId) -> Vec<InPlace> {
    let mut out = Vec::new();
    crate::plan::analysis::lifetimes::visit_assignments(body, &mut |target, value| {
        if let Some(call) = value.as_call()
            && let Some(k) = value.call_info().and_then(|i| i.reuses_input)
            && call.args.get(k).and_then(crate::ir::Expr::as_var) == Some(victim)
        {
            out.push(InPlace {
                result: target,
                over: victim,
                callee: call.op().to_string(),
                argument: k,
                span: value.span,
            });
        }
    });
    out
}

/// Adds to `carried` the iter args of the loops whose init is one of them (outer loops first,
/// so nested carries follow).
fn carried_from(body: &[Stmt], carried: &mut Vec<VarId>) {
    for_each_stmt(body, &mut |stmt| {
        if let StmtKind::For(l) = &stmt.kind {
            for (&arg, init) in l.iter_args.iter().zip(&l.init_values) {
                if init.as_var().is_some_and(|i| carried.contains(&i)) {
                    carried.push(arg);
                }
            }
        }
    });
}

/// The result of an `if` whose one arm yields `a` for it and the other `b`.
fn shared_if_result(body: &[Stmt], a: VarId, b: VarId) -> Option<VarId> {
    let yielded = |arm: &[Stmt]| final_yield_values(arm).map(<[Expr]>::to_vec);
    let of_if = |stmt: &Stmt| {
        let StmtKind::If(i) = &stmt.kind else {
            return None;
        };
        let (t, e) = yielded(&i.then_body).zip(i.else_body.as_deref().and_then(yielded))?;
        (0..i.return_vars.len()).find_map(|k| {
            let arms = (t.get(k)?.as_var()?, e.get(k)?.as_var()?);
            (arms == (a, b) || arms == (b, a)).then_some(i.return_vars[k])
        })
    };
    find_stmt(body, &|stmt| of_if(stmt).is_some()).and_then(of_if)
}

/// [`plan_checked`] over every function of a program; the first failure stops it, naming
/// the function's index.
pub fn plan_program_checked(
    program: &crate::ir::Program,
    config: &PlanConfig,
    options: &VerifyOptions,
) -> Result<(crate::ir::Program, Vec<crate::plan::PlanReport>), (usize, SafePlanError)> {
    let safely = Safely::whole(config, options);
    plan_program(program, safely)
}

/// A program planned safely, as PyPTO's pass reads it ([`plan_program_repairs`]).
pub struct PlannedWithRepairs {
    pub program: crate::ir::Program,
    /// Each function's repairs (`MR-R…`, [`is_repair`]), in function order, each function's
    /// in the order of its report.
    pub repairs: Vec<Vec<Diagnostic>>,
}

/// [`plan_program_checked`] for a caller that reads only the planned program and the repairs
/// (PyPTO's pass). The space and lifetime rows, which only a report reads, are not made: that
/// work is most of what completing the report of a plan PyPTO got right costs.
pub fn plan_program_repairs(
    program: &crate::ir::Program,
    config: &PlanConfig,
    options: &VerifyOptions,
) -> Result<PlannedWithRepairs, (usize, SafePlanError)> {
    let safely = Safely {
        config,
        options,
        report: Completion::Diagnostics,
    };
    let (program, reports) = plan_program(program, safely)?;
    let repairs = reports
        .into_iter()
        .map(|report| report.diagnostics.into_iter().filter(is_repair).collect())
        .collect();
    Ok(PlannedWithRepairs { program, repairs })
}

fn plan_program(
    program: &crate::ir::Program,
    safely: Safely<'_>,
) -> Result<(crate::ir::Program, Vec<crate::plan::PlanReport>), (usize, SafePlanError)> {
    let mut functions = Vec::with_capacity(program.functions.len());
    let mut reports = Vec::with_capacity(program.functions.len());
    for (index, function) in program.functions.iter().enumerate() {
        let (plan, _) = plan_checked_editing(function, safely).map_err(|e| (index, e))?;
        functions.push(plan.function);
        reports.push(plan.report);
    }
    let planned = crate::ir::Program {
        functions,
        ..program.clone()
    };
    Ok((planned, reports))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::backend::Backend;
    use crate::ir::parse_program;

    /// The fixture whose `if` result has four writers packed onto its buffer: the first is
    /// kept apart in a round of its own (the `then` arm reads the result after it), the next
    /// two in one trial, and the last in a round of its own again; the plan emitted is the one
    /// four rounds make (tests/repair_fixtures.rs holds its snapshot).
    #[test]
    fn a_victims_leading_writers_are_kept_apart_in_one_round() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/repair/r001_writers_of_one_victim_kept_apart_in_one_trial.py"
        );
        let text = std::fs::read_to_string(path).expect("the fixture");
        let program = parse_program(&text).expect("the fixture parses");
        let f = &program.functions[0];
        let config = PlanConfig {
            backend: Backend::Ascend910B,
            ..PlanConfig::default()
        };
        let options = verify_options(&config);
        let plan_input = PlanInput::of(f);
        let planning = Rc::new(Planning::kept(Arc::new(f.clone()), &config));
        let first = planning.trial(&FxHashSet::default()).map(|(plan, to_do)| {
            let findings = check_plan(&plan_input, &plan.function, &options);
            let rest = Some((Rc::clone(&planning), to_do));
            (Planned { plan, rest }, findings)
        });
        let plans = InputPlans::packed(planning);
        let safely = Safely::whole(&config, &options);
        let Ok(Begun::Rounds(mut repair, check)) = begin(f, &plan_input, first, plans, safely)
        else {
            panic!("PyPTO's plan of the fixture is repaired");
        };
        let made = |repair: &Repair<'_>| repair.repairs.iter().filter(|d| is_repair(d)).count();
        let mut rounds = Vec::new();
        for _ in 0..MAX_ROUNDS {
            if repair.round(&check).ok() != Some(Round::Separated) {
                break;
            }
            rounds.push(made(&repair));
        }
        assert_eq!(rounds, [1, 3, 4], "the repairs made after each round");
    }
}
