//! What memreuse's plan changes in PyPTO's: per function whose planned text differs from
//! PyPTO's MemoryReuse output, read from both printed programs by memreuse's parser:
//!
//! - `memrefs`: each tile variable (by its printed name) that moves, with its new MemRef;
//! - `added_allocs`: the top-level allocations memreuse adds, with their index in its body;
//! - `removed`: the names of the assignments it drops (allocations, PyPTO's yield copies a
//!   repair makes unnecessary);
//! - `inserted`: the single-operand statements memreuse inserts (the `tile.move`s of carry
//!   repairs): defined name, op, operand, keyword arguments as printed, MemRef, and their
//!   place in their block (see [`walk`]);
//! - `init_values` / `yields`: loop init values and yielded values that now name another
//!   variable (a carry fed from its copy).
//!
//! `memreuse.pypto` applies them to PyPTO's in-memory IR. A difference this does not
//! describe is listed in `unsupported`, and the Python side refuses the function rather than
//! apply part of a plan (it also checks that the rewritten function prints as planned).

use std::collections::{HashMap, HashSet};

use memreuse::ir::{self, Expr, ExprKind, Function, MemRef, Stmt, StmtKind, Type};
use serde_json::{Map, Value, json};

#[derive(Debug, thiserror::Error)]
pub enum EditsError {
    #[error("PyPTO's printed program does not parse: {0}")]
    PyptoText(String),
    #[error("memreuse's planned program does not parse: {0}")]
    PlannedText(String),
    #[error("memreuse's plan has no function '{0}'")]
    MissingFunction(String),
}

/// One entry per function of `pypto` whose text differs from its namesake in `planned`, in
/// order (see the module doc for the fields).
pub fn plan_edits(pypto: &str, planned: &str) -> Result<Value, EditsError> {
    let first = |err: ir::ParseError| {
        err.diagnostics
            .first()
            .map_or_else(String::new, |d| d.message.clone())
    };
    let theirs = ir::parse_program(pypto).map_err(|e| EditsError::PyptoText(first(e)))?;
    let ours = ir::parse_program(planned).map_err(|e| EditsError::PlannedText(first(e)))?;
    let mut edits = Vec::new();
    for before in &theirs.functions {
        let after = ours
            .functions
            .iter()
            .find(|f| f.name == before.name)
            .ok_or_else(|| EditsError::MissingFunction(before.name.to_string()))?;
        if slice(pypto, before) != slice(planned, after) {
            edits.push(function_edits(before, after));
        }
    }
    Ok(Value::from(edits))
}

fn slice<'t>(text: &'t str, f: &Function) -> &'t str {
    text.get(f.span.start as usize..f.span.end as usize)
        .unwrap_or("")
}

/// A function's statements as the edits see them: every assignment by defined name, where
/// it sits, and the loops' init values and the yields by the block that owns them.
#[derive(Default)]
struct Shape<'f> {
    /// Defined name -> (value, its anchor, top-level index).
    assigned: HashMap<&'f str, (&'f Expr, String, Option<usize>)>,
    /// In definition order.
    order: Vec<&'f str>,
    /// Iter arg name -> its init value's printed text.
    inits: HashMap<&'f str, String>,
    /// Owner of the block (a loop's or `if` arm's key) -> the yielded values' printed texts.
    yields: HashMap<String, Vec<String>>,
}

/// `f`'s shape; `other` names the assignments of the program it is compared with: the
/// places that name a loop or `if` count only statements both programs have.
fn shape<'f>(f: &'f Function, other: &HashSet<&str>) -> Shape<'f> {
    let mut shape = Shape::default();
    walk(f, &f.body, "function", true, other, &mut shape);
    shape
}

/// The names of every assignment of `f`, at any depth.
fn assigned_names(f: &Function) -> HashSet<&str> {
    let mut names = HashSet::new();
    ir::walk::for_each_stmt(&f.body, &mut |stmt| {
        if let StmtKind::Assign { target, .. } = &stmt.kind {
            names.insert(f.vars[*target].name.as_str());
        }
    });
    names
}

/// How a statement is named for anchoring: the variable it defines, or a loop's or `if`'s
/// first result (its loop variable for a loop without results).
fn key(f: &Function, stmt: &Stmt) -> Option<String> {
    let var = |id: &ir::VarId| f.vars[*id].name.to_string();
    match &stmt.kind {
        StmtKind::Assign { target, .. } => Some(var(target)),
        StmtKind::For(l) => l.return_vars.first().or(l.loop_var.as_ref()).map(var),
        StmtKind::If(i) => i.return_vars.first().map(var),
        _ => None,
    }
}

