//! The one walk over statements that passes which only visit use, the one walk over an
//! expression's nodes (and the variables it reads), and the statements every pass asks about
//! (the yield that ends a block).

use crate::model::{Expr, ExprKind, Kwarg, Stmt, StmtKind, VarId};
use crate::span::Span;

impl Stmt {
    /// The blocks this statement holds, in source order: a loop's body, an `if`'s arms, a
    /// `with`'s body.
    pub fn blocks(&self) -> impl Iterator<Item = &[Stmt]> {
        let (first, second): (Option<&[Stmt]>, Option<&[Stmt]>) = match &self.kind {
            StmtKind::For(f) => (Some(&f.body), None),
            StmtKind::If(i) => (Some(&i.then_body), i.else_body.as_deref()),
            StmtKind::With(w) => (Some(&w.body), None),
            _ => (None, None),
        };
        first.into_iter().chain(second)
    }

    /// [`Stmt::blocks`], to change.
    pub fn blocks_mut(&mut self) -> impl Iterator<Item = &mut Vec<Stmt>> {
        let (first, second) = match &mut self.kind {
            StmtKind::For(f) => (Some(&mut f.body), None),
            StmtKind::If(i) => (Some(&mut i.then_body), i.else_body.as_mut()),
            StmtKind::With(w) => (Some(&mut w.body), None),
            _ => (None, None),
        };
        first.into_iter().chain(second)
    }
}

/// Every statement of `block` and of the blocks inside it, each before the statements of its
/// own blocks, in source order.
pub fn for_each_stmt<'a>(block: &'a [Stmt], visit: &mut impl FnMut(&'a Stmt)) {
    for stmt in block {
        visit(stmt);
        for inner in stmt.blocks() {
            for_each_stmt(inner, visit);
        }
    }
}

/// [`for_each_stmt`], to change each statement (before its blocks are walked).
pub fn for_each_stmt_mut(block: &mut [Stmt], visit: &mut impl FnMut(&mut Stmt)) {
    for stmt in block {
        visit(stmt);
        for inner in stmt.blocks_mut() {
            for_each_stmt_mut(inner, visit);
        }
    }
}

/// The first statement, in [`for_each_stmt`]'s order, that `is` accepts.
pub fn find_stmt<'a>(block: &'a [Stmt], is: &impl Fn(&Stmt) -> bool) -> Option<&'a Stmt> {
    block.iter().find_map(|stmt| {
        if is(stmt) {
            return Some(stmt);
        }
        stmt.blocks().find_map(|inner| find_stmt(inner, is))
    })
}

/// The block that holds the first statement [`find_stmt`] finds, and its index there: for an
/// edit that inserts next to it.
pub fn block_holding_mut<'a>(
    block: &'a mut Vec<Stmt>,
    is: &impl Fn(&Stmt) -> bool,
) -> Option<(&'a mut Vec<Stmt>, usize)> {
    let holds = |stmt: &Stmt| stmt.blocks().any(|inner| find_stmt(inner, is).is_some());
    let k = block.iter().position(|stmt| is(stmt) || holds(stmt))?;
    if is(&block[k]) {
        return Some((block, k));
    }
    block[k]
        .blocks_mut()
        .find(|inner| find_stmt(inner, is).is_some())
        .and_then(|inner| block_holding_mut(inner, is))
}

/// The `pl.yield_` that ends `block`, and the values it yields: only a block's final
/// statement hands values to the loop or `if` around it.
pub fn final_yield(block: &[Stmt]) -> Option<(&Stmt, &[Expr])> {
    let last = block.last()?;
    match &last.kind {
        StmtKind::Yield { values } => Some((last, values)),
        _ => None,
    }
}

