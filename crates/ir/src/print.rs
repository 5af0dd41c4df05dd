//! The IR printer: [`Program`] → text in PyPTO's canonical printed form (rules §1.8).
//!
//! Output is what upstream's raw printer emits: one line per statement and per signature, every
//! typed assignment annotated, 4-space indentation, minimal parentheses. Spans and comments are
//! not part of the model, so printing is a pure function of what a program means; that is what
//! makes [`canonical_function_bytes`] usable as a cache key.
//!
//! Printing never panics: model values that no parse can produce (an empty block, a dangling
//! [`VarId`]) print as something visible rather than aborting.

use rustc_hash::FxHashSet;
use std::fmt::Write as _;
use std::sync::Arc;

use super::model::*;
use crate::named::{BinOp, DType, MemSpace};

/// Prints a whole file: the preamble verbatim, the `@pl.program` class, and its functions
/// separated as the program's [`FunctionSpacing`] says. The text ends with a single `\n`.
pub fn print_program(program: &Program) -> String {
    let mut out = String::new();
    print_program_header(program, &mut out);
    for (i, function) in program.functions.iter().enumerate() {
        if i > 0 {
            out.push_str(program.spacing.separator());
        }
        print_function(function, &mut out, 4);
    }
    out
}

/// The preamble and the `@pl.program` class line.
fn print_program_header(program: &Program, out: &mut String) {
    out.push_str(&program.preamble);
    if !program.preamble.is_empty() && !program.preamble.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("@pl.program");
    if !program.decorator.is_empty() {
        out.push('(');
        write_kwargs(out, &program.decorator, &VarTable::default());
        out.push(')');
    }
    out.push_str("\nclass ");
    out.push_str(&program.name);
    out.push_str(":\n");
}

/// A printed program without its functions: everything up to its `class` line, and how its
/// functions are separated. Printed functions (see [`print_function`], indentation 4) join back
/// into the file with [`ProgramHeader::assemble`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramHeader {
    pub text: Arc<str>,
    pub spacing: FunctionSpacing,
}

impl ProgramHeader {
    pub fn of(program: &Program) -> ProgramHeader {
        let mut out = String::new();
        print_program_header(program, &mut out);
        ProgramHeader {
            text: out.into(),
            spacing: program.spacing,
        }
    }

    /// The whole printed file, from its functions' printed texts in order.
    pub fn assemble<'t>(&self, functions: impl IntoIterator<Item = &'t str>) -> String {
        let mut out = self.text.to_string();
        for (i, function) in functions.into_iter().enumerate() {
            if i > 0 {
                out.push_str(self.spacing.separator());
            }
            out.push_str(function);
        }
        out
    }
}

/// Appends `function` — decorator, signature, optional `pl.func_attr(...)` line, body — to
/// `out`, with the decorator line indented by `indent` spaces. Every line ends with `\n`.
pub fn print_function(function: &Function, out: &mut String, indent: usize) {
    FunctionPrinter::new(function, out).function(indent);
}

/// A location-independent encoding of one function, for use as a cache key: its canonical
/// printed text at indentation 0.
///
/// Spans and comments are not in the model, so neither moving a function nor editing
/// whitespace or comments around it changes these bytes. Equal functions (`==`) always encode
/// equally. For parsed functions the converse holds as well (given the same module-level
/// `pl.dynamic` names), because parsing printed text gives the model back — the round-trip tests
/// in `tests/roundtrip.rs` pin this — so nothing the planner reads can differ between two
/// functions with equal bytes.
pub fn canonical_function_bytes(function: &Function) -> Vec<u8> {
    let mut out = String::with_capacity(printed_size_hint(function));
    print_function(function, &mut out, 0);
    out.into_bytes()
}

/// About the bytes a function prints to, for the buffer it is printed into: the length of
/// the text it was parsed from (0 for a function made otherwise).
pub fn printed_size_hint(function: &Function) -> usize {
    function.span.end.saturating_sub(function.span.start) as usize
}

/// Binding strength of atoms, calls, subscripts and displays: tighter than any operator.
const PRIMARY: u8 = 13;

/// How a MemRef base is spelled in the type being printed.
#[derive(Clone, Copy)]
enum BaseStyle {
    /// Signature annotations always quote the base: the allocs come later, in the body.
    Quoted,
    /// In the body, a base defined by an alloc prints as a bare reference to it.
    BareIfAllocated,
    /// A tile's MemRef in the body: its base is a variable reference, printed bare even when
    /// no alloc defines it (as upstream prints such a plan).
    Bare,
}

struct FunctionPrinter<'a> {
    function: &'a Function,
    out: &'a mut String,
    /// Names assigned by `pl.tile.alloc` / `pl.tensor.alloc` anywhere in the body.
    allocated_bases: FxHashSet<&'a str>,
}

impl<'a> FunctionPrinter<'a> {
    fn new(function: &'a Function, out: &'a mut String) -> Self {
        let mut allocated_bases = FxHashSet::default();
        collect_allocated_bases(&function.body, &function.vars, &mut allocated_bases);
        FunctionPrinter {
            function,
            out,
            allocated_bases,
        }
    }

    fn function(&mut self, indent: usize) {
        let f = self.function;
        push_indent(self.out, indent);
        self.out.push_str("@pl.function");
        if !f.decorator.is_empty() {
            self.out.push('(');
            write_kwargs(self.out, &f.decorator, &f.vars);
            self.out.push(')');
        }
        self.out.push('\n');

        push_indent(self.out, indent);
        self.out.push_str("def ");
        self.out.push_str(&f.name);
        self.out.push('(');
        if f.has_self {
            self.out.push_str("self");
        }
        for (i, param) in f.params.iter().enumerate() {
            if i > 0 || f.has_self {
                self.out.push_str(", ");
            }
            self.param(param);
        }
        self.out.push(')');
        if let Some(ret) = &f.ret {
            self.out.push_str(" -> ");
            match ret {
                ReturnType::Single(ty) => self.ty(ty, BaseStyle::Quoted),
                ReturnType::Tuple(types) => {
                    self.out.push_str("tuple[");
                    self.type_list(types, BaseStyle::Quoted);
                    self.out.push(']');
                }
            }
        }
        self.out.push_str(":\n");

        let body_indent = indent + 4;
        if let Some(attrs) = &f.func_attrs {
            push_indent(self.out, body_indent);
            self.out.push_str("pl.func_attr(");
            self.expr(attrs);
            self.out.push_str(")\n");
            if f.body.is_empty() {
                return;
            }
        }
        // Yields directly in the function body have no `for`/`if` to name their results.
        self.block(&f.body, body_indent, &[]);
    }