/// Records `body`'s statements. A place in a block is named `ANCHOR+N`: after the last
/// statement with a [`key`] (`^OWNER` at the start of the block) and the N statements
/// without one that follow it. A block's owner is `for `, `then ` or `else ` and its loop's
/// or `if`'s key, or for one without, `@` and its place counted over the statements both
/// programs have (`other`), so that both name it alike.
fn walk<'f>(
    f: &'f Function,
    body: &'f [Stmt],
    owner: &str,
    top: bool,
    other: &HashSet<&str>,
    shape: &mut Shape<'f>,
) {
    let mut place = (format!("^{owner}"), 0);
    let mut common_place = place.clone();
    for (index, stmt) in body.iter().enumerate() {
        let here = format!("{}+{}", place.0, place.1);
        let ident =
            || key(f, stmt).unwrap_or_else(|| format!("@{}+{}", common_place.0, common_place.1));
        match &stmt.kind {
            StmtKind::Assign { target, value } => {
                let name = f.vars[*target].name.as_str();
                let at = top.then_some(index);
                shape.assigned.insert(name, (value, here, at));
                shape.order.push(name);
            }
            StmtKind::Yield { values } => {
                let texts = values.iter().map(|v| ir::print::expr_text(&f.vars, v));
                shape.yields.insert(owner.to_owned(), texts.collect());
            }
            StmtKind::For(l) => {
                for (arg, init) in l.iter_args.iter().zip(&l.init_values) {
                    let text = ir::print::expr_text(&f.vars, init);
                    shape.inits.insert(f.vars[*arg].name.as_str(), text);
                }
                walk(f, &l.body, &format!("for {}", ident()), false, other, shape);
            }
            StmtKind::If(i) => {
                let ident = ident();
                walk(
                    f,
                    &i.then_body,
                    &format!("then {ident}"),
                    false,
                    other,
                    shape,
                );
                if let Some(e) = &i.else_body {
                    walk(f, e, &format!("else {ident}"), false, other, shape);
                }
            }
            StmtKind::With(w) => walk(f, &w.body, owner, false, other, shape),
            _ => {}
        }
        let key = key(f, stmt);
        let common = match (&stmt.kind, &key) {
            (StmtKind::Assign { .. }, Some(name)) => other.contains(name.as_str()),
            _ => true,
        };
        place = match key.clone() {
            Some(key) => (key, 0),
            None => (place.0, place.1 + 1),
        };
        if common {
            common_place = match key {
                Some(key) => (key, 0),
                None => (common_place.0, common_place.1 + 1),
            };
        }
    }
}

fn function_edits(before: &Function, after: &Function) -> Value {
    let mut unsupported = Vec::new();
    let tiles_before = tile_memrefs(before, &mut unsupported);
    let tiles_after = tile_memrefs(after, &mut unsupported);
    let (names_before, names_after) = (assigned_names(before), assigned_names(after));
    let theirs = shape(before, &names_after);
    let ours = shape(after, &names_before);
    let mut memrefs = Map::new();
    for (name, placed) in &tiles_after {
        if let Some(old) = tiles_before.get(name)
            && old != placed
        {
            memrefs.insert(
                name.clone(),
                placement(after, placed, name, &mut unsupported),
            );
        }
    }
    let mut added_allocs = Vec::new();
    let mut inserted = Vec::new();
    for name in &ours.order {
        if theirs.assigned.contains_key(name) {
            continue;
        }
        let (value, previous, top_index) = &ours.assigned[name];
        if let (Some((space, size)), Some(index)) = (alloc_args(after, value), top_index) {
            added_allocs.push(json!({"name": name, "space": space, "size": size, "index": index}));
            continue;
        }
        match (single_operand(after, value), tiles_after.get(*name)) {
            (Some((op, operand, kwargs)), Some(memref)) => inserted.push(json!({
                "name": name,
                "op": op,
                "operand": operand,
                "kwargs": kwargs,
                "memref": placement(after, memref, name, &mut unsupported),
                "after": previous,
            })),
            _ => unsupported.push(format!("memreuse inserts the definition of '{name}'")),
        }
    }
    let removed: Vec<&str> = theirs
        .order
        .iter()
        .filter(|name| !ours.assigned.contains_key(*name))
        .copied()
        .collect();
    let mut init_values = Map::new();
    for (arg, init) in &ours.inits {
        match theirs.inits.get(arg) {
            Some(old) if old == init => {}
            Some(_) => {
                init_values.insert(arg.to_string(), Value::from(init.as_str()));
            }
            None => unsupported.push(format!("memreuse adds the loop carry '{arg}'")),
        }
    }
    let mut yields = Vec::new();
    for (owner, values) in &ours.yields {
        match theirs.yields.get(owner) {
            Some(old) if old == values => {}
            Some(old) if old.len() == values.len() => {
                yields.push(json!({"yielded": old, "values": values}));
            }
            _ => unsupported.push(format!("memreuse changes the yield of {owner}")),
        }
    }
    unsupported.sort();
    unsupported.dedup();
    json!({
        "function": before.name.as_str(),
        "memrefs": memrefs,
        "added_allocs": added_allocs,
        "removed": removed,
        "inserted": inserted,
        "init_values": init_values,
        "yields": yields,
        "unsupported": unsupported,
    })
}

