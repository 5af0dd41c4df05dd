//! Top-down loop-carry retargeting (rules §4, upstream MaterializeSemanticAliases, "Step 0"),
//! and the pieces of it that accumulator if-phi coalescing reuses (§7.4): the Assign rule and
//! the `dead_at` liveness walk.

use std::cmp::Reverse;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::analysis::body::{Definition, StmtPath, definitions, first_yield, stmt_at, stmt_list};
use memreuse_ir::backend::Backend;

use crate::config::{PlanConfig, Rules};
use memreuse_ir::codes;
use memreuse_ir::diagnostics::Diagnostic;
use memreuse_ir::ops::{OpRole, OutputSpace};
use memreuse_ir::walk::for_each_stmt;
use memreuse_ir::{
    BinOp, Expr, ExprKind, Function, MemRef, MemSpace, Stmt, StmtKind, Type, VarId, VarKind,
    VarTable,
};

/// Where a variable should live: a MemRef (taken as is, offset and size included) and space.
#[derive(Clone, Debug)]
pub struct Target {
    pub memref: MemRef,
    pub space: MemSpace,
}

/// Who checks that a retarget writes its target's bytes only where they are dead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Liveness {
    /// The retarget, at every value it moves (Step 0).
    Checked,
    /// Its caller: the accumulator coalescer (§7.4), which counts the tile it moves out.
    CheckedByCaller,
}

/// The current tile MemRef base of a variable.
pub fn base_of(vars: &VarTable, v: VarId) -> Option<&str> {
    match &vars[v].ty {
        Some(Type::Tile(t)) => t.memref.as_ref().map(|m| m.base.as_str()),
        _ => None,
    }
}

/// "Plan `v := T`": `v` takes the target MemRef itself and the target's space.
pub fn retype(vars: &mut VarTable, v: VarId, target: &Target) {
    vars.place_tile(v, target.memref.clone(), Some(target.space));
}

pub struct Retargeter<'f> {
    body: &'f [Stmt],
    pub vars: &'f mut VarTable,
    defs: FxHashMap<VarId, Definition>,
    /// The init value of each iter arg, when it is a variable.
    iter_init: FxHashMap<VarId, VarId>,
    backend: Backend,
    /// Which ops are in-place safe follows the rule set (seed rule S5).
    rules: Rules,
    on_stack: FxHashSet<VarId>,
    /// PyPTO's Step 0, or the safe one and the carries whose retarget would overwrite a
    /// live tile.
    hazards: Hazards,
    refusals: Vec<Diagnostic>,
    /// The variables as they were before the first retype (views follow their sources from
    /// there, [`reanchor_views`]); `None` while nothing moved.
    original: Option<VarTable>,
}