    fn param(&mut self, param: &Param) {
        self.var_name(param.var);
        let Some(ty) = self.var_type(param.var) else {
            return;
        };
        self.out.push_str(": ");
        let wrapper = match param.direction {
            ParamDirection::In => None,
            ParamDirection::Out => Some("pl.Out["),
            ParamDirection::InOut => Some("pl.InOut["),
        };
        if let Some(wrapper) = wrapper {
            self.out.push_str(wrapper);
        }
        self.ty(ty, BaseStyle::Quoted);
        if wrapper.is_some() {
            self.out.push(']');
        }
    }

    /// Prints `body` at `indent`; `yield_targets` are the return vars of the innermost
    /// enclosing `for`/`if`, which a `pl.yield_` in this block assigns.
    fn block(&mut self, body: &[Stmt], indent: usize, yield_targets: &[VarId]) {
        if body.is_empty() {
            // Python needs a statement; the parser never produces an empty block.
            push_indent(self.out, indent);
            self.out.push_str("pass\n");
        }
        for stmt in body {
            self.stmt(stmt, indent, yield_targets);
        }
    }

    fn stmt(&mut self, stmt: &Stmt, indent: usize, yield_targets: &[VarId]) {
        for comment in stmt.comments.lines() {
            push_indent(self.out, indent);
            self.out.push_str(comment);
            self.out.push('\n');
        }
        push_indent(self.out, indent);
        match &stmt.kind {
            StmtKind::Assign { target, value } => {
                self.annotated_var(*target);
                self.out.push_str(" = ");
                self.expr(value);
            }
            StmtKind::Eval(expr) => self.expr(expr),
            StmtKind::Yield { values } => {
                // An empty yield names no results, whatever the enclosing statement has.
                let targets = if values.is_empty() {
                    &[]
                } else {
                    yield_targets
                };
                match targets {
                    [] => {}
                    [single] => {
                        self.annotated_var(*single);
                        self.out.push_str(" = ");
                    }
                    several => {
                        // A tuple target cannot carry annotations.
                        for (i, &var) in several.iter().enumerate() {
                            if i > 0 {
                                self.out.push_str(", ");
                            }
                            self.var_name(var);
                        }
                        self.out.push_str(" = ");
                    }
                }
                self.out.push_str("pl.yield_(");
                self.expr_list(values);
                self.out.push(')');
            }
            StmtKind::Return { values } => {
                self.out.push_str("return");
                if !values.is_empty() {
                    self.out.push(' ');
                    self.expr_list(values);
                }
            }
            StmtKind::For(for_stmt) => return self.for_stmt(for_stmt, indent),
            StmtKind::If(if_stmt) => return self.if_stmt(if_stmt, indent),
            StmtKind::With(with) => {
                self.out.push_str("with ");
                self.expr(&with.context);
                self.out.push_str(":\n");
                // A `with` is transparent: its yields still belong to the enclosing for/if.
                return self.block(&with.body, indent + 4, yield_targets);
            }
            StmtKind::Pass => self.out.push_str("pass"),
        }
        self.out.push('\n');
    }

    fn for_stmt(&mut self, for_stmt: &ForStmt, indent: usize) {
        self.out.push_str("for ");
        if let Some(loop_var) = for_stmt.loop_var {
            self.var_name(loop_var);
            if !for_stmt.iter_args.is_empty() {
                self.out.push_str(", ");
            }
        }
        if !for_stmt.iter_args.is_empty() || for_stmt.loop_var.is_none() {
            self.out.push('(');
            for (i, &var) in for_stmt.iter_args.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.var_name(var);
            }
            if for_stmt.iter_args.len() == 1 {
                self.out.push(',');
            }
            self.out.push(')');
        }
        self.out.push_str(" in pl.");
        self.out.push_str(for_stmt.kind.name());
        self.out.push('(');
        self.expr_list(&for_stmt.bounds);
        let mut needs_comma = !for_stmt.bounds.is_empty();
        // Upstream prints `stage=` between the bounds and `init_values=`, every other
        // keyword (`attrs=`, ...) after them.
        let (stage, rest): (Vec<&Kwarg>, Vec<&Kwarg>) =
            for_stmt.kwargs.iter().partition(|k| k.name == "stage");
        for kwarg in stage {
            self.kwarg(kwarg, &mut needs_comma);
        }
        if !for_stmt.iter_args.is_empty() || !for_stmt.init_values.is_empty() {
            if needs_comma {
                self.out.push_str(", ");
            }
            self.out.push_str("init_values=");
            self.tuple(&for_stmt.init_values);
            needs_comma = true;
        }
        for kwarg in rest {
            self.kwarg(kwarg, &mut needs_comma);
        }
        self.out.push_str("):\n");
        self.block(&for_stmt.body, indent + 4, &for_stmt.return_vars);
    }

    fn if_stmt(&mut self, if_stmt: &IfStmt, indent: usize) {
        self.out.push_str("if ");
        self.expr(&if_stmt.cond);
        self.out.push_str(":\n");
        self.block(&if_stmt.then_body, indent + 4, &if_stmt.return_vars);
        if let Some(else_body) = &if_stmt.else_body {
            push_indent(self.out, indent);
            self.out.push_str("else:\n");
            self.block(else_body, indent + 4, &if_stmt.return_vars);
        }
    }

    /// `name=value`, preceded by `, ` unless it is the first argument.
    fn kwarg(&mut self, kwarg: &Kwarg, needs_comma: &mut bool) {
        if *needs_comma {
            self.out.push_str(", ");
        }
        *needs_comma = true;
        self.out.push_str(&kwarg.name);
        self.out.push('=');
        self.expr(&kwarg.value);
    }

    /// `name: <type>` when the variable has a type, else `name`.
    fn annotated_var(&mut self, var: VarId) {
        self.var_name(var);
        if let Some(ty) = self.var_type(var) {
            self.out.push_str(": ");
            self.ty(ty, BaseStyle::BareIfAllocated);
        }
    }

    fn var_name(&mut self, var: VarId) {
        push_var_name(self.out, &self.function.vars, var);
    }

    fn var_type(&self, var: VarId) -> Option<&'a Type> {
        self.function.vars.get(var)?.ty.as_ref()
    }

    fn ty(&mut self, ty: &Type, bases: BaseStyle) {
        match ty {
            Type::Tensor(tensor) => {
                self.out.push_str("pl.Tensor[");
                self.shape_and_dtype(&tensor.shape, tensor.dtype);
                for extra in &tensor.extras {
                    self.out.push_str(", ");
                    self.expr(extra);
                }
                if let Some(memref) = &tensor.memref {
                    self.out.push_str(", ");
                    self.memref(memref, bases);
                }
                self.out.push(']');
            }
            Type::Tile(tile) => {
                self.out.push_str("pl.Tile[");
                self.shape_and_dtype(&tile.shape, tile.dtype);
                if let Some(memref) = &tile.memref {
                    self.out.push_str(", ");
                    let bases = match bases {
                        BaseStyle::Quoted => BaseStyle::Quoted,
                        BaseStyle::BareIfAllocated | BaseStyle::Bare => BaseStyle::Bare,
                    };
                    self.memref(memref, bases);
                }
                if let Some(space) = tile.space {
                    self.out.push_str(", ");
                    push_space(self.out, space);
                }
                if let Some(view) = &tile.view {
                    self.out.push_str(", ");
                    self.expr(view);
                }
                self.out.push(']');
            }
            Type::Scalar(dtype) => {
                self.out.push_str("pl.Scalar[");
                push_dtype(self.out, *dtype);
                self.out.push(']');
            }
            Type::Ptr => self.out.push_str("pl.Ptr"),
            Type::MemRefType => self.out.push_str("pl.MemRefType"),
            Type::Tuple(types) if types.is_empty() => self.out.push_str("pl.Tuple[()]"),
            Type::Tuple(types) => {
                self.out.push_str("pl.Tuple[");
                self.type_list(types, bases);
                self.out.push(']');
            }
            Type::Opaque(opaque) => {
                self.out.push_str(&opaque.constructor);
                let Some(args) = &opaque.args else {
                    return;
                };
                self.out.push('[');
                for (i, arg) in args.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    match arg {
                        TypeArg::MemRef(memref) => self.memref(memref, bases),
                        TypeArg::Type(ty) => self.ty(ty, bases),
                        TypeArg::Expr(expr) => self.expr(expr),
                    }
                }
                self.out.push(']');
            }
        }
    }

    fn type_list(&mut self, types: &[Type], bases: BaseStyle) {
        if types.is_empty() {
            self.out.push_str("()");
        }
        for (i, ty) in types.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.ty(ty, bases);
        }
    }

    fn shape_and_dtype(&mut self, shape: &[Expr], dtype: DType) {
        self.out.push('[');
        self.expr_list(shape);
        self.out.push_str("], ");
        push_dtype(self.out, dtype);
    }

    fn memref(&mut self, memref: &MemRef, bases: BaseStyle) {
        self.out.push_str("pl.MemRef(");
        match &memref.extent {
            Some(extent) => {
                let bare = match bases {
                    BaseStyle::Quoted => false,
                    BaseStyle::BareIfAllocated => {
                        self.allocated_bases.contains(memref.base.as_str())
                    }
                    BaseStyle::Bare => true,
                };
                if bare {
                    self.out.push_str(&memref.base);
                } else {
                    push_str_literal(self.out, &memref.base, Quote::Double);
                }
                self.out.push_str(", ");
                self.expr(&extent.offset);
                self.out.push_str(", ");
                self.expr(&extent.size);
            }
            // The declaration form names a buffer no alloc defines yet.
            None => push_str_literal(self.out, &memref.base, Quote::Double),
        }
        if let Some(slots) = memref.slots {
            let _ = write!(self.out, ", slots={slots}");
        }
        self.out.push(')');
        if let Some(index) = &memref.slot_index {
            self.out.push('[');
            self.expr(index);
            self.out.push(']');
        }
    }

    fn expr(&mut self, expr: &Expr) {
        write_expr(self.out, &self.function.vars, expr);
    }

    fn expr_list(&mut self, exprs: &[Expr]) {
        write_expr_list(self.out, &self.function.vars, exprs);
    }

    fn tuple(&mut self, items: &[Expr]) {
        write_tuple(self.out, &self.function.vars, items);
    }
}

