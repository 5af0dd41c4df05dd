//! Lifetime analysis (rules §5): statement numbering over nested control flow, def and last use
//! per variable, loop extension, if-phi families with read redirection, and the sharing groups
//! that become the packer's intervals.

use std::hash::BuildHasher;

use hashbrown::HashTable;
use hashbrown::hash_table::Entry;
use rustc_hash::{FxBuildHasher, FxHashMap};
use smallvec::SmallVec;

use memreuse_ir::walk::{final_yield_values, for_each_stmt};

use memreuse_ir::{
    Call, Expr, ExprKind, Function, MemSpace, Name, Span, Stmt, StmtKind, Type, VarId, VarKind,
};

/// One sharing group (all assignment-defined tiles on one base): the packer's unit.
#[derive(Clone, Debug, PartialEq)]
pub struct Interval {
    /// The earliest-defined member.
    pub rep: VarId,
    pub base: Name,
    pub space: MemSpace,
    /// The representative's MemRef size in bytes.
    pub size: i64,
    pub def: u32,
    pub last: u32,
    /// Members in definition order; most groups have one, kept without an allocation.
    pub members: SmallVec<[VarId; 1]>,
    /// `(group, stage)` pairs from the first member call with a `pipeline_membership` attr.
    pub pipeline: Vec<(i64, i64)>,
    /// Whether that call is a `tile.load`/`tile.read`.
    pub pipeline_load: bool,
}

impl Interval {
    /// rules §5.6: touching (`a.last == b.def`) is not overlapping.
    pub fn overlaps(&self, other: &Interval) -> bool {
        overlaps((self.def, self.last), (other.def, other.last))
    }
}

pub fn overlaps(a: (u32, u32), b: (u32, u32)) -> bool {
    !(a.1 <= b.0 || b.1 <= a.0)
}

/// A `u32` per variable, dense over the function's `VarTable` (planning touches every tile, so
/// a vector beats a hash map).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VarMap {
    values: Vec<u32>,
}

impl VarMap {
    const ABSENT: u32 = u32::MAX;

    fn with_len(len: usize) -> VarMap {
        VarMap {
            values: vec![Self::ABSENT; len],
        }
    }

    pub fn get(&self, v: VarId) -> Option<u32> {
        self.values
            .get(v.index())
            .copied()
            .filter(|&x| x != Self::ABSENT)
    }

    fn insert(&mut self, v: VarId, value: u32) {
        if let Some(slot) = self.values.get_mut(v.index()) {
            *slot = value;
        }
    }

    fn iter(&self) -> impl Iterator<Item = (VarId, u32)> + '_ {
        self.values
            .iter()
            .enumerate()
            .filter(|(_, x)| **x != Self::ABSENT)
            .map(|(i, &x)| (VarId(i as u32), x))
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lifetimes {
    /// Definition number of each tracked tile variable (assignment-defined, tile-typed).
    def: VarMap,
    /// Last use after loop extension.
    last: VarMap,
    /// If-phi family ids of each branch-local source, indexed by variable (packing asks per
    /// pair of members, so a vector beats a hash map); empty when no family exists.
    families: Vec<Vec<u32>>,
    /// Intervals in representative definition order.
    pub intervals: Vec<Interval>,
    /// The interval each grouped variable belongs to.
    group_of: VarMap,
    /// Loop scopes `[first, last]` statement numbers of each loop body.
    pub loops: Vec<(u32, u32)>,
    /// Number of statements numbered.
    pub statement_count: u32,
    /// Where each numbered statement is in the source, by number (an inserted statement,
    /// which has no place of its own, takes the one before it).
    pub statement_spans: Vec<Span>,
    /// What the walk saw of the body's statements.
    pub shape: BodyShape,
    /// Each group member's name and MemRef size, in interval order and within an interval in
    /// member order: the lifetime report reads them here, not in the variable table.
    member_facts: Vec<(Name, i64)>,
}

/// Statement kinds some later passes act on alone, noted by the numbering walk so a pass
/// with nothing to act on skips its own walk over the body (on a large function each walk
/// streams the whole statement tree from memory).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BodyShape {
    /// A `for` or an `if`, at any depth.
    pub control_flow: bool,
    /// A `reserve_buffer` call statement, at any depth.
    pub reserve_calls: bool,
    /// An alloc with `pinned=True`, at any depth.
    pub pinned_allocs: bool,
    /// A bare rename `x = y`, at any depth.
    pub renames: bool,
}