impl<'f> Retargeter<'f> {
    pub fn new(body: &'f [Stmt], vars: &'f mut VarTable, backend: Backend) -> Retargeter<'f> {
        let defs = definitions(body);
        let mut iter_init = FxHashMap::default();
        collect_iter_inits(body, &mut iter_init);
        Retargeter {
            body,
            vars,
            defs,
            iter_init,
            backend,
            rules: Rules::Seed,
            on_stack: FxHashSet::default(),
            hazards: Hazards::Ignored,
            refusals: Vec::new(),
            original: None,
        }
    }

    /// [`retype`], keeping the variables as they were before the first change.
    pub fn retype(&mut self, v: VarId, target: &Target) {
        if self.original.is_none() {
            self.original = Some(self.vars.clone());
        }
        retype(self.vars, v, target);
    }

    /// The variables before the first retype; `None` when none changed.
    pub fn take_original(&mut self) -> Option<VarTable> {
        self.original.take()
    }

    /// rules §4.2: visit loops pre-order and push each carry's buffer down its yield chain.
    pub fn run_step0(&mut self) {
        let body = self.body;
        self.visit(body);
    }

    fn visit(&mut self, stmts: &'f [Stmt]) {
        for stmt in stmts {
            match &stmt.kind {
                StmtKind::For(f) => {
                    if !f.iter_args.is_empty()
                        && let Some(values) = first_yield(&f.body)
                    {
                        for (i, value) in values.iter().enumerate().take(f.iter_args.len()) {
                            let Some(target) = self.target_of(f.iter_args[i]) else {
                                continue;
                            };
                            let Some(v) = value.as_var() else { continue };
                            if self.refuse(f.iter_args[i], v, &target, stmt.span) {
                                continue;
                            }
                            self.retarget(v, &target, Liveness::Checked);
                        }
                    }
                    self.visit(&f.body);
                }
                StmtKind::If(i) => {
                    self.visit(&i.then_body);
                    if let Some(e) = &i.else_body {
                        self.visit(e);
                    }
                }
                StmtKind::With(w) => self.visit(&w.body),
                _ => {}
            }
        }
    }

    /// The safe Step 0's refusal of a hazardous carry, reported as a warning.
    fn refuse(
        &mut self,
        iter_arg: VarId,
        value: VarId,
        target: &Target,
        span: memreuse_ir::Span,
    ) -> bool {
        if base_of(self.vars, value) == Some(target.memref.base.as_str()) {
            return false;
        }
        if let Hazards::Unknown = self.hazards {
            // Of the function as it came: no retype has moved a tile yet, or `original`
            // keeps the variables from before the first.
            let vars = self.original.as_ref().unwrap_or(self.vars);
            self.hazards = Hazards::Known(CarryHazards::of(self.body, vars));
        }
        let Hazards::Known(hazards) = &self.hazards else {
            return false;
        };
        let Some(live) = hazards.hazard(iter_arg, &target.memref.base) else {
            return false;
        };
        let base = &target.memref.base;
        let (value, iter_arg, live) = (
            &self.vars[value].name,
            &self.vars[iter_arg].name,
            &self.vars[live].name,
        );
        let d = Diagnostic::warning(
            codes::RETARGET_REFUSED,
            format!(
                "Step 0 leaves '{value}' on its own buffer: PyPTO's MaterializeSemanticAliases would compute it in '{base}', the buffer of loop carry '{iter_arg}', but '{live}' on that buffer is defined before the loop and read again after the loop starts, so every iteration would overwrite it"
            ),
            span,
        )
        .with_hint("the carry gets its value through a `tile.move` instead (use --exact for PyPTO's decision)");
        self.refusals.push(d);
        true
    }

    pub fn target_of(&self, v: VarId) -> Option<Target> {
        match &self.vars[v].ty {
            Some(Type::Tile(t)) => Some(Target {
                memref: t.memref.clone()?,
                space: t.space?,
            }),
            _ => None,
        }
    }

    /// `retarget(v, T)`.
    pub fn retarget(&mut self, v: VarId, target: &Target, liveness: Liveness) -> bool {
        if base_of(self.vars, v) == Some(target.memref.base.as_str()) {
            return true;
        }
        if !self.on_stack.insert(v) {
            return false;
        }
        let ok = self.retarget_by_definition(v, target, liveness);
        self.on_stack.remove(&v);
        ok
    }

    fn retarget_by_definition(&mut self, v: VarId, target: &Target, liveness: Liveness) -> bool {
        let Some(def) = self.defs.get(&v).cloned() else {
            return false;
        };
        match def {
            Definition::IfReturn { stmt, index } => {
                let StmtKind::If(if_stmt) = &stmt_at(self.body, &stmt).kind else {
                    return false;
                };
                let then_value = first_yield(&if_stmt.then_body).and_then(|y| y.get(index));
                let else_value = if_stmt
                    .else_body
                    .as_deref()
                    .map(|e| first_yield(e).and_then(|y| y.get(index)));
                let then_ok = self.retarget_value(then_value, target, liveness);
                let else_ok = match else_value {
                    None => true,
                    Some(value) => self.retarget_value(value, target, liveness),
                };
                if then_ok && else_ok {
                    self.retype(v, target);
                }
                then_ok && else_ok
            }
            Definition::ForReturn { stmt, index } => {
                let StmtKind::For(for_stmt) = &stmt_at(self.body, &stmt).kind else {
                    return false;
                };
                let yielded = first_yield(&for_stmt.body).and_then(|y| y.get(index));
                if !self.retarget_value(yielded, target, liveness) {
                    return false;
                }
                if let Some(init) = for_stmt.init_values.get(index).and_then(Expr::as_var)
                    && !self.retarget(init, target, liveness)
                {
                    return false;
                }
                if let Some(&arg) = for_stmt.iter_args.get(index) {
                    self.retype(arg, target);
                }
                self.retype(v, target);
                true
            }
            Definition::IterArg { stmt, index } => {
                let StmtKind::For(for_stmt) = &stmt_at(self.body, &stmt).kind else {
                    return false;
                };
                let Some(init) = for_stmt.init_values.get(index).and_then(Expr::as_var) else {
                    return false;
                };
                if !self.retarget(init, target, liveness) {
                    return false;
                }
                self.retype(v, target);
                true
            }
            Definition::Assign(path) => {
                let ok = self.retarget_assign(v, &path, target, liveness);
                if ok {
                    self.retype(v, target);
                }
                ok
            }
        }
    }

    fn retarget_value(
        &mut self,
        value: Option<&Expr>,
        target: &Target,
        liveness: Liveness,
    ) -> bool {
        match value.and_then(Expr::as_var) {
            Some(v) => self.retarget(v, target, liveness),
            None => false,
        }
    }

    /// The Assign rule of rules §4.2 (a–f); the caller plans `v := T` on success.
    pub fn retarget_assign(
        &mut self,
        v: VarId,
        path: &StmtPath,
        target: &Target,
        liveness: Liveness,
    ) -> bool {
        let StmtKind::Assign { value, .. } = &stmt_at(self.body, path).kind else {
            return false;
        };
        let Some(call) = value.as_call() else {
            return false;
        };
        let Some(info) = value.call_info() else {
            return false;
        };
        let arg_var = |k: usize| call.args.get(k).and_then(Expr::as_var);
        if let Some(k) = info.reuses_input {
            return match arg_var(k) {
                Some(source) => self.retarget(source, target, liveness),
                None => false,
            };
        }
        if info.output == OutputSpace::Inherit {
            let same_base = arg_var(0).is_some_and(|source| {
                base_of(self.vars, source).is_some()
                    && base_of(self.vars, source) == base_of(self.vars, v)
            });
            return match arg_var(0) {
                Some(source) if value.call_role() == Some(OpRole::SetValidShape) && same_base => {
                    self.retarget(source, target, liveness)
                }
                _ => false,
            };
        }
        if let Some(ExprKind::Space(space)) = call.kwarg("target_memory").map(|e| &e.kind)
            && *space != target.space
        {
            return false;
        }
        let registered_space = match info.output {
            OutputSpace::Fixed(space) => Some(space),
            OutputSpace::Kwarg(default) => match call.kwarg("target_memory").map(|e| &e.kind) {
                Some(ExprKind::Space(space)) => Some(*space),
                _ => default,
            },
            OutputSpace::Inherit | OutputSpace::None => None,
        };
        if registered_space.is_some_and(|space| space != target.space) {
            return false;
        }
        if self.rules.not_inplace_safe(&info) {
            let read_args: Vec<&Expr> = match info.a5_forbidden_args {
                Some(args) if self.backend.is_a5() => {
                    args.iter().filter_map(|&i| call.args.get(i)).collect()
                }
                _ => call.args.iter().collect(),
            };
            let reads_target = read_args.iter().any(|arg| {
                arg.as_var()
                    .is_some_and(|a| self.read_base(a) == Some(target.memref.base.as_str()))
            });
            if reads_target {
                return false;
            }
        }
        liveness == Liveness::CheckedByCaller || self.dead_at(path, &target.memref.base, None)
    }

    /// The base a read of `v` observes: an iter arg reads its init value, recursively.
    fn read_base(&self, v: VarId) -> Option<&str> {
        let mut v = v;
        let mut hops = 0;
        while self.vars[v].kind == VarKind::IterArg && hops <= self.iter_init.len() {
            v = *self.iter_init.get(&v)?;
            hops += 1;
        }
        base_of(self.vars, v)
    }

    /// rules §4.3: no statement after `def` (walking outward to the nearest loop, or to
    /// `stop_at`) reads or writes `base`.
    pub fn dead_at(&self, def: &StmtPath, base: &str, stop_at: Option<&StmtPath>) -> bool {
        self.dead_at_except(def, base, stop_at, None)
    }

    /// [`Self::dead_at`], not counting the tile `except` (an init that already sits in another
    /// subrange of `base`, seed S4: it is the tile being moved onto the bytes in question).
    pub fn dead_at_except(
        &self,
        def: &StmtPath,
        base: &str,
        stop_at: Option<&StmtPath>,
        except: Option<VarId>,
    ) -> bool {
        let mut steps = def.steps.clone();
        let mut child = def.index as usize;
        loop {
            let list = stmt_list(self.body, &steps);
            for sibling in list.iter().skip(child + 1) {
                if self.touches(sibling, base, except) {
                    return false;
                }
            }
            let Some((owner_index, _)) = steps.pop() else {
                return true;
            };
            let owner = StmtPath {
                steps: steps.clone(),
                index: owner_index,
            };
            if stop_at == Some(&owner) {
                return true;
            }
            if matches!(stmt_at(self.body, &owner).kind, StmtKind::For(_)) {
                return true;
            }
            child = owner_index as usize;
        }
    }

    /// Whether a statement (recursively) reads `base` or assigns onto it.
    fn touches(&self, stmt: &Stmt, base: &str, except: Option<VarId>) -> bool {
        let reads = |e: &Expr| {
            let mut hit = false;
            e.for_each_var(&mut |v| hit |= Some(v) != except && self.read_base(v) == Some(base));
            hit
        };
        let any = |stmts: &[Stmt]| stmts.iter().any(|s| self.touches(s, base, except));
        let var_on_base = |v: &VarId| Some(*v) != except && base_of(self.vars, *v) == Some(base);
        match &stmt.kind {
            StmtKind::Assign { target, value } => var_on_base(target) || reads(value),
            StmtKind::Eval(e) => reads(e),
            StmtKind::Yield { values } | StmtKind::Return { values } => values.iter().any(reads),
            StmtKind::For(f) => {
                f.bounds.iter().any(reads)
                    || f.init_values.iter().any(reads)
                    || f.return_vars.iter().any(var_on_base)
                    || any(&f.body)
            }
            StmtKind::If(i) => {
                reads(&i.cond)
                    || i.return_vars.iter().any(var_on_base)
                    || any(&i.then_body)
                    || i.else_body.as_deref().is_some_and(any)
            }
            StmtKind::With(w) => reads(&w.context) || any(&w.body),
            StmtKind::Pass => false,
        }
    }

    pub fn definition(&self, v: VarId) -> Option<&Definition> {
        self.defs.get(&v)
    }

    pub fn body(&self) -> &'f [Stmt] {
        self.body
    }
}

