//! How a repair's trials are planned: the plans of one input, finished from one packing
//! where they differ only in the groups kept apart (`InputPlans`), and an input whose loop
//! carries PyPTO's planner refuses on one buffer, planned with them separated
//! (`plan_separating`).

use std::rc::Rc;
use std::sync::Arc;

use rustc_hash::FxHashSet;

use crate::candidates::base;
use crate::diagnostics::Diagnostic;
use crate::ir::codes;
use crate::ir::walk::{final_yield_values, find_stmt, for_each_stmt};
use crate::ir::{Expr, FreshBases, Function, Stmt, StmtKind, VarId};
use crate::isolate::{Place, detach};
use crate::message::{AFTER_EARLIER_REPAIRS, PlacedBy};
use crate::plan::seats::Seats;
use crate::plan::{
    Completion, FunctionPlan, LayoutSearch, PlanConfig, PlanError, PlanOptions, Planning,
    ReportToDo, plan_function,
};
use crate::safely::MAX_ROUNDS;

/// An input an edit made (a repair's, or [`plan_separating`]'s separation of loop carries
/// that start from one tile), with its plans: planned there, its packing is kept for the
/// trials after.
pub(crate) struct Edited {
    pub(crate) input: Function,
    pub(crate) plans: InputPlans,
}

/// The input a trial leaves (`None`: the round's) and where its allocations' names go on
/// from (`None`: found when first needed).
type TrialInput = (Option<Edited>, Option<FreshBases>);

impl Edited {
    /// What a trial leaves: the input `plan_separating` separated, when it did, else `edited`.
    /// The separated input has plans of its own, and its allocations were named without the
    /// edit's names.
    pub(crate) fn separated_or(separated: Option<Edited>, edited: TrialInput) -> TrialInput {
        match separated {
            Some(separated) => (Some(separated), None),
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
pub(crate) fn plan_separating(
    input: &Function,
    plans: &mut InputPlans,
    config: &PlanConfig,
    own: &mut FxHashSet<VarId>,
    repairs: &mut Vec<Diagnostic>,
    by: PlacedBy,
) -> (Result<Planned, PlanError>, Option<Edited>) {
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
        edited = Some(Edited {
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
pub(crate) struct InputPlans {
    /// Whether the input was planned before: the next plan packs it and keeps the packing.
    pub(crate) planned: bool,
    pub(crate) packed: Option<Rc<Planning>>,
    /// PyPTO's planner's refusal of the input keeping no group apart, once it refused it: the
    /// plan asked for again is that refusal (the separations ask first), not made again.
    pub(crate) refused: Option<PlanError>,
}

/// A trial's plan, whose report may lack the rows nothing but the report reads: most trials'
/// plans are dropped (the trial is undone, or a later round's plan is emitted), so those rows
/// are made only for the plan emitted.
pub(crate) struct Planned {
    pub(crate) plan: FunctionPlan,
    /// The packing it was finished from and what its report still needs.
    pub(crate) rest: Option<(Rc<Planning>, Option<ReportToDo>)>,
}

impl Planned {
    pub(crate) fn whole(plan: FunctionPlan) -> Planned {
        Planned { plan, rest: None }
    }

    /// The plan with its report completed as `report` asks (whole: as planning it in one go
    /// reports it).
    pub(crate) fn made(self, report: Completion) -> FunctionPlan {
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
    pub(crate) fn planned() -> InputPlans {
        InputPlans {
            planned: true,
            packed: None,
            refused: None,
        }
    }

    /// For an input whose first plan was finished from `packed`, its packing.
    pub(crate) fn packed(packed: Rc<Planning>) -> InputPlans {
        InputPlans {
            planned: true,
            packed: Some(packed),
            refused: None,
        }
    }

    /// The intervals a plan of the input keeping the groups of `own` apart keeps on their own
    /// allocation, once the input is packed.
    pub(crate) fn kept_own(&self, own: &FxHashSet<VarId>) -> Option<Vec<usize>> {
        self.packed.as_ref()?.kept_own(own)
    }

    /// Whether trials of `input` finish from its packing: PyPTO's planner packs it.
    pub(crate) fn packs(input: &Function, config: &PlanConfig) -> bool {
        config.planner == crate::plan::Planner::Pypto && crate::plan::is_planned(input)
    }

    /// `input` planned as a trial (the offset planner without its search). The first plan is made in one
    /// go: most inputs are planned once, and keeping their packing would cost a copy. A plan
    /// finished from the packing leaves the report rows only the report reads to be made if
    /// it is the plan emitted ([`Planned::made`]).
    pub(crate) fn plan(
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
pub(crate) struct KeptThePair {
    pub(crate) functions: Vec<Function>,
    /// For the trials that kept one more group off the shared buffer: the intervals the
    /// input's packing kept on their own ([`Planning::kept_own`]), which fix the function
    /// before it is planned.
    pub(crate) kept_own: Vec<Vec<usize>>,
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
pub(crate) fn separate_shared_inits(f: &mut Function, by: PlacedBy) -> Vec<Diagnostic> {
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
