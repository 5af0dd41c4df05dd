//! AllocateMemoryAddr (rules §8): deterministic addresses per memory space, the footprint they
//! imply, and the overflow error. The layout walk is the one the capacity loop measures
//! (`capacity::footprint`): both place 32-byte aligned slots from the reserved end.

use memreuse_ir::ops::{OpRole, op_role};
use memreuse_ir::walk::for_each_stmt_mut;
use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use crate::config::{PlanConfig, Planner};
use crate::layout::{Reserved, lay_out};
use crate::report::PlanError;
use memreuse_ir::diagnostics::{Diagnostic, Severity};
use memreuse_ir::{
    BinOp, Call, Expr, ExprKind, Function, Kwarg, MemRefExtent, MemSpace, Name, Span, Stmt,
    StmtKind, Type, VarId, VarKind,
};

use memreuse_ir::codes;

/// Where every base of a function lives.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Addressing {
    /// Base name → (space, address).
    pub bases: BTreeMap<Name, (MemSpace, i64)>,
    /// Space → bytes used from 0, reserved windows included.
    pub footprints: BTreeMap<MemSpace, i64>,
}

/// Declared (pinned) allocation sizes, which widen their slot to every declared slot.
fn pinned_sizes(f: &Function) -> FxHashMap<&str, i64> {
    f.body
        .iter()
        .filter_map(|stmt| {
            let StmtKind::Assign { target, value } = &stmt.kind else {
                return None;
            };
            if !value.is_pinned_alloc_call() {
                return None;
            }
            let call = value.as_call()?;
            Some((
                f.vars[*target].name.as_str(),
                call.args.get(1)?.as_const_int()?,
            ))
        })
        .collect()
}

/// rules §8: bases sorted by name per space, each at the cursor, slots 32-byte aligned.
pub fn allocate(f: &Function, reserved: &Reserved) -> Addressing {
    let pinned = pinned_sizes(f);
    // Per space and base, the largest member size (the slot); borrowed names, since most
    // variables share a handful of bases.
    let mut largest: FxHashMap<(MemSpace, &str), i64> = FxHashMap::default();
    for (_, var) in f.vars.iter() {
        if var.kind == VarKind::Param {
            continue;
        }
        let Some(Type::Tile(tile)) = &var.ty else {
            continue;
        };
        let (Some(memref), Some(space)) = (&tile.memref, tile.space) else {
            continue;
        };
        if space == MemSpace::Ddr || memref.extent.is_none() {
            continue;
        }
        let size = memref.size_bytes().unwrap_or(0);
        let slot = largest.entry((space, memref.base.as_str())).or_insert(0);
        *slot = (*slot).max(size);
    }
    let mut slots: BTreeMap<MemSpace, BTreeMap<Name, i64>> = BTreeMap::new();
    for ((space, base), size) in largest {
        slots.entry(space).or_default().insert(base.into(), size);
    }
    let mut addressing = Addressing::default();
    for (space, bases) in slots {
        let sizes = bases
            .iter()
            .map(|(base, &size)| pinned.get(base.as_str()).map_or(size, |&p| size.max(p)));
        let (addresses, end) = lay_out(reserved.start_of(space), sizes);
        for ((base, _), address) in bases.into_iter().zip(addresses) {
            addressing.bases.insert(base, (space, address));
        }
        addressing.footprints.insert(space, end);
    }
    addressing
}

/// The overflow error of the lowest overflowing space, if any (rules §8).
pub fn check_capacity(
    f: &Function,
    addressing: &Addressing,
    reserved: &Reserved,
    config: &PlanConfig,
) -> Result<(), PlanError> {
    Footprints::of(f, addressing, reserved).check(|space| config.space_capacity(space).usable)
}

/// What the overflow check reads of AllocateMemoryAddr's layout of a planned function
/// (rules §8), with what its error names: everything but the capacities, so it stays
/// memoized when a capacity changes. Small: the footprints, not every base's address.
#[derive(Clone, Debug, PartialEq)]
pub struct Footprints {
    /// Space → bytes used from 0, reserved windows included.
    footprints: BTreeMap<MemSpace, i64>,
    name: Name,
    head: Span,
    /// Where tiles start in the reserved windows' space.
    reserved: (Option<MemSpace>, i64),
}

impl Footprints {
    pub fn of(f: &Function, addressing: &Addressing, reserved: &Reserved) -> Footprints {
        Footprints {
            footprints: addressing.footprints.clone(),
            name: f.name.clone(),
            head: head_of(f),
            reserved: (reserved.space, reserved.end),
        }
    }

    /// The bytes the layout takes of `space` (what its overflow check compares); `None` for
    /// a space it does not use.
    pub fn footprint(&self, space: MemSpace) -> Option<i64> {
        self.footprints.get(&space).copied()
    }

