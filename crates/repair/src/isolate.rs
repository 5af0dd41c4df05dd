//! Input edits of the safe planner (ARCHITECTURE "Safe planning"): a loop carry or an `if`
//! result that PyPTO keeps on its init's buffer (the loop's init value, the value the `if`'s
//! then arm yields), where the init is still needed, gets a buffer of its own ([`detach`]); a
//! tile the input put on a buffer it must not use moves to a fresh one ([`fresh_buffer`]).
//! Both only add allocations, variables and `tile.move`s: every `VarId` of the input stays
//! valid.

use rustc_hash::FxHashMap;

use crate::plan::analysis::body::first_yield;
use memreuse_ir::ops::tile_move_exists;
use memreuse_ir::walk::{block_holding_mut, final_yield_values, find_stmt, for_each_stmt};
use memreuse_ir::{
    Expr, ExprKind, FreshBases, Function, MemRef, MemSpace, Name, Span, Stmt, StmtKind, Type, Var,
    VarId, VarKind,
};

/// A place several tiles share: a loop carry (named by its iter arg) or an `if` result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    Carry(VarId),
    IfResult(VarId),
}

impl Place {
    /// Where `stmt` defines the place: the index of its iter arg in the loop, or of its
    /// result in the `if`.
    fn index_in(self, stmt: &Stmt) -> Option<usize> {
        match (self, &stmt.kind) {
            (Place::Carry(arg), StmtKind::For(f)) => f.iter_args.iter().position(|&a| a == arg),
            (Place::IfResult(r), StmtKind::If(i)) => i.return_vars.iter().position(|&v| v == r),
            _ => None,
        }
    }

    /// The statement that defines the place (the loop, the `if`), and the place's index in it.
    fn defined_in(self, body: &[Stmt]) -> Option<(&Stmt, usize)> {
        let stmt = find_stmt(body, &|s| self.index_in(s).is_some())?;
        Some((stmt, self.index_in(stmt)?))
    }

    /// [`Place::defined_in`], to change: the block that holds the statement, its index there,
    /// and the place's index in it.
    fn defined_in_mut(self, body: &mut Vec<Stmt>) -> Option<(&mut Vec<Stmt>, usize, usize)> {
        let (block, k) = block_holding_mut(body, &|s| self.index_in(s).is_some())?;
        let i = self.index_in(&block[k])?;
        Some((block, k, i))
    }
}

/// What [`detach`] did, for the repair's report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Detached {
    /// The place's init, whose buffer the place leaves: the loop's init value, or what the
    /// `if`'s then arm yields.
    pub init: Name,
    /// The buffer both sat on.
    pub shared_base: Name,
    /// The place's new allocation.
    pub new_base: Name,
    /// The copy of the init that now feeds the place.
    pub copy: Name,
    /// The copy's variable: its sharing group is the place's new allocation.
    pub copy_var: VarId,
}