fn collect_iter_inits(stmts: &[Stmt], out: &mut FxHashMap<VarId, VarId>) {
    for_each_stmt(stmts, &mut |stmt| {
        if let StmtKind::For(f) = &stmt.kind {
            for (arg, init) in f.iter_args.iter().zip(&f.init_values) {
                if let Some(init) = init.as_var() {
                    out.insert(*arg, init);
                }
            }
        }
    });
}

/// rules §4: run Step 0 on a function, then re-anchor views whose source moved (§4.4).
/// Step 0, for `config`'s backend and rules. Unless `exact`, a carry is not retargeted when a tile on its buffer defined before
/// the loop is still read after the loop starts (inside it, on a later iteration, or after
/// it): PyPTO's `dead_at` looks only at statements after the definition, and the retarget
/// would overwrite that tile. Each refusal is a warning in the result.
pub fn materialize_semantic_aliases(f: &mut Function, config: &PlanConfig) -> Vec<Diagnostic> {
    let mut retargeter = Retargeter::new(&f.body, &mut f.vars, config.backend);
    retargeter.rules = config.rules;
    if !config.exact {
        retargeter.hazards = Hazards::Unknown;
    }
    retargeter.run_step0();
    let refusals = std::mem::take(&mut retargeter.refusals);
    // Views follow only sources that moved.
    if let Some(original) = retargeter.take_original() {
        reanchor_views(&f.body, &original, &mut f.vars);
    }
    refusals
}

