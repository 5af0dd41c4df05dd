//! Applying the packing decision and repairing control flow afterwards (rules §7.1–§7.6 with
//! the seed's changes S1–S3): rebase, loop-carry re-alignment, accumulator if-phi coalescing,
//! yield fixup with ordered carry writebacks, identity-copy normalisation.

use rustc_hash::FxHashMap;

use crate::analysis::body::{Definition, StmtPath, first_yield};
use crate::analysis::lifetimes::Lifetimes;
use crate::config::Rules;
use crate::report::PlanError;
use crate::retarget::{Liveness, Retargeter, Target, base_of, reanchor_views, retype};
use crate::seats::Seats;
use memreuse_ir::backend::Backend;
use memreuse_ir::ops::op_info;
use memreuse_ir::walk::{find_stmt, for_each_stmt};
use memreuse_ir::{
    Expr, ExprKind, FreshBases, Function, MemRef, MemRefExtent, MemSpace, Name, Span, Stmt,
    StmtKind, TileType, Type, Var, VarId, VarKind, VarTable,
};

use memreuse_ir::codes;

/// Whether a tile already sits where `target` is: the same base at the same offset. Sibling
/// subranges of one arena (seed S4) share a base but are different buffers.
fn placed_at(vars: &VarTable, v: VarId, target: &MemRef) -> bool {
    match &vars[v].ty {
        Some(Type::Tile(t)) => t.memref.as_ref().is_some_and(|m| same_place(m, target)),
        _ => false,
    }
}

/// The same base at the same offset.
fn same_place(m: &MemRef, target: &MemRef) -> bool {
    let same_offset = match (m.const_offset(), target.const_offset()) {
        (Some(a), Some(b)) => a == b,
        _ => m.offset() == target.offset(),
    };
    m.base == target.base && same_offset
}

/// The MemRef and space of a placed tile, borrowed ([`tile_target`] copies them).
fn placed(vars: &VarTable, v: VarId) -> Option<(&MemRef, MemSpace)> {
    match &vars[v].ty {
        Some(Type::Tile(t)) => Some((t.memref.as_ref()?, t.space?)),
        _ => None,
    }
}

/// Whether `v` is a tile with a MemRef and a space: one [`tile_target`] gives a target for.
fn is_placed_tile(vars: &VarTable, v: VarId) -> bool {
    placed(vars, v).is_some()
}

fn placed_memref(vars: &VarTable, v: VarId) -> Option<&MemRef> {
    placed(vars, v).map(|(m, _)| m)
}

fn placed_space(vars: &VarTable, v: VarId) -> Option<MemSpace> {
    placed(vars, v).map(|(_, s)| s)
}

fn tile_target(vars: &VarTable, v: VarId) -> Option<Target> {
    match &vars[v].ty {
        Some(Type::Tile(t)) => Some(Target {
            memref: t.memref.clone()?,
            space: t.space?,
        }),
        _ => None,
    }
}

/// Where a group goes when it joins another group's buffer: the buffer representative and, for
/// a buffer the subrange fallback subdivided (seed S4), the group's placement inside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reuse {
    pub representative: VarId,
    pub placement: Option<i64>,
}

/// rules §7.1: every group that joined another buffer takes the buffer representative's MemRef;
/// its other members keep their offsets relative to it. `reuse` is indexed like
/// `lifetimes.intervals` (`None` for a group that keeps its own buffer); groups are rebased in
/// that order, which is their representatives' definition order.
pub fn rebase(
    f: &mut Function,
    lifetimes: &Lifetimes,
    reuse: &[Option<Reuse>],
) -> Result<(), PlanError> {
    for (group, interval) in lifetimes.intervals.iter().enumerate() {
        let Some(Reuse {
            representative,
            placement,
        }) = reuse.get(group).copied().flatten()
        else {
            continue;
        };
        let v = interval.rep;
        let Some(target) = tile_target(&f.vars, representative) else {
            continue;
        };
        // Of the group's own MemRef only the offset matters from here on: no clone.
        let old_offset = match &f.vars[v].ty {
            Some(Type::Tile(TileType {
                memref: Some(memref),
                space: Some(_),
                ..
            })) => memref.const_offset(),
            _ => continue,
        };
        if let Some(placement) = placement {
            place_in_subrange(f, &interval.members, old_offset, &target, placement);
            continue;
        }
        let target_size = target.memref.size_bytes().unwrap_or(0);
        for &member in &interval.members {
            if member == v {
                continue;
            }
            // Read in place: only a rebased MemRef is made, not a copy of the current one.
            let current = match &f.vars[member].ty {
                Some(Type::Tile(TileType {
                    memref: Some(memref),
                    space: Some(_),
                    ..
                })) => memref,
                _ => continue,
            };
            let relative = match (current.const_offset(), old_offset) {
                (Some(member_offset), Some(rep_offset)) => Some(member_offset - rep_offset),
                _ => None,
            };
            let member_size = current.size_bytes().unwrap_or(0);
            let memref = match (relative, target.memref.const_offset()) {
                (Some(0), _) if member_size == target_size => target.memref.clone(),
                (Some(rel), Some(target_offset)) => {
                    if rel < 0 || rel + member_size > target_size {
                        let offset = current.const_offset().unwrap_or(0);
                        return Err(PlanError::new(
                            codes::REBASE_OUT_OF_RANGE,
                            format!(
                                "Internal error: sharing-group member offset {offset} rebased to rel={rel} size={member_size} falls outside reuse target (size {target_size})"
                            ),
                            f.vars[member].span,
                        ));
                    }
                    MemRef {
                        base: target.memref.base.clone(),
                        extent: Some(MemRefExtent {
                            offset: Expr::new(ExprKind::Int(target_offset + rel), Span::default()),
                            size: Expr::new(ExprKind::Int(member_size), Span::default()),
                        }),
                        slots: current.slots,
                        slot_index: current.slot_index.clone(),
                        span: current.span,
                    }
                }
                _ => target.memref.clone(),
            };
            set_memref(&mut f.vars, member, memref);
        }
        set_memref(&mut f.vars, v, target.memref);
    }
    Ok(())
}