impl Lifetimes {
    /// `(def, last)` of a tracked variable.
    pub fn liveness(&self, v: VarId) -> Option<(u32, u32)> {
        Some((self.def.get(v)?, self.last.get(v)?))
    }

    /// The interval a grouped variable belongs to.
    pub fn group_of(&self, v: VarId) -> Option<usize> {
        self.group_of.get(v).map(|g| g as usize)
    }

    /// The name and MemRef size of every group member, in the order of
    /// `intervals.iter().flat_map(|iv| &iv.members)`.
    pub fn member_facts(&self) -> &[(Name, i64)] {
        &self.member_facts
    }

    pub fn families(&self, v: VarId) -> &[u32] {
        self.families.get(v.index()).map_or(&[], Vec::as_slice)
    }

    /// Whether any if-phi family exists; without one, overlapping lifetimes never share.
    pub fn has_families(&self) -> bool {
        !self.families.is_empty()
    }

    /// Whether two variables share an if-phi family.
    pub fn same_family(&self, a: VarId, b: VarId) -> bool {
        let fb = self.families(b);
        self.families(a).iter().any(|f| fb.contains(f))
    }

    /// Per-variable overlap; an unknown variable counts as overlapping (rules §5.6).
    pub fn vars_overlap(&self, a: VarId, b: VarId) -> bool {
        match (self.liveness(a), self.liveness(b)) {
            (Some(x), Some(y)) => overlaps(x, y),
            _ => true,
        }
    }

    /// The bytes of the intervals `in_space` (indices of one space's intervals) live at each
    /// statement, as steps: an interval occupies `[def, last)` (a never-used one its `def`),
    /// so touching intervals are not both live. Sources of one if-phi family sit in exclusive
    /// branches, so a family counts once, with its largest live member. The one definition
    /// of live bytes: the lower bound is its peak ([`peak`]), and pictures draw it.
    pub fn live_bytes(&self, in_space: &[usize]) -> Vec<LiveStep> {
        let intervals: Vec<&Interval> = in_space.iter().map(|&i| &self.intervals[i]).collect();
        // Each interval's family, looked up once rather than at both its events.
        let family_of: Vec<Option<u32>> = intervals
            .iter()
            .map(|iv| {
                iv.members
                    .iter()
                    .filter_map(|v| self.families(*v).iter().min())
                    .min()
                    .copied()
            })
            .collect();
        let mut events: Vec<(u32, bool, usize)> = Vec::with_capacity(2 * intervals.len());
        for (i, iv) in intervals.iter().enumerate() {
            events.push((iv.def, true, i));
            events.push((occupied_until(iv), false, i));
        }
        // Ends before starts at the same instant: touching intervals share. The keys are
        // distinct, so the unstable sort gives the same order.
        events.sort_unstable_by_key(|&(t, start, i)| (t, start, i));
        let mut plain = 0i64;
        let mut by_family: FxHashMap<u32, Vec<i64>> = FxHashMap::default();
        // The sum over families of each one's largest live size, kept as sizes come and go
        // instead of summed again at every event.
        let mut families = 0i64;
        let mut steps: Vec<LiveStep> = Vec::new();
        for (at, &(t, start, i)) in events.iter().enumerate() {
            let iv = intervals[i];
            match (family_of[i], start) {
                (None, true) => plain += iv.size,
                (None, false) => plain -= iv.size,
                (Some(f), start) => {
                    let sizes = by_family.entry(f).or_default();
                    let largest = |sizes: &[i64]| sizes.iter().copied().max().unwrap_or(0);
                    let before = largest(sizes);
                    if start {
                        sizes.push(iv.size);
                    } else if let Some(at) = sizes.iter().position(|&s| s == iv.size) {
                        sizes.swap_remove(at);
                    }
                    families += largest(sizes) - before;
                }
            }
            // A step once every event of its statement is in.
            if events.get(at + 1).is_some_and(|&(next, _, _)| next == t) {
                continue;
            }
            let bytes = plain + families;
            if steps.last().is_none_or(|last| last.bytes != bytes) {
                steps.push(LiveStep { at: t, bytes });
            }
        }
        steps
    }
}