/// The values of the `pl.yield_` that ends `block` ([`final_yield`]).
pub fn final_yield_values(block: &[Stmt]) -> Option<&[Expr]> {
    final_yield(block).map(|(_, values)| values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_program;

    const PROGRAM: &str = "\
@pl.program
class P:
    @pl.function
    def f(self, a: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
        x = 1
        for i in pl.range(2):
            y = 2
            if i == 0:
                z = 3
            else:
                w = 4
            with pl.scope():
                v = 5
        return a
";

    #[test]
    fn the_first_statement_found_is_first_in_source_order_and_its_block_is_the_one_to_edit() {
        let mut program = parse_program(PROGRAM).expect("parses");
        let assigns = |s: &Stmt| matches!(s.kind, StmtKind::Assign { .. });
        let body = &mut program.functions[0].body;
        assert!(find_stmt(body, &assigns).is_some_and(|s| std::ptr::eq(s, &body[0])));
        // The first `if` sits inside the loop, second in its body.
        let is_if = |s: &Stmt| matches!(s.kind, StmtKind::If(_));
        let (block, k) = block_holding_mut(body, &is_if).expect("found");
        assert_eq!(k, 1);
        block.remove(k);
        assert!(find_stmt(body, &is_if).is_none());
        assert!(block_holding_mut(body, &is_if).is_none());
    }

    #[test]
    fn the_walk_visits_every_statement_in_source_order() {
        let program = parse_program(PROGRAM).expect("parses");
        let mut kinds = Vec::new();
        for_each_stmt(&program.functions[0].body, &mut |s| {
            kinds.push(match &s.kind {
                StmtKind::Assign { .. } => "=",
                StmtKind::For(_) => "for",
                StmtKind::If(_) => "if",
                StmtKind::With(_) => "with",
                StmtKind::Return { .. } => "return",
                _ => "?",
            })
        });
        assert_eq!(
            kinds,
            ["=", "for", "=", "if", "=", "=", "with", "=", "return"]
        );
    }
}

/// A node of an expression tree, as [`Expr::walk`] meets it.
#[derive(Clone, Copy, Debug)]
pub enum ExprNode<'e> {
    Expr(&'e Expr),
    Kwarg(&'e Kwarg),
}

impl ExprNode<'_> {
    pub fn span(self) -> Span {
        match self {
            ExprNode::Expr(e) => e.span,
            ExprNode::Kwarg(k) => k.span,
        }
    }
}

impl Expr {
    /// Calls `f` on every variable referenced anywhere inside this expression.
    pub fn for_each_var(&self, f: &mut impl FnMut(VarId)) {
        self.for_each_var_use(&mut |v, _| f(v));
    }

    /// Calls `f` on every variable referenced anywhere inside this expression, with the span
    /// of the reference, in source order.
    pub fn for_each_var_use(&self, f: &mut impl FnMut(VarId, Span)) {
        self.walk(&mut |node| {
            if let ExprNode::Expr(Expr {
                kind: ExprKind::Var(v),
                span,
            }) = node
            {
                f(*v, *span);
            }
        });
    }

    /// Calls `f` on this expression and on every node inside it in source order, each before
    /// what it holds: a call's keyword argument comes before its value.
    pub fn walk<'e>(&'e self, f: &mut impl FnMut(ExprNode<'e>)) {
        f(ExprNode::Expr(self));
        match &self.kind {
            ExprKind::Call(_, c) => {
                for a in &c.args {
                    a.walk(f);
                }
                for k in &c.kwargs {
                    f(ExprNode::Kwarg(k));
                    k.value.walk(f);
                }
            }
            ExprKind::List(items) | ExprKind::Tuple(items) => {
                for e in items {
                    e.walk(f);
                }
            }
            ExprKind::Dict(entries) => {
                for (k, v) in entries {
                    k.walk(f);
                    v.walk(f);
                }
            }
            ExprKind::Index { base, index } => {
                base.walk(f);
                index.walk(f);
            }
            ExprKind::Binary { lhs, rhs, .. } => {
                lhs.walk(f);
                rhs.walk(f);
            }
            ExprKind::Unary { operand, .. } => operand.walk(f),
            ExprKind::Var(_)
            | ExprKind::Symbol(_)
            | ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Str { .. }
            | ExprKind::Bool(_)
            | ExprKind::None
            | ExprKind::Const { .. }
            | ExprKind::DType(_)
            | ExprKind::Space(_)
            | ExprKind::Path(_) => {}
        }
    }
}