/// Seed S4: a group placed at `placement` inside an arena: each member's offset becomes
/// `arena_offset + placement + (member_offset - root_offset)` with its own size; a symbolic
/// (direct slice) member keeps its expression relative to the root.
fn place_in_subrange(
    f: &mut Function,
    members: &[VarId],
    root_offset: Option<i64>,
    arena: &Target,
    placement: i64,
) {
    let (Some(arena_offset), Some(root_offset)) = (arena.memref.const_offset(), root_offset) else {
        return;
    };
    let shift = arena_offset + placement - root_offset;
    for &member in members {
        let Some(current) = tile_target(&f.vars, member) else {
            continue;
        };
        let Some(extent) = &current.memref.extent else {
            continue;
        };
        let span = extent.offset.span;
        let offset = match extent.offset.as_const_int() {
            Some(offset) => Expr::new(ExprKind::Int(shift + offset), span),
            None => Expr::new(
                ExprKind::Binary {
                    op: memreuse_ir::BinOp::Add,
                    lhs: Box::new(Expr::new(ExprKind::Int(shift), span)),
                    rhs: Box::new(extent.offset.clone()),
                },
                span,
            ),
        };
        let memref = MemRef {
            base: arena.memref.base.clone(),
            extent: Some(MemRefExtent {
                offset,
                size: extent.size.clone(),
            }),
            ..current.memref.clone()
        };
        set_memref(&mut f.vars, member, memref);
    }
}

/// Replaces a tile's MemRef, keeping its shape, dtype, view and space.
fn set_memref(vars: &mut VarTable, v: VarId, memref: MemRef) {
    vars.place_tile(v, memref, None);
}

/// Whose rule [`align_loop_carries`] follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CarryAlignment {
    /// PyPTO's: each carry on its init's MemRef as printed.
    Pypto,
    /// The safe planner's: an init printed without a type (an `if` result, an outer iter
    /// arg) counts as sitting where its own init sits, and an `if` result already sits where its
    /// arms' yield fixup will put it (on its then arm's value) when a later loop is aligned
    /// to it; PyPTO aligns such a loop to the result's stale buffer. `pypto_aligns`: whether
    /// PyPTO aligns carries at all here (only after a reuse), which decides how a carry
    /// placed elsewhere is reported.
    Safe { pypto_aligns: bool },
}

/// rules §7.2: top-down, each loop's iter args and return vars follow their init value, by
/// `rule`. Returns, under the safe rule, each carry placed elsewhere than PyPTO's rule places
/// it, and how to undo the alignment.
pub fn align_loop_carries(stmts: &[Stmt], vars: &mut VarTable, rule: CarryAlignment) -> Alignment {
    let (seats, pypto_aligns) = match rule {
        CarryAlignment::Pypto => (None, true),
        CarryAlignment::Safe { pypto_aligns } => (Some(Seats::of(stmts)), pypto_aligns),
    };
    let mut aligner = Aligner {
        seats: seats.as_ref(),
        pypto_aligns,
        stale: FxHashMap::default(),
        alignment: Alignment::default(),
    };
    aligner.align(stmts, vars);
    aligner.alignment
}

/// What the safe planner's alignment changed.
#[derive(Clone, Debug, Default)]
pub struct Alignment {
    /// The carries placed elsewhere than PyPTO's rule places them.
    pub realigned: Vec<Realigned>,
    /// The types the alignment replaced (safe mode), first ones first.
    replaced: Vec<(VarId, Option<Type>)>,
}

impl Alignment {
    /// Puts back the types the alignment replaced.
    pub fn undo(&self, vars: &mut VarTable) {
        for (v, ty) in self.replaced.iter().rev() {
            vars[*v].ty = ty.clone();
        }
    }
}

/// A loop carry the safe planner put on its init's buffer where PyPTO's §7.2 leaves it on
/// another (a change of PyPTO's decision, reported as a warning).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Realigned {
    /// The carry's iter arg or return var that moved first.
    pub carry: VarId,
    pub init: VarId,
    /// Where PyPTO leaves it, and where it sits now.
    pub pypto_base: Name,
    pub base: Name,
    pub why: Realign,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Realign {
    /// PyPTO aligns carries only after a reuse, and nothing was reused.
    WithoutReuse,
    /// The init is an `if` result (or printed without a type): it sits where its yield fixup
    /// (or its own init) puts it, not on its stale MemRef.
    ToWhereTheInitSits,
}

struct Aligner<'s> {
    seats: Option<&'s Seats>,
    pypto_aligns: bool,
    /// The MemRefs `if` results had before [`place_if_results`] moved them: what PyPTO aligns
    /// later loops to.
    stale: FxHashMap<VarId, Option<MemRef>>,
    alignment: Alignment,
}