/// From statement `at` on (until the next step), `bytes` are live in a space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LiveStep {
    pub at: u32,
    pub bytes: i64,
}

/// The bytes live at each statement of `[from, from + len)`, from a space's steps.
pub fn live_bytes_at(steps: &[LiveStep], from: u32, len: usize) -> Vec<i64> {
    let mut out = Vec::with_capacity(len);
    let mut next = steps.partition_point(|s| s.at <= from);
    let mut bytes = next.checked_sub(1).map_or(0, |i| steps[i].bytes);
    for t in (from..).take(len) {
        while let Some(step) = steps.get(next).filter(|s| s.at <= t) {
            bytes = step.bytes;
            next += 1;
        }
        out.push(bytes);
    }
    out
}

/// The most bytes live at one statement: a lower bound for any packing.
pub fn peak(live: &[LiveStep]) -> i64 {
    live.iter().map(|s| s.bytes).max().unwrap_or(0).max(0)
}

/// An interval occupies `[def, last)`; a never-used one still needs its bytes at `def`.
fn occupied_until(iv: &Interval) -> u32 {
    iv.last.max(iv.def + 1)
}

/// A branch's final yield values and the statement numbers `[start, end)` of the branch.
type BranchYield<'a> = (Option<&'a [Expr]>, (u32, u32));

/// Where a return variable's reads are redirected (rules §5.2 items 2 and 3).
enum Redirect {
    /// A `for` return var reads the loop's init value at the same index.
    Init(VarId),
    /// An if-phi reads each branch-local source.
    Sources(Vec<VarId>),
}

struct Numbering<'f> {
    f: &'f Function,
    order: u32,
    spans: Vec<Span>,
    def: VarMap,
    raw_last: VarMap,
    /// The init value of each iter arg, when it is a variable.
    iter_init: FxHashMap<VarId, VarId>,
    redirects: FxHashMap<VarId, Redirect>,
    families: FxHashMap<VarId, Vec<u32>>,
    next_family: u32,
    loops: Vec<(u32, u32)>,
    /// Read while the walk has each call at hand; few calls carry one.
    memberships: Memberships,
    shape: BodyShape,
    /// Tracked tiles with a MemRef in definition order: the members of the sharing groups.
    grouped: Vec<GroupedTile>,
    /// Where each numbered statement sits, and the arms of each `if` (only for
    /// [`statement_map`]; planning leaves it off).
    map: Option<StatementMap>,
    /// Whether a tracked variable was assigned twice, leaving a stale entry in `grouped`.
    redefined: bool,
}

/// A tracked tile with a MemRef, as the walk saw it at its definition: what grouping and the
/// lifetime report read, copied while the walk has the variable at hand, so neither returns
/// to the variable table (on a large function, every such pass misses the cache once per tile).
struct GroupedTile {
    def: u32,
    var: VarId,
    name: Name,
    base: Name,
    base_hash: u64,
    space: MemSpace,
    /// The MemRef's size in bytes.
    size: i64,
}

/// Each assignment target whose call carries a pipeline membership: its `(group, stage)` pairs
/// and whether the call is a load.
type Memberships = FxHashMap<VarId, (Vec<(i64, i64)>, bool)>;