/// Whether Step 0 refuses a carry's retarget that would overwrite a live tile: PyPTO's does
/// not; the safe one walks the function for its [`CarryHazards`] when a carry first asks (most
/// functions have no carry that moves to another buffer).
enum Hazards {
    Ignored,
    Unknown,
    Known(CarryHazards),
}

/// For the safe Step 0: each tile's definition step and last effective read (a read inside a
/// loop of a tile defined before it lasts to that loop's end), and each loop's head step.
pub struct CarryHazards {
    /// (original base, name, def, last) of every tile.
    tiles: Vec<(memreuse_ir::Name, VarId, u32, u32)>,
    heads: FxHashMap<VarId, u32>,
}

impl CarryHazards {
    fn of(body: &[Stmt], vars: &VarTable) -> CarryHazards {
        let mut walk = HazardWalk {
            vars,
            step: 0,
            def: FxHashMap::default(),
            last: FxHashMap::default(),
            loops: Vec::new(),
            heads: FxHashMap::default(),
        };
        walk.stmts(body);
        let mut tiles: Vec<_> = walk
            .def
            .iter()
            .filter_map(|(&v, &def)| {
                let base = base_of(vars, v)?;
                // Every loop has closed: each last read is at a step.
                let last = walk.last.get(&v).and_then(|l| l.step()).unwrap_or(def);
                Some((base.into(), v, def, last))
            })
            .collect();
        tiles.sort_by_key(|t| (t.2, t.1.index()));
        CarryHazards {
            tiles,
            heads: walk.heads,
        }
    }