/// Gives `place` its own allocation. A loop carry is fed by a `tile.move` of its init
/// value into a fresh `tile.alloc`, right before the loop; an `if` result by a `tile.move`
/// of its then arm's value, right before that arm's yield. Every tile that must sit where
/// the place sits (a carry's iter arg and result, the values yielded into it, in-place
/// results and views of them, on the init's base) moves with it. `None` when the place is
/// not fed from a tile on its own buffer, when the init itself must stay where the place is, or
/// when its space has no copy into itself (Acc). The new allocation is named from `bases`.
pub fn detach(f: &mut Function, place: Place, bases: &mut FreshBases) -> Option<Detached> {
    let (anchor, init) = find_place(&f.body, place)?;
    // The place's own MemRef; a return var printed without a type has none, and then the
    // init's stands for it.
    let typed = if tile_memref(f, anchor).is_some() {
        anchor
    } else {
        init
    };
    let shared_base = tile_memref(f, typed)?.base.clone();
    let space = tile_space(f, typed)?;
    // The place is fed by a copy within its space, which must exist.
    if !tile_move_exists(space, space) {
        return None;
    }
    if tile_memref(f, init).is_some_and(|m| m.base != shared_base) {
        return None;
    }
    let alloc_size = alloc_size(f, &shared_base)?;
    let mut places = Places::new(f, &shared_base);
    places.walk(&f.body, &[(anchor, init)]);
    let mut family = places.component(anchor);
    // Carries that start from one tile and yield one value are one place; the carry leaves
    // with a copy of that value too, made before the yield.
    let mut yield_copy = None;
    if family.contains(&init)
        && let Place::Carry(_) = place
        && let Some(yielded) = yielded_value(&f.body, anchor)
    {
        let mut places = Places::new(f, &shared_base);
        places.walk(&f.body, &[(anchor, init), (anchor, yielded)]);
        let without_yield = places.component(anchor);
        if !without_yield.contains(&yielded) {
            family = without_yield;
            yield_copy = Some(yielded);
        }
    }
    if family.contains(&init) {
        // Still one place with the init through links the yield fixup realises with a
        // `tile.move` anyway: only the tiles bound to the place leave, and the fixup copies
        // the rest in and out.
        let mut places = Places::new(f, &shared_base).binding_only();
        places.walk(&f.body, &[(anchor, init)]);
        family = places.component(anchor);
        yield_copy = None;
        if family.contains(&init) {
            return None;
        }
    }
    let (new_base, alloc) = rebase(f, space, &family, bases);
    let suffix = match place {
        Place::Carry(_) => "carry",
        Place::IfResult(_) => "phi",
    };
    let copy_name: Name = f
        .vars
        .unused_name(&format!("{}_{suffix}", f.vars[init].name))
        .into();
    let mut copy_ty = f.vars[typed].ty.clone();
    if let Some(Type::Tile(tile)) = &mut copy_ty
        && let Some(memref) = &mut tile.memref
    {
        memref.base = new_base.clone();
    }
    let init_span = f.vars[init].span;
    let copy = f.vars.push(Var {
        name: copy_name.clone(),
        kind: VarKind::Local,
        ty: copy_ty,
        span: init_span,
    });
    let copy_stmt = Stmt::tile_move(copy, init, space, init_span);
    if let Some(yielded) = yield_copy {
        let name: Name = f
            .vars
            .unused_name(&format!("{}_carry", f.vars[yielded].name))
            .into();
        let span = f.vars[yielded].span;
        let ty = f.vars[copy].ty.clone();
        let yielded_copy = f.vars.push(Var {
            name,
            kind: VarKind::Local,
            ty,
            span,
        });
        let stmt = Stmt::tile_move(yielded_copy, yielded, space, span);
        feed_yield(&mut f.body, anchor, yielded_copy, stmt);
    }
    insert_copy(&mut f.body, place, copy, copy_stmt);
    crate::plan::cleanup::hoist_allocs(f, &[(alloc, alloc_size, space)]);
    Some(Detached {
        init: f.vars[init].name.clone(),
        shared_base,
        new_base,
        copy: copy_name,
        copy_var: copy,
    })
}

/// What the loop of `iter_arg` yields for it, when that is a variable.
fn yielded_value(body: &[Stmt], iter_arg: VarId) -> Option<VarId> {
    let (stmt, i) = Place::Carry(iter_arg).defined_in(body)?;
    let StmtKind::For(f) = &stmt.kind else {
        return None;
    };
    final_yield_values(&f.body)?.get(i)?.as_var()
}

/// Makes the loop of `iter_arg` yield `copy` for it, computed by `copy_stmt` before the yield.
fn feed_yield(body: &mut Vec<Stmt>, iter_arg: VarId, copy: VarId, copy_stmt: Stmt) {
    let Some((block, k, i)) = Place::Carry(iter_arg).defined_in_mut(body) else {
        return;
    };
    let StmtKind::For(f) = &mut block[k].kind else {
        return;
    };
    let at = f.body.len().saturating_sub(1);
    if let Some(StmtKind::Yield { values }) = f.body.last_mut().map(|s| &mut s.kind)
        && let Some(value) = values.get_mut(i)
    {
        *value = Expr::new(ExprKind::Var(copy), value.span);
        f.body.insert(at, copy_stmt);
    }
}

/// The variable that sits on `place` (a loop's iter arg, an `if` result) and the init that
/// feeds it (the loop's init value, the value the `if`'s then arm yields), when both are
/// variables.
pub fn place_anchor(body: &[Stmt], place: Place) -> Option<(VarId, VarId)> {
    find_place(body, place)
}

