//! The last post-steps (rules §7.7, §7.8): drop allocs nothing refers to any more, and strip the
//! consumed `pipeline_membership` attrs.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use memreuse_ir::walk::for_each_stmt_mut;
use memreuse_ir::{
    Call, Expr, ExprKind, Function, Kwarg, MemSpace, Name, Span, Stmt, StmtKind, Type, Var, VarId,
    VarKind,
};

/// Removes top-level allocs whose base no variable of the body uses; returns their names.
pub fn remove_unused_allocs(f: &mut Function) -> Vec<Name> {
    let vars = &f.vars;
    let param_bases: FxHashSet<&str> = f
        .params
        .iter()
        .filter_map(|p| memref_base(&vars[p.var]))
        .collect();
    // The top-level allocs' targets, in body order; sized before the table is built, since
    // growing it rehashes every name.
    let alloc_targets: Vec<&Var> = f
        .body
        .iter()
        .filter_map(|stmt| match &stmt.kind {
            StmtKind::Assign { target, value } if value.is_alloc_call() => Some(&vars[*target]),
            _ => None,
        })
        .collect();
    if alloc_targets.is_empty() {
        return Vec::new();
    }
    // Whether some variable uses each alloc's base (`used[slot[name]]`): a few allocs, looked
    // up once per tile (borrowed names: cloning one per tile cost more than the rest of this
    // step). Each alloc statement keeps its name's slot, so removing looks nothing up again.
    let mut slot: FxHashMap<&str, usize> =
        FxHashMap::with_capacity_and_hasher(alloc_targets.len(), Default::default());
    let mut used: Vec<bool> = Vec::with_capacity(alloc_targets.len());
    let mut slot_of_alloc: Vec<usize> = Vec::with_capacity(alloc_targets.len());
    // A parameter keeps an alloc alive only if a variable (the alloc's target) is named like
    // the parameter's base; only then is the whole body searched for parameter uses. An
    // alloc's target is the variable so named, unless it is a parameter itself.
    let mut params_may_keep_allocs = false;
    let mut named_like_a_param_base = false;
    for target in &alloc_targets {
        let next = used.len();
        let at = *slot.entry(target.name.as_str()).or_insert(next);
        if at == next {
            used.push(false);
        }
        slot_of_alloc.push(at);
        if param_bases.contains(target.name.as_str()) {
            named_like_a_param_base = true;
            params_may_keep_allocs |= target.kind != VarKind::Param;
        }
    }
    if named_like_a_param_base && !params_may_keep_allocs {
        params_may_keep_allocs = vars
            .iter()
            .any(|(_, var)| var.kind != VarKind::Param && param_bases.contains(var.name.as_str()));
    }
    for (_, var) in vars.iter() {
        if var.kind != VarKind::Param
            && let Some(base) = memref_base(var)
            && let Some(&at) = slot.get(base)
        {
            used[at] = true;
        }
    }
    // Parameters used inside the body are variable occurrences of the body too; the search
    // ends once every alloc named like a parameter's base is used.
    if params_may_keep_allocs {
        let mut pending = slot
            .iter()
            .filter(|&(name, &at)| !used[at] && param_bases.contains(name))
            .count();
        for_each_expr(&f.body, &mut |e| {
            if pending == 0 {
                return;
            }
            e.for_each_var(&mut |v| {
                if vars[v].kind == VarKind::Param
                    && let Some(base) = memref_base(&vars[v])
                    && let Some(&at) = slot.get(base)
                    && !used[at]
                {
                    used[at] = true;
                    pending -= usize::from(param_bases.contains(base));
                }
            })
        });
    }
    let unused = slot_of_alloc.iter().filter(|&&at| !used[at]).count();
    if unused == 0 {
        return Vec::new();
    }
    let mut removed = Vec::with_capacity(unused);
    let mut allocs = slot_of_alloc.iter();
    f.body.retain(|stmt| {
        let StmtKind::Assign { target, value } = &stmt.kind else {
            return true;
        };
        if !value.is_alloc_call() {
            return true;
        }
        // Allocs come in the order they were gathered in.
        if allocs.next().is_some_and(|&at| !used[at]) {
            removed.push(vars[*target].name.clone());
            return false;
        }
        true
    });
    removed
}