    /// A tile on `base`, defined before the loop of `iter_arg`, read after that loop starts.
    fn hazard(&self, iter_arg: VarId, base: &str) -> Option<VarId> {
        let head = *self.heads.get(&iter_arg)?;
        self.tiles
            .iter()
            .find(|(b, _, def, last)| b.as_str() == base && *def < head && *last > head)
            .map(|&(_, v, _, _)| v)
    }
}

/// A tile's last effective read so far: at a step, or at the end of a loop still open (by
/// its head: later than any step so far, and an outer loop's end later than an inner one's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum LastRead {
    At(u32),
    EndOfLoop(Reverse<u32>),
}

impl LastRead {
    fn step(self) -> Option<u32> {
        match self {
            LastRead::At(step) => Some(step),
            LastRead::EndOfLoop(_) => None,
        }
    }
}

struct HazardWalk<'f> {
    vars: &'f VarTable,
    step: u32,
    def: FxHashMap<VarId, u32>,
    last: FxHashMap<VarId, LastRead>,
    /// Heads of the enclosing loops, outermost first.
    loops: Vec<u32>,
    heads: FxHashMap<VarId, u32>,
}

impl<'f> HazardWalk<'f> {
    fn bump(&mut self) -> u32 {
        self.step += 1;
        self.step
    }

    fn define(&mut self, v: VarId, step: u32) {
        if base_of(self.vars, v).is_some() {
            self.def.insert(v, step);
        }
    }

    /// Reads inside loops begun after the definition count at the outermost such loop's end,
    /// which is not known yet: `close_loop` resolves them.
    fn read(&mut self, e: &Expr, step: u32) {
        e.for_each_var(&mut |v| {
            let Some(&def) = self.def.get(&v) else { return };
            let at = match self.loops.iter().find(|&&head| head > def) {
                Some(&head) => LastRead::EndOfLoop(Reverse(head)),
                None => LastRead::At(step),
            };
            let last = self.last.entry(v).or_insert(LastRead::At(def));
            if at > *last {
                *last = at;
            }
        });
    }

    fn close_loop(&mut self, head: u32, end: u32) {
        let open = LastRead::EndOfLoop(Reverse(head));
        for last in self.last.values_mut() {
            if *last == open {
                *last = LastRead::At(end);
            }
        }
    }