fn collect_allocated_bases<'a>(
    body: &'a [Stmt],
    vars: &'a VarTable,
    names: &mut FxHashSet<&'a str>,
) {
    for stmt in body {
        match &stmt.kind {
            StmtKind::Assign { target, value } => {
                let is_alloc = value.is_alloc_call();
                if let (true, Some(var)) = (is_alloc, vars.get(*target)) {
                    names.insert(var.name.as_str());
                }
            }
            StmtKind::For(for_stmt) => collect_allocated_bases(&for_stmt.body, vars, names),
            StmtKind::If(if_stmt) => {
                collect_allocated_bases(&if_stmt.then_body, vars, names);
                if let Some(else_body) = &if_stmt.else_body {
                    collect_allocated_bases(else_body, vars, names);
                }
            }
            StmtKind::With(with) => collect_allocated_bases(&with.body, vars, names),
            StmtKind::Eval(_)
            | StmtKind::Yield { .. }
            | StmtKind::Return { .. }
            | StmtKind::Pass => {}
        }
    }
}

/// `expr` as the printer writes it (a tile's shape dimension in the viewer, say).
pub fn expr_text(vars: &VarTable, expr: &Expr) -> String {
    let mut out = String::new();
    write_expr(&mut out, vars, expr);
    out
}

/// Writes `expr` with the fewest parentheses that keep Python's reading of it equal to the
/// tree, e.g. `1 << 6 + i * 2`, `a - (b - c)`, `-x ** 2` for `-(x ** 2)`. The one redundant
/// pair is upstream's: a unary exponent, `2 ** (-x)`.
fn write_expr(out: &mut String, vars: &VarTable, expr: &Expr) {
    match &expr.kind {
        ExprKind::Var(var) => push_var_name(out, vars, *var),
        ExprKind::Symbol(name) | ExprKind::Float(name) | ExprKind::Path(name) => out.push_str(name),
        ExprKind::Int(value) => out.push_str(itoa::Buffer::new().format(*value)),
        ExprKind::Str { value, quote } => push_str_literal(out, value, *quote),
        ExprKind::Bool(true) => out.push_str("True"),
        ExprKind::Bool(false) => out.push_str("False"),
        ExprKind::None => out.push_str("None"),
        ExprKind::DType(dtype) => push_dtype(out, *dtype),
        ExprKind::Const { value, dtype } => {
            out.push_str("pl.const(");
            out.push_str(itoa::Buffer::new().format(*value));
            out.push_str(", ");
            push_dtype(out, *dtype);
            out.push(')');
        }
        ExprKind::Space(space) => push_space(out, *space),
        ExprKind::Call(_, call) => {
            out.push_str(&call.callee);
            out.push('(');
            write_expr_list(out, vars, &call.args);
            if !call.args.is_empty() && !call.kwargs.is_empty() {
                out.push_str(", ");
            }
            write_kwargs(out, &call.kwargs, vars);
            out.push(')');
        }
        ExprKind::List(items) => {
            out.push('[');
            write_expr_list(out, vars, items);
            out.push(']');
        }
        ExprKind::Tuple(items) => write_tuple(out, vars, items),
        ExprKind::Dict(entries) => {
            out.push('{');
            for (i, (key, value)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_expr(out, vars, key);
                out.push_str(": ");
                write_expr(out, vars, value);
            }
            out.push('}');
        }
        ExprKind::Index { base, index } => {
            write_operand(out, vars, base, PRIMARY);
            out.push('[');
            write_expr(out, vars, index);
            out.push(']');
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let own = op.precedence();
            let (lhs_min, rhs_min) = match op {
                // `a ** b ** c` is `a ** (b ** c)`; the base of a power must be a primary:
                // `(-x) ** 2`. Python would read `2 ** -x` fine, but upstream prints
                // `2 ** (-x)` and we print what upstream prints.
                BinOp::Pow => (PRIMARY, own),
                // `a < b < c` is a chain in Python, not `(a < b) < c`.
                BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                    (own + 1, own + 1)
                }
                _ => (own, own + 1),
            };
            write_operand(out, vars, lhs, lhs_min);
            out.push(' ');
            out.push_str(op.name());
            out.push(' ');
            write_operand(out, vars, rhs, rhs_min);
        }
        ExprKind::Unary { op, operand } => {
            out.push_str(match op {
                UnaryOp::Pos => "+",
                UnaryOp::Neg => "-",
                UnaryOp::Not => "not ",
                UnaryOp::Invert => "~",
            });
            // Unary operators nest to the right: `- -x`, `not not x`, `-x ** 2`.
            write_operand(out, vars, operand, op.precedence());
        }
    }
}

