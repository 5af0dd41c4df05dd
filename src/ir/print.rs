//! The IR printer: [`Program`] → text in PyPTO's canonical printed form (SPEC §1.8).
//!
//! Output is what upstream's raw printer emits: one line per statement and per signature, every
//! typed assignment annotated, 4-space indentation, minimal parentheses. Spans and comments are
//! not part of the model, so printing is a pure function of what a program means; that is what
//! makes [`canonical_function_bytes`] usable as a cache key.
//!
//! Printing never panics: model values that no parse can produce (an empty block, a dangling
//! [`VarId`]) print as something visible rather than aborting.

use std::collections::HashSet;
use std::fmt::Write as _;

use super::model::*;

/// Prints a whole file: the preamble verbatim, the `@pl.program` class, and its functions
/// separated by one blank line. The text ends with a single `\n`.
pub fn print_program(program: &Program) -> String {
    let mut out = String::new();
    out.push_str(&program.preamble);
    if !program.preamble.is_empty() && !program.preamble.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("@pl.program");
    if !program.decorator.is_empty() {
        out.push('(');
        write_kwargs(&mut out, &program.decorator, &VarTable::default());
        out.push(')');
    }
    out.push_str("\nclass ");
    out.push_str(&program.name);
    out.push_str(":\n");
    for (i, function) in program.functions.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        print_function(function, &mut out, 4);
    }
    out
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
/// equally; for functions produced by the parser the converse holds too, because parsing the
/// printed text gives the same model back (the round-trip property), so nothing the planner
/// reads can differ between two functions with equal bytes.
pub fn canonical_function_bytes(function: &Function) -> Vec<u8> {
    let mut out = String::new();
    print_function(function, &mut out, 0);
    out.into_bytes()
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
}

struct FunctionPrinter<'a> {
    function: &'a Function,
    out: &'a mut String,
    /// Names assigned by `pl.tile.alloc` / `pl.tensor.alloc` anywhere in the body.
    allocated_bases: HashSet<&'a str>,
}

impl<'a> FunctionPrinter<'a> {
    fn new(function: &'a Function, out: &'a mut String) -> Self {
        let mut allocated_bases = HashSet::new();
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
        push_indent(self.out, indent);
        match &stmt.kind {
            StmtKind::Assign { target, value } => {
                self.annotated_var(*target);
                self.out.push_str(" = ");
                self.expr(value);
            }
            StmtKind::Eval(expr) => self.expr(expr),
            StmtKind::Yield { values } => {
                match yield_targets {
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
        self.var_name(for_stmt.loop_var);
        if !for_stmt.iter_args.is_empty() {
            self.out.push_str(", (");
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
        if !for_stmt.iter_args.is_empty() || !for_stmt.init_values.is_empty() {
            if needs_comma {
                self.out.push_str(", ");
            }
            self.out.push_str("init_values=");
            self.tuple(&for_stmt.init_values);
            needs_comma = true;
        }
        if !for_stmt.kwargs.is_empty() {
            if needs_comma {
                self.out.push_str(", ");
            }
            write_kwargs(self.out, &for_stmt.kwargs, &self.function.vars);
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
                let bare = matches!(bases, BaseStyle::BareIfAllocated)
                    && self.allocated_bases.contains(memref.base.as_str());
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

fn collect_allocated_bases<'a>(body: &'a [Stmt], vars: &'a VarTable, names: &mut HashSet<&'a str>) {
    for stmt in body {
        match &stmt.kind {
            StmtKind::Assign { target, value } => {
                let is_alloc = value
                    .as_call()
                    .is_some_and(|call| matches!(call.op(), "tile.alloc" | "tensor.alloc"));
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

/// Writes `expr` with the fewest parentheses that keep Python's reading of it equal to the
/// tree, e.g. `1 << (6 + i * 2)`, `a - (b - c)`, `-x ** 2` for `-(x ** 2)`.
fn write_expr(out: &mut String, vars: &VarTable, expr: &Expr) {
    match &expr.kind {
        ExprKind::Var(var) => push_var_name(out, vars, *var),
        ExprKind::Symbol(name) | ExprKind::Float(name) | ExprKind::Path(name) => out.push_str(name),
        ExprKind::Int(value) => {
            let _ = write!(out, "{value}");
        }
        ExprKind::Str { value, quote } => push_str_literal(out, value, *quote),
        ExprKind::Bool(true) => out.push_str("True"),
        ExprKind::Bool(false) => out.push_str("False"),
        ExprKind::None => out.push_str("None"),
        ExprKind::DType(dtype) => push_dtype(out, *dtype),
        ExprKind::Space(space) => push_space(out, *space),
        ExprKind::Call(call) => {
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
                // `a ** b ** c` is `a ** (b ** c)`, and `2 ** -x` needs no parentheses, but the
                // base of a power must be a primary: `(-x) ** 2`.
                BinOp::Pow => (PRIMARY, UnaryOp::Neg.precedence()),
                // `a < b < c` is a chain in Python, not `(a < b) < c`.
                BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                    (own + 1, own + 1)
                }
                _ => (own, own + 1),
            };
            write_operand(out, vars, lhs, lhs_min);
            out.push(' ');
            out.push_str(op.symbol());
            out.push(' ');
            write_operand(out, vars, rhs, rhs_min);
        }
        ExprKind::Unary { op, operand } => {
            out.push_str(match op {
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
