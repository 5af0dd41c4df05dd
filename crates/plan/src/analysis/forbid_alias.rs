//! Which operands an op's output must not share a buffer with (rules §6.1.4, §13), and the
//! Ascend910B split-AIV load + tpop hazard (rules §6.1.3).

use rustc_hash::{FxHashMap, FxHashSet};

use super::lifetimes::{Lifetimes, visit_assignments};
use crate::config::Rules;
use memreuse_ir::backend::Backend;
use memreuse_ir::ops::OpRole;
use memreuse_ir::{Expr, ExprKind, Function, FunctionType, Type, VarId, VarKind};

/// Forbidden operands of each sharing group, by group (index into `Lifetimes::intervals`).
/// Kept as one run per group in one vector: the packer reads the groups in order, and a hash
/// map with an entry per group would be probed at random.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ForbidMap {
    operands: Vec<VarId>,
    /// Where each group's run starts in `operands`; one more entry than there are groups.
    starts: Vec<u32>,
}

impl ForbidMap {
    pub fn forbidden(&self, group: usize) -> &[VarId] {
        match (self.starts.get(group), self.starts.get(group + 1)) {
            (Some(&start), Some(&end)) => &self.operands[start as usize..end as usize],
            _ => &[],
        }
    }

    /// From `(group, operand)` pairs in program order; a group's operands keep that order.
    fn from_pairs(mut pairs: Vec<(u32, VarId)>, groups: usize) -> ForbidMap {
        pairs.sort_by_key(|&(group, _)| group);
        let mut starts = Vec::with_capacity(groups + 1);
        let mut next = 0;
        for group in 0..=groups as u32 {
            starts.push(next as u32);
            while pairs.get(next).is_some_and(|&(g, _)| g == group) {
                next += 1;
            }
        }
        ForbidMap {
            operands: pairs.into_iter().map(|(_, operand)| operand).collect(),
            starts,
        }
    }
}

/// The operands (positional variables and iter args) a call's output must not alias, under
/// `rules` (seed rule S5 decides two ops).
pub fn forbidden_operands(
    f: &Function,
    target: VarId,
    value: &Expr,
    backend: Backend,
    rules: Rules,
) -> Vec<VarId> {
    let Some(info) = value.call_info() else {
        return Vec::new();
    };
    let is_cast = value.call_role() == Some(OpRole::Cast);
    // Most ops forbid nothing (a cast may widen): answered from the op alone, without loading
    // the call.
    let not_inplace_safe = rules.not_inplace_safe(&info);
    if !not_inplace_safe && info.forbid.is_empty() && !is_cast {
        return Vec::new();
    }
    let Some(call) = value.as_call() else {
        return Vec::new();
    };
    let arg_var = |i: usize| call.args.get(i).and_then(Expr::as_var);
    let mut forbidden: Vec<VarId> = if not_inplace_safe {
        match info.a5_forbidden_args {
            Some(args) if backend.is_a5() => args.iter().filter_map(|&i| arg_var(i)).collect(),
            _ => call.args.iter().filter_map(Expr::as_var).collect(),
        }
    } else {
        info.forbid.iter().filter_map(|&i| arg_var(i)).collect()
    };
    if is_cast
        && let (Some(out_bits), Some(source)) = (tile_bits(f, target), arg_var(0))
        && tile_bits(f, source).is_some_and(|in_bits| out_bits > in_bits)
        && !forbidden.contains(&source)
    {
        forbidden.push(source);
    }
    forbidden
}

fn tile_bits(f: &Function, v: VarId) -> Option<u32> {
    match &f.vars[v].ty {
        Some(Type::Tile(t)) => Some(t.dtype.bits()),
        _ => None,
    }
}