impl Aligner<'_> {
    fn align(&mut self, stmts: &[Stmt], vars: &mut VarTable) {
        for stmt in stmts {
            match &stmt.kind {
                StmtKind::For(f) => {
                    for (i, init) in f.init_values.iter().enumerate() {
                        let seats = self.seats;
                        let seat = |v: VarId| seats.map_or(Some(v), |s| s.with_memref(vars, v));
                        let Some(init_var) = init.as_var() else {
                            continue;
                        };
                        let Some(target) = seat(init_var).and_then(|v| tile_target(vars, v)) else {
                            continue;
                        };
                        // Where PyPTO's rule puts the carry: on the init's own (stale) MemRef;
                        // only the safe alignment reports it.
                        let pypto_target = match self.stale.get(&init_var) {
                            _ if self.seats.is_none() || !self.pypto_aligns => None,
                            Some(stale) => stale.clone(),
                            None => placed_memref(vars, init_var).cloned(),
                        };
                        let carried = [f.iter_args.get(i), f.return_vars.get(i)];
                        let mut reported = false;
                        for &v in carried.into_iter().flatten() {
                            if !is_placed_tile(vars, v) || placed_at(vars, v, &target.memref) {
                                continue;
                            }
                            let pypto = match self.seats {
                                Some(_) if !reported => pypto_target
                                    .clone()
                                    .or_else(|| placed_memref(vars, v).cloned()),
                                _ => None,
                            };
                            if self.seats.is_some() {
                                self.alignment.replaced.push((v, vars[v].ty.clone()));
                            }
                            retype(vars, v, &target);
                            if let Some(pypto) = pypto
                                && !same_place(&pypto, &target.memref)
                            {
                                reported = true;
                                self.alignment.realigned.push(Realigned {
                                    carry: v,
                                    init: init_var,
                                    pypto_base: pypto.base.clone(),
                                    base: target.memref.base.clone(),
                                    why: if self.pypto_aligns {
                                        Realign::ToWhereTheInitSits
                                    } else {
                                        Realign::WithoutReuse
                                    },
                                });
                            }
                        }
                    }
                    self.align(&f.body, vars);
                }
                StmtKind::If(i) => {
                    self.align(&i.then_body, vars);
                    if let Some(e) = &i.else_body {
                        self.align(e, vars);
                    }
                    if self.seats.is_some() {
                        for &result in &i.return_vars {
                            let before = tile_target(vars, result).map(|t| t.memref);
                            self.stale.entry(result).or_insert(before);
                            self.alignment
                                .replaced
                                .push((result, vars[result].ty.clone()));
                        }
                        place_if_results(i, vars);
                    }
                }
                StmtKind::With(w) => self.align(&w.body, vars),
                _ => {}
            }
        }
    }
}

/// The warning of a carry the safe planner aligned where PyPTO leaves it elsewhere.
pub fn realigned_warning(vars: &VarTable, r: &Realigned) -> memreuse_ir::diagnostics::Diagnostic {
    let name = |v: VarId| vars[v].name.as_str();
    let (code, why) = match r.why {
        Realign::WithoutReuse => (
            codes::CARRY_ALIGNED_WITHOUT_REUSE,
            "PyPTO aligns loop carries only when it reuses a buffer, and it reuses none here",
        ),
        Realign::ToWhereTheInitSits => (
            codes::CARRY_ALIGNED_TO_WHERE_ITS_INIT_SITS,
            "PyPTO aligns it to the init's MemRef as printed, but the init sits elsewhere: an if result ends up on its arm's value's buffer, an init printed without a type on its seed's",
        ),
    };
    memreuse_ir::diagnostics::Diagnostic::warning(
        code,
        format!(
            "PyPTO leaves loop carry '{}' on '{}', off '{}' where its init value '{}' sits ({why}), so the carry would not receive its init; the repaired plan puts it on '{}'",
            name(r.carry),
            r.pypto_base,
            r.base,
            name(r.init),
            r.base,
        ),
        vars[r.carry].span,
    )
}

/// What the yield fixup does to an `if`'s results (rules §7.5): each sits on its then arm's
/// value (its else arm's when the then arm yields no tile).
fn place_if_results(i: &memreuse_ir::IfStmt, vars: &mut VarTable) {
    let yielded = |vars: &VarTable, arm: Option<&[Stmt]>, k: usize| {
        tile_target(vars, first_yield(arm?)?.get(k)?.as_var()?)
    };
    for (k, &result) in i.return_vars.iter().enumerate() {
        let init = yielded(vars, Some(&i.then_body), k)
            .or_else(|| yielded(vars, i.else_body.as_deref(), k));
        if let Some(target) = init
            && is_placed_tile(vars, result)
            && !placed_at(vars, result, &target.memref)
        {
            retype(vars, result, &target);
        }
    }
}

/// rules §7.4: an if-phi whose one arm accumulates in place on an Acc buffer gets its other
/// arm's init retargeted onto that buffer, so no Acc→Acc move is ever needed.
/// Returns the inits it moved.
pub fn coalesce_accumulator_if_phis(
    f: &mut Function,
    backend: Backend,
) -> Result<Vec<VarId>, PlanError> {
    // Only an arm yielding an Acc tile can be coalesced, and coalescing moves an init onto an
    // existing Acc buffer: without such an arm nothing changes, so nothing is set up.
    if !has_acc_if_phi(&f.body, &f.vars) {
        return Ok(Vec::new());
    }
    let Function { body, vars, .. } = f;
    let mut retargeter = Retargeter::new(body, vars, backend);
    let mut moved = Vec::new();
    visit_ifs(body, &[], &mut |if_path, if_stmt| {
        coalesce_one(&mut retargeter, if_path, if_stmt, &mut moved)
    })?;
    // Views follow only sources that moved.
    if let Some(original) = retargeter.take_original() {
        reanchor_views(&f.body, &original, &mut f.vars);
    }
    Ok(moved)
}

/// Whether any `if` with an else branch and return variables (the only place §7.4 acts) has
/// an arm that yields an Acc tile.
fn has_acc_if_phi(stmts: &[Stmt], vars: &VarTable) -> bool {
    let yields_acc = |arm: &[Stmt]| {
        first_yield(arm).is_some_and(|values| {
            values.iter().filter_map(Expr::as_var).any(
                |v| matches!(&vars[v].ty, Some(Type::Tile(t)) if t.space == Some(MemSpace::Acc)),
            )
        })
    };
    let acc_phi = |stmt: &Stmt| match &stmt.kind {
        StmtKind::If(i) => i.else_body.as_deref().is_some_and(|else_body| {
            !i.return_vars.is_empty() && (yields_acc(&i.then_body) || yields_acc(else_body))
        }),
        _ => false,
    };
    find_stmt(stmts, &acc_phi).is_some()
}

