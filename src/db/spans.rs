//! Spans without locations: a plan's report refers to places in its input function by
//! [`Anchor`]s (a node of the function's structural walk plus an offset), so a memoized or
//! stored plan stays right wherever the function moves; anchors are resolved against the
//! current parse only when something is shown.

use std::cell::OnceCell;

use crate::ir::walk::for_each_stmt;
use crate::ir::{Expr, Function, Span, Stmt, StmtKind};
use crate::store::Anchor;

/// Every span of a function in a fixed structural order: the function, its parameters, its
/// variables, then each statement followed by its expressions. Two functions with equal
/// canonical IR give tables of the same length whose entries correspond. Unlike spans
/// themselves, tables compare by position: a table changes when its function moves.
#[derive(Clone, Debug, Default)]
pub struct SpanTable(pub Vec<Span>);

impl PartialEq for SpanTable {
    fn eq(&self, other: &SpanTable) -> bool {
        let position = |s: &Span| (s.start, s.end);
        self.0.len() == other.0.len()
            && self.0.iter().map(position).eq(other.0.iter().map(position))
    }
}

pub fn span_table(f: &Function) -> SpanTable {
    let mut out = vec![f.span];
    out.extend(f.params.iter().map(|p| p.span));
    out.extend(f.vars.iter().map(|(_, v)| v.span));
    stmts(&f.body, &mut out);
    SpanTable(out)
}

/// Each statement's span, then its expressions' (not its blocks'), then its blocks'
/// statements: the walk's order.
fn stmts(body: &[Stmt], out: &mut Vec<Span>) {
    for_each_stmt(body, &mut |stmt| {
        out.push(stmt.span);
        match &stmt.kind {
            StmtKind::Assign { value, .. } | StmtKind::Eval(value) => expr(value, out),
            StmtKind::Yield { values } | StmtKind::Return { values } => exprs(values, out),
            StmtKind::For(f) => {
                exprs(&f.bounds, out);
                exprs(&f.init_values, out);
                for k in &f.kwargs {
                    out.push(k.span);
                    expr(&k.value, out);
                }
            }
            StmtKind::If(i) => expr(&i.cond, out),
            StmtKind::With(w) => expr(&w.context, out),
            StmtKind::Pass => {}
        }
    });
}

fn exprs(items: &[Expr], out: &mut Vec<Span>) {
    for e in items {
        expr(e, out);
    }
}

fn expr(e: &Expr, out: &mut Vec<Span>) {
    e.walk(&mut |node| out.push(node.span()));
}

/// Turns spans of one function into anchors over its span table. The index is built on the
/// first anchor: most plans carry no span at all.
pub struct Anchorer<'t> {
    table: &'t [Span],
    /// `start << 32 | node`, sorted: by start, the nodes sharing a start in table order.
    starts: OnceCell<Vec<u64>>,
}

fn start_of(entry: u64) -> u32 {
    (entry >> 32) as u32
}

fn node_of(entry: u64) -> u32 {
    entry as u32
}

impl<'t> Anchorer<'t> {
    pub fn new(table: &'t SpanTable) -> Anchorer<'t> {
        Anchorer {
            table: &table.0,
            starts: OnceCell::new(),
        }
    }

    pub fn anchor(&self, span: Span) -> Anchor {
        let table = self.table;
        let starts = self.starts.get_or_init(|| {
            let mut starts: Vec<u64> = table
                .iter()
                .enumerate()
                .map(|(i, s)| (u64::from(s.start) << 32) | i as u64)
                .collect();
            // The walk order is mostly source order: a few long ascending runs, which the
            // stable sort merges instead of partitioning (the keys are distinct either way).
            starts.sort();
            starts
        });
        // A node whose own span it is: the first in table order.
        let first_at_start = starts.partition_point(|&e| start_of(e) < span.start);
        let exact = starts[first_at_start..]
            .iter()
            .take_while(|&&e| start_of(e) == span.start)
            .find(|&&e| table[node_of(e) as usize].end == span.end);
        if let Some(&e) = exact {
            return Anchor::At {
                node: node_of(e),
                offset: 0,
                len: span.end - span.start,
            };
        }
        // The innermost node starting at or before the span: the last of the sorted starts.
        let at = starts.partition_point(|&e| start_of(e) <= span.start);
        let Some(node) = at
            .checked_sub(1)
            .and_then(|i| starts.get(i))
            .map(|&e| node_of(e))
        else {
            return Anchor::Nowhere;
        };
        let base = table[node as usize].start;
        Anchor::At {
            node,
            offset: span.start - base,
            len: span.end.saturating_sub(span.start),
        }
    }
}

/// The span an anchor stands for in a function whose span table is `table`.
pub fn resolve(anchor: Anchor, table: &SpanTable) -> Span {
    let Anchor::At { node, offset, len } = anchor else {
        return Span::default();
    };
    match table.0.get(node as usize) {
        Some(node) => {
            let start = node.start + offset;
            Span {
                start,
                end: start + len,
            }
        }
        None => Span::default(),
    }
}