impl<'a> Numbering<'a> {
    fn new(f: &'a Function, map: Option<StatementMap>) -> Numbering<'a> {
        Numbering {
            f,
            order: 0,
            // Statements are about as many as variables: sized for that, the list is seldom
            // copied as it grows.
            spans: Vec::with_capacity(f.vars.len()),
            def: VarMap::with_len(f.vars.len()),
            raw_last: VarMap::with_len(f.vars.len()),
            iter_init: FxHashMap::default(),
            redirects: FxHashMap::default(),
            families: FxHashMap::default(),
            next_family: 0,
            loops: Vec::new(),
            memberships: FxHashMap::default(),
            shape: BodyShape::default(),
            // At most one per variable; growing it instead would copy it, missing the cache
            // once per line copied, while capacity never written costs address space, not
            // memory.
            grouped: Vec::with_capacity(f.vars.len()),
            redefined: false,
            map,
        }
    }
}

pub fn analyze(f: &Function) -> Lifetimes {
    let mut n = Numbering::new(f, None);
    n.stmts(&f.body);
    let last = n.extend_over_loops();
    let mut lifetimes = Lifetimes {
        statement_count: n.order,
        statement_spans: n.spans,
        shape: n.shape,
        loops: n.loops,
        families: dense_families(f.vars.len(), n.families),
        ..Lifetimes::default()
    };
    lifetimes.def = n.def;
    lifetimes.last = last;
    let mut grouped = n.grouped;
    if n.redefined {
        // A variable assigned twice counts at its last definition, as `def` has it.
        grouped.retain(|t| lifetimes.def.get(t.var) == Some(t.def));
    }
    build_groups(f.vars.len(), grouped, &n.memberships, &mut lifetimes);
    lifetimes
}

/// The families the walk gathered, indexed by variable; none stay none.
fn dense_families(var_count: usize, families: FxHashMap<VarId, Vec<u32>>) -> Vec<Vec<u32>> {
    if families.is_empty() {
        return Vec::new();
    }
    let mut dense = vec![Vec::new(); var_count];
    for (v, ids) in families {
        if let Some(slot) = dense.get_mut(v.index()) {
            *slot = ids;
        }
    }
    dense
}

/// The statement numbering of a function as the lifetimes use it, located: for the viewer,
/// which draws lifetimes over source lines.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StatementMap {
    /// The span of each numbered statement, by number.
    pub spans: Vec<Span>,
    /// Loop bodies, `[first, last]` statement numbers, inner loops first.
    pub loops: Vec<(u32, u32)>,
    /// Each `if`: the statement numbers `[start, end)` of its arms, in walk order.
    pub ifs: Vec<IfArms>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct IfArms {
    pub then_arm: (u32, u32),
    pub else_arm: (u32, u32),
    pub span: Span,
}

/// Numbers `f`'s statements as [`analyze`] does and says where each one is.
pub fn statement_map(f: &Function) -> StatementMap {
    let mut n = Numbering::new(f, Some(StatementMap::default()));
    n.stmts(&f.body);
    let mut map = n.map.take().unwrap_or_default();
    map.loops = n.loops;
    map
}

impl<'f> Numbering<'f> {
    fn is_tracked(&self, v: VarId) -> bool {
        let var = &self.f.vars[v];
        var.kind == VarKind::Local && matches!(var.ty, Some(Type::Tile(_)))
    }

    fn stmts(&mut self, stmts: &'f [Stmt]) {
        for stmt in stmts {
            self.stmt(stmt);
        }
    }