/// Calls `visit` on every `if`, pre-order (before descending into its branches).
fn visit_ifs<'b>(
    stmts: &'b [Stmt],
    steps: &[(u32, crate::analysis::body::Branch)],
    visit: &mut impl FnMut(StmtPath, &'b memreuse_ir::IfStmt) -> Result<(), PlanError>,
) -> Result<(), PlanError> {
    use crate::analysis::body::Branch;
    for (index, stmt) in stmts.iter().enumerate() {
        let inner = |branch: Branch| {
            let mut s = steps.to_vec();
            s.push((index as u32, branch));
            s
        };
        match &stmt.kind {
            StmtKind::If(i) => {
                let here = StmtPath {
                    steps: steps.to_vec(),
                    index: index as u32,
                };
                visit(here, i)?;
                visit_ifs(&i.then_body, &inner(Branch::Then), visit)?;
                if let Some(e) = &i.else_body {
                    visit_ifs(e, &inner(Branch::Else), visit)?;
                }
            }
            StmtKind::For(f) => visit_ifs(&f.body, &inner(Branch::ForBody), visit)?,
            StmtKind::With(w) => visit_ifs(&w.body, &inner(Branch::WithBody), visit)?,
            _ => {}
        }
    }
    Ok(())
}

fn coalesce_one(
    retargeter: &mut Retargeter,
    if_path: StmtPath,
    if_stmt: &memreuse_ir::IfStmt,
    moved: &mut Vec<VarId>,
) -> Result<(), PlanError> {
    let Some(else_body) = &if_stmt.else_body else {
        return Ok(());
    };
    if if_stmt.return_vars.is_empty() {
        return Ok(());
    }
    let (Some(then_values), Some(else_values)) =
        (first_yield(&if_stmt.then_body), first_yield(else_body))
    else {
        return Ok(());
    };
    for (then_value, else_value) in then_values.iter().zip(else_values) {
        let (Some(a), Some(b)) = (then_value.as_var(), else_value.as_var()) else {
            continue;
        };
        let (accumulator, init) = match (
            in_place_accumulator(retargeter, a),
            in_place_accumulator(retargeter, b),
        ) {
            (true, false) => (a, b),
            (false, true) => (b, a),
            _ => continue,
        };
        let (Some(acc), Some(init_target)) = (
            retargeter.target_of(accumulator),
            retargeter.target_of(init),
        ) else {
            continue;
        };
        if acc.space != MemSpace::Acc || same_place(&init_target.memref, &acc.memref) {
            continue;
        }
        // Sibling subranges of one arena (seed S4) share a base but are different buffers:
        // the init's own reads of its subrange do not keep the accumulator's bytes live.
        let sibling = (init_target.memref.base == acc.memref.base).then_some(init);
        let Some(Definition::Assign(init_path)) = retargeter.definition(init).cloned() else {
            continue;
        };
        let init_is_call = matches!(
            &crate::analysis::body::stmt_at(retargeter.body(), &init_path).kind,
            StmtKind::Assign { value, .. } if value.as_call().is_some()
        );
        if !init_is_call || !inside(&init_path, &if_path) {
            continue;
        }
        if !retargeter.dead_at_except(&init_path, &acc.memref.base, Some(&if_path), sibling) {
            continue;
        }
        if !retargeter.retarget_assign(init, &init_path, &acc, Liveness::CheckedByCaller) {
            let name = retargeter.vars[init].name.clone();
            return Err(PlanError::new(
                codes::ACC_INIT_REFUSED,
                format!(
                    "Internal error: cannot coalesce L0C accumulator across a peeled if-phi — seed producer '{name}' refused retarget onto the accumulator buffer, which would force an illegal Acc->Acc tile.move."
                ),
                retargeter.vars[init].span,
            ));
        }
        retargeter.retype(init, &acc);
        moved.push(init);
    }
    Ok(())
}

/// Defined by an assignment whose op writes its output onto input k, and does so in place.
fn in_place_accumulator(retargeter: &Retargeter, v: VarId) -> bool {
    let Some(Definition::Assign(path)) = retargeter.definition(v) else {
        return false;
    };
    let StmtKind::Assign { value, .. } =
        &crate::analysis::body::stmt_at(retargeter.body(), path).kind
    else {
        return false;
    };
    let Some(call) = value.as_call() else {
        return false;
    };
    let Some(k) = value.call_info().and_then(|info| info.reuses_input) else {
        return false;
    };
    let Some(source) = call.args.get(k).and_then(Expr::as_var) else {
        return false;
    };
    base_of(retargeter.vars, v).is_some()
        && base_of(retargeter.vars, v) == base_of(retargeter.vars, source)
}

/// Whether the statement at `path` lies inside the compound statement at `owner`.
fn inside(path: &StmtPath, owner: &StmtPath) -> bool {
    path.steps.len() > owner.steps.len()
        && path.steps[..owner.steps.len()] == owner.steps[..]
        && path.steps[owner.steps.len()].0 == owner.index
}

/// What the yield fixup inserted, for the plan report.
#[derive(Clone, Debug, Default)]
pub struct Inserted {
    /// `(destination, source)` of every inserted `tile.move`.
    pub moves: Vec<(VarId, VarId)>,
    /// Scratch allocations hoisted to the body head, with their byte size and space.
    pub allocs: Vec<(VarId, i64, MemSpace)>,
    /// `(iter arg, yielded value, move)` of every writeback of a nested carry
    /// (`safe`).
    pub nested_writebacks: Vec<(VarId, VarId, VarId)>,
    /// `(value, its one copy, if result)` of every `if` result an else arm feeds from a copy
    /// it already made for an earlier result on that buffer (`safe`).
    pub shared_copies: Vec<(VarId, VarId, VarId)>,
}