    /// The spaces the layout uses, in ascending order.
    pub fn spaces(&self) -> impl Iterator<Item = MemSpace> + '_ {
        self.footprints.keys().copied()
    }

    /// The overflow error of the lowest space that overflows its capacity, where known.
    pub fn check(&self, capacity: impl Fn(MemSpace) -> Option<i64>) -> Result<(), PlanError> {
        match self
            .spaces()
            .find_map(|space| self.overflow(space, capacity(space)?))
        {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    /// The overflow error of `space` under a known `capacity`.
    pub fn overflow(&self, space: MemSpace, capacity: i64) -> Option<PlanError> {
        let used = *self.footprints.get(&space)?;
        if used <= capacity {
            return None;
        }
        let reserved_here = match self.reserved {
            (Some(reserved), end) if reserved == space => end,
            _ => 0,
        };
        Some(overflow_error(
            &self.name,
            self.head,
            space,
            used,
            capacity,
            reserved_here,
        ))
    }
}

/// The error that function `name` uses `used` bytes of `space` from 0, more than its
/// `capacity`; the first `reserved_here` bytes are reserved by `system.reserve_buffer`.
pub fn overflow_error(
    name: &str,
    head: Span,
    space: MemSpace,
    used: i64,
    capacity: i64,
    reserved_here: i64,
) -> PlanError {
    let mut message = format!(
        "{} buffer usage ({used} bytes) exceeds platform limit ({capacity} bytes)",
        space.name()
    );
    if reserved_here != 0 {
        message.push_str(&format!(
            ". The first {reserved_here} bytes of that space are reserved by system.reserve_buffer, so tiles are allocated above them"
        ));
    }
    PlanError::new(codes::CAPACITY_OVERFLOW, message, head).with_hint(format!(
        "function '{name}' needs {used} bytes of {} but the target has {capacity}",
        space.name()
    ))
}

/// Without `--addresses`, the overflow [`check_capacity`] found (or the offset planner's
/// layout has), as the warning that AllocateMemoryAddr will stop there.
pub fn overflow_left_to_allocate_memory_addr(error: PlanError, planner: Planner) -> Diagnostic {
    let error = error.0;
    let emitted = match planner {
        Planner::Pypto | Planner::None => "MemoryReuse emits this plan",
        Planner::Dsa => "the offset planner emits this layout",
    };
    Diagnostic {
        severity: Severity::Warning,
        code: codes::CAPACITY_OVERFLOW_AHEAD,
        message: format!(
            "{}; {emitted}, and AllocateMemoryAddr (--addresses) will stop here",
            error.message
        ),
        ..error
    }
}

/// A one-character span at the function's decorator, to locate whole-function diagnostics
/// without quoting the whole body.
pub fn head_of(f: &Function) -> Span {
    Span {
        start: f.span.start,
        end: f.span.start + 1,
    }
}

/// Rewrites every on-chip MemRef of the body to its address and writes the resolved `base=`
/// onto automatic `reserve_buffer` calls.
pub fn apply(f: &mut Function, addressing: &Addressing, reserved: &Reserved) {
    let pinned: Vec<Name> = pinned_sizes(f).keys().map(|&k| Name::from(k)).collect();
    for_each_local_extent(f, |base, _, extent| {
        let Some(&(_, address)) = addressing.bases.get(base) else {
            return;
        };
        extent.offset = if extent.offset.as_const_int().is_some() || pinned.contains(base) {
            offset_from(address, &extent.offset)
        } else {
            int64(address, extent.offset.span)
        };
    });
    let mut automatic = reserved
        .windows
        .iter()
        .filter(|w| w.automatic)
        .map(|w| w.base);
    write_reserve_bases(&mut f.body, &mut automatic);
}

/// Calls `visit` on the extent of every tile MemRef that a local variable of `f` has, with
/// the MemRef's base and the tile's space, to rewrite it.
pub(crate) fn for_each_local_extent(
    f: &mut Function,
    mut visit: impl FnMut(&Name, Option<MemSpace>, &mut MemRefExtent),
) {
    for index in 0..f.vars.len() {
        let var = &mut f.vars[VarId(index as u32)];
        if var.kind == VarKind::Param {
            continue;
        }
        let Some(Type::Tile(tile)) = &mut var.ty else {
            continue;
        };
        if let Some(memref) = &mut tile.memref
            && let Some(extent) = &mut memref.extent
        {
            visit(&memref.base, tile.space, extent);
        }
    }
}

/// `offset` bytes past `address`: one constant when `offset` is one, else the sum.
pub(crate) fn offset_from(address: i64, offset: &Expr) -> Expr {
    let span = offset.span;
    match offset.as_const_int() {
        Some(offset) => int64(address + offset, span),
        None => Expr::new(
            ExprKind::Binary {
                op: BinOp::Add,
                lhs: Box::new(int64(address, span)),
                rhs: Box::new(offset.clone()),
            },
            span,
        ),
    }
}

fn int64(value: i64, span: Span) -> Expr {
    Expr::new(
        ExprKind::Const {
            value,
            dtype: memreuse_ir::DType::Int64,
        },
        span,
    )
}

/// The automatic windows, in program order, get their resolved base as `base=`.
fn write_reserve_bases(stmts: &mut [Stmt], bases: &mut impl Iterator<Item = i64>) {
    for_each_stmt_mut(stmts, &mut |stmt| {
        let (StmtKind::Eval(e) | StmtKind::Assign { value: e, .. }) = &mut stmt.kind else {
            return;
        };
        let ExprKind::Call(_, call) = &mut e.kind else {
            return;
        };
        let explicit = |call: &Call| {
            let base = call.kwarg("base").and_then(Expr::as_const_int);
            base.is_some_and(|b| b >= 0)
        };
        if op_role(call.op()) != OpRole::ReserveBuffer || explicit(call) {
            return;
        }
        let Some(base) = bases.next() else { return };
        let span = e.span;
        let value = Expr::new(ExprKind::Int(base), span);
        let call = std::sync::Arc::make_mut(call);
        match call.kwargs.iter_mut().find(|k| k.name == "base") {
            Some(kwarg) => kwarg.value = value,
            None => call.kwargs.push(Kwarg {
                name: "base".into(),
                value,
                span,
            }),
        }
    });
}