fn memref_base(var: &Var) -> Option<&str> {
    var.ty
        .as_ref()
        .and_then(Type::memref)
        .map(|m| m.base.as_str())
}

/// Calls `visit` on every top-level expression of every statement.
fn for_each_expr(stmts: &[Stmt], visit: &mut impl FnMut(&Expr)) {
    for stmt in stmts {
        match &stmt.kind {
            StmtKind::Assign { value, .. } | StmtKind::Eval(value) => visit(value),
            StmtKind::Yield { values } | StmtKind::Return { values } => {
                values.iter().for_each(&mut *visit)
            }
            StmtKind::For(f) => {
                f.bounds.iter().for_each(&mut *visit);
                f.init_values.iter().for_each(&mut *visit);
                for_each_expr(&f.body, visit);
            }
            StmtKind::If(i) => {
                visit(&i.cond);
                for_each_expr(&i.then_body, visit);
                if let Some(e) = &i.else_body {
                    for_each_expr(e, visit);
                }
            }
            StmtKind::With(w) => {
                visit(&w.context);
                for_each_expr(&w.body, visit);
            }
            StmtKind::Pass => {}
        }
    }
}

/// Removes `"pipeline_membership"` from every call's attrs (and an attrs dict left empty).
pub fn strip_pipeline_membership(stmts: &mut [Stmt]) {
    for_each_stmt_mut(stmts, &mut |stmt| match &mut stmt.kind {
        StmtKind::Assign { value, .. } | StmtKind::Eval(value) => strip_in(value),
        StmtKind::Yield { values } | StmtKind::Return { values } => {
            values.iter_mut().for_each(strip_in)
        }
        StmtKind::For(f) => f.init_values.iter_mut().for_each(strip_in),
        StmtKind::If(i) => strip_in(&mut i.cond),
        StmtKind::With(_) | StmtKind::Pass => {}
    });
}

fn strip_in(expr: &mut Expr) {
    let ExprKind::Call(_, call) = &mut expr.kind else {
        return;
    };
    if !strips(call) {
        return;
    }
    if let Some(call) = Arc::get_mut(call) {
        for arg in &mut call.args {
            strip_in(arg);
        }
        call.kwargs.retain_mut(strip_kwarg);
        return;
    }
    // Calls are shared with the input: one that changes is made anew, without copying the
    // attrs it drops.
    let stripped = Call {
        callee: call.callee.clone(),
        args: call
            .args
            .iter()
            .map(|arg| {
                let mut arg = arg.clone();
                strip_in(&mut arg);
                arg
            })
            .collect(),
        kwargs: call.kwargs.iter().filter_map(stripped_kwarg).collect(),
    };
    *call = Arc::new(stripped);
}

/// Strips the membership from `kwarg`, an `attrs` dict: whether it stays (not once empty).
/// Any other keyword argument stays as it is.
fn strip_kwarg(kwarg: &mut Kwarg) -> bool {
    if kwarg.name != "attrs" {
        return true;
    }
    if let ExprKind::Dict(entries) = &mut kwarg.value.kind {
        entries.retain(|(key, _)| !is_membership(key));
        return !entries.is_empty();
    }
    true
}

/// A copy of `kwarg` as [`strip_kwarg`] leaves it (`None`: dropped), copying only the entries
/// it keeps.
fn stripped_kwarg(kwarg: &Kwarg) -> Option<Kwarg> {
    if kwarg.name != "attrs" {
        return Some(kwarg.clone());
    }
    let ExprKind::Dict(entries) = &kwarg.value.kind else {
        return Some(kwarg.clone());
    };
    let kept: Vec<(Expr, Expr)> = entries
        .iter()
        .filter(|(key, _)| !is_membership(key))
        .cloned()
        .collect();
    if kept.is_empty() {
        return None;
    }
    Some(Kwarg {
        name: kwarg.name.clone(),
        value: Expr::new(ExprKind::Dict(kept), kwarg.value.span),
        span: kwarg.span,
    })
}