pub struct YieldFixup<'v> {
    pub vars: &'v mut VarTable,
    pub inserted: Inserted,
    /// The names of new scratch buffers; found on the first scratch copy, since finding them
    /// reads every variable and most functions need no scratch buffer.
    fresh_bases: Option<FreshBases>,
    /// The safe planner's fixup, where PyPTO's (rules §7.5) leaves a wrong plan: a carry whose
    /// init is an enclosing loop's iter arg is written back too (PyPTO skips it, and the next
    /// iteration reads stale bytes), and an `if` arm that yields one value for several results
    /// on one buffer copies it there once (PyPTO's second copy overwrites the first while the
    /// yield still reads it).
    safe: bool,
    /// The seed's rules S1 and S2, or the snapshot's fixup without them.
    rules: Rules,
}

/// Runs the yield fixup (rules §7.5) over `f`, the safe planner's where `safe`, under `rules`
/// (seed rules S1 and S2), and says what it inserted.
pub fn fix_yields(f: &mut Function, safe: bool, rules: Rules) -> Result<Inserted, PlanError> {
    let Function { body, vars, .. } = f;
    let mut yield_fixup = YieldFixup::new(vars);
    yield_fixup.rules = rules;
    if safe {
        yield_fixup = yield_fixup.safe();
    }
    yield_fixup.run(body)?;
    Ok(yield_fixup.inserted)
}

impl<'v> YieldFixup<'v> {
    pub fn new(vars: &'v mut VarTable) -> YieldFixup<'v> {
        YieldFixup {
            vars,
            inserted: Inserted::default(),
            fresh_bases: None,
            safe: false,
            rules: Rules::Seed,
        }
    }

    /// The safe planner's fixup (see `safe`).
    pub fn safe(self) -> YieldFixup<'v> {
        YieldFixup { safe: true, ..self }
    }

    /// The name of a new scratch buffer in `space`, which no variable or MemRef uses yet.
    fn fresh_base(&mut self, space: MemSpace) -> String {
        let vars = &*self.vars;
        self.fresh_bases
            .get_or_insert_with(|| FreshBases::of(vars))
            .take(space)
    }

    /// rules §7.5 with S1/S2, post-order.
    pub fn run(&mut self, stmts: &mut [Stmt]) -> Result<(), PlanError> {
        for stmt in stmts.iter_mut() {
            match &mut stmt.kind {
                StmtKind::For(f) => {
                    self.run(&mut f.body)?;
                    self.fix_loop(f)?;
                }
                StmtKind::If(i) => {
                    self.run(&mut i.then_body)?;
                    if let Some(e) = &mut i.else_body {
                        self.run(e)?;
                    }
                    self.fix_if(i)?;
                }
                StmtKind::With(w) => self.run(&mut w.body)?,
                _ => {}
            }
        }
        Ok(())
    }

    /// A plain variable (not an iter arg) with a tile MemRef.
    fn plain_tile(&self, e: &Expr) -> Option<VarId> {
        let v = e.as_var()?;
        (self.vars[v].kind != VarKind::IterArg && is_placed_tile(self.vars, v)).then_some(v)
    }

    fn fix_loop(&mut self, f: &mut memreuse_ir::ForStmt) -> Result<(), PlanError> {
        let Some(values) = first_yield(&f.body).map(<[Expr]>::to_vec) else {
            return Ok(());
        };
        let candidates = self.carry_candidates(f, &values);
        let needs_move: Vec<bool> = candidates
            .iter()
            .map(|&(_, y, init)| {
                placed_memref(self.vars, init).is_some_and(|m| !placed_at(self.vars, y, m))
            })
            .collect();
        if !needs_move.iter().any(|&m| m) {
            self.retype_carries(f, &values);
            return Ok(());
        }
        self.reject_overlapping_carries(f, &candidates, &needs_move)?;
        let moving: Vec<(usize, VarId, VarId)> = candidates
            .iter()
            .zip(&needs_move)
            .filter(|&(_, &m)| m)
            .map(|(&c, _)| c)
            .collect();
        for &(_, yielded, init) in &moving {
            self.reject_acc_to_acc(yielded, init)?;
        }
        // The safe planner's writebacks of iter args (the snapshot makes none) are ordered by
        // S2: the iter args a loop yields rotate (`pl.yield_(cur, prev)`), and in carry order
        // one writeback overwrites the value another still reads.
        let writes_back_iter_arg = moving
            .iter()
            .any(|&(_, yielded, _)| self.vars[yielded].kind == VarKind::IterArg);
        let (order, scratched) = if self.rules.seed() || writes_back_iter_arg {
            self.writeback_order(&moving)
        } else {
            // The snapshot writes back in carry order, with no scratch copy.
            ((0..moving.len()).collect(), Vec::new())
        };
        let mut new_values = values.clone();
        let mut stmts = Vec::new();
        let mut sources: FxHashMap<usize, VarId> = FxHashMap::default();
        for &k in &scratched {
            let (_, yielded, _) = moving[k];
            let Some((scratch_var, alloc)) = self.scratch_copy(yielded) else {
                continue;
            };
            self.inserted.allocs.push(alloc);
            stmts.push(self.move_stmt(scratch_var, yielded));
            sources.insert(k, scratch_var);
        }
        for k in order {
            let (carry, yielded, init) = moving[k];
            let source = sources.get(&k).copied().unwrap_or(yielded);
            let Some(target) = tile_target(self.vars, init) else {
                continue;
            };
            // Every inserted move is named after the value it reads (rules §1.8).
            let moved = self.moved_var(source, &target);
            stmts.push(self.move_stmt(moved, source));
            if self.vars[init].kind == VarKind::IterArg {
                self.inserted
                    .nested_writebacks
                    .push((f.iter_args[carry], source, moved));
            }
            new_values[carry] = Expr::new(ExprKind::Var(moved), values[carry].span);
        }
        insert_before_yield(&mut f.body, stmts, &new_values);
        self.retype_carries(f, &new_values);
        Ok(())
    }