    fn stmts(&mut self, body: &'f [Stmt]) {
        for stmt in body {
            match &stmt.kind {
                StmtKind::Assign { target, value } => {
                    let step = self.bump();
                    self.read(value, step);
                    self.define(*target, step);
                }
                StmtKind::Eval(e) => {
                    let step = self.bump();
                    self.read(e, step);
                }
                StmtKind::Yield { values } | StmtKind::Return { values } => {
                    let step = self.bump();
                    for v in values {
                        self.read(v, step);
                    }
                }
                StmtKind::For(l) => {
                    let head = self.bump();
                    for e in l.bounds.iter().chain(&l.init_values) {
                        self.read(e, head);
                    }
                    for &arg in &l.iter_args {
                        self.define(arg, head);
                        self.heads.insert(arg, head);
                    }
                    self.loops.push(head);
                    self.stmts(&l.body);
                    self.loops.pop();
                    let end = self.bump();
                    self.close_loop(head, end);
                    for &result in &l.return_vars {
                        self.define(result, end);
                    }
                }
                StmtKind::If(i) => {
                    let step = self.bump();
                    self.read(&i.cond, step);
                    self.stmts(&i.then_body);
                    if let Some(e) = &i.else_body {
                        self.stmts(e);
                    }
                    let exit = self.bump();
                    for &result in &i.return_vars {
                        self.define(result, exit);
                    }
                }
                StmtKind::With(w) => {
                    let step = self.bump();
                    self.read(&w.context, step);
                    self.stmts(&w.body);
                }
                StmtKind::Pass => {}
            }
        }
    }
}

/// rules §4.4: a view that shared its source's base follows the source to its new buffer.
pub fn reanchor_views(body: &[Stmt], original: &VarTable, vars: &mut VarTable) {
    crate::analysis::lifetimes::visit_assignments(body, &mut |target, value| {
        let Some(call) = value.as_call() else { return };
        let is_view = value
            .call_info()
            .is_some_and(|info| info.output == OutputSpace::Inherit);
        let Some(source) = call.args.first().and_then(Expr::as_var) else {
            return;
        };
        if !is_view {
            return;
        }
        let memref_of = |table: &VarTable, v: VarId| match &table[v].ty {
            Some(Type::Tile(t)) => t.memref.clone().zip(t.space),
            _ => None,
        };
        let (Some((view_old, _)), Some((source_old, _)), Some((source_new, new_space))) = (
            memref_of(original, target),
            memref_of(original, source),
            memref_of(vars, source),
        ) else {
            return;
        };
        let view_unmoved = base_of(vars, target) == Some(view_old.base.as_str());
        if view_old.base != source_old.base || source_new.base == source_old.base || !view_unmoved {
            return;
        }
        // The view's own offset within its source: a constant, or (for a view of a root at
        // offset 0, the usual case) the view's symbolic offset expression itself.
        let additional = match (view_old.const_offset(), source_old.const_offset()) {
            (Some(view), Some(src)) => Some(Expr::new(ExprKind::Int(view - src), view_old.span)),
            (None, Some(0)) => view_old.offset().cloned(),
            _ => None,
        };
        let additional_const = additional.as_ref().and_then(Expr::as_const_int);
        let pure_alias =
            additional_const == Some(0) && view_old.size_bytes() == source_new.size_bytes();
        let memref = if pure_alias {
            source_new.clone()
        } else {
            let offset = match (additional, source_new.offset()) {
                (Some(add), Some(new_offset)) => Some(add_byte_offsets(new_offset, add)),
                _ => source_new.offset().cloned(),
            };
            let mut memref = view_old.clone();
            memref.base = source_new.base.clone();
            if let (Some(extent), Some(offset)) = (memref.extent.as_mut(), offset) {
                extent.offset = offset;
            }
            memref
        };
        retype(
            vars,
            target,
            &Target {
                memref,
                space: new_space,
            },
        );
    });
}

/// Upstream's `AddByteOffsets`: two constants fold into one INDEX constant (printed bare, even
/// `pl.const(0, pl.INT64) + 0`); a constant 0 on either side yields the other side as is.
fn add_byte_offsets(lhs: &Expr, rhs: Expr) -> Expr {
    match (lhs.as_const_int(), rhs.as_const_int()) {
        (Some(l), Some(r)) => Expr::new(ExprKind::Int(l + r), rhs.span),
        (_, Some(0)) => lhs.clone(),
        (Some(0), _) => rhs,
        _ => {
            let span = rhs.span;
            let kind = ExprKind::Binary {
                op: BinOp::Add,
                lhs: Box::new(lhs.clone()),
                rhs: Box::new(rhs),
            };
            Expr::new(kind, span)
        }
    }
}