pub fn build_forbid_map(
    f: &Function,
    lifetimes: &Lifetimes,
    backend: Backend,
    rules: Rules,
) -> ForbidMap {
    let mut pairs: Vec<(u32, VarId)> = Vec::new();
    let mut parked_on_tuples: FxHashMap<VarId, Vec<VarId>> = FxHashMap::default();
    visit_assignments(&f.body, &mut |target, value| {
        let mut forbidden = forbidden_operands(f, target, value, backend, rules);
        if let ExprKind::Index { base, .. } = &value.kind
            && let Some(parked) = base.as_var().and_then(|t| parked_on_tuples.get(&t))
        {
            forbidden.extend(parked.iter().copied());
        }
        if forbidden.is_empty() {
            return;
        }
        // A grouped target is a tile: only the others need their type read.
        if let Some(group) = lifetimes.group_of(target) {
            pairs.extend(forbidden.into_iter().map(|operand| (group as u32, operand)));
        } else if let Some(Type::Tuple(_)) = &f.vars[target].ty {
            parked_on_tuples
                .entry(target)
                .or_default()
                .extend(forbidden);
        }
    });
    ForbidMap::from_pairs(pairs, lifetimes.intervals.len())
}

/// Classification of tiles for the 910B split-AIV hazard.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hazard {
    pub load_derived: FxHashSet<VarId>,
    pub reads_tpop: FxHashSet<VarId>,
}

/// `None` unless the function is a split AIV kernel on a backend that needs the guard.
pub fn hazard_inputs(f: &Function, backend: Backend) -> Option<Hazard> {
    if f.function_type() != FunctionType::Aiv
        || !backend.requires_split_load_tpop_workaround()
        || !is_split(f)
    {
        return None;
    }
    let base_of = |v: VarId| f.vars[v].ty.as_ref()?.memref().map(|m| m.base.clone());
    let mut hazard = Hazard::default();
    let mut load_bases = FxHashSet::default();
    let mut tpop_bases = FxHashSet::default();
    let mut tpop_values: FxHashSet<VarId> = FxHashSet::default();
    // A carry breaks program order: the producer that taints a carried buffer may stand after
    // the use it taints, so the walk runs twice (the base sets are complete after the first).
    for _ in 0..2 {
        visit_assignments(&f.body, &mut |target, value| {
            let Some(call) = value.as_call() else { return };
            let Some(target_base) = base_of(target) else {
                return;
            };
            if !matches!(f.vars[target].ty, Some(Type::Tile(_))) {
                return;
            }
            let inputs: Vec<VarId> = call.args.iter().filter_map(Expr::as_var).collect();
            let is_iter_arg = |v: VarId| f.vars[v].kind == VarKind::IterArg;
            let tainted = |v: VarId, vars: &FxHashSet<VarId>, bases: &FxHashSet<_>| {
                vars.contains(&v)
                    || (is_iter_arg(v) && base_of(v).is_some_and(|b| bases.contains(&b)))
            };
            let (role, keeps_load_taint) = value.call_row().map_or((OpRole::Plain, false), |row| {
                (row.role, row.info.is_some_and(|info| info.keeps_load_taint))
            });
            if role == OpRole::Load
                || (keeps_load_taint
                    && inputs
                        .iter()
                        .any(|&v| tainted(v, &hazard.load_derived, &load_bases)))
            {
                hazard.load_derived.insert(target);
                load_bases.insert(target_base.clone());
            }
            if role == OpRole::TpopFromAic {
                tpop_values.insert(target);
                tpop_bases.insert(target_base);
            }
            if inputs
                .iter()
                .any(|&v| tainted(v, &tpop_values, &tpop_bases))
            {
                hazard.reads_tpop.insert(target);
            }
        });
    }
    Some(hazard)
}

/// `split_aiv = True`, or a split mode other than none.
fn is_split(f: &Function) -> bool {
    if f.attr("split_aiv")
        .is_some_and(|v| v.kind == ExprKind::Bool(true))
    {
        return true;
    }
    match f.attr("split").map(|v| &v.kind) {
        Some(ExprKind::Path(mode)) => !mode.ends_with(".NONE") && !mode.ends_with(".None"),
        Some(ExprKind::Int(mode)) => *mode != 0,
        _ => false,
    }
}