    /// (carry index, yielded var, init var) for every carry whose init is a plain tile.
    fn carry_candidates(
        &self,
        f: &memreuse_ir::ForStmt,
        values: &[Expr],
    ) -> Vec<(usize, VarId, VarId)> {
        let carries = values.len().min(f.iter_args.len());
        let mut candidates = Vec::new();
        for (i, value) in values.iter().enumerate().take(carries) {
            // The seed's swap (`pl.yield_(prev, cur)`) yields iter args themselves: a yielded
            // value is matched as "variable or iter arg", like the if arms of S1 (seed S2; the
            // snapshot matches variables only).
            // The safe planner matches iter args under the snapshot too: a carry yielding
            // another iter arg gets no writeback there, and its next iteration reads the
            // init's buffer, which holds the wrong value.
            let yielded = match self.rules {
                Rules::Seed => value.as_var().filter(|&v| is_placed_tile(self.vars, v)),
                Rules::Snapshot if self.safe => {
                    value.as_var().filter(|&v| is_placed_tile(self.vars, v))
                }
                Rules::Snapshot => self.plain_tile(value),
            };
            let init = f.init_values.get(i).and_then(|e| {
                self.plain_tile(e).or_else(|| {
                    e.as_var()
                        .filter(|&v| self.safe && is_placed_tile(self.vars, v))
                })
            });
            let (Some(init), Some(yielded)) = (init, yielded) else {
                continue;
            };
            candidates.push((i, yielded, init));
        }
        candidates
    }

    /// Seed S2's refusal of carries that start on overlapping buffers, among `candidates`
    /// where one of the pair needs a move.
    fn reject_overlapping_carries(
        &self,
        f: &memreuse_ir::ForStmt,
        candidates: &[(usize, VarId, VarId)],
        needs_move: &[bool],
    ) -> Result<(), PlanError> {
        // Seed S2: carries on overlapping buffers have no safe writeback order; the snapshot
        // writes them back in carry order regardless, the safe planner refuses them as the
        // seed does (its repair then gives the carries buffers of their own).
        let pairs = if self.rules.seed() || self.safe {
            candidates.len()
        } else {
            0
        };
        for a in 0..pairs {
            for b in a + 1..candidates.len() {
                if !(needs_move[a] || needs_move[b]) {
                    continue;
                }
                let (ia, ib) = (candidates[a].2, candidates[b].2);
                if byte_ranges_overlap(self.vars, ia, ib) {
                    let name = |i: usize| self.vars[f.iter_args[candidates[i].0]].name.clone();
                    return Err(PlanError::new(
                        codes::OVERLAPPING_CARRIES,
                        format!(
                            "loop carries '{}' and '{}' start on overlapping buffers ('{}'), so no order of their writebacks keeps both values",
                            name(a),
                            name(b),
                            base_of(self.vars, ia).unwrap_or_default()
                        ),
                        self.vars[f.iter_args[candidates[b].0]].span,
                    )
                    .with_hint("seed each loop carry from its own tile"));
                }
            }
        }
        Ok(())
    }

    /// After the moves: iter args follow their init, return vars their yielded value.
    fn retype_carries(&mut self, f: &memreuse_ir::ForStmt, values: &[Expr]) {
        for (i, &arg) in f.iter_args.iter().enumerate() {
            if let Some(target) = f
                .init_values
                .get(i)
                .and_then(|e| self.plain_tile(e))
                .and_then(|init| tile_target(self.vars, init))
                && is_placed_tile(self.vars, arg)
                && !placed_at(self.vars, arg, &target.memref)
            {
                retype(self.vars, arg, &target);
            }
        }
        for (i, &rv) in f.return_vars.iter().enumerate() {
            // The snapshot retypes only the carries its fixup considers, whose init is a
            // plain tile; the seed's S2 every carry.
            let considered = self.rules.seed()
                || f.init_values
                    .get(i)
                    .and_then(|e| self.plain_tile(e))
                    .is_some();
            if let Some(target) = values
                .get(i)
                .filter(|_| considered)
                .and_then(|e| self.plain_tile(e))
                .and_then(|y| tile_target(self.vars, y))
                && is_placed_tile(self.vars, rv)
                && !placed_at(self.vars, rv, &target.memref)
            {
                retype(self.vars, rv, &target);
            }
        }
    }

    /// S2: a writeback that reads bytes another writes runs first; a cycle is broken by
    /// copying its lowest-index member to scratch first. Returns the order (indices into
    /// `moving`) and the members that go through scratch.
    fn writeback_order(&self, moving: &[(usize, VarId, VarId)]) -> (Vec<usize>, Vec<usize>) {
        let n = moving.len();
        // must_precede[j] holds i when j reads what i writes.
        let mut must_precede: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut waiting_on = vec![0usize; n];
        for (j, &(_, read, _)) in moving.iter().enumerate() {
            for (i, &(_, _, written)) in moving.iter().enumerate() {
                if i != j && byte_ranges_overlap(self.vars, read, written) {
                    must_precede[j].push(i);
                    waiting_on[i] += 1;
                }
            }
        }
        let mut done = vec![false; n];
        let mut order = Vec::with_capacity(n);
        let mut scratched = Vec::new();
        while order.len() < n {
            let ready = (0..n).find(|&i| !done[i] && waiting_on[i] == 0);
            let next = match ready {
                Some(i) => i,
                None => {
                    // Every remaining writeback waits on another: a rotation. Reading from a
                    // scratch copy frees the lowest one's sources. One already reading scratch
                    // frees nothing more (it waits on a rotation it is not part of, or on
                    // overlapping writes the checkers then find), so the next one is taken.
                    let Some(i) = (0..n).find(|&i| !done[i] && !scratched.contains(&i)) else {
                        break;
                    };
                    scratched.push(i);
                    for &k in &must_precede[i] {
                        waiting_on[k] -= 1;
                    }
                    must_precede[i].clear();
                    continue;
                }
            };
            done[next] = true;
            order.push(next);
            for &k in &must_precede[next] {
                waiting_on[k] -= 1;
            }
        }
        (order, scratched)
    }

