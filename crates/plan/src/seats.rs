//! Where a loop carry or an `if` result sits: with its init. The yield fixup reads it for the
//! variables printed without a type; the repair's edits, to find the tile whose sharing group a
//! carry or result sits in.

use rustc_hash::FxHashMap;

use memreuse_ir::walk::{final_yield_values, for_each_stmt};
use memreuse_ir::{Stmt, StmtKind, Type, VarId, VarTable};

/// Where carries and `if` results sit: an `if` result where its then arm's value sits (the
/// else arm's when the then arm yields no variable), an iter arg where its init sits, a loop
/// result where its iter arg sits. Read for the variables printed without a type, and to find
/// the tile whose sharing group a carry or result sits in.
pub struct Seats(FxHashMap<VarId, VarId>);

impl Seats {
    pub fn of(body: &[Stmt]) -> Seats {
        let mut seats = FxHashMap::default();
        Self::walk(body, &mut seats);
        Seats(seats)
    }

    fn walk(body: &[Stmt], seats: &mut FxHashMap<VarId, VarId>) {
        for_each_stmt(body, &mut |stmt| match &stmt.kind {
            StmtKind::For(l) => {
                for (i, &arg) in l.iter_args.iter().enumerate() {
                    if let Some(init) = l.init_values.get(i).and_then(|e| e.as_var()) {
                        seats.insert(arg, init);
                    }
                    if let Some(&result) = l.return_vars.get(i) {
                        seats.insert(result, arg);
                    }
                }
            }
            StmtKind::If(i) => {
                let yielded = |arm: &[Stmt], k: usize| {
                    final_yield_values(arm)?.get(k).and_then(|e| e.as_var())
                };
                for (k, &result) in i.return_vars.iter().enumerate() {
                    let value = yielded(&i.then_body, k)
                        .or_else(|| i.else_body.as_deref().and_then(|e| yielded(e, k)));
                    if let Some(value) = value {
                        seats.insert(result, value);
                    }
                }
            }
            _ => {}
        });
    }

    /// `v` when it has a tile MemRef, else the nearest variable with one it sits with.
    pub fn with_memref(&self, vars: &VarTable, v: VarId) -> Option<VarId> {
        let mut at = v;
        // A chain of carries is as long as the nesting; a cycle ends it.
        for _ in 0..64 {
            let has_memref = matches!(vars.get(at).and_then(|var| var.ty.as_ref()), Some(Type::Tile(t)) if t.memref.is_some());
            if has_memref {
                return Some(at);
            }
            at = *self.0.get(&at)?;
        }
        None
    }

    /// The tile an assignment defines that `v` sits with: `v` itself, or the init its carry or
    /// `if` result starts from (a sharing group is made of those).
    pub fn defined(&self, v: VarId) -> VarId {
        let mut at = v;
        for _ in 0..64 {
            match self.0.get(&at) {
                Some(&seat) => at = seat,
                None => return at,
            }
        }
        v
    }
}