    fn stmt(&mut self, stmt: &'f Stmt) {
        match &stmt.kind {
            StmtKind::Assign { target, value } => {
                let at = self.next(stmt.span);
                self.uses(value, at);
                self.shape.reserve_calls |= value.is_reserve_buffer_call();
                self.shape.pinned_allocs |= value.is_pinned_alloc_call();
                self.shape.renames |= value.as_var().is_some();
                if let Some(call) = value.as_call() {
                    match pipeline_membership(call) {
                        Some(pairs) => {
                            let load = value
                                .call_role()
                                .is_some_and(|role| role.reads_global_memory());
                            self.memberships.insert(*target, (pairs, load));
                        }
                        // A reassigned target keeps only its last call's membership.
                        None if !self.memberships.is_empty() => {
                            self.memberships.remove(target);
                        }
                        None => {}
                    }
                }
                if self.is_tracked(*target) {
                    self.redefined |= self.def.get(*target).is_some();
                    self.def.insert(*target, at);
                    if let Some(Type::Tile(tile)) = &self.f.vars[*target].ty
                        && let Some(memref) = &tile.memref
                    {
                        self.grouped.push(GroupedTile {
                            def: at,
                            var: *target,
                            name: self.f.vars[*target].name.clone(),
                            base: memref.base.clone(),
                            base_hash: FxBuildHasher.hash_one(memref.base.as_str()),
                            space: tile.space.unwrap_or(MemSpace::Ddr),
                            size: memref.size_bytes().unwrap_or(0),
                        });
                    }
                }
            }
            StmtKind::Eval(value) => {
                let at = self.next(stmt.span);
                self.uses(value, at);
                self.shape.reserve_calls |= value.is_reserve_buffer_call();
            }
            StmtKind::Yield { values } | StmtKind::Return { values } => {
                let at = self.next(stmt.span);
                for v in values {
                    self.uses(v, at);
                }
            }
            StmtKind::For(for_stmt) => {
                self.shape.control_flow = true;
                let start = self.order;
                for (arg, init) in for_stmt.iter_args.iter().zip(&for_stmt.init_values) {
                    self.uses(init, start);
                    if let ExprKind::Var(init_var) = init.kind {
                        self.iter_init.insert(*arg, init_var);
                    }
                }
                self.stmts(&for_stmt.body);
                if self.order > start {
                    self.loops.push((start, self.order - 1));
                }
                for (rv, init) in for_stmt.return_vars.iter().zip(&for_stmt.init_values) {
                    if let ExprKind::Var(init_var) = init.kind
                        && self.is_tracked(init_var)
                    {
                        self.redirects.insert(*rv, Redirect::Init(init_var));
                    }
                }
            }
            StmtKind::If(if_stmt) => {
                self.shape.control_flow = true;
                let at = self.order;
                self.uses(&if_stmt.cond, at);
                let then_range = (self.order, {
                    self.stmts(&if_stmt.then_body);
                    self.order
                });
                let else_range = (self.order, {
                    if let Some(e) = &if_stmt.else_body {
                        self.stmts(e);
                    }
                    self.order
                });
                if let Some(map) = &mut self.map {
                    map.ifs.push(IfArms {
                        then_arm: then_range,
                        else_arm: else_range,
                        span: stmt.span,
                    });
                }
                self.register_phis(
                    &if_stmt.return_vars,
                    [
                        (final_yield_values(&if_stmt.then_body), then_range),
                        (
                            if_stmt.else_body.as_deref().and_then(final_yield_values),
                            else_range,
                        ),
                    ],
                );
            }
            StmtKind::With(w) => self.stmts(&w.body),
            StmtKind::Pass => {}
        }
    }

    fn next(&mut self, span: Span) -> u32 {
        let at = self.order;
        self.order += 1;
        if let Some(map) = &mut self.map {
            map.spans.push(span);
        }
        // (Spans compare equal whatever their place: look at the place itself.)
        let span = match self.spans.last() {
            Some(&before) if span.end == 0 => before,
            _ => span,
        };
        self.spans.push(span);
        at
    }

