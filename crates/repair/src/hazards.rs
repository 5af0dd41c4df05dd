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

use rustc_hash::FxHashSet;

use crate::candidates::pair_names;
use crate::diagnostics::Diagnostic;
use crate::input_plans::separate_shared_inits;
use crate::ir::codes;
use crate::ir::walk::{final_yield_values, find_stmt, for_each_stmt};
use crate::ir::{Expr, Function, Stmt, StmtKind, Type, VarId};
use crate::message::PlacedBy;
use crate::plan::{PlanConfig, PlanOptions, plan_function};
use crate::safely::verify_options;
use crate::verify::{Clobber, Finding, PlanInput, VerifyOptions, check_plan};

/// What identifies a finding across two plans of one input: its code, its two tiles' names and
/// where it points (the read or the write, the definitions), not its text, whose step numbers
/// move when a plan inserts statements. `None` for a finding that names no two tiles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FindingKey {
    code: &'static str,
    victim: String,
    writer: String,
    span: crate::ir::Span,
    related: Vec<crate::ir::Span>,
}

pub(crate) fn key(planned: &Function, finding: &Finding) -> Option<FindingKey> {
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
pub(crate) fn unshared_findings(
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
pub(crate) fn hazards_of(
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
pub(crate) struct InputHazard {
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
pub(crate) fn input_hazard(
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
