//! The integer values of scalar expressions, where the value checker knows them: literals,
//! scalars computed from literals, and — in a loop it runs iteration by iteration — the loop
//! variable and what is computed from it. Everything else is unknown (`None`), and a caller
//! then reasons as if any value were possible.

use memreuse_ir::{BinOp, Expr, ExprKind, UnaryOp, VarId};

/// What is known of each scalar variable, indexed by `VarId`.
#[derive(Clone, Debug)]
pub(crate) struct Scalars {
    known: Vec<Option<i64>>,
}

impl Scalars {
    pub(crate) fn new(vars: usize) -> Scalars {
        Scalars {
            known: vec![None; vars],
        }
    }

    pub(crate) fn set(&mut self, v: VarId, value: Option<i64>) {
        if let Some(slot) = self.known.get_mut(v.index()) {
            *slot = value;
        }
    }

    pub(crate) fn get(&self, v: VarId) -> Option<i64> {
        self.known.get(v.index()).copied().flatten()
    }

    /// The value of `e`, if it is known. Conditions are 0 or 1; `and`/`or` are known when one
    /// known side decides them.
    pub(crate) fn eval(&self, e: &Expr) -> Option<i64> {
        match &e.kind {
            ExprKind::Int(v) | ExprKind::Const { value: v, .. } => Some(*v),
            ExprKind::Bool(b) => Some(i64::from(*b)),
            ExprKind::Var(v) => self.get(*v),
            ExprKind::Unary { op, operand } => {
                let x = self.eval(operand)?;
                match op {
                    UnaryOp::Pos => Some(x),
                    UnaryOp::Neg => x.checked_neg(),
                    UnaryOp::Not => Some(i64::from(x == 0)),
                    UnaryOp::Invert => Some(!x),
                }
            }
            ExprKind::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs),
            // `pl.cast(x, pl.INDEX)`, `min(a, b)`, `max(a, b)`: the integer forms the printer
            // writes around index arithmetic.
            ExprKind::Call(_, call) => match (call.op(), call.args.as_slice()) {
                ("cast", [x, _]) => self.eval(x),
                ("min", [a, b]) => Some(self.eval(a)?.min(self.eval(b)?)),
                ("max", [a, b]) => Some(self.eval(a)?.max(self.eval(b)?)),
                _ => None,
            },
            _ => None,
        }
    }

    /// The values of a list or tuple's items, if every one is known.
    pub(crate) fn eval_all(&self, e: &Expr) -> Option<Vec<i64>> {
        match &e.kind {
            ExprKind::List(items) | ExprKind::Tuple(items) => {
                items.iter().map(|item| self.eval(item)).collect()
            }
            _ => None,
        }
    }

    fn binary(&self, op: BinOp, lhs: &Expr, rhs: &Expr) -> Option<i64> {
        let truth = |e: &Expr| self.eval(e).map(|v| v != 0);
        match op {
            BinOp::And => {
                return match (truth(lhs), truth(rhs)) {
                    (Some(false), _) | (_, Some(false)) => Some(0),
                    (Some(true), Some(true)) => Some(1),
                    _ => None,
                };
            }
            BinOp::Or => {
                return match (truth(lhs), truth(rhs)) {
                    (Some(true), _) | (_, Some(true)) => Some(1),
                    (Some(false), Some(false)) => Some(0),
                    _ => None,
                };
            }
            _ => {}
        }
        let (a, b) = (self.eval(lhs)?, self.eval(rhs)?);
        match op {
            BinOp::Add => a.checked_add(b),
            BinOp::Sub => a.checked_sub(b),
            BinOp::Mul => a.checked_mul(b),
            // Python's `//` and `%` round toward negative infinity.
            BinOp::FloorDiv => floor_div(a, b),
            BinOp::Mod => floor_div(a, b).and_then(|q| a.checked_sub(q.checked_mul(b)?)),
            BinOp::Div => (b != 0 && a.checked_rem(b)? == 0).then(|| a / b),
            BinOp::Eq => Some(i64::from(a == b)),
            BinOp::Ne => Some(i64::from(a != b)),
            BinOp::Lt => Some(i64::from(a < b)),
            BinOp::Le => Some(i64::from(a <= b)),
            BinOp::Gt => Some(i64::from(a > b)),
            BinOp::Ge => Some(i64::from(a >= b)),
            BinOp::BitAnd => Some(a & b),
            BinOp::BitOr => Some(a | b),
            BinOp::BitXor => Some(a ^ b),
            BinOp::Shl => u32::try_from(b).ok().and_then(|s| a.checked_shl(s)),
            BinOp::Shr => u32::try_from(b).ok().and_then(|s| a.checked_shr(s)),
            BinOp::Pow => u32::try_from(b).ok().and_then(|e| a.checked_pow(e)),
            BinOp::And | BinOp::Or => None,
        }
    }
}

