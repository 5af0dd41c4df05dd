//! The typed model of a post-InitMemRef PyPTO program (rules §1, §3).
//!
//! Variables are resolved at parse time (lexical SSA, rules §1.4): every definition gets its own
//! [`VarId`] in the function's [`VarTable`], and each variable has exactly one type. Spans never
//! take part in equality, so two models are equal when they denote the same program.

use std::sync::Arc;

use compact_str::CompactString;
use smallvec::SmallVec;

use super::span::Span;
use crate::named::{BinOp, DType, MemSpace};
use crate::ops::{OpInfo, OpRole, OpRow};

pub type Name = CompactString;

/// A whole file: text before the program, the program class, text after it.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// Everything before `@pl.program`, verbatim (header comment, imports, `pl.dynamic`s).
    pub preamble: String,
    /// Keyword arguments of `@pl.program(...)`; empty for a bare `@pl.program`.
    pub decorator: Vec<Kwarg>,
    pub name: Name,
    pub functions: Vec<Function>,
    /// Names declared at module level with `NAME = pl.dynamic("NAME")`.
    pub dynamic_dims: Vec<Name>,
    /// How the input separated its functions; the printer keeps it.
    pub spacing: FunctionSpacing,
    pub span: Span,
}

/// What stands between one function's last line and the next function's decorator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FunctionSpacing {
    /// One blank line (hand-written programs, upstream's `python_print`).
    #[default]
    BlankLine,
    /// Nothing: PyPTO's per-pass dumps (`dump_passes=True`) print functions back to back.
    Adjacent,
}