/// The variable that sits on the place and the init that feeds it.
fn find_place(body: &[Stmt], place: Place) -> Option<(VarId, VarId)> {
    let (stmt, i) = place.defined_in(body)?;
    match &stmt.kind {
        StmtKind::For(f) => Some((f.iter_args[i], f.init_values.get(i)?.as_var()?)),
        StmtKind::If(s) => {
            let value = final_yield_values(&s.then_body)?.get(i)?.as_var()?;
            Some((s.return_vars[i], value))
        }
        _ => None,
    }
}

/// Feeds the place from `copy`, computed by `copy_stmt` right before the loop or the yield.
fn insert_copy(body: &mut Vec<Stmt>, place: Place, copy: VarId, copy_stmt: Stmt) {
    let Some((block, k, i)) = place.defined_in_mut(body) else {
        return;
    };
    match &mut block[k].kind {
        StmtKind::For(f) => {
            let span = f.init_values[i].span;
            f.init_values[i] = Expr::new(ExprKind::Var(copy), span);
            block.insert(k, copy_stmt);
        }
        StmtKind::If(s) => {
            let arm = &mut s.then_body;
            let at = arm.len().saturating_sub(1);
            if let Some(StmtKind::Yield { values }) = arm.get_mut(at).map(|s| &mut s.kind) {
                let span = values[i].span;
                values[i] = Expr::new(ExprKind::Var(copy), span);
            }
            arm.insert(at, copy_stmt);
        }
        _ => {}
    }
}

/// The tile whose storage an assignment's value is: a bare alias's source, a view's argument
/// 0, an in-place result's argument k (the op table's "output reuses input k").
fn storage_source(value: &Expr) -> Option<VarId> {
    match &value.kind {
        ExprKind::Var(source) => Some(*source),
        ExprKind::Call(_, call) => value.call_info().and_then(|info| {
            let arg = |k: usize| call.args.get(k).and_then(Expr::as_var);
            if info.view {
                arg(0)
            } else {
                info.reuses_input.and_then(arg)
            }
        }),
        _ => None,
    }
}

/// The tile `tile` is one storage with when it sits on that tile's base: the source it is a
/// view, a bare alias or an in-place result of. It cannot move without it.
fn storage_source_on_base(f: &Function, tile: VarId) -> Option<VarId> {
    let mut source = None;
    crate::plan::analysis::lifetimes::visit_assignments(&f.body, &mut |target, value| {
        if target == tile {
            source = storage_source(value);
        }
    });
    source.filter(|&s| same_base(f, s, tile))
}

fn same_base(f: &Function, a: VarId, b: VarId) -> bool {
    match (tile_memref(f, a), tile_memref(f, b)) {
        (Some(a), Some(b)) => a.base == b.base,
        _ => false,
    }
}

/// The root of each tile's storage in a function: the tile (an assignment's value, an `if`
/// result, an iter arg or a loop result) that it is a view, alias or in-place result of on its
/// base, through any chain of those; the tile itself when it is none. With the place each
/// variable names, found once: a repair round asks for both of many tiles.
pub struct StorageRoots {
    /// Indexed by tile: the source its last assignment with one on its base gives it.
    sources: Vec<Option<VarId>>,
    /// How many tiles have a source: no chain is longer.
    with_source: usize,
    /// Indexed by variable: the place it names ([`StorageRoots::place`]).
    places: Vec<Option<Place>>,
}

impl StorageRoots {
    pub fn of(f: &Function) -> StorageRoots {
        let mut sources: Vec<Option<VarId>> = vec![None; f.vars.len()];
        let mut with_source = 0;
        crate::plan::analysis::lifetimes::visit_assignments(&f.body, &mut |target, value| {
            if let Some(source) = storage_source(value)
                && same_base(f, source, target)
                && let Some(slot) = sources.get_mut(target.index())
                && slot.replace(source).is_none()
            {
                with_source += 1;
            }
        });
        // Indexed by variable: the place the first statement naming it gives it, if any.
        let mut named: Vec<Option<Option<Place>>> = vec![None; f.vars.len()];
        let mut name = |v: VarId, place: Option<Place>| {
            if let Some(slot) = named.get_mut(v.index())
                && slot.is_none()
            {
                *slot = Some(place);
            }
        };
        for_each_stmt(&f.body, &mut |stmt| match &stmt.kind {
            StmtKind::For(l) => {
                for &arg in &l.iter_args {
                    name(arg, Some(Place::Carry(arg)));
                }
                // A loop result is its carry, named by the iter arg at its index.
                for (k, &result) in l.return_vars.iter().enumerate() {
                    name(result, l.iter_args.get(k).map(|&arg| Place::Carry(arg)));
                }
            }
            StmtKind::If(i) => {
                for &result in &i.return_vars {
                    name(result, Some(Place::IfResult(result)));
                }
            }
            _ => {}
        });
        let places = named.into_iter().map(Option::flatten).collect();
        StorageRoots {
            sources,
            with_source,
            places,
        }
    }

