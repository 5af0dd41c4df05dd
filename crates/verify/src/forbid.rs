//! `V004`: no op output shares bytes with an operand it must not alias (rules §6.1.4, §13).

use rustc_hash::FxHashMap;

use super::liveness::{Bytes, Liveness, on_chip_memref, var};
use crate::finding::{Clobber, Finding};
use crate::options::VerifyOptions;
use crate::text::{Tile, Worded, Words, text};
use memreuse_ir::codes;
use memreuse_ir::ops::OpRole;
use memreuse_ir::{Call, Expr, ExprKind, Function, Span, Stmt, StmtKind, Type, VarId};

#[derive(Clone, Copy)]
enum Reason {
    NotInPlaceSafe,
    Forbidden(usize),
    WideningCast,
}

/// The operands one op output must not alias.
#[derive(Clone)]
struct Forbidden<'f> {
    op: &'f str,
    operands: Vec<(VarId, Reason)>,
}

pub(super) fn check(f: &Function, live: &Liveness, opts: &VerifyOptions) -> Vec<Finding> {
    let mut walker = Walker {
        f,
        live,
        a5_target: opts.backend.is_a5(),
        addressed: opts.addressed(),
        tuples: FxHashMap::default(),
        out: Vec::new(),
    };
    walker.stmts(&f.body);
    walker.out
}

struct Walker<'f> {
    f: &'f Function,
    live: &'f Liveness,
    a5_target: bool,
    /// Offsets are absolute addresses: operands on other bases can overlap too.
    addressed: bool,
    /// Tuple-valued op results: their items inherit the op's forbidden operands.
    tuples: FxHashMap<VarId, Forbidden<'f>>,
    out: Vec<Finding>,
}

impl<'f> Walker<'f> {
    fn stmts(&mut self, body: &'f [Stmt]) {
        for stmt in body {
            match &stmt.kind {
                StmtKind::Assign { target, value } => self.assign(*target, value, stmt.span),
                StmtKind::For(for_stmt) => self.stmts(&for_stmt.body),
                StmtKind::If(if_stmt) => {
                    self.stmts(&if_stmt.then_body);
                    if let Some(else_body) = &if_stmt.else_body {
                        self.stmts(else_body);
                    }
                }
                StmtKind::With(with) => self.stmts(&with.body),
                StmtKind::Eval(_)
                | StmtKind::Yield { .. }
                | StmtKind::Return { .. }
                | StmtKind::Pass => {}
            }
        }
    }

    fn assign(&mut self, target: VarId, value: &'f Expr, span: Span) {
        let forbidden = match &value.kind {
            ExprKind::Call(_, call) => self.forbidden(target, value, call),
            ExprKind::Index { base, .. } => {
                base.as_var().and_then(|t| self.tuples.get(&t)).cloned()
            }
            _ => None,
        };
        let Some(forbidden) = forbidden else {
            return;
        };
        if matches!(
            var(self.f, target).and_then(|v| v.ty.as_ref()),
            Some(Type::Tuple(_))
        ) {
            self.tuples.insert(target, forbidden);
        } else {
            self.check_output(target, &forbidden, span);
        }
    }

    fn forbidden(&self, target: VarId, value: &Expr, call: &'f Call) -> Option<Forbidden<'f>> {
        let info = value.call_info()?;
        let arg_var = |i: usize| call.args.get(i).and_then(Expr::as_var);
        let mut operands: Vec<(VarId, Reason)> = if info.not_inplace_safe {
            match info.a5_forbidden_args.filter(|_| self.a5_target) {
                Some(args) => args
                    .iter()
                    .filter_map(|&i| arg_var(i).map(|v| (v, Reason::NotInPlaceSafe)))
                    .collect(),
                None => (0..call.args.len())
                    .filter_map(|i| arg_var(i).map(|v| (v, Reason::NotInPlaceSafe)))
                    .collect(),
            }
        } else {
            info.forbid
                .iter()
                .filter_map(|&i| arg_var(i).map(|v| (v, Reason::Forbidden(i))))
                .collect()
        };
        if value.call_role() == Some(OpRole::Cast)
            && let Some(source) = arg_var(0)
            && let (Some(out_bits), Some(in_bits)) =
                (self.dtype_bits(target), self.dtype_bits(source))
            && out_bits > in_bits
        {
            operands.push((source, Reason::WideningCast));
        }
        (!operands.is_empty()).then_some(Forbidden {
            op: call.op(),
            operands,
        })
    }

    fn dtype_bits(&self, v: VarId) -> Option<u32> {
        match var(self.f, v)?.ty.as_ref()? {
            Type::Tile(t) => Some(t.dtype.bits()),
            Type::Tensor(t) => Some(t.dtype.bits()),
            _ => None,
        }
    }

    fn check_output(&mut self, target: VarId, forbidden: &Forbidden<'f>, span: Span) {
        let Some(output) = self.live.tile(target) else {
            return;
        };
        for &(operand, reason) in &forbidden.operands {
            let Some((base, bytes)) = self.placement(operand) else {
                continue;
            };
            let same_region = if self.addressed {
                self.live
                    .tile(operand)
                    .is_some_and(|t| t.space == output.space)
            } else {
                base == output.base
            };
            if !same_region || !bytes.intersects(output.bytes) {
                continue;
            }
            let (out, arg) = (Tile(target), Tile(operand));
            let op = forbidden.op;
            let why = match reason {
                Reason::NotInPlaceSafe => format!("`{op}` is not in-place safe"),
                Reason::Forbidden(i) => format!("`{op}` must not write over its argument {i}"),
                Reason::WideningCast => {
                    format!("a widening `{op}` must not write over its source")
                }
            };
            let worded = Worded::error(
                codes::FORBIDDEN_ALIAS,
                text![
                    out,
                    format!(
                        " covers {} of '{base}', which overlap its operand ",
                        output.bytes
                    ),
                    arg,
                    format!(" ({bytes}): {why}"),
                ],
                span,
            )
            .with_hint(text!["give ", out, " a buffer that ", arg, " does not use"]);
            let clobber = Clobber {
                victim: operand,
                writer: target,
            };
            self.out.push(Finding::new(worded, Some(clobber)));
        }
    }

    /// The base and bytes of an operand: its tile fact, or a parameter's own MemRef.
    fn placement(&self, v: VarId) -> Option<(&'f str, Bytes)> {
        if let Some(tile) = self.live.tile(v) {
            return Some((tile.base.as_str(), tile.bytes));
        }
        let memref = on_chip_memref(var(self.f, v)?)?;
        Some((
            memref.base.as_str(),
            Bytes::of(memref).unwrap_or(Bytes::Unknown),
        ))
    }
}