    fn fix_if(&mut self, i: &mut memreuse_ir::IfStmt) -> Result<(), PlanError> {
        let then_values = first_yield(&i.then_body).map(<[Expr]>::to_vec);
        let else_values = i
            .else_body
            .as_deref()
            .and_then(first_yield)
            .map(<[Expr]>::to_vec);
        // S1: arms are matched as "variable or iter arg"; the snapshot's as variables only,
        // but the safe planner's as the seed's: an arm yielding an iter arg off the result's
        // buffer gets no copy there, and the result then does not hold its value.
        let iter_args_count = self.rules.seed() || self.safe;
        let arm = |vars: &VarTable, values: &Option<Vec<Expr>>, k: usize| {
            let v = values.as_ref()?.get(k)?.as_var()?;
            let counts = iter_args_count || vars[v].kind != VarKind::IterArg;
            (counts && is_placed_tile(vars, v)).then_some(v)
        };
        let mut moves = Vec::new();
        let mut moved_once: Vec<(VarId, MemRef, VarId)> = Vec::new();
        let mut new_else = else_values.clone();
        for (k, &rv) in i.return_vars.iter().enumerate() {
            let (tv, ev) = (
                arm(self.vars, &then_values, k),
                arm(self.vars, &else_values, k),
            );
            let Some(target_var) = tv.or(ev) else {
                continue;
            };
            let Some(target) = tile_target(self.vars, target_var) else {
                continue;
            };
            if let (Some(_), Some(ev)) = (tv, ev)
                && !placed_at(self.vars, ev, &target.memref)
            {
                self.reject_acc_to_acc(ev, target_var)?;
                let earlier = moved_once
                    .iter()
                    .find(|(source, memref, _)| *source == ev && *memref == target.memref)
                    .map(|&(_, _, moved)| moved);
                let moved = match earlier.filter(|_| self.safe) {
                    Some(moved) => {
                        self.inserted.shared_copies.push((ev, moved, rv));
                        moved
                    }
                    None => {
                        let moved = self.moved_var(ev, &target);
                        moves.push(self.move_stmt(moved, ev));
                        moved_once.push((ev, target.memref.clone(), moved));
                        moved
                    }
                };
                if let Some(values) = &mut new_else {
                    values[k] = Expr::new(ExprKind::Var(moved), values[k].span);
                }
            }
            if is_placed_tile(self.vars, rv) && !placed_at(self.vars, rv, &target.memref) {
                retype(self.vars, rv, &target);
            }
        }
        if !moves.is_empty()
            && let (Some(else_body), Some(values)) = (&mut i.else_body, new_else)
        {
            insert_before_yield(else_body, moves, &values);
        }
        Ok(())
    }

    fn reject_acc_to_acc(&self, from: VarId, to: VarId) -> Result<(), PlanError> {
        let space = |v| placed_space(self.vars, v);
        if let (Some(from_space), Some(to_space)) = (space(from), space(to))
            && !memreuse_ir::ops::tile_move_exists(from_space, to_space)
        {
            return Err(PlanError::new(
                codes::ACC_TO_ACC_MOVE,
                "Internal error: MemoryReuse cannot reconcile divergent L0C accumulator buffers with tile.move; accumulator control-flow values must be coalesced before YieldFixup.",
                self.vars[from].span,
            ));
        }
        Ok(())
    }

    /// A fresh `<src>_mv` variable: `src`'s type on the target's MemRef and space.
    fn moved_var(&mut self, source: VarId, target: &Target) -> VarId {
        let name = self.moved_name(source);
        let mut ty = self.vars[source].ty.clone();
        if let Some(Type::Tile(tile)) = &mut ty {
            tile.memref = Some(target.memref.clone());
            tile.space = Some(target.space);
        }
        self.vars.push(Var {
            name: name.into(),
            kind: VarKind::Local,
            ty,
            span: self.vars[source].span,
        })
    }

    /// A copy of `source` in a fresh buffer of its space and size; returns the copy and the
    /// alloc to hoist.
    fn scratch_copy(&mut self, source: VarId) -> Option<(VarId, (VarId, i64, MemSpace))> {
        let target = tile_target(self.vars, source)?;
        let size = target.memref.size_bytes().unwrap_or(0);
        let base = self.fresh_base(target.space);
        let alloc = self.vars.push(Var {
            name: base.as_str().into(),
            kind: VarKind::Local,
            ty: Some(Type::Ptr),
            span: Span::default(),
        });
        // A fresh root, spelled as InitMemRef spells roots: `pl.const(0, pl.INT64)`.
        let zero = Expr::new(
            ExprKind::Const {
                value: 0,
                dtype: memreuse_ir::DType::Int64,
            },
            Span::default(),
        );
        let memref = MemRef {
            base: base.as_str().into(),
            extent: Some(MemRefExtent {
                offset: zero,
                size: Expr::new(ExprKind::Int(size), Span::default()),
            }),
            slots: None,
            slot_index: None,
            span: Span::default(),
        };
        let name = self.moved_name(source);
        let mut ty = self.vars[source].ty.clone();
        if let Some(Type::Tile(tile)) = &mut ty {
            tile.memref = Some(memref);
        }
        let copy = self.vars.push(Var {
            name: name.into(),
            kind: VarKind::Local,
            ty,
            span: self.vars[source].span,
        });
        Some((copy, (alloc, size, target.space)))
    }