impl FunctionSpacing {
    /// The text printed between two functions.
    pub fn separator(self) -> &'static str {
        match self {
            FunctionSpacing::BlankLine => "\n",
            FunctionSpacing::Adjacent => "",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: Name,
    /// Keyword arguments of `@pl.function(...)`; empty for a bare `@pl.function`.
    pub decorator: Vec<Kwarg>,
    /// The dict of a leading `pl.func_attr({...})` line, if any.
    pub func_attrs: Option<Expr>,
    /// Whether the signature starts with `self` (SubWorker-role functions have none).
    pub has_self: bool,
    pub params: Vec<Param>,
    pub ret: Option<ReturnType>,
    pub body: Body,
    pub vars: VarTable,
    /// From the decorator to the last line of the body.
    pub span: Span,
}

/// A function's statements, shared by its copies until one of them changes: Step 0 edits
/// only the variable table, so the prepared copy of a function keeps the statements of its
/// parse (one copy fewer to make, and to free, per function planned). A mutable borrow
/// copies them first where another function still shares them (`Arc::make_mut`).
#[derive(Clone, Debug, Default)]
pub struct Body(Arc<Vec<Stmt>>);

impl std::ops::Deref for Body {
    type Target = Vec<Stmt>;
    fn deref(&self) -> &Vec<Stmt> {
        &self.0
    }
}

impl std::ops::DerefMut for Body {
    fn deref_mut(&mut self) -> &mut Vec<Stmt> {
        Arc::make_mut(&mut self.0)
    }
}

impl From<Vec<Stmt>> for Body {
    fn from(stmts: Vec<Stmt>) -> Body {
        Body(Arc::new(stmts))
    }
}

impl<'a> IntoIterator for &'a Body {
    type Item = &'a Stmt;
    type IntoIter = std::slice::Iter<'a, Stmt>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<'a> IntoIterator for &'a mut Body {
    type Item = &'a mut Stmt;
    type IntoIter = std::slice::IterMut<'a, Stmt>;
    fn into_iter(self) -> Self::IntoIter {
        Arc::make_mut(&mut self.0).iter_mut()
    }
}

impl PartialEq for Body {
    /// Statements shared by both are equal without being compared.
    fn eq(&self, other: &Body) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || *self.0 == *other.0
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub var: VarId,
    pub direction: ParamDirection,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamDirection {
    In,
    /// `pl.Out[T]`
    Out,
    /// `pl.InOut[T]`
    InOut,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ReturnType {
    Single(Type),
    /// `tuple[T, U, ...]`
    Tuple(Vec<Type>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

impl VarId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VarKind {
    Param,
    /// Defined by an assignment.
    Local,
    /// The induction variable of a `for`.
    LoopVar,
    IterArg,
    /// A `for`/`if` return variable (the LHS of the `pl.yield_` that ends its body).
    ReturnVar,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    pub name: Name,
    pub kind: VarKind,
    /// `None` when the text gives no annotation and none can be inherited.
    pub ty: Option<Type>,
    pub span: Span,
}

/// The variables of a function. Shared: planning copies the whole function and retypes a part
/// of its variables, so a copy shares every variable with the original until it changes one
/// (`IndexMut` copies that one on write, with `Arc::make_mut`).
#[derive(Debug, Default)]
pub struct VarTable {
    vars: Vec<Arc<Var>>,
}

impl Clone for VarTable {
    /// A copy is most often planned, and planning adds a few variables (inserted moves,
    /// scratch buffers): with room for them, the first push does not move the whole table.
    fn clone(&self) -> VarTable {
        let mut vars = Vec::with_capacity(self.vars.len() + self.vars.len() / 16 + 8);
        vars.extend(self.vars.iter().cloned());
        VarTable { vars }
    }
}

impl PartialEq for VarTable {
    /// A variable shared by both tables is equal without being compared.
    fn eq(&self, other: &VarTable) -> bool {
        self.vars.len() == other.vars.len()
            && self
                .vars
                .iter()
                .zip(&other.vars)
                .all(|(a, b)| Arc::ptr_eq(a, b) || a == b)
    }
}

impl VarTable {
    pub fn push(&mut self, var: Var) -> VarId {
        let id = VarId(self.vars.len() as u32);
        self.vars.push(Arc::new(var));
        id
    }
    pub fn len(&self) -> usize {
        self.vars.len()
    }
    pub fn is_empty(&self) -> bool {
        self.vars.is_empty()
    }
    /// The variable `id`, or `None` when `id` does not belong to this table.
    pub fn get(&self, id: VarId) -> Option<&Var> {
        self.vars.get(id.index()).map(|v| &**v)
    }
    pub fn iter(&self) -> impl Iterator<Item = (VarId, &Var)> {
        self.vars
            .iter()
            .enumerate()
            .map(|(i, v)| (VarId(i as u32), &**v))
    }
    /// `wanted` when no variable has that name, else the first of `wanted_1`, `wanted_2`, ...
    /// that none has.
    pub fn unused_name(&self, wanted: &str) -> String {
        let taken = |name: &str| self.vars.iter().any(|v| v.name == name);
        if !taken(wanted) {
            return wanted.to_string();
        }
        (1..)
            .map(|n| format!("{wanted}_{n}"))
            .find(|n| !taken(n))
            .unwrap_or_else(|| wanted.to_string())
    }
    /// Puts tile `id` on `memref` (in `space`, when given), keeping the rest of its type; does
    /// nothing to a variable that is not a tile. A variable still shared with a copy of the
    /// table gets a new type, so its old MemRef is not copied only to be replaced.
    pub fn place_tile(&mut self, id: VarId, memref: MemRef, space: Option<MemSpace>) {
        let slot = &mut self.vars[id.index()];
        if let Some(var) = Arc::get_mut(slot) {
            if let Some(Type::Tile(tile)) = &mut var.ty {
                tile.memref = Some(memref);
                tile.space = space.or(tile.space);
            }
            return;
        }
        let Some(Type::Tile(tile)) = &slot.ty else {
            return;
        };
        let ty = Type::Tile(TileType {
            shape: tile.shape.clone(),
            dtype: tile.dtype,
            memref: Some(memref),
            space: space.or(tile.space),
            view: tile.view.clone(),
        });
        *slot = Arc::new(Var {
            name: slot.name.clone(),
            kind: slot.kind,
            ty: Some(ty),
            span: slot.span,
        });
    }
}

impl std::ops::Index<VarId> for VarTable {
    type Output = Var;
    fn index(&self, id: VarId) -> &Var {
        &self.vars[id.index()]
    }
}

impl std::ops::IndexMut<VarId> for VarTable {
    fn index_mut(&mut self, id: VarId) -> &mut Var {
        Arc::make_mut(&mut self.vars[id.index()])
    }
}

/// The names `mem_<space>_<N>` of allocations a function does not use yet, `N` counting up
/// from one past the largest number among its variables' names and its MemRefs' bases (0 when
/// there is none). Finding that start reads every variable, so an edit that makes several
/// allocations, or trials that each edit a copy of one function, find it once.
#[derive(Clone, Copy, Debug)]
pub struct FreshBases {
    next: u32,
}

impl FreshBases {
    pub fn of(vars: &VarTable) -> FreshBases {
        let number = |name: &str| -> Option<u32> {
            let (_, number) = name.strip_prefix("mem_")?.rsplit_once('_')?;
            number.parse().ok()
        };
        let names = vars.iter().filter_map(|(_, v)| number(&v.name));
        let bases = vars
            .iter()
            .filter_map(|(_, v)| number(&v.ty.as_ref()?.memref()?.base));
        FreshBases {
            next: names.chain(bases).max().map_or(0, |n| n + 1),
        }
    }

    /// The next unused name in `space`. The ones after it stay unused while every allocation
    /// added to the function takes its name from here.
    pub fn take(&mut self, space: MemSpace) -> String {
        let name = format!("mem_{}_{}", space.name().to_lowercase(), self.next);
        self.next += 1;
        name
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
    /// Comment lines printed above the statement. They are part of the program (PyPTO's dumps
    /// carry them), so they take part in equality and in the canonical bytes.
    pub comments: Comments,
}

impl Stmt {
    pub fn new(kind: StmtKind, span: Span) -> Stmt {
        Stmt {
            kind,
            span,
            comments: Comments::default(),
        }
    }

    /// `destination = pl.tile.move(source, target_memory=space)`, the copy the planner inserts.
    pub fn tile_move(destination: VarId, source: VarId, space: MemSpace, span: Span) -> Stmt {
        let call = Call {
            callee: crate::ops::TILE_MOVE_CALLEE.into(),
            args: smallvec::smallvec![Expr::new(ExprKind::Var(source), span)],
            kwargs: vec![Kwarg {
                name: "target_memory".into(),
                value: Expr::new(ExprKind::Space(space), span),
                span,
            }],
        };
        let value = Expr::new(ExprKind::call(call), span);
        Stmt::new(
            StmtKind::Assign {
                target: destination,
                value,
            },
            span,
        )
    }
}

/// A statement's leading comment lines, each from `#` to its end.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comments(Option<Box<[Name]>>);

impl Comments {
    pub fn new(lines: Vec<Name>) -> Comments {
        Comments((!lines.is_empty()).then(|| lines.into_boxed_slice()))
    }
    pub fn lines(&self) -> &[Name] {
        self.0.as_deref().unwrap_or_default()
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `x: T = value` or `x = value`; annotated in print iff the variable has a type.
    Assign {
        target: VarId,
        value: Expr,
    },
    /// A bare call statement, e.g. `pl.reserve_buffer(name="s", size=4096)`.
    Eval(Expr),
    /// `pl.yield_(...)`. Its left-hand side, when printed, is the enclosing `for`/`if`'s
    /// return variables.
    Yield {
        values: Vec<Expr>,
    },
    Return {
        values: Vec<Expr>,
    },
    For(Box<ForStmt>),
    If(Box<IfStmt>),
    /// `with <context>:` — transparent for planning (e.g. `with pl.scope():`).
    With(Box<WithStmt>),
    Pass,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LoopKind {
    Range,
    Parallel,
    Unroll,
    Pipeline,
    While,
}

impl LoopKind {
    pub fn name(self) -> &'static str {
        match self {
            LoopKind::Range => "range",
            LoopKind::Parallel => "parallel",
            LoopKind::Unroll => "unroll",
            LoopKind::Pipeline => "pipeline",
            LoopKind::While => "while_",
        }
    }
    pub fn from_name(name: &str) -> Option<LoopKind> {
        Some(match name {
            "range" => LoopKind::Range,
            "parallel" => LoopKind::Parallel,
            "unroll" => LoopKind::Unroll,
            "pipeline" => LoopKind::Pipeline,
            "while_" => LoopKind::While,
            _ => return None,
        })
    }
}

/// A `for` loop over `pl.range`/`pl.parallel`/`pl.unroll`/`pl.pipeline`, or a
/// `pl.while_` loop (`for (c, w) in pl.while_(init_values=(...)):`), which has no loop
/// variable and no bounds; its condition is the body's first statement, `pl.cond(expr)`.
#[derive(Clone, Debug, PartialEq)]
pub struct ForStmt {
    /// `None` exactly for `pl.while_` loops.
    pub loop_var: Option<VarId>,
    pub iter_args: Vec<VarId>,
    pub kind: LoopKind,
    /// Positional arguments of the loop call as written: `stop`, `start, stop` or
    /// `start, stop, step`.
    pub bounds: Vec<Expr>,
    /// `init_values=(...)`, one per iter arg.
    pub init_values: Vec<Expr>,
    /// Keyword arguments other than `init_values` (`stage=`, `attrs=`, ...), in source order.
    pub kwargs: Vec<Kwarg>,
    pub body: Vec<Stmt>,
    pub return_vars: Vec<VarId>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct IfStmt {
    pub cond: Expr,
    pub then_body: Vec<Stmt>,
    pub else_body: Option<Vec<Stmt>>,
    pub return_vars: Vec<VarId>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct WithStmt {
    pub context: Expr,
    pub body: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Kwarg {
    pub name: Name,
    pub value: Expr,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A reference to a defined variable.
    Var(VarId),
    /// A name defined nowhere in the function: a free symbolic dimension or a module-level
    /// `pl.dynamic` symbol. Only allowed inside types.
    Symbol(Name),
    Int(i64),
    /// Kept as written (`1e-6`, `0.0`) so it prints back unchanged.
    Float(Name),
    Str {
        value: Name,
        quote: Quote,
    },
    Bool(bool),
    None,
    /// `pl.const(5, pl.INT64)`: an integer constant with an explicit dtype (MemRef offsets are
    /// spelled this way; a dedicated node keeps cloning types cheap).
    Const {
        value: i64,
        dtype: DType,
    },
    /// `pl.FP32`, ...
    DType(DType),
    /// `pl.Mem.Vec` or `pl.MemorySpace.Vec` (printed as `pl.Mem.Vec`).
    Space(MemSpace),
    /// Any other dotted path: `pl.PadValue.max`, `pl.FunctionType.AIV`, `self.helper`.
    Path(Name),
    /// A call, with its op resolved when the expression was built: build it with
    /// [`ExprKind::call`], and never change a built call's `callee` in place. Shared: planning
    /// copies the whole function and changes few calls, so a copy shares them (change one
    /// with `Arc::make_mut`).
    Call(KnownOp, Arc<Call>),
    /// `[a, b]`
    List(Vec<Expr>),
    /// `(a, b)` or `(a,)`
    Tuple(Vec<Expr>),
    /// `{"k": v}`
    Dict(Vec<(Expr, Expr)>),
    /// `t[0]`
    Index {
        base: Box<Expr>,
        index: Box<Expr>,
    },
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
}

impl ExprKind {
    /// A call expression, with its op resolved.
    pub fn call(call: Call) -> ExprKind {
        ExprKind::Call(KnownOp::of(&call.callee), Arc::new(call))
    }
}

/// A call's op when it is one the planner asks about by name, resolved when the call expression
/// is built. A pass asking only which op a statement calls reads it beside the statement instead
/// of loading the boxed call, which on a large body misses the cache once per statement and
/// pass.
/// It is the op's row of the op table, so asking a known op's role or aliasing facts looks
/// nothing up.
#[derive(Clone, Copy)]
pub struct KnownOp(Option<&'static OpRow>);

impl KnownOp {
    pub fn of(callee: &str) -> KnownOp {
        let op = callee.strip_prefix("pl.").unwrap_or(callee);
        KnownOp(crate::ops::op_row(op))
    }
    /// The op's row of the op table; `None` for an op the table does not list.
    pub fn row(self) -> Option<&'static OpRow> {
        self.0
    }
    fn name(self) -> Option<&'static str> {
        self.0.map(|row| row.name)
    }
}

impl PartialEq for KnownOp {
    fn eq(&self, other: &KnownOp) -> bool {
        self.name() == other.name()
    }
}

impl Eq for KnownOp {}

impl std::hash::Hash for KnownOp {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name().hash(state);
    }
}

impl std::fmt::Debug for KnownOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("KnownOp").field(&self.name()).finish()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Quote {
    Single,
    Double,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// The dotted callee as written: `pl.tile.add`, `pl.const`, `self.helper`, `min`.
    pub callee: Name,
    /// Positional arguments; up to two (an alloc's, a binary op's) sit inside the call.
    pub args: SmallVec<[Expr; 2]>,
    /// Keyword arguments in source order, `attrs={...}` included.
    pub kwargs: Vec<Kwarg>,
}

impl Call {
    /// The registered op name: the callee without its `pl.` prefix (`tile.add`), or the
    /// callee itself when it has none.
    pub fn op(&self) -> &str {
        self.callee.strip_prefix("pl.").unwrap_or(&self.callee)
    }
    pub fn kwarg(&self, name: &str) -> Option<&Expr> {
        self.kwargs
            .iter()
            .find(|k| k.name == name)
            .map(|k| &k.value)
    }
    /// The value of `attrs={..., "key": value}`.
    pub fn attr(&self, key: &str) -> Option<&Expr> {
        match &self.kwarg("attrs")?.kind {
            ExprKind::Dict(entries) => entries.iter().find_map(|(k, v)| match &k.kind {
                ExprKind::Str { value, .. } if value == key => Some(v),
                _ => None,
            }),
            _ => None,
        }
    }
}

impl BinOp {
    /// Python binding strength; higher binds tighter.
    pub fn precedence(self) -> u8 {
        match self {
            BinOp::Or => 1,
            BinOp::And => 2,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 4,
            BinOp::BitOr => 5,
            BinOp::BitXor => 6,
            BinOp::BitAnd => 7,
            BinOp::Shl | BinOp::Shr => 8,
            BinOp::Add | BinOp::Sub => 9,
            BinOp::Mul | BinOp::Div | BinOp::FloorDiv | BinOp::Mod => 10,
            BinOp::Pow => 12,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `+x`: kept, not dropped, so `+pl.MemRef(...)` in a type stays an expression when printed.
    Pos,
    Neg,
    Not,
    Invert,
}

impl UnaryOp {
    /// Python binding strength (`not` sits between `and` and comparisons).
    pub fn precedence(self) -> u8 {
        match self {
            UnaryOp::Not => 3,
            UnaryOp::Pos | UnaryOp::Neg | UnaryOp::Invert => 11,
        }
    }
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }

    pub fn as_var(&self) -> Option<VarId> {
        match self.kind {
            ExprKind::Var(v) => Some(v),
            _ => None,
        }
    }

    pub fn as_call(&self) -> Option<&Call> {
        match &self.kind {
            ExprKind::Call(_, c) => Some(c),
            _ => None,
        }
    }

    /// The op of a call expression ([`Call::op`]), without loading the call when it is known.
    pub fn call_op(&self) -> Option<&str> {
        match &self.kind {
            ExprKind::Call(KnownOp(Some(row)), _) => Some(row.name),
            ExprKind::Call(KnownOp(None), call) => Some(call.op()),
            _ => None,
        }
    }

    /// The op table's row of a call expression's op, resolved when the call was built (`None`
    /// for a call of an op the table does not list, and for anything but a call).
    pub fn call_row(&self) -> Option<&'static OpRow> {
        match &self.kind {
            ExprKind::Call(known, _) => known.row(),
            _ => None,
        }
    }

    /// The role of a call expression's op ([`crate::ops::op_role`]); `None` for anything but
    /// a call.
    pub fn call_role(&self) -> Option<OpRole> {
        match &self.kind {
            ExprKind::Call(known, _) => Some(known.row().map_or(OpRole::Plain, |row| row.role)),
            _ => None,
        }
    }

    /// The aliasing facts of a call expression's op ([`crate::ops::op_info`]), without
    /// looking the op up; `None` for an unregistered op and for anything but a call.
    pub fn call_info(&self) -> Option<OpInfo> {
        match &self.kind {
            // The op name is read only for an op the table does not list: a listed op's facts
            // are its row's, and the call itself is not loaded.
            ExprKind::Call(known, call) => crate::ops::info_of(known.row(), || call.op()),
            _ => None,
        }
    }

    /// Whether this is a `tile.alloc` or `tensor.alloc` call: the right-hand side of an
    /// allocation statement.
    pub fn is_alloc_call(&self) -> bool {
        self.call_role() == Some(OpRole::Alloc)
    }

    /// Whether this is an alloc call with `pinned=True`: a declared allocation (rules §6.1).
    pub fn is_pinned_alloc_call(&self) -> bool {
        self.is_alloc_call()
            && self.as_call().is_some_and(|call| {
                matches!(
                    call.kwarg("pinned").map(|e| &e.kind),
                    Some(ExprKind::Bool(true))
                )
            })
    }

    /// Whether this is a `reserve_buffer` call, which reserves a window of on-chip memory.
    pub fn is_reserve_buffer_call(&self) -> bool {
        self.call_role() == Some(OpRole::ReserveBuffer)
    }

    /// The value of an integer constant: `5`, `-5`, `pl.const(5, pl.INT64)`.
    #[inline]
    pub fn as_const_int(&self) -> Option<i64> {
        // Shapes and MemRef extents are almost always plain or typed literals: those are read
        // inline, without the call the recursive forms need.
        match &self.kind {
            ExprKind::Int(v) => Some(*v),
            ExprKind::Const { value, .. } => Some(*value),
            _ => self.as_composite_const_int(),
        }
    }

    /// [`Expr::as_const_int`] of a signed literal or a `pl.const` call.
    fn as_composite_const_int(&self) -> Option<i64> {
        match &self.kind {
            ExprKind::Unary {
                op: UnaryOp::Neg,
                operand,
            } => operand.as_const_int().and_then(i64::checked_neg),
            ExprKind::Unary {
                op: UnaryOp::Pos,
                operand,
            } => operand.as_const_int(),
            ExprKind::Call(_, c) if c.callee == "pl.const" => c.args.first()?.as_const_int(),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    Tensor(TensorType),
    Tile(TileType),
    Scalar(DType),
    /// `pl.Ptr`: the type of an allocation base.
    Ptr,
    /// `pl.MemRefType`
    MemRefType,
    /// `pl.Tuple[...]`; `pl.Tuple[()]` is the empty tuple.
    Tuple(Vec<Type>),
    /// A type constructor the planner does not model (`pl.Array[8, pl.TASK_ID]`,
    /// `pld.DistributedTensor[[2, 1], pl.INT32, pl.MemRef(...)]`, `pl.PrefetchAsyncContext`),
    /// kept as written.
    Opaque(Box<OpaqueType>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct OpaqueType {
    /// The dotted constructor, e.g. `pld.DistributedTensor`.
    pub constructor: Name,
    /// The subscript's items; `None` when the type is written without brackets.
    pub args: Option<Vec<TypeArg>>,
}

impl OpaqueType {
    pub fn memref(&self) -> Option<&MemRef> {
        self.args.iter().flatten().find_map(|arg| match arg {
            TypeArg::MemRef(m) => Some(m),
            _ => None,
        })
    }
}

/// One subscript item of an opaque type.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeArg {
    /// A MemRef stays a MemRef: a DDR-resident opaque tensor still names its allocation.
    MemRef(MemRef),
    /// A nested type, e.g. `pl.Tile[...]` inside an unknown container.
    Type(Type),
    /// Anything else: shapes, dtypes (known or not), literals.
    Expr(Expr),
}

impl Type {
    pub fn as_tile(&self) -> Option<&TileType> {
        match self {
            Type::Tile(t) => Some(t),
            _ => None,
        }
    }
    pub fn memref(&self) -> Option<&MemRef> {
        match self {
            Type::Tile(t) => t.memref.as_ref(),
            Type::Tensor(t) => t.memref.as_ref(),
            Type::Opaque(t) => t.memref(),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct TensorType {
    /// Shared: a copy of the function (planning makes one) shares every shape.
    pub shape: Arc<[Expr]>,
    pub dtype: DType,
    /// Tensor views and layouts (opaque), printed between the dtype and the MemRef.
    pub extras: Vec<Expr>,
    pub memref: Option<MemRef>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TileType {
    /// Shared: a copy of the function (planning makes one) shares every shape.
    pub shape: Arc<[Expr]>,
    pub dtype: DType,
    pub memref: Option<MemRef>,
    pub space: Option<MemSpace>,
    /// `pl.TileView(...)` (opaque).
    pub view: Option<Expr>,
}

/// `pl.MemRef(base, offset, size[, slots=N])[k]` or the declaration form
/// `pl.MemRef("name"[, slots=N])[k]`.
#[derive(Clone, Debug, PartialEq)]
pub struct MemRef {
    pub base: Name,
    /// `None` for the declaration form.
    pub extent: Option<MemRefExtent>,
    pub slots: Option<i64>,
    pub slot_index: Option<Box<Expr>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MemRefExtent {
    pub offset: Expr,
    pub size: Expr,
}

impl MemRef {
    pub fn offset(&self) -> Option<&Expr> {
        self.extent.as_ref().map(|e| &e.offset)
    }
    pub fn const_offset(&self) -> Option<i64> {
        self.offset()?.as_const_int()
    }
    pub fn size_bytes(&self) -> Option<i64> {
        self.extent.as_ref()?.size.as_const_int()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FunctionType {
    Opaque,
    Orchestration,
    InCore,
    Aic,
    Aiv,
    Group,
    Spmd,
    Inline,
    Graph,
}

impl FunctionType {
    pub fn from_name(name: &str) -> Option<FunctionType> {
        Some(match name {
            "Opaque" => FunctionType::Opaque,
            "Orchestration" => FunctionType::Orchestration,
            "InCore" => FunctionType::InCore,
            "AIC" => FunctionType::Aic,
            "AIV" => FunctionType::Aiv,
            "Group" => FunctionType::Group,
            "Spmd" => FunctionType::Spmd,
            "Inline" => FunctionType::Inline,
            "Graph" => FunctionType::Graph,
            _ => return None,
        })
    }
}

impl Function {
    /// The `type=pl.FunctionType.X` of the decorator; `Opaque` when absent.
    pub fn function_type(&self) -> FunctionType {
        self.decorator
            .iter()
            .find(|k| k.name == "type")
            .and_then(|k| match &k.value.kind {
                ExprKind::Path(p) => p.strip_prefix("pl.FunctionType."),
                _ => None,
            })
            .and_then(FunctionType::from_name)
            .unwrap_or(FunctionType::Opaque)
    }

    /// A function attribute from `pl.func_attr({...})` or the legacy `attrs=` decorator kwarg.
    pub fn attr(&self, key: &str) -> Option<&Expr> {
        let legacy = self
            .decorator
            .iter()
            .find(|k| k.name == "attrs")
            .map(|k| &k.value);
        [self.func_attrs.as_ref(), legacy]
            .into_iter()
            .flatten()
            .find_map(|dict| match &dict.kind {
                ExprKind::Dict(entries) => entries.iter().find_map(|(k, v)| match &k.kind {
                    ExprKind::Str { value, .. } if value == key => Some(v),
                    _ => None,
                }),
                _ => None,
            })
    }

    pub fn var(&self, id: VarId) -> &Var {
        &self.vars[id]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(names: &[&str]) -> VarTable {
        let mut vars = VarTable::default();
        for name in names {
            vars.push(Var {
                name: (*name).into(),
                kind: VarKind::Local,
                ty: Some(Type::Ptr),
                span: Span::default(),
            });
        }
        vars
    }

    #[test]
    fn an_unused_name_takes_the_first_free_number_as_format_spells_it() {
        let vars = table(&[
            "x_mv", "x_mv_1", "x_mv_3", "x_mv_02", "x_mv_+2", "x_mv_", "y",
        ]);
        assert_eq!(vars.unused_name("x_mv"), "x_mv_2");
        assert_eq!(vars.unused_name("y"), "y_1");
        assert_eq!(vars.unused_name("x"), "x");
        let taken_twice = table(&["a", "a_1", "a_1", "a_2"]);
        assert_eq!(taken_twice.unused_name("a"), "a_3");
    }

    #[test]
    fn fresh_bases_count_up_from_above_every_number_in_use() {
        let mut bases = FreshBases::of(&table(&["mem_vec_3", "mem_mat_10x", "mem_acc_7"]));
        assert_eq!(bases.take(MemSpace::Vec), "mem_vec_8");
        assert_eq!(bases.take(MemSpace::Mat), "mem_mat_9");
        assert_eq!(
            FreshBases::of(&table(&["x"])).take(MemSpace::Acc),
            "mem_acc_0"
        );
    }
}