/// Writes `expr`, parenthesised when it binds looser than `min_precedence`.
fn write_operand(out: &mut String, vars: &VarTable, expr: &Expr, min_precedence: u8) {
    if precedence(expr) < min_precedence {
        out.push('(');
        write_expr(out, vars, expr);
        out.push(')');
    } else {
        write_expr(out, vars, expr);
    }
}

fn precedence(expr: &Expr) -> u8 {
    match &expr.kind {
        ExprKind::Binary { op, .. } => op.precedence(),
        ExprKind::Unary { op, .. } => op.precedence(),
        // A negative literal prints with a leading `-`, so it binds like a unary minus.
        ExprKind::Int(value) if *value < 0 => UnaryOp::Neg.precedence(),
        ExprKind::Float(text) if text.starts_with('-') => UnaryOp::Neg.precedence(),
        _ => PRIMARY,
    }
}

fn write_expr_list(out: &mut String, vars: &VarTable, exprs: &[Expr]) {
    for (i, expr) in exprs.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_expr(out, vars, expr);
    }
}

/// `(a, b)`, `(a,)` or `()`.
fn write_tuple(out: &mut String, vars: &VarTable, items: &[Expr]) {
    out.push('(');
    write_expr_list(out, vars, items);
    if items.len() == 1 {
        out.push(',');
    }
    out.push(')');
}

fn write_kwargs(out: &mut String, kwargs: &[Kwarg], vars: &VarTable) {
    for (i, kwarg) in kwargs.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&kwarg.name);
        out.push('=');
        write_expr(out, vars, &kwarg.value);
    }
}

fn push_var_name(out: &mut String, vars: &VarTable, var: VarId) {
    match vars.get(var) {
        Some(v) => out.push_str(&v.name),
        // Not valid Python on purpose: a dangling id is a bug that should stay visible.
        None => {
            let _ = write!(out, "<undefined v{}>", var.0);
        }
    }
}

fn push_dtype(out: &mut String, dtype: DType) {
    out.push_str("pl.");
    out.push_str(dtype.name());
}

fn push_space(out: &mut String, space: MemSpace) {
    out.push_str("pl.Mem.");
    out.push_str(space.name());
}

fn push_indent(out: &mut String, indent: usize) {
    out.extend(std::iter::repeat_n(' ', indent));
}

