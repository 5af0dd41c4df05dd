//! `V005`/`V006`: tiles that must be one storage are. A loop's iter arg, init value, yielded
//! value and result share one place, as do an `if` result and what each arm yields; a view,
//! an in-place result or a bare alias sits on its source's buffer. Carries and results are
//! checked only when their value is read somewhere.

use super::liveness::{LinkKind, Liveness, on_chip_memref, var};
use crate::text::{Text, Tile, Worded, Words, text};
use memreuse_ir::codes;
use memreuse_ir::walk::final_yield;
use memreuse_ir::{Expr, Function, MemRef, Span, Stmt, StmtKind, VarId};

pub(super) fn check(f: &Function, live: &Liveness) -> Vec<Worded> {
    let mut out = Vec::new();
    let mut read = vec![false; live.tiles.len()];
    for tile in live.tiles.iter().filter(|t| !t.reads.is_empty()) {
        read[tile.value as usize] = true;
    }
    let carry = Carries {
        f,
        live,
        read_values: &read,
    };
    carry.stmts(&f.body, &mut out);
    for link in &live.links {
        let (tile, source) = (
            &live.tiles[link.tile as usize],
            &live.tiles[link.source as usize],
        );
        if tile.base == source.base {
            continue;
        }
        let what = match link.kind {
            LinkKind::View => "a view of",
            LinkKind::InPlace => "written in place over",
            LinkKind::Alias => "an alias of",
        };
        let (t, s) = (Tile(tile.var), Tile(source.var));
        out.push(
            Worded::error(
                codes::DETACHED_VIEW,
                text![
                    t,
                    format!(" is {what} "),
                    s,
                    format!(" but sits on '{}' while ", tile.base),
                    s,
                    format!(" sits on '{}'", source.base),
                ],
                tile.site,
            )
            .with_hint(text![
                t,
                format!(
                    " shares its source's bytes, so its MemRef must name '{}'",
                    source.base
                )
            ]),
        );
    }
    out
}

/// Carries and `if` results are checked only where their value is observed: a misplaced carry
/// or phi that nothing reads (nor its views and aliases) corrupts nothing.
struct Carries<'a> {
    f: &'a Function,
    live: &'a Liveness,
    /// Indexed by storage value: whether any of its tiles is read.
    read_values: &'a [bool],
}

impl Carries<'_> {
    fn observed(&self, v: VarId) -> bool {
        self.live
            .tile(v)
            .is_some_and(|t| self.read_values[t.value as usize])
    }

    fn stmts(&self, body: &[Stmt], out: &mut Vec<Worded>) {
        let f = self.f;
        for stmt in body {
            match &stmt.kind {
                StmtKind::For(for_stmt) => {
                    let yielded = final_yield(&for_stmt.body);
                    for (i, &iter_arg) in for_stmt.iter_args.iter().enumerate() {
                        let init = for_stmt.init_values.get(i).and_then(Expr::as_var);
                        let result = for_stmt.return_vars.get(i).copied();
                        if !self.observed(iter_arg) && !result.is_some_and(|r| self.observed(r)) {
                            continue;
                        }
                        let next = yielded.and_then(|(yield_stmt, values)| {
                            values
                                .get(i)
                                .and_then(Expr::as_var)
                                .map(|v| (v, yield_stmt.span))
                        });
                        let members = [
                            (init, "its init value", stmt.span),
                            (
                                next.map(|(v, _)| v),
                                "the value it yields",
                                next.map_or(stmt.span, |(_, s)| s),
                            ),
                            (result, "its result", stmt.span),
                        ];
                        for (member, role, span) in members {
                            if let Some(member) = member {
                                let context =
                                    || text![format!("loop carry {i}: iter arg "), Tile(iter_arg)];
                                out.extend(compare(
                                    f,
                                    iter_arg,
                                    member,
                                    context,
                                    || role.into(),
                                    span,
                                ));
                            }
                        }
                    }
                    self.stmts(&for_stmt.body, out);
                }
                StmtKind::If(if_stmt) => {
                    let arms = [
                        ("then", Some(&if_stmt.then_body)),
                        ("else", if_stmt.else_body.as_ref()),
                    ];
                    for (arm, arm_body) in arms {
                        let Some((yield_stmt, values)) = arm_body.and_then(|b| final_yield(b))
                        else {
                            continue;
                        };
                        let span = yield_stmt.span;
                        for (&result, value) in if_stmt.return_vars.iter().zip(values) {
                            if !self.observed(result) {
                                continue;
                            }
                            if let Some(yielded) = value.as_var() {
                                let context = || text!["if result ", Tile(result)];
                                let role = || format!("the value its {arm} arm yields");
                                out.extend(compare(f, result, yielded, context, role, span));
                            }
                        }
                    }
                    self.stmts(&if_stmt.then_body, out);
                    if let Some(else_body) = &if_stmt.else_body {
                        self.stmts(else_body, out);
                    }
                }
                StmtKind::With(with) => self.stmts(&with.body, out),
                StmtKind::Assign { .. }
                | StmtKind::Eval(_)
                | StmtKind::Yield { .. }
                | StmtKind::Return { .. }
                | StmtKind::Pass => {}
            }
        }
    }
}

/// The finding of `member` unless it sits exactly where `anchor` does (sizes may differ). The
/// message's `context` and `role` are made only for a finding: most carries are in place.
fn compare(
    f: &Function,
    anchor: VarId,
    member: VarId,
    context: impl FnOnce() -> Text,
    role: impl FnOnce() -> String,
    span: Span,
) -> Option<Worded> {
    let memref = |v: VarId| var(f, v).and_then(on_chip_memref);
    let (anchor_ref, member_ref) = (memref(anchor)?, memref(member)?);
    if same_place(anchor_ref, member_ref) {
        return None;
    }
    Some(
        Worded::error(
            codes::CARRY_NOT_IN_PLACE,
            context().then(text![
                format!(" sits at {} but {}, ", place(anchor_ref), role()),
                Tile(member),
                format!(", sits at {}", place(member_ref)),
            ]),
            span,
        )
        .with_hint(format!(
            "the value moves into '{}' only if it is written there; insert a `tile.move` into that buffer before the yield",
            anchor_ref.base
        )),
    )
}

fn same_place(a: &MemRef, b: &MemRef) -> bool {
    a.base == b.base
        && match (a.const_offset(), b.const_offset()) {
            (Some(x), Some(y)) => x == y,
            (None, None) => a.offset() == b.offset(),
            _ => false,
        }
}

fn place(m: &MemRef) -> String {
    match m.const_offset() {
        Some(offset) => format!("'{}' offset {offset}", m.base),
        None => format!("'{}' at a symbolic offset", m.base),
    }
}
