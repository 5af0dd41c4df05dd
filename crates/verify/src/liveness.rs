//! The verifier's own lifetime analysis: steps, on-chip tiles, where each is written and read,
//! and which tiles are one storage value (see the module doc of `verify` for the model).

use std::fmt;

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use memreuse_ir::walk::final_yield_values;
use memreuse_ir::{
    Expr, ExprKind, Function, MemRef, MemSpace, Name, Span, Stmt, StmtKind, Type, Var, VarId,
};

/// A position in the verifier's numbering of a function body.
pub type Step = u32;

/// The bytes a tile covers on its base.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bytes {
    /// `[start, end)`
    Known { start: i64, end: i64 },
    /// A symbolic offset with no constant source to borrow from: assume the whole base.
    Unknown,
}

impl Bytes {
    /// The constant range of a MemRef; `None` when its offset or size is symbolic.
    pub(super) fn of(memref: &MemRef) -> Option<Bytes> {
        let start = memref.const_offset()?;
        let size = memref.size_bytes()?;
        Some(Bytes::Known {
            start,
            end: start.saturating_add(size),
        })
    }

    pub fn intersects(self, other: Bytes) -> bool {
        match (self, other) {
            (Bytes::Known { start: a, end: b }, Bytes::Known { start: c, end: d }) => {
                a < d && c < b
            }
            _ => true,
        }
    }
}

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bytes::Known { start, end } => write!(f, "bytes [{start}, {end})"),
            Bytes::Unknown => write!(f, "symbolic bytes"),
        }
    }
}

/// One on-chip tile variable (assignment target, iter arg or return var with a MemRef).
#[derive(Clone, Debug)]
pub struct TileFact {
    pub var: VarId,
    pub base: Name,
    pub space: MemSpace,
    pub bytes: Bytes,
    /// The step at which the tile's bytes are written (or, for a rename, bound).
    pub def: Step,
    /// Whether an op writes the tile's bytes at `def`; renames (views, aliases, iter args,
    /// return vars) write nothing.
    pub writes: bool,
    /// Effective read steps in ascending order (reads inside a loop of a tile defined before it
    /// count at the end of that loop). Most tiles are read a few times: those reads sit in the
    /// fact itself, not in an allocation of their own.
    pub reads: SmallVec<[Step; 4]>,
    /// The statement behind each of `reads` (inside the loop, for a read that counts at a
    /// loop's end).
    pub read_at: SmallVec<[Step; 4]>,
    /// `max(def, reads)`.
    pub last: Step,
    /// The storage value: equal for a tile and its same-base views, in-place results and aliases.
    pub value: u32,
    /// Whether the MemRef is the very one of the tile it was renamed from (an iter arg's init, a
    /// loop result's iter arg), so findings about it were already reported there.
    pub inherited: bool,
    /// Where to point diagnostics about this tile.
    pub site: Span,
    /// The innermost `if` arm holding the definition.
    arm: Option<u32>,
}

/// A tile that must sit on its source's bytes: a view, an in-place result or a bare alias.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Link {
    pub tile: u32,
    pub source: u32,
    pub kind: LinkKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkKind {
    View,
    InPlace,
    Alias,
}

#[derive(Clone, Copy, Debug)]
struct LoopSteps {
    head: Step,
    end: Step,
}

#[derive(Clone, Copy, Debug)]
struct IfSteps {
    /// The step between the arms: the first step of the else arm.
    else_start: Step,
    /// The step after both arms.
    exit: Step,
}

#[derive(Clone, Copy, Debug)]
struct Arm {
    if_id: u32,
    is_then: bool,
    parent: Option<u32>,
}

#[derive(Clone, Copy, Debug)]
enum Read {
    At(Step),
    /// A read at the statement `at` inside loop `loop_id`, which counts at the loop's end.
    LoopEnd {
        loop_id: u32,
        at: Step,
    },
}

/// Where a tile's MemRef (or, for a symbolic offset, its bytes) comes from.
#[derive(Clone, Copy)]
enum Source {
    Fresh,
    Linked(VarId, LinkKind),
    /// A rename whose symbolic bytes may be taken from the named tile.
    Renamed(VarId),
}