/// A Python string literal for `value`; escapes keep every literal on one line.
fn push_str_literal(out: &mut String, value: &str, quote: Quote) {
    let quote_char = match quote {
        Quote::Single => '\'',
        Quote::Double => '"',
    };
    out.push(quote_char);
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote_char => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push(quote_char);
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;
    use crate::Span;

    /// Builds one function's variables and statements by hand.
    #[derive(Default)]
    struct Builder {
        vars: VarTable,
        params: Vec<Param>,
    }

    impl Builder {
        fn var(&mut self, name: &str, kind: VarKind, ty: Option<Type>) -> VarId {
            self.vars.push(Var {
                name: name.into(),
                kind,
                ty,
                span: Span::default(),
            })
        }
        fn local(&mut self, name: &str, ty: Type) -> VarId {
            self.var(name, VarKind::Local, Some(ty))
        }
        fn untyped(&mut self, name: &str, kind: VarKind) -> VarId {
            self.var(name, kind, None)
        }
        fn param(&mut self, name: &str, ty: Type, direction: ParamDirection) -> VarId {
            let var = self.var(name, VarKind::Param, Some(ty));
            self.params.push(Param {
                var,
                direction,
                span: Span::default(),
            });
            var
        }
        fn function(self, name: &str, body: Vec<Stmt>) -> Function {
            Function {
                name: name.into(),
                decorator: vec![],
                func_attrs: None,
                has_self: true,
                params: self.params,
                ret: None,
                body: body.into(),
                vars: self.vars,
                span: Span::default(),
            }
        }
    }

    fn ex(kind: ExprKind) -> Expr {
        Expr::new(kind, Span::default())
    }
    fn int(value: i64) -> Expr {
        ex(ExprKind::Int(value))
    }
    fn var(id: VarId) -> Expr {
        ex(ExprKind::Var(id))
    }
    fn sym(name: &str) -> Expr {
        ex(ExprKind::Symbol(name.into()))
    }
    fn path(text: &str) -> Expr {
        ex(ExprKind::Path(text.into()))
    }
    fn string(value: &str, quote: Quote) -> Expr {
        ex(ExprKind::Str {
            value: value.into(),
            quote,
        })
    }
    fn kw(name: &str, value: Expr) -> Kwarg {
        Kwarg {
            name: name.into(),
            value,
            span: Span::default(),
        }
    }
    fn call(callee: &str, args: Vec<Expr>, kwargs: Vec<Kwarg>) -> Expr {
        ex(ExprKind::call(Call {
            callee: callee.into(),
            args: args.into(),
            kwargs,
        }))
    }
    fn bin(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
        ex(ExprKind::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        })
    }
    fn un(op: UnaryOp, operand: Expr) -> Expr {
        ex(ExprKind::Unary {
            op,
            operand: Box::new(operand),
        })
    }
    fn dict(entries: Vec<(&str, Expr)>) -> Expr {
        ex(ExprKind::Dict(
            entries
                .into_iter()
                .map(|(k, v)| (string(k, Quote::Double), v))
                .collect(),
        ))
    }
    fn st(kind: StmtKind) -> Stmt {
        Stmt::new(kind, Span::default())
    }
    fn assign(target: VarId, value: Expr) -> Stmt {
        st(StmtKind::Assign { target, value })
    }
    fn yield_(values: Vec<Expr>) -> Stmt {
        st(StmtKind::Yield { values })
    }
    fn ret(values: Vec<Expr>) -> Stmt {
        st(StmtKind::Return { values })
    }
    fn memref(base: &str, offset: i64, size: i64) -> MemRef {
        MemRef {
            base: base.into(),
            extent: Some(MemRefExtent {
                offset: int(offset),
                size: int(size),
            }),
            slots: None,
            slot_index: None,
            span: Span::default(),
        }
    }
    fn tile(dims: &[i64], memref: Option<MemRef>, space: Option<MemSpace>) -> Type {
        Type::Tile(TileType {
            shape: dims.iter().map(|&d| int(d)).collect(),
            dtype: DType::Fp32,
            memref,
            space,
            view: None,
        })
    }
    fn vec_tile(base: &str) -> Type {
        tile(&[64, 64], Some(memref(base, 0, 16384)), Some(MemSpace::Vec))
    }
    fn tensor(dims: &[i64], memref: Option<MemRef>) -> Type {
        Type::Tensor(TensorType {
            shape: dims.iter().map(|&d| int(d)).collect(),
            dtype: DType::Fp32,
            extras: vec![],
            memref,
        })
    }
    fn alloc(space: &str, size: i64) -> Expr {
        call("pl.tile.alloc", vec![path(space), int(size)], vec![])
    }

    fn check_function(function: &Function, expected: Expect) {
        let mut out = String::new();
        print_function(function, &mut out, 0);
        expected.assert_eq(&out);
    }

    fn check_expr(expr: &Expr, expected: &str) {
        let mut out = String::new();
        write_expr(&mut out, &VarTable::default(), expr);
        assert_eq!(out, expected);
    }

    #[test]
    fn program_layout_decorators_signatures_and_bases() {
        let mut b = Builder::default();
        let input = b.param(
            "input_a",
            tensor(&[64, 64], Some(memref("mem_ddr_0", 0, 16384))),
            ParamDirection::In,
        );
        let output = b.param(
            "output",
            tensor(&[64, 64], Some(memref("mem_ddr_1", 0, 16384))),
            ParamDirection::Out,
        );
        let state = b.param("state", vec_tile("mem_vec_3"), ParamDirection::InOut);
        let mem = b.local("mem_vec_3", Type::Ptr);
        let tile_a = b.local("tile_a", vec_tile("mem_vec_3"));
        let result = b.local(
            "result",
            tensor(&[64, 64], Some(memref("mem_ddr_1", 0, 16384))),
        );
        let loaded = b.untyped("lhs_mat", VarKind::Local);
        let body = vec![
            assign(mem, alloc("pl.Mem.Vec", 16384)),
            assign(
                tile_a,
                call(
                    "pl.tile.load",
                    vec![var(input), ex(ExprKind::List(vec![int(0), int(0)]))],
                    vec![kw("target_memory", ex(ExprKind::Space(MemSpace::Vec)))],
                ),
            ),
            assign(loaded, var(tile_a)),
            st(StmtKind::Eval(call(
                "pl.reserve_buffer",
                vec![],
                vec![
                    kw("name", string("scratch", Quote::Double)),
                    kw("size", int(4096)),
                ],
            ))),
            assign(
                result,
                call("pl.tile.store", vec![var(tile_a), var(output)], vec![]),
            ),
            ret(vec![var(result), var(state)]),
        ];
        let mut kernel = b.function("kernel", body);
        kernel.decorator = vec![
            kw("type", path("pl.FunctionType.InCore")),
            kw("level", path("pl.Level.CORE")),
        ];
        kernel.func_attrs = Some(dict(vec![("split", path("pl.SplitMode.UP_DOWN"))]));
        kernel.ret = Some(ReturnType::Tuple(vec![
            tensor(&[64, 64], Some(memref("mem_ddr_1", 0, 16384))),
            vec_tile("mem_vec_3"),
        ]));

        let mut b = Builder::default();
        b.param("x", Type::Scalar(DType::Int32), ParamDirection::In);
        let mut worker = b.function("worker", vec![ret(vec![])]);
        worker.has_self = false;
        worker.ret = Some(ReturnType::Single(Type::Scalar(DType::Int32)));

        let program = Program {
            preamble: "# pypto.program: Demo\nimport pypto.language as pl\n\n".into(),
            decorator: vec![],
            name: "Demo".into(),
            functions: vec![kernel, worker],
            dynamic_dims: vec![],
            spacing: FunctionSpacing::BlankLine,
            span: Span::default(),
        };
        expect![[r#"
            # pypto.program: Demo
            import pypto.language as pl

            @pl.program
            class Demo:
                @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CORE)
                def kernel(self, input_a: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", 0, 16384)], output: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", 0, 16384)]], state: pl.InOut[pl.Tile[[64, 64], pl.FP32, pl.MemRef("mem_vec_3", 0, 16384), pl.Mem.Vec]]) -> tuple[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", 0, 16384)], pl.Tile[[64, 64], pl.FP32, pl.MemRef("mem_vec_3", 0, 16384), pl.Mem.Vec]]:
                    pl.func_attr({"split": pl.SplitMode.UP_DOWN})
                    mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
                    tile_a: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, 0, 16384), pl.Mem.Vec] = pl.tile.load(input_a, [0, 0], target_memory=pl.Mem.Vec)
                    lhs_mat = tile_a
                    pl.reserve_buffer(name="scratch", size=4096)
                    result: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", 0, 16384)] = pl.tile.store(tile_a, output)
                    return result, state

                @pl.function
                def worker(x: pl.Scalar[pl.INT32]) -> pl.Scalar[pl.INT32]:
                    return
        "#]]
        .assert_eq(&print_program(&program));
    }

    #[test]
    fn program_decorator_kwargs_and_preamble_without_newline() {
        let program = Program {
            preamble: "import pypto.language as pl".into(),
            decorator: vec![kw("name", string("P", Quote::Single))],
            name: "P".into(),
            functions: vec![Builder::default().function("f", vec![ret(vec![])])],
            dynamic_dims: vec![],
            spacing: FunctionSpacing::BlankLine,
            span: Span::default(),
        };
        expect![[r#"
            import pypto.language as pl
            @pl.program(name='P')
            class P:
                @pl.function
                def f(self):
                    return
        "#]]
        .assert_eq(&print_program(&program));
    }

    #[test]
    fn for_loops_print_carries_bounds_kwargs_and_yield_targets() {
        let mut b = Builder::default();
        let init = b.param("init_0", vec_tile("mem_vec_0"), ParamDirection::In);
        let mem = b.local("mem_vec_0", Type::Ptr);
        let i = b.untyped("_i", VarKind::LoopVar);
        let acc = b.untyped("acc_0", VarKind::IterArg);
        let next = b.local("next_0", vec_tile("mem_vec_0"));
        let out = b.var("out_0", VarKind::ReturnVar, Some(vec_tile("mem_vec_0")));
        let j = b.untyped("j", VarKind::LoopVar);
        let (p, q) = (
            b.untyped("p", VarKind::IterArg),
            b.untyped("q", VarKind::IterArg),
        );
        let (p_out, q_out) = (
            b.untyped("p_out", VarKind::ReturnVar),
            b.untyped("_q_out", VarKind::ReturnVar),
        );
        let k = b.untyped("k", VarKind::LoopVar);
        let untyped_out = b.untyped("u_out", VarKind::ReturnVar);
        let single_carry = ForStmt {
            loop_var: Some(i),
            iter_args: vec![acc],
            kind: LoopKind::Range,
            bounds: vec![int(4)],
            init_values: vec![var(init)],
            kwargs: vec![],
            body: vec![
                assign(next, call("pl.tile.add", vec![var(acc), var(acc)], vec![])),
                yield_(vec![var(next)]),
            ],
            return_vars: vec![out],
        };
        let pair_carry = ForStmt {
            loop_var: Some(j),
            iter_args: vec![p, q],
            kind: LoopKind::Pipeline,
            bounds: vec![int(0), int(8), int(2)],
            init_values: vec![var(out), var(out)],
            kwargs: vec![
                kw("stage", int(2)),
                kw("attrs", dict(vec![("unroll", ex(ExprKind::Bool(true)))])),
            ],
            // The yield sits in a `with`, which is transparent.
            body: vec![st(StmtKind::With(Box::new(WithStmt {
                context: call("pl.scope", vec![], vec![]),
                body: vec![yield_(vec![var(q), var(p)])],
            })))],
            return_vars: vec![p_out, q_out],
        };
        let untyped_carry = ForStmt {
            loop_var: Some(k),
            iter_args: vec![acc],
            kind: LoopKind::Unroll,
            bounds: vec![int(1), sym("N")],
            init_values: vec![var(p_out)],
            kwargs: vec![],
            body: vec![yield_(vec![var(acc)])],
            return_vars: vec![untyped_out],
        };
        let plain = ForStmt {
            loop_var: Some(k),
            iter_args: vec![],
            kind: LoopKind::Parallel,
            bounds: vec![int(4)],
            init_values: vec![],
            kwargs: vec![kw("stage", int(2))],
            body: vec![st(StmtKind::Pass)],
            return_vars: vec![],
        };
        let body = vec![
            assign(mem, alloc("pl.Mem.Vec", 16384)),
            st(StmtKind::For(Box::new(single_carry))),
            st(StmtKind::For(Box::new(pair_carry))),
            st(StmtKind::For(Box::new(untyped_carry))),
            st(StmtKind::For(Box::new(plain))),
            ret(vec![var(out)]),
        ];
        check_function(
            &b.function("loops", body),
            expect![[r#"
                @pl.function
                def loops(self, init_0: pl.Tile[[64, 64], pl.FP32, pl.MemRef("mem_vec_0", 0, 16384), pl.Mem.Vec]):
                    mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
                    for _i, (acc_0,) in pl.range(4, init_values=(init_0,)):
                        next_0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 16384), pl.Mem.Vec] = pl.tile.add(acc_0, acc_0)
                        out_0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 16384), pl.Mem.Vec] = pl.yield_(next_0)
                    for j, (p, q) in pl.pipeline(0, 8, 2, stage=2, init_values=(out_0, out_0), attrs={"unroll": True}):
                        with pl.scope():
                            p_out, _q_out = pl.yield_(q, p)
                    for k, (acc_0,) in pl.unroll(1, N, init_values=(p_out,)):
                        u_out = pl.yield_(acc_0)
                    for k in pl.parallel(4, stage=2):
                        pass
                    return out_0
            "#]],
        );
    }

    #[test]
    fn ifs_yield_into_their_own_return_vars() {
        let mut b = Builder::default();
        let c = b.param("c", Type::Scalar(DType::Int64), ParamDirection::In);
        let t = b.param(
            "t",
            tile(&[16], None, Some(MemSpace::Vec)),
            ParamDirection::In,
        );
        let phi = b.var(
            "if_result",
            VarKind::ReturnVar,
            Some(tile(&[16], None, Some(MemSpace::Vec))),
        );
        let i = b.untyped("i", VarKind::LoopVar);
        let acc = b.untyped("acc", VarKind::IterArg);
        let loop_out = b.untyped("loop_out", VarKind::ReturnVar);
        let phi_if = IfStmt {
            cond: bin(BinOp::Lt, var(c), int(2)),
            then_body: vec![yield_(vec![var(t)])],
            else_body: Some(vec![yield_(vec![var(t)])]),
            return_vars: vec![phi],
        };
        // An empty yield is bare even where the enclosing `if` has return vars; the loop's
        // own yield still names the loop's result.
        let inner_if = IfStmt {
            cond: un(UnaryOp::Not, var(c)),
            then_body: vec![yield_(vec![])],
            else_body: None,
            return_vars: vec![phi],
        };
        let for_stmt = ForStmt {
            loop_var: Some(i),
            iter_args: vec![acc],
            kind: LoopKind::Range,
            bounds: vec![int(2)],
            init_values: vec![var(phi)],
            kwargs: vec![],
            body: vec![st(StmtKind::If(Box::new(inner_if))), yield_(vec![var(acc)])],
            return_vars: vec![loop_out],
        };
        let empty_else = IfStmt {
            cond: ex(ExprKind::Bool(false)),
            then_body: vec![],
            else_body: Some(vec![]),
            return_vars: vec![],
        };
        let body = vec![
            st(StmtKind::If(Box::new(phi_if))),
            st(StmtKind::For(Box::new(for_stmt))),
            st(StmtKind::If(Box::new(empty_else))),
            yield_(vec![]),
            ret(vec![var(loop_out)]),
        ];
        check_function(
            &b.function("branches", body),
            expect![[r#"
                @pl.function
                def branches(self, c: pl.Scalar[pl.INT64], t: pl.Tile[[16], pl.FP32, pl.Mem.Vec]):
                    if c < 2:
                        if_result: pl.Tile[[16], pl.FP32, pl.Mem.Vec] = pl.yield_(t)
                    else:
                        if_result: pl.Tile[[16], pl.FP32, pl.Mem.Vec] = pl.yield_(t)
                    for i, (acc,) in pl.range(2, init_values=(if_result,)):
                        if not c:
                            pl.yield_()
                        loop_out = pl.yield_(acc)
                    if False:
                        pass
                    else:
                        pass
                    pl.yield_()
                    return loop_out
            "#]],
        );
    }

    #[test]
    fn types_print_every_optional_part_in_order() {
        let mut b = Builder::default();
        let mem = b.local("mem_mat_1", Type::Ptr);
        let view = call(
            "pl.TileView",
            vec![],
            vec![
                kw("valid_shape", ex(ExprKind::List(vec![int(16), sym("M")]))),
                kw("pad", path("pl.PadValue.max")),
            ],
        );
        let full_tile = Type::Tile(TileType {
            shape: [int(16), sym("M")].into(),
            dtype: DType::Bf16,
            memref: Some(MemRef {
                slots: Some(2),
                slot_index: Some(Box::new(int(1))),
                ..memref("mem_mat_1", 0, 1024)
            }),
            space: Some(MemSpace::Mat),
            view: Some(view),
        });
        let declared = Type::Tile(TileType {
            shape: [int(8)].into(),
            dtype: DType::Int8,
            memref: Some(MemRef {
                base: "pinned_buf".into(),
                extent: None,
                slots: Some(2),
                slot_index: Some(Box::new(bin(BinOp::Mod, sym("i"), int(2)))),
                span: Span::default(),
            }),
            space: Some(MemSpace::Vec),
            view: None,
        });
        let declared_plain = Type::Tile(TileType {
            shape: [].into(),
            dtype: DType::Fp16,
            memref: Some(MemRef {
                base: "buf".into(),
                extent: None,
                slots: None,
                slot_index: None,
                span: Span::default(),
            }),
            space: None,
            view: None,
        });
        let tensor_view = Type::Tensor(TensorType {
            shape: [bin(
                BinOp::Mul,
                sym("blk__ssa_v0"),
                call(
                    "pl.const",
                    vec![int(32), ex(ExprKind::DType(DType::Index))],
                    vec![],
                ),
            )]
            .into(),
            dtype: DType::Int8,
            extras: vec![call("pl.TensorView", vec![], vec![])],
            memref: Some(MemRef {
                extent: Some(MemRefExtent {
                    offset: call(
                        "pl.const",
                        vec![int(0), ex(ExprKind::DType(DType::Int64))],
                        vec![],
                    ),
                    size: int(0),
                }),
                ..memref("mem_ddr_2", 0, 0)
            }),
        });
        let types = [
            ("full", full_tile),
            ("declared", declared),
            ("declared_plain", declared_plain),
            ("tensor", tensor_view),
            ("bare_tensor", tensor(&[4], None)),
            ("no_extras", tile(&[4], None, None)),
            ("mr", Type::MemRefType),
            (
                "pair",
                Type::Tuple(vec![Type::Ptr, Type::Scalar(DType::Index)]),
            ),
            ("unit", Type::Tuple(vec![])),
        ];
        let mut body = vec![assign(mem, alloc("pl.Mem.Mat", 2048))];
        for (name, ty) in types {
            let target = b.local(name, ty);
            body.push(assign(target, ex(ExprKind::None)));
        }
        let mut function = b.function("types", body);
        function.ret = Some(ReturnType::Tuple(vec![]));
        check_function(
            &function,
            expect![[r#"
                @pl.function
                def types(self) -> tuple[()]:
                    mem_mat_1: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 2048)
                    full: pl.Tile[[16, M], pl.BF16, pl.MemRef(mem_mat_1, 0, 1024, slots=2)[1], pl.Mem.Mat, pl.TileView(valid_shape=[16, M], pad=pl.PadValue.max)] = None
                    declared: pl.Tile[[8], pl.INT8, pl.MemRef("pinned_buf", slots=2)[i % 2], pl.Mem.Vec] = None
                    declared_plain: pl.Tile[[], pl.FP16, pl.MemRef("buf")] = None
                    tensor: pl.Tensor[[blk__ssa_v0 * pl.const(32, pl.INDEX)], pl.INT8, pl.TensorView(), pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 0)] = None
                    bare_tensor: pl.Tensor[[4], pl.FP32] = None
                    no_extras: pl.Tile[[4], pl.FP32] = None
                    mr: pl.MemRefType = None
                    pair: pl.Tuple[pl.Ptr, pl.Scalar[pl.INDEX]] = None
                    unit: pl.Tuple[()] = None
            "#]],
        );
    }

    #[test]
    fn allocs_anywhere_in_the_body_make_bases_bare() {
        let mut b = Builder::default();
        let mem = b.local("mem_vec_7", Type::Ptr);
        let t = b.local("t", vec_tile("mem_vec_7"));
        let other = b.local("o", vec_tile("mem_ddr_9"));
        let tensor_mem = b.local("mem_ddr_9", Type::Ptr);
        let with = WithStmt {
            context: call(
                "pl.scope",
                vec![],
                vec![kw("mode", path("pl.ScopeMode.MANUAL"))],
            ),
            body: vec![
                assign(mem, alloc("pl.Mem.Vec", 16384)),
                assign(
                    tensor_mem,
                    call("pl.tensor.alloc", vec![path("pl.Mem.DDR"), int(4)], vec![]),
                ),
            ],
        };
        let body = vec![
            assign(t, ex(ExprKind::None)),
            assign(other, ex(ExprKind::None)),
            st(StmtKind::With(Box::new(with))),
        ];
        check_function(
            &b.function("f", body),
            expect![[r#"
                @pl.function
                def f(self):
                    t: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_7, 0, 16384), pl.Mem.Vec] = None
                    o: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_ddr_9, 0, 16384), pl.Mem.Vec] = None
                    with pl.scope(mode=pl.ScopeMode.MANUAL):
                        mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
                        mem_ddr_9: pl.Ptr = pl.tensor.alloc(pl.Mem.DDR, 4)
            "#]],
        );
    }

    #[test]
    fn degenerate_models_print_without_panicking() {
        let mut function = Builder::default().function("empty", vec![]);
        function.params.push(Param {
            var: VarId(42),
            direction: ParamDirection::Out,
            span: Span::default(),
        });
        check_function(
            &function,
            expect![[r#"
                @pl.function
                def empty(self, <undefined v42>):
                    pass
            "#]],
        );
        function.params.clear();
        function.func_attrs = Some(dict(vec![]));
        check_function(
            &function,
            expect![[r#"
                @pl.function
                def empty(self):
                    pl.func_attr({})
            "#]],
        );
    }

    #[test]
    fn canonical_bytes_ignore_spans_and_start_at_column_zero() {
        let mut b = Builder::default();
        let x = b.param("x", Type::Scalar(DType::Int32), ParamDirection::In);
        let function = b.function("f", vec![ret(vec![var(x)])]);
        let mut moved = function.clone();
        moved.span = Span::new(100, 200);
        moved.body[0].span = Span::new(150, 160);
        moved.vars[x].span = Span::new(110, 111);
        assert_eq!(
            canonical_function_bytes(&function),
            canonical_function_bytes(&moved)
        );
        assert_eq!(
            String::from_utf8(canonical_function_bytes(&function)).unwrap(),
            "@pl.function\ndef f(self, x: pl.Scalar[pl.INT32]):\n    return x\n"
        );
    }

    #[test]
    fn literals_and_displays() {
        check_expr(&int(-5), "-5");
        check_expr(&un(UnaryOp::Neg, int(5)), "-5");
        check_expr(&ex(ExprKind::Float("1e-6".into())), "1e-6");
        check_expr(
            &string("it's \"q\"\\\n", Quote::Single),
            r#"'it\'s "q"\\\n'"#,
        );
        check_expr(
            &string("it's \"q\"\t\u{1}", Quote::Double),
            r#""it's \"q\"\t\x01""#,
        );
        check_expr(&ex(ExprKind::Bool(true)), "True");
        check_expr(&ex(ExprKind::None), "None");
        check_expr(&ex(ExprKind::DType(DType::Fp8E4m3fn)), "pl.FP8E4M3FN");
        check_expr(
            &ex(ExprKind::Space(MemSpace::ScalarLocal)),
            "pl.Mem.ScalarLocal",
        );
        check_expr(&path("self.helper"), "self.helper");
        check_expr(&ex(ExprKind::List(vec![])), "[]");
        check_expr(&ex(ExprKind::Tuple(vec![int(1)])), "(1,)");
        check_expr(&ex(ExprKind::Tuple(vec![int(1), int(2)])), "(1, 2)");
        check_expr(&ex(ExprKind::Tuple(vec![])), "()");
        check_expr(
            &dict(vec![("a", int(1)), ("b", string("0:1", Quote::Double))]),
            r#"{"a": 1, "b": "0:1"}"#,
        );
        let index = |base| {
            ex(ExprKind::Index {
                base: Box::new(base),
                index: Box::new(int(0)),
            })
        };
        check_expr(&index(sym("t")), "t[0]");
        check_expr(&index(bin(BinOp::Add, sym("a"), sym("b"))), "(a + b)[0]");
        check_expr(&index(int(-1)), "(-1)[0]");
        check_expr(
            &call(
                "pl.tile.move",
                vec![sym("b0m")],
                vec![
                    kw("target_memory", ex(ExprKind::Space(MemSpace::Right))),
                    kw(
                        "attrs",
                        dict(vec![("pipeline_membership", string("0:1", Quote::Double))]),
                    ),
                ],
            ),
            r#"pl.tile.move(b0m, target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:1"})"#,
        );
        check_expr(&call("min", vec![], vec![kw("k", int(1))]), "min(k=1)");
    }

    #[test]
    fn operators_get_minimal_parentheses() {
        let (a, b, c) = (sym("a"), sym("b"), sym("c"));
        let cases = [
            (
                bin(
                    BinOp::Shl,
                    int(1),
                    bin(BinOp::Add, int(6), bin(BinOp::Mul, sym("i"), int(2))),
                ),
                // `+` binds tighter than `<<`: the hand-written `1 << (6 + i * 2)` loses its
                // parentheses, as in upstream's printer.
                "1 << 6 + i * 2",
            ),
            (
                bin(BinOp::Add, bin(BinOp::Shl, int(1), int(6)), sym("i")),
                "(1 << 6) + i",
            ),
            (
                bin(BinOp::Sub, a.clone(), bin(BinOp::Sub, b.clone(), c.clone())),
                "a - (b - c)",
            ),
            (
                bin(BinOp::Sub, bin(BinOp::Sub, a.clone(), b.clone()), c.clone()),
                "a - b - c",
            ),
            (
                bin(BinOp::Mul, bin(BinOp::Add, a.clone(), b.clone()), c.clone()),
                "(a + b) * c",
            ),
            (
                bin(BinOp::Add, a.clone(), bin(BinOp::Mul, b.clone(), c.clone())),
                "a + b * c",
            ),
            (
                bin(BinOp::Pow, a.clone(), bin(BinOp::Pow, b.clone(), c.clone())),
                "a ** b ** c",
            ),
            (
                bin(BinOp::Pow, bin(BinOp::Pow, a.clone(), b.clone()), c.clone()),
                "(a ** b) ** c",
            ),
            (
                un(UnaryOp::Neg, bin(BinOp::Pow, a.clone(), int(2))),
                "-a ** 2",
            ),
            (
                bin(BinOp::Pow, un(UnaryOp::Neg, a.clone()), int(2)),
                "(-a) ** 2",
            ),
            (bin(BinOp::Pow, int(-2), int(2)), "(-2) ** 2"),
            (
                bin(BinOp::Pow, int(2), un(UnaryOp::Neg, a.clone())),
                "2 ** (-a)",
            ),
            (
                bin(BinOp::Mul, un(UnaryOp::Neg, a.clone()), b.clone()),
                "-a * b",
            ),
            (
                un(UnaryOp::Neg, bin(BinOp::Add, a.clone(), b.clone())),
                "-(a + b)",
            ),
            (un(UnaryOp::Invert, a.clone()), "~a"),
            (un(UnaryOp::Neg, un(UnaryOp::Neg, a.clone())), "--a"),
            (
                un(UnaryOp::Not, bin(BinOp::Eq, a.clone(), b.clone())),
                "not a == b",
            ),
            (
                un(UnaryOp::Not, bin(BinOp::And, a.clone(), b.clone())),
                "not (a and b)",
            ),
            (
                bin(BinOp::And, a.clone(), un(UnaryOp::Not, b.clone())),
                "a and not b",
            ),
            (
                bin(BinOp::Eq, un(UnaryOp::Not, a.clone()), b.clone()),
                "(not a) == b",
            ),
            (un(UnaryOp::Neg, un(UnaryOp::Not, a.clone())), "-(not a)"),
            (
                bin(BinOp::Lt, bin(BinOp::Lt, a.clone(), b.clone()), c.clone()),
                "(a < b) < c",
            ),
            (
                bin(BinOp::Ne, a.clone(), bin(BinOp::Ge, b.clone(), c.clone())),
                "a != (b >= c)",
            ),
            (
                bin(
                    BinOp::Lt,
                    bin(BinOp::BitOr, a.clone(), b.clone()),
                    c.clone(),
                ),
                "a | b < c",
            ),
            (
                bin(BinOp::Or, bin(BinOp::And, a.clone(), b.clone()), c.clone()),
                "a and b or c",
            ),
            (
                bin(BinOp::And, a.clone(), bin(BinOp::Or, b.clone(), c.clone())),
                "a and (b or c)",
            ),
            (
                bin(
                    BinOp::BitAnd,
                    bin(BinOp::BitXor, a.clone(), b.clone()),
                    c.clone(),
                ),
                "(a ^ b) & c",
            ),
            (
                bin(BinOp::FloorDiv, a.clone(), bin(BinOp::Mod, b, c)),
                "a // (b % c)",
            ),
            (bin(BinOp::Sub, a.clone(), int(-5)), "a - -5"),
            (
                bin(BinOp::Sub, a, ex(ExprKind::Float("-1.0".into()))),
                "a - -1.0",
            ),
        ];
        for (expr, expected) in cases {
            check_expr(&expr, expected);
        }
    }
}