    /// The loop carry or `if` result whose storage `tile` is, following views, aliases and
    /// in-place results on one base back to their root: an `if` result, a loop's iter arg or
    /// a loop result (its carry). A repair that gives that place its own buffer takes `tile`
    /// along, while one that moves `tile` alone would split it from its source. `None` when
    /// the root is an assignment's own value.
    pub fn storage_place(&self, tile: VarId) -> Option<Place> {
        self.place(self.root(tile))
    }

    /// The place `v` names when it is an `if` result, a loop's iter arg or a loop result (the
    /// carry of the iter arg at its index).
    pub fn place(&self, v: VarId) -> Option<Place> {
        self.places.get(v.index()).copied().flatten()
    }

    pub fn root(&self, tile: VarId) -> VarId {
        let mut root = tile;
        // A cycle ends the chain.
        for _ in 0..self.with_source {
            match self.sources.get(root.index()).copied().flatten() {
                Some(source) if source != root => root = source,
                _ => break,
            }
        }
        root
    }
}

/// Moves `tile` and the views, aliases and in-place results derived from it on its base to a
/// fresh allocation of its base's size; returns the new base. The loop carries and `if`
/// results it feeds stay where they are (the yield fixup copies into them). `None` when `tile`
/// is itself a view, alias or in-place result of a tile on its base: it is that tile's storage
/// and cannot leave it alone ([`StorageRoots::storage_place`] names the place that can). The
/// new allocation is named from `bases`.
pub fn fresh_buffer(f: &mut Function, tile: VarId, bases: &mut FreshBases) -> Option<Name> {
    let base = tile_memref(f, tile)?.base.clone();
    let space = tile_space(f, tile)?;
    let size = alloc_size(f, &base)?;
    if storage_source_on_base(f, tile).is_some() {
        return None;
    }
    let mut moved = vec![tile];
    crate::plan::analysis::lifetimes::visit_assignments(&f.body, &mut |target, value| {
        let source = storage_source(value);
        if source.is_some_and(|s| moved.contains(&s))
            && tile_memref(f, target).is_some_and(|m| m.base == base)
        {
            moved.push(target);
        }
    });
    let (new_base, alloc) = rebase(f, space, &moved, bases);
    crate::plan::cleanup::hoist_allocs(f, &[(alloc, size, space)]);
    Some(new_base)
}

/// Which tiles on one base must sit in one place: views, aliases and in-place results with
/// their source; a loop's init, iter arg, yielded value and result; an `if` result with what
/// its arms yield. A union-find over variables.
///
/// With `binding_only`, the links the safe planner's yield fixup realises with a `tile.move`
/// when their ends sit apart are left out: a yielded value with its loop's iter arg (nested
/// carries included) and an `if`'s else arm with its result.
struct Places<'f> {
    f: &'f Function,
    base: &'f str,
    parent: FxHashMap<VarId, VarId>,
    binding_only: bool,
}