    /// rules §5.4: each tile phi with a MemRef gets a family shared with its branch-local
    /// sources; later reads of the phi become reads of those sources.
    fn register_phis(&mut self, return_vars: &[VarId], branches: [BranchYield; 2]) {
        for (i, rv) in return_vars.iter().enumerate() {
            let is_tile_with_memref = matches!(
                &self.f.vars[*rv].ty,
                Some(Type::Tile(t)) if t.memref.is_some()
            );
            if !is_tile_with_memref {
                continue;
            }
            let family = self.next_family;
            self.next_family += 1;
            let mut sources = Vec::new();
            for (values, (start, end)) in branches {
                let Some(candidate) = values.and_then(|v| v.get(i)).and_then(Expr::as_var) else {
                    continue;
                };
                let flattened = match self.redirects.get(&candidate) {
                    Some(Redirect::Sources(inner)) => inner.clone(),
                    _ => vec![candidate],
                };
                for source in flattened {
                    let local = self.is_tracked(source)
                        && self.def.get(source).is_some_and(|d| d >= start && d < end);
                    if local {
                        self.families.entry(source).or_default().push(family);
                        sources.push(source);
                    }
                }
            }
            if !sources.is_empty() {
                self.families.entry(*rv).or_default().push(family);
                self.redirects.insert(*rv, Redirect::Sources(sources));
            }
        }
    }

    fn uses(&mut self, expr: &Expr, at: u32) {
        expr.for_each_var(&mut |v| self.use_var(v, at));
    }

    fn use_var(&mut self, v: VarId, at: u32) {
        let mut v = v;
        // An iter arg reads its init value, through any number of nested loops.
        while self.f.vars[v].kind == VarKind::IterArg {
            match self.iter_init.get(&v) {
                Some(&init) => v = init,
                None => return,
            }
        }
        match self.redirects.get(&v) {
            Some(Redirect::Init(init)) => {
                let init = *init;
                self.note_use(init, at);
            }
            Some(Redirect::Sources(sources)) => {
                for source in sources.clone() {
                    self.note_use(source, at);
                }
            }
            None => {
                if self.is_tracked(v) {
                    self.note_use(v, at);
                }
            }
        }
    }

    fn note_use(&mut self, v: VarId, at: u32) {
        let last = self.raw_last.get(v).map_or(at, |l| l.max(at));
        self.raw_last.insert(v, last);
    }

    /// rules §5.3: a value defined before a loop and read in or after it lives to the loop's end.
    fn extend_over_loops(&self) -> VarMap {
        let mut loops = self.loops.clone();
        loops.sort_unstable();
        let ends = RangeMax::new(loops.iter().map(|&(_, e)| e).collect());
        let mut extended = VarMap::with_len(self.def.values.len());
        for (v, def) in self.def.iter() {
            let raw = self.raw_last.get(v).unwrap_or(def).max(def);
            let first = loops.partition_point(|&(s, _)| s <= def);
            let after = loops.partition_point(|&(s, _)| s <= raw);
            let last = match ends.max(first, after) {
                Some(end) => raw.max(end),
                None => raw,
            };
            extended.insert(v, last);
        }
        extended
    }
}

/// Range-maximum queries over a fixed array (sparse table).
struct RangeMax {
    levels: Vec<Vec<u32>>,
}

impl RangeMax {
    fn new(values: Vec<u32>) -> RangeMax {
        let mut levels = vec![values];
        let mut width = 1;
        // Level k holds the maxima of the windows [i, i + 2^k).
        while width * 2 <= levels[0].len() {
            let prev = &levels[levels.len() - 1];
            let next = (0..prev.len() - width)
                .map(|i| prev[i].max(prev[i + width]))
                .collect();
            levels.push(next);
            width *= 2;
        }
        RangeMax { levels }
    }