    /// The name of a move of `source`: `<hint>_mv`, made unique as upstream's printer makes
    /// names unique. The hint is the name upstream's IR gave `source`: its printer tells apart
    /// variables with one hint by appending `_1`, `_2`, ..., so a printed `x_2` whose stem `x`
    /// names another variable of the function had the hint `x` (real dumps: a move of
    /// `sq_sum__tile_2` is `sq_sum__tile_mv`).
    fn moved_name(&self, source: VarId) -> String {
        let name = self.vars[source].name.as_str();
        let stem = name
            .rsplit_once('_')
            .filter(|(stem, n)| {
                !stem.is_empty()
                    && !n.is_empty()
                    && n.bytes().all(|b| b.is_ascii_digit())
                    && self.vars.iter().any(|(_, v)| v.name == *stem)
            })
            .map_or(name, |(stem, _)| stem);
        self.vars.unused_name(&format!("{stem}_mv"))
    }

    fn move_stmt(&mut self, destination: VarId, source: VarId) -> Stmt {
        self.inserted.moves.push((destination, source));
        let space = placed_space(self.vars, destination).unwrap_or(MemSpace::Vec);
        let span = self.vars[source].span;
        Stmt::tile_move(destination, source, space, span)
    }
}

/// The repair warning of an `if` result fed from the copy made for an earlier one.
pub fn shared_copy_warning(
    vars: &VarTable,
    value: VarId,
    moved: VarId,
    result: VarId,
) -> memreuse_ir::diagnostics::Diagnostic {
    let name = |v: VarId| vars[v].name.as_str();
    memreuse_ir::diagnostics::Diagnostic::warning(
        codes::ONE_COPY_FOR_SEVERAL_RESULTS,
        format!(
            "the else arm yields '{}' for several if results on '{}': PyPTO copies it there once per result, and each copy overwrites the one before while the yield still reads it; the repaired plan copies it once ('{}') and yields that copy for '{}' too",
            name(value),
            base_of(vars, moved).unwrap_or_default(),
            name(moved),
            name(result),
        ),
        vars[value].span,
    )
}

/// The repair warning of a nested carry's writeback: what PyPTO leaves and why it is unsafe.
pub fn nested_writeback_warning(
    vars: &VarTable,
    iter_arg: VarId,
    yielded: VarId,
    moved: VarId,
) -> memreuse_ir::diagnostics::Diagnostic {
    let name = |v: VarId| vars[v].name.as_str();
    let base = |v: VarId| base_of(vars, v).unwrap_or_default();
    memreuse_ir::diagnostics::Diagnostic::warning(
        codes::NESTED_CARRY_WRITTEN_BACK,
        format!(
            "PyPTO yields '{}' on '{}' for loop carry '{}', which sits on '{}' (its init is an enclosing loop's iter arg, so PyPTO's yield fixup writes nothing back), which is unsafe: the next iteration and the loop's result read '{}' without that value; the repaired plan moves '{}' there first ('{}')",
            name(yielded),
            base(yielded),
            name(iter_arg),
            base(moved),
            name(iter_arg),
            name(yielded),
            name(moved),
        ),
        vars[yielded].span,
    )
}

/// Whether two tiles' MemRefs share a base and their constant byte ranges intersect (a
/// symbolic offset counts as intersecting).
fn byte_ranges_overlap(vars: &VarTable, a: VarId, b: VarId) -> bool {
    let (Some(ma), Some(mb)) = (placed_memref(vars, a), placed_memref(vars, b)) else {
        return false;
    };
    if ma.base != mb.base {
        return false;
    }
    let range = |m: &MemRef| {
        let offset = m.const_offset()?;
        Some((offset, offset + m.size_bytes()?))
    };
    match (range(ma), range(mb)) {
        (Some((a0, a1)), Some((b0, b1))) => a0 < b1 && b0 < a1,
        _ => true,
    }
}

/// Puts `stmts` right before the yield of a body (searching `with` blocks too) and makes the
/// yield yield `values`.
fn insert_before_yield(body: &mut Vec<Stmt>, stmts: Vec<Stmt>, values: &[Expr]) -> bool {
    if let Some(at) = body
        .iter()
        .position(|s| matches!(s.kind, StmtKind::Yield { .. }))
    {
        if let StmtKind::Yield { values: old } = &mut body[at].kind {
            *old = values.to_vec();
        }
        body.splice(at..at, stmts);
        return true;
    }
    for stmt in body.iter_mut() {
        if let StmtKind::With(w) = &mut stmt.kind
            && insert_before_yield(&mut w.body, stmts.clone(), values)
        {
            return true;
        }
    }
    false
}

/// rules §7.6: a bare rename `x = y` lives on `y`'s buffer; an in-place op whose source was
/// renamed that way follows it.
pub fn normalize_identity_copies(stmts: &[Stmt], vars: &mut VarTable) {
    let mut original_base: FxHashMap<VarId, Option<String>> = FxHashMap::default();
    normalize_in(stmts, vars, &mut original_base);
}

fn normalize_in(
    stmts: &[Stmt],
    vars: &mut VarTable,
    original_base: &mut FxHashMap<VarId, Option<String>>,
) {
    for_each_stmt(stmts, &mut |stmt| {
        let StmtKind::Assign { target, value } = &stmt.kind else {
            return;
        };
        let x = *target;
        if let Some(y) = value.as_var() {
            let both_tiles = is_placed_tile(vars, x) && is_placed_tile(vars, y);
            if both_tiles && base_of(vars, x) != base_of(vars, y) {
                original_base.insert(x, base_of(vars, x).map(str::to_string));
                vars[x].ty = vars[y].ty.clone();
            }
        } else if !original_base.is_empty() // only a renamed source moves its op
            && let Some(k) = value
                .call_op()
                .and_then(op_info)
                .and_then(|info| info.reuses_input)
            && let Some(call) = value.as_call()
            && let Some(source) = call.args.get(k).and_then(Expr::as_var)
            && let Some(old_source_base) = original_base.get(&source).cloned()
            && base_of(vars, x).map(str::to_string) == old_source_base
            && base_of(vars, source) != base_of(vars, x)
            && let Some(target) = tile_target(vars, source)
        {
            original_base.insert(x, base_of(vars, x).map(str::to_string));
            retype(vars, x, &target);
        }
    });
}