/// The facts of one function.
#[derive(Clone, Debug)]
pub struct Liveness {
    pub tiles: Vec<TileFact>,
    /// Where each step is in the source: its statement (a loop's or `if`'s steps point at its
    /// first character).
    step_sites: Vec<Span>,
    pub links: Vec<Link>,
    tile_of_var: Vec<Option<u32>>,
    ifs: Vec<IfSteps>,
    arms: Vec<Arm>,
}

impl Liveness {
    pub fn of(f: &Function) -> Liveness {
        // Sized for a tile per variable: the tile lists are not copied as they grow.
        let tiles = f.vars.len();
        let mut b = Builder {
            f,
            next: 0,
            step_sites: Vec::with_capacity(tiles),
            tiles: Vec::with_capacity(tiles),
            reads: Vec::with_capacity(tiles),
            tile_of_var: vec![None; tiles],
            storage: Vec::with_capacity(tiles),
            loops: Vec::new(),
            loop_stack: Vec::new(),
            ifs: Vec::new(),
            arms: Vec::new(),
            arm: None,
            tuple_defs: FxHashMap::default(),
            links: Vec::new(),
        };
        b.stmts(&f.body);
        b.finish()
    }

    pub fn tile_index(&self, var: VarId) -> Option<u32> {
        self.tile_of_var.get(var.index()).copied().flatten()
    }

    pub fn tile(&self, var: VarId) -> Option<&TileFact> {
        self.tile_index(var).map(|t| &self.tiles[t as usize])
    }

    /// The first read of `victim` that `writer`'s write reaches, if any: the write clobbers it.
    /// `victim` must be defined at or before `writer`. Returns where that read is.
    pub fn clobbered_read(&self, victim: &TileFact, writer: &TileFact) -> Option<Span> {
        if self.exclusive(victim.arm, writer.def) {
            return None;
        }
        let after = victim.reads.partition_point(|&r| r <= writer.def);
        let k =
            (after..victim.reads.len()).find(|&k| !self.exclusive(writer.arm, victim.reads[k]))?;
        let at = victim.read_at.get(k).copied().unwrap_or(victim.reads[k]);
        Some(self.site(at))
    }

    /// Where step `step` is in the source.
    pub fn site(&self, step: Step) -> Span {
        self.step_sites
            .get(step as usize)
            .copied()
            .unwrap_or_default()
    }

    /// Whether `step` lies in the else arm of an `if` whose then arm encloses `arm`: no path
    /// leads from one to the other.
    fn exclusive(&self, arm: Option<u32>, step: Step) -> bool {
        let mut arm = arm;
        while let Some(a) = arm.and_then(|a| self.arms.get(a as usize)) {
            if a.is_then {
                let steps = self.ifs[a.if_id as usize];
                if steps.else_start <= step && step < steps.exit {
                    return true;
                }
            }
            arm = a.parent;
        }
        false
    }
}

/// Where a compound statement's own steps point: its first character (its span covers its
/// whole body).
fn head_of(stmt: &Stmt) -> Span {
    Span {
        start: stmt.span.start,
        end: stmt.span.start,
    }
}

/// The variable `id` when it exists in `f` (a plan built in memory may be inconsistent).
pub(super) fn var(f: &Function, id: VarId) -> Option<&Var> {
    (id.index() < f.vars.len()).then(|| &f.vars[id])
}

/// The MemRef of an on-chip tile variable; `None` for everything the plan does not place.
pub(super) fn on_chip_memref(v: &Var) -> Option<&MemRef> {
    match &v.ty {
        Some(Type::Tile(tile)) => {
            let memref = tile.memref.as_ref()?;
            let space = tile.space?;
            (space != MemSpace::Ddr && memref.extent.is_some()).then_some(memref)
        }
        _ => None,
    }
}