fn floor_div(a: i64, b: i64) -> Option<i64> {
    let q = a.checked_div(b)?;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q.checked_sub(1)
    } else {
        Some(q)
    }
}

/// The values a `range(...)` loop's variable takes, from its bounds as written (`stop`,
/// `start, stop` or `start, stop, step`), when they are known and there are at most `limit`.
pub(crate) fn range_values(scalars: &Scalars, bounds: &[Expr], limit: usize) -> Option<Vec<i64>> {
    let values: Vec<i64> = bounds
        .iter()
        .map(|b| scalars.eval(b))
        .collect::<Option<_>>()?;
    let (start, stop, step) = match values.as_slice() {
        [stop] => (0, *stop, 1),
        [start, stop] => (*start, *stop, 1),
        [start, stop, step] => (*start, *stop, *step),
        _ => return None,
    };
    if step == 0 {
        return None;
    }
    let mut out = Vec::new();
    let mut i = start;
    while (step > 0 && i < stop) || (step < 0 && i > stop) {
        if out.len() == limit {
            return None;
        }
        out.push(i);
        i = i.checked_add(step)?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use memreuse_ir::Span;

    fn int(v: i64) -> Expr {
        Expr {
            kind: ExprKind::Int(v),
            span: Span::default(),
        }
    }

    fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr {
            kind: ExprKind::Binary {
                op,
                lhs: Box::new(a),
                rhs: Box::new(b),
            },
            span: Span::default(),
        }
    }

    #[test]
    fn floor_division_and_modulo_round_as_python_does() {
        let s = Scalars::new(0);
        assert_eq!(s.eval(&bin(BinOp::FloorDiv, int(-7), int(2))), Some(-4));
        assert_eq!(s.eval(&bin(BinOp::Mod, int(-7), int(2))), Some(1));
        assert_eq!(s.eval(&bin(BinOp::Mod, int(7), int(-2))), Some(-1));
        assert_eq!(s.eval(&bin(BinOp::FloorDiv, int(7), int(0))), None);
    }

    #[test]
    fn a_known_side_decides_and_and_or() {
        let mut s = Scalars::new(1);
        let unknown = Expr {
            kind: ExprKind::Var(VarId(0)),
            span: Span::default(),
        };
        assert_eq!(s.eval(&bin(BinOp::Or, int(1), unknown.clone())), Some(1));
        assert_eq!(s.eval(&bin(BinOp::And, int(0), unknown.clone())), Some(0));
        assert_eq!(s.eval(&bin(BinOp::Or, int(0), unknown.clone())), None);
        s.set(VarId(0), Some(0));
        assert_eq!(s.eval(&bin(BinOp::Or, int(0), unknown)), Some(0));
    }

    #[test]
    fn ranges_follow_python() {
        let s = Scalars::new(0);
        assert_eq!(range_values(&s, &[int(3)], 8), Some(vec![0, 1, 2]));
        assert_eq!(
            range_values(&s, &[int(1), int(7), int(3)], 8),
            Some(vec![1, 4])
        );
        assert_eq!(
            range_values(&s, &[int(3), int(0), int(-1)], 8),
            Some(vec![3, 2, 1])
        );
        assert_eq!(range_values(&s, &[int(100)], 8), None);
    }
}
