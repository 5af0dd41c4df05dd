//! Where slots go in a memory space, shared by the capacity loop and address assignment so
//! they agree by construction: the reserved windows of `system.reserve_buffer` (rules §2.5), the
//! 32-byte alignment, and the allocator's walk from the reserved end (rules §6.7, §8).

use memreuse_ir::{Call, Expr, ExprKind, Function, FunctionType, MemSpace, Span, Stmt, StmtKind};

use crate::report::PlanError;

use memreuse_ir::codes;
use memreuse_ir::walk::for_each_stmt;

/// Rounds up to the allocator's 32-byte alignment.
pub fn align32(x: i64) -> i64 {
    (x + 31) & !31
}

/// The allocator's walk: slots placed one after another from `start`, each 32-byte aligned.
/// Returns each slot's address and the end (the footprint). The capacity loop and address
/// assignment both measure with this, so they agree by construction.
pub fn lay_out(start: i64, slots: impl IntoIterator<Item = i64>) -> (Vec<i64>, i64) {
    let mut cursor = start;
    let addresses = slots
        .into_iter()
        .map(|slot| {
            let address = cursor;
            cursor = align32(cursor + slot);
            address
        })
        .collect();
    (addresses, cursor)
}

/// One `system.reserve_buffer` window, resolved (rules §2.5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReservedWindow {
    pub name: String,
    pub base: i64,
    pub size: i64,
    /// Whether the call left the base to the allocator (`base` absent or -1).
    pub automatic: bool,
    pub span: Span,
}

/// The reserved windows of a function and the space they live in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reserved {
    pub space: Option<MemSpace>,
    pub windows: Vec<ReservedWindow>,
    /// Tiles are placed at or above this offset of `space`.
    pub end: i64,
}

impl Reserved {
    pub fn start_of(&self, space: MemSpace) -> i64 {
        if self.space == Some(space) {
            self.end
        } else {
            0
        }
    }
}

/// rules §2.5: windows in program order; an explicit base is used as is, an automatic one
/// starts at the running end.
pub fn reserved_windows(f: &Function) -> Result<Reserved, PlanError> {
    let mut calls: Vec<(&Call, Span)> = Vec::new();
    collect_reserve_calls(&f.body, &mut calls);
    if calls.is_empty() {
        return Ok(Reserved::default());
    }
    let space = match f.function_type() {
        FunctionType::Aic => Some(MemSpace::Mat),
        FunctionType::Aiv | FunctionType::InCore => Some(MemSpace::Vec),
        _ => None,
    };
    let mut reserved = Reserved {
        space,
        ..Reserved::default()
    };
    let mut next_base = 0;
    for (call, span) in calls {
        let int = |key: &str| call.kwarg(key).and_then(Expr::as_const_int);
        let size = int("size").unwrap_or(0);
        let explicit = int("base").filter(|&b| b >= 0);
        let base = explicit.unwrap_or(next_base);
        let end = align32(base + size);
        // Like upstream's resolver: the new window is named first, then the earlier window it
        // hits, looking at the next window at or above `base` before the one below it.
        let overlaps = |w: &&ReservedWindow| base < align32(w.base + w.size) && w.base < end;
        let next = reserved
            .windows
            .iter()
            .filter(|w| w.base >= base)
            .min_by_key(|w| w.base);
        let prev = reserved
            .windows
            .iter()
            .filter(|w| w.base < base)
            .max_by_key(|w| w.base);
        if let Some(other) = next.filter(overlaps).or(prev.filter(overlaps)) {
            return Err(PlanError::new(
                codes::OVERLAPPING_RESERVES,
                format!(
                    "overlapping reserve_buffer ranges in function '{}': [{base}, {end}) overlaps with [{}, {})",
                    f.name,
                    other.base,
                    align32(other.base + other.size)
                ),
                span,
            ));
        }
        next_base = next_base.max(end);
        reserved.end = reserved.end.max(end);
        let name = match call.kwarg("name").map(|e| &e.kind) {
            Some(ExprKind::Str { value, .. }) => value.to_string(),
            _ => String::new(),
        };
        reserved.windows.push(ReservedWindow {
            name,
            base,
            size,
            automatic: explicit.is_none(),
            span,
        });
    }
    Ok(reserved)
}

fn collect_reserve_calls<'f>(stmts: &'f [Stmt], out: &mut Vec<(&'f Call, Span)>) {
    for_each_stmt(stmts, &mut |stmt| {
        if let StmtKind::Eval(e) | StmtKind::Assign { value: e, .. } = &stmt.kind
            && e.is_reserve_buffer_call()
            && let Some(call) = e.as_call()
        {
            out.push((call, stmt.span));
        }
    });
}