struct Builder<'f> {
    f: &'f Function,
    next: Step,
    step_sites: Vec<Span>,
    tiles: Vec<TileFact>,
    /// Reads per tile, resolved once every loop's end is known.
    reads: Vec<SmallVec<[Read; 4]>>,
    tile_of_var: Vec<Option<u32>>,
    /// Union-find parents over tiles: the storage values.
    storage: Vec<u32>,
    loops: Vec<LoopSteps>,
    /// Enclosing loops, outermost first (so their heads ascend).
    loop_stack: Vec<u32>,
    ifs: Vec<IfSteps>,
    arms: Vec<Arm>,
    arm: Option<u32>,
    /// Tuple variables produced by an op, with the step that writes their items.
    tuple_defs: FxHashMap<VarId, Step>,
    links: Vec<Link>,
}

impl<'f> Builder<'f> {
    fn bump(&mut self, site: Span) -> Step {
        let step = self.next;
        self.next = self.next.saturating_add(1);
        self.step_sites.push(site);
        step
    }

    fn stmts(&mut self, body: &'f [Stmt]) {
        for stmt in body {
            self.stmt(stmt);
        }
    }

    fn stmt(&mut self, stmt: &'f Stmt) {
        match &stmt.kind {
            StmtKind::Assign { target, value } => {
                let step = self.bump(stmt.span);
                self.read_expr(value, step);
                self.assign(*target, value, step, stmt.span);
            }
            StmtKind::Eval(e) => {
                let step = self.bump(stmt.span);
                self.read_expr(e, step);
            }
            StmtKind::Yield { values } | StmtKind::Return { values } => {
                let step = self.bump(stmt.span);
                for v in values {
                    self.read_expr(v, step);
                }
            }
            StmtKind::For(for_stmt) => {
                let head = self.bump(head_of(stmt));
                let header = for_stmt.bounds.iter().chain(&for_stmt.init_values);
                for e in header.chain(for_stmt.kwargs.iter().map(|k| &k.value)) {
                    self.read_expr(e, head);
                }
                let id = self.loops.len() as u32;
                self.loops.push(LoopSteps { head, end: head });
                for (i, &iter_arg) in for_stmt.iter_args.iter().enumerate() {
                    let init = for_stmt.init_values.get(i).and_then(Expr::as_var);
                    let source = init.map_or(Source::Fresh, Source::Renamed);
                    self.define(iter_arg, head, false, source, None);
                }
                self.loop_stack.push(id);
                self.stmts(&for_stmt.body);
                self.loop_stack.pop();
                let end = self.bump(head_of(stmt));
                self.loops[id as usize].end = end;
                for (i, &result) in for_stmt.return_vars.iter().enumerate() {
                    let iter_arg = for_stmt.iter_args.get(i).copied();
                    let source = iter_arg.map_or(Source::Fresh, Source::Renamed);
                    self.define(result, end, false, source, None);
                }
            }
            StmtKind::If(if_stmt) => {
                let cond = self.bump(head_of(stmt));
                self.read_expr(&if_stmt.cond, cond);
                let id = self.ifs.len() as u32;
                self.ifs.push(IfSteps {
                    else_start: Step::MAX,
                    exit: Step::MAX,
                });
                let outer = self.arm;
                self.enter_arm(id, true, outer);
                self.stmts(&if_stmt.then_body);
                self.arm = outer;
                let else_start = self.bump(head_of(stmt));
                if let Some(else_body) = &if_stmt.else_body {
                    self.enter_arm(id, false, outer);
                    self.stmts(else_body);
                    self.arm = outer;
                }
                let exit = self.bump(head_of(stmt));
                self.ifs[id as usize] = IfSteps { else_start, exit };
                let then_yield = final_yield_values(&if_stmt.then_body);
                for (i, &result) in if_stmt.return_vars.iter().enumerate() {
                    let yielded = then_yield.and_then(|v| v.get(i)).and_then(Expr::as_var);
                    let source = yielded.map_or(Source::Fresh, Source::Renamed);
                    self.define(result, exit, false, source, None);
                }
            }
            StmtKind::With(with) => {
                let step = self.bump(head_of(stmt));
                self.read_expr(&with.context, step);
                self.stmts(&with.body);
            }
            StmtKind::Pass => {}
        }
    }

    fn enter_arm(&mut self, if_id: u32, is_then: bool, parent: Option<u32>) {
        self.arm = Some(self.arms.len() as u32);
        self.arms.push(Arm {
            if_id,
            is_then,
            parent,
        });
    }

