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
//! detach the loop carry or `if` result that sits on the victim's buffer (the one whose storage
//! the writer is — an in-place result or view of it — first, then one whose init is the victim,
//! then outer before inner), `MR-R004` move an upstream retarget to a fresh allocation (with
//! the views and in-place results on it: one of those never moves alone, which would leave it
//! off its source's base, `V006`, a finding no edit repairs). Each trial plans the function
//! from the edited input (an `MR-R001` trial keeps the input, so it finishes from the input's
//! packing, `plan::Planning::kept`, which gives the same plan: the packing is kept from the
//! input's first plan ([`plan_checked`]), made at its first trial (a first plan the engine
//! made), or kept from the trial of the edit that made the input; under `--planner dsa` a trial
//! lays spaces out with the solver's greedy portfolio alone, and the repaired input is laid out
//! with its search once at the end, kept where both checkers pass it); a trial the planner
//! refuses, or after which the pair (by name) is still a finding, is undone; a trial whose
//! function one undone this round already planned is undone unchecked (the checkers would see
//! the same function), and a keep-own trial that keeps the same intervals apart as one undone
//! this round is undone before it is finished (`Planning::kept_own`). A trial costs what
//! deciding it takes: a plan finished from a packing leaves the report rows only the report
//! reads (space and lifetime rows, whether realigned-carry warnings stand) for the plan emitted
//! (`Planned`), and the check of a trial that keeps its pair stops at the victim's region of
//! the value checker (`verify::check_plan_separating`). Each edit is made at most once, so the
//! loop ends; at 64 rounds, or when no edit separates the first finding and it is no hazard of
//! the input itself (`hazards`), the function is an internal error (`MR-E010`, or the last
//! findings). No edit inserts a copy the hardware lacks: a carry or `if` result in Acc is never
//! detached (no Acc-to-Acc `tile.move`, `ops::tile_move_exists`).
//!
//! The rounds (`rounds`): own inits detached in one trial, one victim's leading writers kept
//! apart in one trial where that provably gives what their rounds give (`one_victim`), else
//! one pair a round; the plans of one input and of one PyPTO refuses (`input_plans`); the
//! edits that can separate a pair (`candidates`); hazards of the input itself (`hazards`).
//!
//! Diagnostics name only the user's tiles: a tile the fixups or a repair inserted is said to be
//! "a copy memreuse inserted for" the user's tile it copies. A repair says PyPTO put a tile on
//! a buffer only where PyPTO's own plan has it there (`PlacedBy`); where the repairs before it
//! moved it, or PyPTO refused the function (rules §S2), it says "once the repairs before this
//! one are made".
//!
//! Guarantees: deterministic (fixed orders, no hash-order iteration, fresh names and bases
//! numbered from the function); every returned plan passed both checkers, except for the
//! input's own hazards (`hazards`); where PyPTO's plan passes them, no edit is made. Not
//! guaranteed: minimality. The loop is greedy — a later edit can make an earlier one
//! unnecessary, and nothing searches for the fewest groups or bytes moved off.
//!
//! This crate sits above `plan` and `verify` and shares nothing with the checker but its
//! findings: the planner never calls the checker. Pure, as they are: no files, threads or
//! clocks.

use std::rc::Rc;
use std::sync::Arc;

use rustc_hash::FxHashSet;

use memreuse_ir as ir;
use memreuse_ir::diagnostics;
use memreuse_plan as plan;
use memreuse_verify as verify;

use crate::candidates::base;
use crate::diagnostics::Diagnostic;
use crate::input_plans::{InputPlans, Planned};
use crate::ir::Function;
use crate::ir::codes;
use crate::plan::{
    Completion, FunctionPlan, PlanConfig, PlanError, PlanOptions, Planning, plan_function,
};
use crate::rounds::repair_checked;
use crate::safely::Safely;
use crate::verify::{Finding, PlanInput, VerifyOptions, check_plan};

mod candidates;
mod hazards;
mod input_plans;
mod isolate;
mod message;
mod one_victim;
mod rounds;
mod safely;

pub use hazards::input_hazards;
pub use safely::{SafePlanError, verify_options};

/// Whether a diagnostic of a plan's report is one of its repairs.
pub fn is_repair(d: &Diagnostic) -> bool {
    codes::is_repair(d.code)
}

/// Whether a diagnostic of a plan's report is a hazard the input itself carries, which no
/// plan removes (the plan is otherwise safe).
pub fn is_input_hazard(d: &Diagnostic) -> bool {
    d.code == codes::INPUT_OVERWRITES_LIVE_VALUE
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