/// The MemRef of every tile variable by name (params, loop and `if` variables included).
fn tile_memrefs<'f>(f: &'f Function, unsupported: &mut Vec<String>) -> HashMap<String, &'f MemRef> {
    let mut memrefs = HashMap::new();
    let mut seen = HashSet::new();
    for (_, var) in f.vars.iter() {
        if !seen.insert(var.name.as_str()) {
            unsupported.push(format!("two variables are named '{}'", var.name));
        }
        if let Some(Type::Tile(tile)) = &var.ty
            && let Some(memref) = &tile.memref
        {
            memrefs.insert(var.name.to_string(), memref);
        }
    }
    memrefs
}

/// `[base, offset, size, offset dtype]` for a MemRef with a constant offset and size and no
/// slots; the dtype is `null` for an offset printed as a bare number, else the one its
/// `pl.const(N, pl.DTYPE)` names (the printed form follows it).
fn placement(f: &Function, memref: &MemRef, name: &str, unsupported: &mut Vec<String>) -> Value {
    let dtype = match memref.offset().map(|o| &o.kind) {
        Some(ExprKind::Int(_)) => Some(Value::Null),
        Some(ExprKind::Const { .. }) => memref.offset().and_then(|o| {
            let printed = ir::print::expr_text(&f.vars, o);
            let dtype = printed.rsplit_once("pl.")?.1.strip_suffix(')')?;
            Some(Value::from(dtype.to_owned()))
        }),
        _ => None,
    };
    match (
        memref.const_offset(),
        memref.size_bytes(),
        memref.slots,
        &memref.slot_index,
        dtype,
    ) {
        (Some(offset), Some(size), None, None, Some(dtype)) => {
            json!([memref.base.as_str(), offset, size, dtype])
        }
        _ => {
            unsupported.push(format!(
                "the MemRef of '{name}' is not a constant offset and size"
            ));
            Value::Null
        }
    }
}

/// `pl.tile.alloc(pl.Mem.SPACE, SIZE)`: the space's name and the size.
fn alloc_args(f: &Function, value: &Expr) -> Option<(String, i64)> {
    if !value.is_alloc_call() {
        return None;
    }
    let call = value.as_call()?;
    let [space, size] = call.args.as_slice() else {
        return None;
    };
    let space = ir::print::expr_text(&f.vars, space);
    Some((space.rsplit('.').next()?.to_owned(), size.as_const_int()?))
}

/// A call of one variable operand: the op, the operand's name and each keyword argument's
/// printed value.
fn single_operand(f: &Function, value: &Expr) -> Option<(String, String, Map<String, Value>)> {
    let call = value.as_call()?;
    let [operand] = call.args.as_slice() else {
        return None;
    };
    let ExprKind::Var(operand) = &operand.kind else {
        return None;
    };
    let kwargs = call
        .kwargs
        .iter()
        .map(|k| {
            let text = ir::print::expr_text(&f.vars, &k.value);
            (k.name.to_string(), Value::from(text))
        })
        .collect();
    Some((
        call.op().to_owned(),
        f.vars[*operand].name.to_string(),
        kwargs,
    ))
}