    fn read_expr(&mut self, e: &Expr, step: Step) {
        e.for_each_var(&mut |v| self.read(v, step));
    }

    fn read(&mut self, var: VarId, step: Step) {
        let Some(tile) = self.tile_of_var.get(var.index()).copied().flatten() else {
            return;
        };
        let def = self.tiles[tile as usize].def;
        // The outermost enclosing loop that began after the tile was defined re-reads it on
        // every iteration, so the tile lives to that loop's end.
        let loops = &self.loops;
        let first_after = self
            .loop_stack
            .partition_point(|&l| loops[l as usize].head <= def);
        let read = match self.loop_stack.get(first_after) {
            Some(&outermost) => Read::LoopEnd {
                loop_id: outermost,
                at: step,
            },
            None => Read::At(step),
        };
        self.reads[tile as usize].push(read);
    }

    fn assign(&mut self, target: VarId, value: &Expr, step: Step, span: Span) {
        let Some(target_var) = var(self.f, target) else {
            return;
        };
        if matches!(target_var.ty, Some(Type::Tuple(_))) && value.as_call().is_some() {
            self.tuple_defs.insert(target, step);
        }
        let (def, writes, source) = match &value.kind {
            ExprKind::Var(src) => (step, false, Source::Linked(*src, LinkKind::Alias)),
            ExprKind::Call(_, call) => {
                let info = value.call_info();
                let arg = |k: usize| call.args.get(k).and_then(Expr::as_var);
                match info {
                    Some(info) if info.view => match arg(0) {
                        Some(src) => (step, false, Source::Linked(src, LinkKind::View)),
                        None => (step, false, Source::Fresh),
                    },
                    Some(info) => match info.reuses_input.and_then(arg) {
                        Some(src) => (step, true, Source::Linked(src, LinkKind::InPlace)),
                        None => (step, true, Source::Fresh),
                    },
                    None => (step, true, Source::Fresh),
                }
            }
            // A tuple item is written by the op that produced the tuple.
            ExprKind::Index { base, .. } => {
                match base.as_var().and_then(|t| self.tuple_defs.get(&t)) {
                    Some(&tuple_def) => (tuple_def, true, Source::Fresh),
                    None => (step, false, Source::Fresh),
                }
            }
            _ => (step, true, Source::Fresh),
        };
        self.define(target, def, writes, source, Some(span));
    }

    fn define(
        &mut self,
        var_id: VarId,
        def: Step,
        writes: bool,
        source: Source,
        site: Option<Span>,
    ) {
        let Some(v) = var(self.f, var_id) else {
            return;
        };
        let Some(memref) = on_chip_memref(v) else {
            return;
        };
        let source_var = match source {
            Source::Fresh => None,
            Source::Linked(s, _) | Source::Renamed(s) => Some(s),
        };
        let source_tile =
            source_var.and_then(|s| self.tile_of_var.get(s.index()).copied().flatten());
        let same_base_source = source_tile.filter(|&s| self.tiles[s as usize].base == memref.base);
        let bytes = Bytes::of(memref).unwrap_or_else(|| {
            same_base_source.map_or(Bytes::Unknown, |s| self.tiles[s as usize].bytes)
        });
        let inherited = source_var
            .and_then(|s| var(self.f, s))
            .and_then(on_chip_memref)
            .is_some_and(|m| m == memref && matches!(source, Source::Renamed(_)));
        let index = self.tiles.len() as u32;
        self.tiles.push(TileFact {
            var: var_id,
            base: memref.base.clone(),
            space: match &v.ty {
                Some(Type::Tile(t)) => t.space.unwrap_or(MemSpace::Ddr),
                _ => MemSpace::Ddr,
            },
            bytes,
            def,
            writes,
            reads: SmallVec::new(),
            read_at: SmallVec::new(),
            last: def,
            value: index,
            inherited,
            site: site.unwrap_or(v.span),
            arm: self.arm,
        });
        self.reads.push(SmallVec::new());
        self.storage.push(index);
        self.tile_of_var[var_id.index()] = Some(index);
        if let (Source::Linked(_, link_kind), Some(source)) = (source, source_tile) {
            self.links.push(Link {
                tile: index,
                source,
                kind: link_kind,
            });
            if same_base_source.is_some() {
                let root = self.root(source);
                self.storage[index as usize] = root;
            }
        }
    }