impl<'f> Places<'f> {
    fn new(f: &'f Function, base: &'f str) -> Places<'f> {
        Places {
            f,
            base,
            parent: FxHashMap::default(),
            binding_only: false,
        }
    }

    fn binding_only(self) -> Places<'f> {
        Places {
            binding_only: true,
            ..self
        }
    }

    fn on_base(&self, v: VarId) -> bool {
        tile_memref(self.f, v).is_some_and(|m| m.base == self.base)
    }

    fn find(&mut self, v: VarId) -> VarId {
        let mut root = v;
        while let Some(&p) = self.parent.get(&root) {
            if p == root {
                break;
            }
            root = p;
        }
        self.parent.insert(v, root);
        root
    }

    fn join(&mut self, a: VarId, b: VarId) {
        if !self.on_base(a) || !self.on_base(b) {
            return;
        }
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            // The lower id becomes the root, so the result does not depend on visiting order.
            let (root, child) = if ra.index() <= rb.index() {
                (ra, rb)
            } else {
                (rb, ra)
            };
            self.parent.insert(child, root);
        }
    }

    /// Records every link but those in `cut`.
    fn walk(&mut self, body: &'f [Stmt], cut: &[(VarId, VarId)]) {
        for stmt in body {
            match &stmt.kind {
                // A link joins only tiles on the base: the op table is not consulted for a
                // target elsewhere.
                StmtKind::Assign { target, .. } if !self.on_base(*target) => {}
                StmtKind::Assign { target, value } => {
                    if let Some(source) = storage_source(value) {
                        self.join(*target, source);
                    }
                }
                StmtKind::For(f) => {
                    let yielded = first_yield(&f.body);
                    for (i, &iter_arg) in f.iter_args.iter().enumerate() {
                        if let Some(init) = f.init_values.get(i).and_then(Expr::as_var)
                            && !cut.contains(&(iter_arg, init))
                        {
                            self.join(iter_arg, init);
                        }
                        if let Some(value) = yielded.and_then(|y| y.get(i)).and_then(Expr::as_var)
                            && !cut.contains(&(iter_arg, value))
                            && !self.binding_only
                        {
                            self.join(iter_arg, value);
                        }
                        if let Some(&result) = f.return_vars.get(i) {
                            self.join(iter_arg, result);
                        }
                    }
                    self.walk(&f.body, cut);
                }
                StmtKind::If(i) => {
                    let arms = [Some(&i.then_body[..]), i.else_body.as_deref()];
                    for (k, arm) in arms.into_iter().enumerate() {
                        let Some(arm) = arm else { continue };
                        let copied_in = k == 1 && self.binding_only;
                        if let Some(values) = first_yield(arm).filter(|_| !copied_in) {
                            for (&result, value) in i.return_vars.iter().zip(values) {
                                if let Some(value) = value.as_var()
                                    && !cut.contains(&(result, value))
                                {
                                    self.join(result, value);
                                }
                            }
                        }
                        self.walk(arm, cut);
                    }
                }
                StmtKind::With(w) => self.walk(&w.body, cut),
                _ => {}
            }
        }
    }

    /// Every variable in `v`'s place, in id order.
    fn component(&mut self, v: VarId) -> Vec<VarId> {
        let root = self.find(v);
        let mut members: Vec<VarId> = self.parent.keys().copied().collect();
        members.retain(|&m| m == v || self.find(m) == root);
        if !members.contains(&v) {
            members.push(v);
        }
        members.sort_by_key(|m| m.index());
        members
    }
}

fn tile_memref(f: &Function, v: VarId) -> Option<&MemRef> {
    match &f.vars[v].ty {
        Some(Type::Tile(t)) => t.memref.as_ref(),
        _ => None,
    }
}

fn tile_space(f: &Function, v: VarId) -> Option<MemSpace> {
    match &f.vars[v].ty {
        Some(Type::Tile(t)) => t.space,
        _ => None,
    }
}

/// The byte size of the top-level alloc defining `base`.
fn alloc_size(f: &Function, base: &str) -> Option<i64> {
    f.body.iter().find_map(|stmt| match &stmt.kind {
        StmtKind::Assign { target, value }
            if value.is_alloc_call() && f.vars[*target].name == base =>
        {
            value.as_call()?.args.get(1)?.as_const_int()
        }
        _ => None,
    })
}

/// Puts `tiles` on a fresh base in `space` (named from `bases`, which `f`'s allocations take
/// their names from), declared by a new variable; returns the base and that variable.
fn rebase(
    f: &mut Function,
    space: MemSpace,
    tiles: &[VarId],
    bases: &mut FreshBases,
) -> (Name, VarId) {
    let new_base: Name = bases.take(space).into();
    for &v in tiles {
        if let Some(Type::Tile(tile)) = &mut f.vars[v].ty
            && let Some(memref) = &mut tile.memref
        {
            memref.base = new_base.clone();
        }
    }
    let alloc = f.vars.push(Var {
        name: new_base.clone(),
        kind: VarKind::Local,
        ty: Some(Type::Ptr),
        span: Span::default(),
    });
    (new_base, alloc)
}
