//! Facts about a function body that several analyses share: where each variable is defined
//! (rules §4.1), the current MemRef of every variable, and paths into the statement tree.

use rustc_hash::FxHashMap;

use memreuse_ir::{Expr, ExprKind, Function, MemRef, MemSpace, Stmt, StmtKind, Type, VarId};

/// Which statement list of a compound statement a path step descends into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Branch {
    ForBody,
    Then,
    Else,
    WithBody,
}

/// A position in the statement tree: indices into nested statement lists, from the function
/// body inward. Each step but the last names the list it enters below that statement.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct StmtPath {
    pub steps: Vec<(u32, Branch)>,
    pub index: u32,
}

impl StmtPath {
    pub fn child(&self, branch: Branch, index: usize) -> StmtPath {
        let mut steps = self.steps.clone();
        steps.push((self.index, branch));
        StmtPath {
            steps,
            index: index as u32,
        }
    }
}

pub fn stmt_list<'a>(body: &'a [Stmt], steps: &[(u32, Branch)]) -> &'a [Stmt] {
    let mut list = body;
    for &(index, branch) in steps {
        list = match (&list[index as usize].kind, branch) {
            (StmtKind::For(f), Branch::ForBody) => &f.body,
            (StmtKind::If(i), Branch::Then) => &i.then_body,
            (StmtKind::If(i), Branch::Else) => i.else_body.as_deref().unwrap_or(&[]),
            (StmtKind::With(w), Branch::WithBody) => &w.body,
            _ => &[],
        };
    }
    list
}

pub fn stmt_at<'a>(body: &'a [Stmt], path: &StmtPath) -> &'a Stmt {
    &stmt_list(body, &path.steps)[path.index as usize]
}

/// How a tile variable came to be (rules §4.1).
#[derive(Clone, Debug)]
pub enum Definition {
    Assign(StmtPath),
    IfReturn { stmt: StmtPath, index: usize },
    ForReturn { stmt: StmtPath, index: usize },
    IterArg { stmt: StmtPath, index: usize },
}

pub fn definitions(body: &[Stmt]) -> FxHashMap<VarId, Definition> {
    // Most top-level statements define a variable: room for those, so the table grows (and
    // rehashes) only for the definitions nested below them.
    let mut defs = FxHashMap::with_capacity_and_hasher(body.len(), Default::default());
    collect_definitions(body, &[], &mut defs);
    defs
}

/// Records the definitions in the list that `steps` leads to, and below it.
fn collect_definitions(
    stmts: &[Stmt],
    steps: &[(u32, Branch)],
    defs: &mut FxHashMap<VarId, Definition>,
) {
    for (index, stmt) in stmts.iter().enumerate() {
        // A statement that defines nothing needs no path (a nested one would be allocated).
        if let StmtKind::Eval(_)
        | StmtKind::Yield { .. }
        | StmtKind::Return { .. }
        | StmtKind::Pass = &stmt.kind
        {
            continue;
        }
        let here = StmtPath {
            steps: steps.to_vec(),
            index: index as u32,
        };
        // The most common definition takes the path itself.
        if let StmtKind::Assign { target, .. } = &stmt.kind {
            defs.insert(*target, Definition::Assign(here));
            continue;
        }
        let path = || here.clone();
        let descend = |list: &[Stmt], branch: Branch, defs: &mut FxHashMap<_, _>| {
            let mut inner = here.steps.clone();
            inner.push((index as u32, branch));
            collect_definitions(list, &inner, defs);
        };
        match &stmt.kind {
            StmtKind::For(f) => {
                for (i, v) in f.iter_args.iter().enumerate() {
                    defs.insert(
                        *v,
                        Definition::IterArg {
                            stmt: path(),
                            index: i,
                        },
                    );
                }
                for (i, v) in f.return_vars.iter().enumerate() {
                    defs.insert(
                        *v,
                        Definition::ForReturn {
                            stmt: path(),
                            index: i,
                        },
                    );
                }
                descend(&f.body, Branch::ForBody, defs);
            }
            StmtKind::If(i) => {
                for (k, v) in i.return_vars.iter().enumerate() {
                    defs.insert(
                        *v,
                        Definition::IfReturn {
                            stmt: path(),
                            index: k,
                        },
                    );
                }
                descend(&i.then_body, Branch::Then, defs);
                if let Some(e) = &i.else_body {
                    descend(e, Branch::Else, defs);
                }
            }
            StmtKind::With(w) => descend(&w.body, Branch::WithBody, defs),
            // Recorded or skipped above.
            StmtKind::Assign { .. }
            | StmtKind::Eval(_)
            | StmtKind::Yield { .. }
            | StmtKind::Return { .. }
            | StmtKind::Pass => {}
        }
    }
}

/// The tile MemRef and space a variable currently has.
pub fn tile_memref(f: &Function, v: VarId) -> Option<(&MemRef, Option<MemSpace>)> {
    match &f.vars[v].ty {
        Some(Type::Tile(t)) => t.memref.as_ref().map(|m| (m, t.space)),
        _ => None,
    }
}

pub fn tile_base(f: &Function, v: VarId) -> Option<&str> {
    tile_memref(f, v).map(|(m, _)| m.base.as_str())
}

/// The first `pl.yield_` in a statement list, looking through `with` blocks but not into
/// nested loops or ifs (rules §4.2 "searching statement lists only").
pub fn first_yield(stmts: &[Stmt]) -> Option<&[Expr]> {
    stmts.iter().find_map(|s| match &s.kind {
        StmtKind::Yield { values } => Some(values.as_slice()),
        StmtKind::With(w) => first_yield(&w.body),
        _ => None,
    })
}

/// The variable an expression is, if it is a bare variable reference.
pub fn plain_var(e: &Expr) -> Option<VarId> {
    match e.kind {
        ExprKind::Var(v) => Some(v),
        _ => None,
    }
}