    fn root(&mut self, mut t: u32) -> u32 {
        while self.storage[t as usize] != t {
            let grandparent = self.storage[self.storage[t as usize] as usize];
            self.storage[t as usize] = grandparent;
            t = grandparent;
        }
        t
    }

    fn finish(mut self) -> Liveness {
        for t in 0..self.tiles.len() {
            let loops = &self.loops;
            // (effective step, the statement that reads), in order; the first read per step.
            let mut pairs: SmallVec<[(Step, Step); 4]> = self.reads[t]
                .iter()
                .map(|&r| match r {
                    Read::At(step) => (step, step),
                    Read::LoopEnd { loop_id, at } => (loops[loop_id as usize].end, at),
                })
                .collect();
            pairs.sort_unstable();
            pairs.dedup_by_key(|p| p.0);
            let root = self.root(t as u32);
            let tile = &mut self.tiles[t];
            for &(read, at) in &pairs {
                tile.reads.push(read);
                tile.read_at.push(at);
            }
            tile.last = tile.reads.last().map_or(tile.def, |&r| r.max(tile.def));
            tile.value = root;
        }
        Liveness {
            tiles: self.tiles,
            step_sites: self.step_sites,
            links: self.links,
            tile_of_var: self.tile_of_var,
            ifs: self.ifs,
            arms: self.arms,
        }
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;
    use memreuse_ir::parse_program;

    const HEADER: &str = "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n    def main(self, x: pl.Tensor[[64], pl.FP32], c: pl.Scalar[pl.INT64]):\n";

    fn tile(base: &str, off: i64) -> String {
        format!("pl.Tile[[16], pl.FP32, pl.MemRef({base}, {off}, 64), pl.Mem.Vec]")
    }

    /// Parses `body` as a function body, `T(a)` and `T(b)` standing for the types of 64-byte
    /// tiles at offsets 0 and 64 of one buffer.
    fn facts(body: &str) -> (Function, Liveness) {
        let mut text = HEADER.to_string();
        text.push_str("        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)\n");
        let lines = body.lines().filter(|l| !l.trim().is_empty());
        let indent = lines.clone().map(|l| l.len() - l.trim_start().len()).min();
        for line in lines {
            let line = line[indent.unwrap_or(0)..]
                .replace("T(a)", &tile("mem_vec_1", 0))
                .replace("T(b)", &tile("mem_vec_1", 64));
            text.push_str(&format!("        {line}\n"));
        }
        let program = parse_program(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let f = program.functions.into_iter().next().unwrap();
        let live = Liveness::of(&f);
        (f, live)
    }

    /// Prints every tile's facts: definition step, `w` when written, reads and storage value.
    fn check(body: &str, expected: Expect) {
        let (f, live) = facts(body);
        let mut out = String::new();
        for t in &live.tiles {
            let value = &f.vars[live.tiles[t.value as usize].var].name;
            out.push_str(&format!(
                "{} def={}{} reads={:?} last={} value={value}\n",
                f.vars[t.var].name,
                t.def,
                if t.writes { " w" } else { "" },
                t.reads,
                t.last,
            ));
        }
        expected.assert_eq(&out);
    }

    #[test]
    fn straight_line_steps_and_views() {
        check(
            r#"
            a: T(a) = pl.tile.load(x, [0], [16], [16], target_memory=pl.Mem.Vec)
            v: T(a) = pl.tile.reshape(a, [16])
            alias: T(a) = v
            b: T(b) = pl.tile.add(alias, a)
            r = pl.tile.store(b, [0], x)
            "#,
            expect![[r#"
                a def=1 w reads=[2, 4] last=4 value=a
                v def=2 reads=[3] last=3 value=a
                alias def=3 reads=[4] last=4 value=a
                b def=4 w reads=[5] last=5 value=b
            "#]],
        );
    }

    #[test]
    fn reads_inside_a_loop_last_to_the_outermost_loop_begun_after_the_definition() {
        check(
            r#"
            a: T(a) = pl.tile.load(x, [0], [16], [16], target_memory=pl.Mem.Vec)
            for i, (acc,) in pl.range(4, init_values=(a,)):
                for j in pl.range(2):
                    t: T(b) = pl.tile.add(acc, a)
                    u: T(b) = pl.tile.mul(t, t)
                nxt: T(a) = pl.tile.add(acc, acc)
                out: T(a) = pl.yield_(nxt)
            r = pl.tile.store(out, [0], x)
            "#,
            // `a` is read at the outer head (step 2, its init use) and inside both loops, so it
            // lives to the outer end (9); `acc` is read inside the inner loop only, to its end (6).
            expect![[r#"
                a def=1 w reads=[2, 9] last=9 value=a
                acc def=2 reads=[6, 7] last=7 value=acc
                t def=4 w reads=[5] last=5 value=t
                u def=5 w reads=[] last=5 value=u
                nxt def=7 w reads=[8] last=8 value=nxt
                out def=9 reads=[10] last=10 value=out
            "#]],
        );
    }

    #[test]
    fn if_arms_get_their_own_steps_and_results_are_bound_at_the_exit() {
        check(
            r#"
            a: T(a) = pl.tile.load(x, [0], [16], [16], target_memory=pl.Mem.Vec)
            if c < 2:
                b: T(b) = pl.tile.add(a, a)
                r: T(b) = pl.yield_(b)
            else:
                d: T(b) = pl.tile.mul(a, a)
                r: T(b) = pl.yield_(d)
            s = pl.tile.store(r, [0], x)
            "#,
            expect![[r#"
                a def=1 w reads=[3, 6] last=6 value=a
                b def=3 w reads=[4] last=4 value=b
                d def=6 w reads=[7] last=7 value=d
                r def=8 reads=[9] last=9 value=r
            "#]],
        );
    }

    #[test]
    fn a_write_in_one_arm_does_not_reach_reads_in_the_other() {
        let (f, live) = facts(
            r#"
            a: T(a) = pl.tile.load(x, [0], [16], [16], target_memory=pl.Mem.Vec)
            keep: T(b) = pl.tile.load(x, [0], [16], [16], target_memory=pl.Mem.Vec)
            if c < 2:
                b: T(a) = pl.tile.add(keep, keep)
                r: T(a) = pl.yield_(b)
            else:
                r: T(a) = pl.yield_(a)
            s = pl.tile.add(r, keep)
            "#,
        );
        let by_name = |n: &str| {
            let (id, _) = f.vars.iter().find(|(_, v)| v.name == n).unwrap();
            live.tile(id).unwrap()
        };
        // `a` is read only by the else arm's yield: the then arm may overwrite it.
        assert_eq!(live.clobbered_read(by_name("a"), by_name("b")), None);
        // `keep` is read after the if, which the then arm's write reaches: at `s`.
        let read = live.clobbered_read(by_name("keep"), by_name("b"));
        let (s, _) = f.vars.iter().find(|(_, v)| v.name == "s").unwrap();
        let s_stmt = live.site(9);
        assert_eq!(read, Some(s_stmt));
        assert!(s_stmt.start <= f.vars[s].span.start && f.vars[s].span.start < s_stmt.end);
    }

    #[test]
    fn tuple_items_are_written_by_the_op_that_makes_the_tuple() {
        check(
            r#"
            a: T(a) = pl.tile.load(x, [0], [16], [16], target_memory=pl.Mem.Vec)
            pair: pl.Tuple[pl.Tile[[16], pl.FP32, pl.Mem.Vec], pl.Tile[[16], pl.FP32, pl.Mem.Vec]] = pl.tile.gather_compare(a, 0.0, a)
            first: T(b) = pair[0]
            r = pl.tile.store(first, [0], x)
            "#,
            expect![[r#"
                a def=1 w reads=[2] last=2 value=a
                first def=2 w reads=[4] last=4 value=first
            "#]],
        );
    }
}