/// Whether [`strip_in`] changes `call`: an `attrs` dict (in it or in a call among its
/// arguments) holds the membership, or is empty.
fn strips(call: &Call) -> bool {
    let in_args = || {
        call.args
            .iter()
            .any(|arg| matches!(&arg.kind, ExprKind::Call(_, c) if strips(c)))
    };
    let in_attrs = || {
        call.kwargs.iter().any(|kwarg| {
            kwarg.name == "attrs"
                && matches!(&kwarg.value.kind, ExprKind::Dict(entries)
                    if entries.is_empty() || entries.iter().any(|(key, _)| is_membership(key)))
        })
    };
    in_attrs() || in_args()
}

fn is_membership(key: &Expr) -> bool {
    matches!(&key.kind, ExprKind::Str { value, .. } if value == "pipeline_membership")
}

/// Scratch allocations of the yield fixup go to the body head with the other allocs.
pub fn hoist_allocs(f: &mut Function, allocs: &[(VarId, i64, MemSpace)]) {
    if allocs.is_empty() {
        return;
    }
    let at = f
        .body
        .iter()
        .position(|s| !is_alloc(s))
        .unwrap_or(f.body.len());
    let stmts = allocs.iter().map(|&(var, size, space)| {
        let span = Span::default();
        Stmt {
            kind: StmtKind::Assign {
                target: var,
                value: Expr::new(
                    ExprKind::call(Call {
                        callee: memreuse_ir::ops::TILE_ALLOC_CALLEE.into(),
                        args: smallvec::smallvec![
                            Expr::new(ExprKind::Space(space), span),
                            Expr::new(ExprKind::Int(size), span),
                        ],
                        kwargs: Vec::<Kwarg>::new(),
                    }),
                    span,
                ),
            },
            span,
            comments: Default::default(),
        }
    });
    f.body.splice(at..at, stmts.collect::<Vec<_>>());
}

fn is_alloc(stmt: &Stmt) -> bool {
    matches!(&stmt.kind, StmtKind::Assign { value, .. }
        if value.is_alloc_call())
}

#[cfg(test)]
mod tests {
    use super::*;
    use memreuse_ir::parse_program;

    /// A program whose alloc `mem_ddr_0` is referenced only by parameter `x`'s MemRef, with `x`
    /// used in the body or not.
    fn program(uses_param: bool) -> Function {
        let value = if uses_param { "x" } else { "y" };
        let text = format!(
            r#"import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 256)], y: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        mem_ddr_0: pl.Ptr = pl.tensor.alloc(pl.Mem.DDR, 256)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)
        return {value}
"#
        );
        let program = parse_program(&text).expect("parses");
        program.functions.into_iter().next().expect("one function")
    }

    #[test]
    fn a_used_parameter_keeps_the_alloc_its_memref_names() {
        let mut f = program(true);
        assert_eq!(remove_unused_allocs(&mut f), vec![Name::from("mem_vec_1")]);
    }

    /// A parameter read only by an alloc that is itself removed still keeps the alloc named
    /// like its base: every statement of the body counts, removed ones too.
    #[test]
    fn a_parameter_read_by_a_removed_alloc_keeps_its_alloc() {
        let text = r#"import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 256)]) -> pl.Tensor[[64], pl.FP32]:
        mem_ddr_0: pl.Ptr = pl.tensor.alloc(pl.Mem.DDR, 256)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, x)
        return 0
"#;
        let mut f = parse_program(text).expect("parses").functions.remove(0);
        assert_eq!(remove_unused_allocs(&mut f), vec![Name::from("mem_vec_1")]);
    }

    #[test]
    fn an_unused_parameter_keeps_no_alloc() {
        let mut f = program(false);
        assert_eq!(
            remove_unused_allocs(&mut f),
            vec![Name::from("mem_ddr_0"), Name::from("mem_vec_1")]
        );
    }
}