    /// Maximum over `[from, to)`, or `None` for an empty range.
    fn max(&self, from: usize, to: usize) -> Option<u32> {
        if from >= to {
            return None;
        }
        let level = (usize::BITS - 1 - (to - from).leading_zeros()) as usize;
        let row = &self.levels[level];
        Some(row[from].max(row[to - (1 << level)]))
    }
}

/// rules §5.5: group tracked tiles with a MemRef by base into intervals.
fn build_groups(
    var_count: usize,
    mut tiles: Vec<GroupedTile>,
    memberships: &Memberships,
    lifetimes: &mut Lifetimes,
) {
    lifetimes.group_of = VarMap::with_len(var_count);
    // Group numbers by base, in a table of 4-byte entries: probed at random, a table with an
    // entry per tile of a large function must stay small to stay in cache. Sized for one base
    // per tile (as before planning): growing the table rehashes it.
    let mut by_base: HashTable<u32> = HashTable::with_capacity(tiles.len());
    // Each group's tiles (indices into `tiles`), the first one first. Sized up front too:
    // growing these vectors copies them, which on a large function misses the cache once per
    // line copied.
    let mut groups: Vec<SmallVec<[u32; 1]>> = Vec::with_capacity(tiles.len());
    for (index, tile) in tiles.iter().enumerate() {
        let first_of = |g: &u32| &tiles[groups[*g as usize][0] as usize];
        match by_base.entry(
            tile.base_hash,
            |g| first_of(g).base == tile.base,
            |g| first_of(g).base_hash,
        ) {
            Entry::Occupied(group) => groups[*group.get() as usize].push(index as u32),
            Entry::Vacant(slot) => {
                slot.insert(groups.len() as u32);
                groups.push(smallvec::smallvec![index as u32]);
            }
        }
    }
    lifetimes.intervals.reserve_exact(groups.len());
    lifetimes.member_facts.reserve_exact(tiles.len());
    for group_tiles in groups {
        let first = group_tiles[0] as usize;
        let mut group: SmallVec<[VarId; 1]> = SmallVec::with_capacity(group_tiles.len());
        for &t in &group_tiles {
            let tile = &mut tiles[t as usize];
            group.push(tile.var);
            let name = std::mem::take(&mut tile.name);
            lifetimes.member_facts.push((name, tile.size));
        }
        let (mut def, mut last) = (u32::MAX, 0);
        for v in &group {
            if let Some((d, l)) = lifetimes.liveness(*v) {
                def = def.min(d);
                last = last.max(l);
            }
        }
        let membership = group.iter().find_map(|v| memberships.get(v).cloned());
        let (pipeline, pipeline_load) = membership.unwrap_or_default();
        let index = lifetimes.intervals.len();
        for v in &group {
            lifetimes.group_of.insert(*v, index as u32);
        }
        let rep = &mut tiles[first];
        lifetimes.intervals.push(Interval {
            rep: rep.var,
            base: std::mem::take(&mut rep.base),
            space: rep.space,
            size: rep.size,
            def,
            last,
            members: group,
            pipeline,
            pipeline_load,
        });
    }
}

/// The call on the right of each assignment.
pub fn defining_calls(f: &Function) -> FxHashMap<VarId, &Call> {
    let mut calls = FxHashMap::default();
    visit_assignments(&f.body, &mut |target, value| {
        if let Some(call) = value.as_call() {
            calls.insert(target, call);
        }
    });
    calls
}

/// Calls `visit(target, value)` for every assignment, in program order.
pub fn visit_assignments<'f>(stmts: &'f [Stmt], visit: &mut impl FnMut(VarId, &'f Expr)) {
    for_each_stmt(stmts, &mut |stmt| {
        if let StmtKind::Assign { target, value } = &stmt.kind {
            visit(*target, value);
        }
    });
}

/// rules §6.6: `"g:s;g:s"`, malformed tokens skipped; `None` when absent or empty.
pub fn pipeline_membership(call: &Call) -> Option<Vec<(i64, i64)>> {
    let ExprKind::Str { value, .. } = &call.attr("pipeline_membership")?.kind else {
        return None;
    };
    let pairs: Vec<(i64, i64)> = value
        .split(';')
        .filter_map(|token| {
            let (g, s) = token.split_once(':')?;
            Some((g.trim().parse().ok()?, s.trim().parse().ok()?))
        })
        .collect();
    (!pairs.is_empty()).then_some(pairs)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use memreuse_ir::parse_program;

    fn interval(def: u32, length: u32, size: i64) -> Interval {
        Interval {
            rep: VarId(0),
            base: Name::from("b"),
            space: MemSpace::Vec,
            size,
            def,
            last: def + length,
            members: SmallVec::new(),
            pipeline: Vec::new(),
            pipeline_load: false,
        }
    }

    proptest! {
        /// The steps give, at every statement, the bytes of the intervals occupying it.
        #[test]
        fn live_bytes_are_the_sizes_of_the_intervals_occupying_each_statement(
            shapes in proptest::collection::vec((0u32..60, 0u32..12, 1i64..5000), 0..80),
        ) {
            let lifetimes = Lifetimes {
                intervals: shapes
                    .iter()
                    .map(|&(def, length, size)| interval(def, length, size))
                    .collect(),
                ..Lifetimes::default()
            };
            let all: Vec<usize> = (0..lifetimes.intervals.len()).collect();
            let steps = lifetimes.live_bytes(&all);
            for t in 0..80u32 {
                let expected: i64 = lifetimes
                    .intervals
                    .iter()
                    .filter(|iv| iv.def <= t && t < occupied_until(iv))
                    .map(|iv| iv.size)
                    .sum();
                let at = steps.iter().rev().find(|s| s.at <= t).map_or(0, |s| s.bytes);
                prop_assert_eq!(at, expected, "statement {}", t);
            }
            prop_assert!(steps.windows(2).all(|w| w[0].at < w[1].at && w[0].bytes != w[1].bytes));
        }
    }

    /// A function built by hand may assign one variable twice (parsing never does): the
    /// variable then counts once, at its last definition.
    #[test]
    fn a_variable_assigned_twice_counts_at_its_last_definition() {
        let text = r#"import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 256)]) -> pl.Tensor[[64], pl.FP32]:
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)
        a: pl.Tile[[64], pl.FP32, pl.MemRef(mem_vec_1, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.load(x, [0], [64], [64], target_memory=pl.Mem.Vec)
        b: pl.Tile[[64], pl.FP32, pl.MemRef(mem_vec_1, pl.const(0, pl.INT64), 256), pl.Mem.Vec] = pl.tile.add(a, a)
        return x
"#;
        let mut f = parse_program(text).expect("parses").functions.remove(0);
        let again = f.body[1].clone();
        f.body.insert(3, again);
        let lifetimes = analyze(&f);
        let a = match &f.body[1].kind {
            StmtKind::Assign { target, .. } => *target,
            _ => unreachable!("the second statement assigns `a`"),
        };
        assert_eq!(lifetimes.intervals.len(), 1);
        let members = &lifetimes.intervals[0].members;
        assert_eq!(members.iter().filter(|&&v| v == a).count(), 1);
        assert_eq!(lifetimes.liveness(a).map(|(def, _)| def), Some(3));
        assert_eq!(lifetimes.member_facts().len(), members.len());
    }

    /// The viewer's map numbers exactly the statements `analyze` numbers, and its loops are
    /// the lifetimes' loops; each `if`'s arms sit inside the numbering, then before else.
    #[test]
    fn the_statement_map_numbers_as_the_lifetimes_do() {
        for text in [
            include_str!("../../../../examples/kernels/nested_carries/31_after_InitMemRef.py"),
            include_str!("../../../../examples/kernels/if_phi_select/31_after_InitMemRef.py"),
            include_str!("../../../../examples/kernels/flash_attention/31_after_InitMemRef.py"),
        ] {
            let program = parse_program(text).expect("parses");
            for f in &program.functions {
                let lifetimes = analyze(f);
                let map = statement_map(f);
                assert_eq!(
                    map.spans.len() as u32,
                    lifetimes.statement_count,
                    "{}",
                    f.name
                );
                assert_eq!(map.loops, lifetimes.loops, "{}", f.name);
                for arms in &map.ifs {
                    assert!(arms.then_arm.0 <= arms.then_arm.1);
                    assert_eq!(arms.then_arm.1, arms.else_arm.0);
                    assert!(arms.else_arm.1 <= lifetimes.statement_count);
                }
                // Statements are numbered in source order.
                assert!(
                    map.spans.windows(2).all(|w| w[0].start < w[1].start),
                    "{}",
                    f.name
                );
            }
        }
    }
}
