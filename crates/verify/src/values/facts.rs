//! What the value checker reads of the planned function, found once before it interprets
//! it: where each tile sits, what each statement does to which tiles, which loops run
//! iteration by iteration.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use memreuse_ir::ops::OpRole;
use memreuse_ir::{
    Call, Expr, ExprKind, ForStmt, Function, LoopKind, MemSpace, Span, Stmt, StmtKind, TileType,
    Type, VarId,
};

use crate::liveness::{on_chip_memref, var};
use crate::options::VerifyOptions;
use crate::scalars::{Scalars, range_values};

use super::violation::{Cause, MustNotAlias, ValueViolation};

/// Where a tile sits: a byte range of one region. A symbolic offset with no source to take its
/// range from covers the whole region, `[i64::MIN, i64::MAX)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Place {
    pub(super) region: u32,
    pub(super) start: i64,
    pub(super) end: i64,
    /// Where a write of the tile may reach: its MemRef's end, which a MemRef larger than the
    /// tile's data puts past `end` (an op may fill its whole MemRef, an Acc tile its aligned
    /// rows), so a write clobbers up to here but places its value only up to `end`.
    pub(super) written_end: i64,
}

impl Place {
    pub(super) fn bytes_text(&self) -> String {
        if self.start == i64::MIN {
            "(all, its offset being symbolic)".to_string()
        } else {
            format!("[{}, {})", self.start, self.end)
        }
    }
}

/// What the interpretation needs to know about every variable, computed once.
pub(super) struct Facts {
    /// Indexed by `VarId`: the place of every on-chip tile.
    pub(super) places: Vec<Option<Place>>,
    pub(super) region_names: Vec<String>,
    /// Indexed by `VarId`: where each variable is defined.
    pub(super) defs: Vec<Option<Span>>,
    /// The items `x = t[k]` taken from each tuple-valued call result `t`, which the call writes.
    pub(super) tuple_items: FxHashMap<VarId, SmallVec<[VarId; 2]>>,
    /// The on-chip tile parameters, which hold their values on entry.
    pub(super) params: Vec<VarId>,
    /// Indexed by `VarId`: a representative of the variables that name one datum, joined
    /// through views, aliases and in-place results (not through loop carries or `if` results,
    /// which name different values).
    pub(super) datum: Vec<u32>,
    /// Indexed by `VarId`: what the assignment defining it does.
    pub(super) effects: Vec<Effect>,
    /// The regions each loop and `if` (keyed by the statement's address) defines values in,
    /// sorted: the only regions its body can change.
    pub(super) touched: FxHashMap<usize, SmallVec<[u32; 8]>>,
    /// The tiles each statement reads (its operands, yielded or returned values, loop header,
    /// condition), in source order: a range of `reads` per statement, the statements of one
    /// body in consecutive slots from the body's first ([`Facts::first_slot`]). Gathered once,
    /// since the interpretation runs loop bodies and focused passes again.
    stmt_reads: Vec<(u32, u32)>,
    pub(super) reads: Vec<(VarId, Span)>,
    /// Each statement list's first slot, keyed by the list's address.
    body_slots: FxHashMap<usize, u32>,
    /// The ops whose outputs must not alias some of their inputs, in program order.
    must_not_alias: Vec<MustNotAliasOp>,
    /// The tiles whose bytes depend on scalars a loop run iteration by iteration knows:
    /// `places` holds what is true on every iteration, this how to narrow it on each.
    pub(super) moving: FxHashMap<VarId, Moving>,
    /// The loops (keyed by the statement's address) run iteration by iteration, each with the
    /// values its variable takes: a view or a condition in them depends on the iteration.
    pub(super) unrolled: FxHashMap<usize, Vec<i64>>,
    /// Indexed by `VarId`: the last statement, by number in walk order (from 1), that reads
    /// the variable or renames it (0: none); a use inside a loop begun after the variable's
    /// definition counts at that loop's last statement, as the next iteration uses it again.
    pub(super) last_use: Vec<u32>,
    /// Each loop's number in walk order, keyed by the statement's address.
    pub(super) loop_numbers: FxHashMap<usize, u32>,
}

/// Where a row-major slice's window sits in its source, given its offsets: it starts
/// `Σ offsets[k] · strides[k]` elements of `bits` bits into the source and spans `extent`.
#[derive(Clone, Debug)]
pub(super) struct SliceGeometry {
    strides: SmallVec<[i64; 2]>,
    extent: i64,
    bits: i64,
}

impl SliceGeometry {
    /// The window's place in `source` where `scalars` give every offset; `None` where one is
    /// unknown, or the window leaves its source (a bad slice reads all of its source).
    pub(super) fn place(
        &self,
        scalars: &Scalars,
        offsets: &[Expr],
        source: Place,
    ) -> Option<Place> {
        let mut first: i64 = 0;
        for (offset, stride) in offsets.iter().zip(&self.strides) {
            first = first.checked_add(scalars.eval(offset)?.checked_mul(*stride)?)?;
        }
        let start_bits = first.checked_mul(self.bits)?;
        let end_bits = first.checked_add(self.extent)?.checked_mul(self.bits)?;
        let start = source.start.checked_add(start_bits.div_euclid(8))?;
        let end = source.start.checked_add((end_bits + 7).div_euclid(8))?;
        (source.start <= start && end <= source.end).then_some(Place {
            start,
            end,
            written_end: end,
            ..source
        })
    }
}

/// How a tile's bytes follow from scalars known only on a given iteration.
#[derive(Clone, Debug)]
pub(super) enum Moving {
    /// A `tile.slice` of `source` (row-major): its window starts `Σ offsets[k] · strides[k]`
    /// elements into the source and spans `extent` elements.
    Slice {
        source: VarId,
        offsets: SmallVec<[Expr; 2]>,
        geometry: SliceGeometry,
    },
    /// A tile at a MemRef offset computed from scalars: `data` bytes of its `size` hold its
    /// value (see [`tile_place`]); a view's are within its source's (`within`).
    Offset {
        offset: Expr,
        size: i64,
        data: Option<i64>,
        space: Option<MemSpace>,
        within: Option<VarId>,
    },
}

/// An op whose op-table row forbids its output to share bytes with some inputs.
struct MustNotAliasOp {
    /// Its output, or the tuple its items are taken from.
    output: VarId,
    /// The inputs it must not alias, each with where the op reads it.
    inputs: SmallVec<[(VarId, Span, MustNotAlias); 2]>,
    pub(super) at: Span,
}

/// What an assignment does to the buffers.
#[derive(Clone, Copy, Debug)]
pub(super) enum Effect {
    /// An op output written over its bytes.
    Write,
    /// An in-place result written over its input.
    InPlace(VarId),
    /// A tuple-valued call: writes every item extracted from it.
    WriteItems,
    /// A tuple item, written by the call that made the tuple.
    Item,
    /// A view or alias of its source (`None`: bound as it is).
    Rename(Option<VarId>),
}

impl Facts {
    /// The inputs ops read while they write their outputs over them: an output (every item of
    /// a tuple-valued op) whose written bytes meet those of an input its op-table row says it
    /// must not alias. Both are taken to their MemRef's end: the op may read its input's whole
    /// MemRef as it may fill its output's.
    pub(super) fn read_while_written(&self) -> Vec<ValueViolation> {
        let mut out = Vec::new();
        for op in &self.must_not_alias {
            let single = [op.output];
            let outputs = match self.tuple_items.get(&op.output) {
                Some(items) => &items[..],
                None => &single[..],
            };
            for &(input, read, why) in &op.inputs {
                let Some(input_place) = self.places.get(input.index()).copied().flatten() else {
                    continue;
                };
                for &output in outputs {
                    let Some(place) = self.places.get(output.index()).copied().flatten() else {
                        continue;
                    };
                    if output != input
                        && place.region == input_place.region
                        && place.start < input_place.written_end
                        && input_place.start < place.written_end
                    {
                        out.push(ValueViolation {
                            lost: input,
                            bytes: None,
                            read,
                            cause: Some(Cause::ReadWhileWritten {
                                writer: output,
                                at: op.at,
                                why,
                            }),
                        });
                    }
                }
            }
        }
        out
    }

    /// The slot of `body`'s first statement (a list nothing was gathered for has none).
    pub(super) fn first_slot(&self, body: &[Stmt]) -> usize {
        self.body_slots
            .get(&(body.as_ptr() as usize))
            .map_or(0, |&slot| slot as usize)
    }

    /// The tiles the statement in `slot` reads.
    pub(super) fn reads_of(&self, slot: usize) -> &[(VarId, Span)] {
        let (start, end) = self.stmt_reads.get(slot).copied().unwrap_or((0, 0));
        &self.reads[start as usize..end as usize]
    }

    pub(super) fn datum_of(&self, v: VarId) -> u32 {
        let mut at = v.0;
        while let Some(&up) = self.datum.get(at as usize) {
            if up == at {
                break;
            }
            at = up;
        }
        at
    }
}

/// Which bytes a definition's MemRef covers: its own, or (a view or alias, which takes its
/// source's value) only those within its source's.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Covers {
    Own,
    WithinSource,
}

impl Facts {
    pub(super) fn of(f: &Function, opts: &VerifyOptions) -> Facts {
        let mut facts = Facts {
            places: vec![None; f.vars.len()],
            region_names: Vec::new(),
            defs: vec![None; f.vars.len()],
            tuple_items: FxHashMap::default(),
            params: Vec::new(),
            datum: (0..f.vars.len() as u32).collect(),
            effects: vec![Effect::Write; f.vars.len()],
            touched: FxHashMap::default(),
            // Statements and reads are about as many as variables: sized for that, the lists
            // are seldom copied as they grow.
            stmt_reads: Vec::with_capacity(f.vars.len()),
            reads: Vec::with_capacity(f.vars.len()),
            body_slots: FxHashMap::default(),
            must_not_alias: Vec::new(),
            moving: FxHashMap::default(),
            unrolled: FxHashMap::default(),
            last_use: vec![0; f.vars.len()],
            loop_numbers: FxHashMap::default(),
        };
        let mut builder = FactsBuilder {
            f,
            addressed: opts.addressed_in(f),
            a5_target: opts.backend.is_a5(),
            facts: &mut facts,
            // Regions are mostly the allocs at the top level: room for one per statement
            // there, so the table does not grow (and rehash every name) on the way.
            regions: FxHashMap::with_capacity_and_hasher(f.body.len(), Default::default()),
            last_region: None,
            call_tuples: vec![false; f.vars.len()],
            open: Vec::new(),
            scalars: Scalars::new(f.vars.len()),
            // Made one by one: a `SmallVec` clone goes through `extend`, even an empty one.
            loop_deps: std::iter::repeat_with(LoopSet::new)
                .take(f.vars.len())
                .collect(),
            loops: Vec::new(),
            next_loop: 0,
            work: 0,
            number: 0,
            defined_at: vec![0; f.vars.len()],
        };
        for p in &f.params {
            builder.define(p.var, None, p.span, Covers::Own, None);
            if builder.facts.places[p.var.index()].is_some() {
                builder.facts.params.push(p.var);
            }
        }
        builder.stmts(&f.body);
        facts.keep_tile_reads();
        facts
    }

    /// Keeps only the reads of on-chip tiles (every place is known now), slot by slot.
    fn keep_tile_reads(&mut self) {
        let mut kept: Vec<(VarId, Span)> = Vec::with_capacity(self.reads.len());
        for slot in &mut self.stmt_reads {
            let start = kept.len() as u32;
            let uses = &self.reads[slot.0 as usize..slot.1 as usize];
            let tile = |v: VarId| self.places.get(v.index()).is_some_and(Option::is_some);
            kept.extend(uses.iter().filter(|(v, _)| tile(*v)));
            *slot = (start, kept.len() as u32);
        }
        self.reads = kept;
    }
}

struct FactsBuilder<'a> {
    pub(super) f: &'a Function,
    addressed: bool,
    /// On an A5 target, a not-in-place-safe op may forbid only some arguments.
    a5_target: bool,
    pub(super) facts: &'a mut Facts,
    pub(super) regions: FxHashMap<&'a str, u32>,
    /// The region of the last tile defined, and its name.
    last_region: Option<(&'a str, u32)>,
    /// Indexed by `VarId`: tuple variables assigned a call's result.
    call_tuples: Vec<bool>,
    /// The regions touched so far by each loop or `if` being walked, innermost last.
    open: Vec<SmallVec<[u32; 8]>>,
    /// The scalars known on every path and iteration (literals and what is computed from them).
    pub(super) scalars: Scalars,
    /// Indexed by `VarId`: the loops (by number) whose variable a scalar is computed from.
    loop_deps: Vec<LoopSet>,
    /// The loops being walked, innermost last.
    loops: Vec<OpenLoop>,
    next_loop: u32,
    /// Statements the interpretation runs so far (a loop run iteration by iteration counts
    /// its body once per iteration): what bounds unrolling.
    work: u64,
    /// The number of the statement being walked, in walk order from 1.
    number: u32,
    /// Indexed by `VarId`: the number of the statement that first defines it (0: a parameter,
    /// or a variable nothing defines: as if defined before every statement).
    defined_at: Vec<u32>,
}

/// Loops, by number in program order.
type LoopSet = SmallVec<[u32; 2]>;

/// A loop being walked by the facts builder.
struct OpenLoop {
    number: u32,
    /// Whether a view's bytes or a condition in its body depend on its variable.
    wanted: bool,
    work_before: u64,
    /// The loop statement's number in walk order ([`Facts::last_use`]).
    walk_number: u32,
    /// The variables defined before it that its body uses: used until its last statement.
    used_across: Vec<VarId>,
}

/// Loops with more iterations than this run to a fixpoint instead.
const MAX_UNROLLED_TRIPS: usize = 256;
/// The most statements unrolling may make the interpretation run in one function.
const MAX_UNROLLED_WORK: u64 = 200_000;

/// The values of the yield that ends a statement list, and where it is.
type YieldFact = (SmallVec<[Option<VarId>; 2]>, Span);

impl<'a> FactsBuilder<'a> {
    /// Records what the statement in `slot` reads, as the interpretation reads it.
    fn gather_reads(&mut self, slot: usize, stmt: &Stmt) {
        let reads = &mut self.facts.reads;
        let start = reads.len() as u32;
        let mut slice_source = None;
        let mut read = |e: &Expr| e.for_each_var_use(&mut |v, span| reads.push((v, span)));
        match &stmt.kind {
            // A slice reads nothing itself: its window is read where the slice is used (its
            // name stands only where its source's value does).
            StmtKind::Assign { value: e, .. } if e.call_role() == Some(OpRole::Slice) => {
                if let ExprKind::Call(_, call) = &e.kind {
                    call.args.iter().skip(1).for_each(read);
                    slice_source = call.args.first().and_then(Expr::as_var);
                }
            }
            StmtKind::Assign { value: e, .. } | StmtKind::Eval(e) => read(e),
            StmtKind::Yield { values } | StmtKind::Return { values } => {
                values.iter().for_each(read);
            }
            StmtKind::For(for_stmt) => {
                let header = for_stmt.bounds.iter().chain(&for_stmt.init_values);
                header
                    .chain(for_stmt.kwargs.iter().map(|k| &k.value))
                    .for_each(read);
            }
            StmtKind::If(if_stmt) => read(&if_stmt.cond),
            StmtKind::With(with) => read(&with.context),
            StmtKind::Pass => {}
        }
        let end = self.facts.reads.len() as u32;
        self.facts.stmt_reads[slot] = (start, end);
        for k in start..end {
            self.used(self.facts.reads[k as usize].0);
        }
        // A slice renames its source's window: a use of the source all the same.
        slice_source.inspect(|&v| self.used(v));
    }

    /// `v` is used by the statement being walked: [`Facts::last_use`].
    fn used(&mut self, v: VarId) {
        let Some(&defined) = self.defined_at.get(v.index()) else {
            return;
        };
        // The outermost loop begun after the definition uses it on every iteration.
        if let Some(open) = self.loops.iter_mut().find(|l| l.walk_number > defined) {
            open.used_across.push(v);
            return;
        }
        let last = &mut self.facts.last_use[v.index()];
        *last = (*last).max(self.number);
    }

    fn stmts(&mut self, body: &'a [Stmt]) -> Option<YieldFact> {
        let mut last_yield = None;
        let first = self.facts.stmt_reads.len();
        if !body.is_empty() {
            self.facts
                .body_slots
                .insert(body.as_ptr() as usize, first as u32);
            self.facts.stmt_reads.resize(first + body.len(), (0, 0));
        }
        for (i, stmt) in body.iter().enumerate() {
            self.number += 1;
            self.gather_reads(first + i, stmt);
            self.work += 1;
            match &stmt.kind {
                StmtKind::Assign { target, value } => self.assign(*target, value, stmt.span),
                StmtKind::Yield { values } => {
                    last_yield = Some((values.iter().map(Expr::as_var).collect(), stmt.span));
                }
                StmtKind::For(for_stmt) => {
                    self.open.push(SmallVec::new());
                    let number = self.next_loop;
                    self.next_loop += 1;
                    if let Some(loop_var) = for_stmt.loop_var
                        && let Some(deps) = self.loop_deps.get_mut(loop_var.index())
                    {
                        *deps = SmallVec::from_elem(number, 1);
                    }
                    self.loops.push(OpenLoop {
                        number,
                        wanted: false,
                        work_before: self.work,
                        walk_number: self.number,
                        used_across: Vec::new(),
                    });
                    self.facts.loop_numbers.insert(stmt_key(stmt), self.number);
                    for (i, &iter_arg) in for_stmt.iter_args.iter().enumerate() {
                        let init = for_stmt.init_values.get(i).and_then(Expr::as_var);
                        self.define(iter_arg, init, stmt.span, Covers::Own, None);
                    }
                    self.stmts(&for_stmt.body);
                    for (i, &result) in for_stmt.return_vars.iter().enumerate() {
                        let iter_arg = for_stmt.iter_args.get(i).copied();
                        // The result takes the iter arg's value as the loop exits.
                        iter_arg.inspect(|&v| self.used(v));
                        self.define(result, iter_arg, stmt.span, Covers::Own, None);
                    }
                    self.close_loop(stmt, for_stmt);
                    self.close(stmt);
                }
                StmtKind::If(if_stmt) => {
                    let deps = self.deps_of(&if_stmt.cond);
                    self.want(&deps);
                    self.open.push(SmallVec::new());
                    let then_yield = self.stmts(&if_stmt.then_body);
                    if let Some(else_body) = &if_stmt.else_body {
                        self.stmts(else_body);
                    }
                    for (i, &result) in if_stmt.return_vars.iter().enumerate() {
                        let (source, at) = match &then_yield {
                            Some((values, at)) => (values.get(i).copied().flatten(), *at),
                            None => (None, stmt.span),
                        };
                        self.define(result, source, at, Covers::Own, None);
                    }
                    self.close(stmt);
                }
                StmtKind::With(with) => {
                    if let Some(y) = self.stmts(&with.body) {
                        last_yield = Some(y);
                    }
                }
                StmtKind::Eval(_) | StmtKind::Return { .. } | StmtKind::Pass => {}
            }
        }
        last_yield
    }

    /// An assignment's effect on its target's data (a rename, an in-place write, a write, a
    /// tuple or one of its items), and where its target is defined.
    fn assign(&mut self, target: VarId, value: &'a Expr, at: Span) {
        self.note_scalar(target, value);
        let effect = match &value.kind {
            ExprKind::Var(src) => Effect::Rename(Some(*src)),
            ExprKind::Call(_, call) => {
                let info = value.call_info();
                let is_tuple =
                    var(self.f, target).is_some_and(|v| matches!(v.ty, Some(Type::Tuple(_))));
                let input = info
                    .and_then(|info| info.reuses_input)
                    .and_then(|k| call.args.get(k))
                    .and_then(Expr::as_var);
                self.record_must_not_alias(target, value, call, at);
                if info.is_some_and(|info| info.view) {
                    Effect::Rename(call.args.first().and_then(Expr::as_var))
                } else if is_tuple {
                    if let Some(slot) = self.call_tuples.get_mut(target.index()) {
                        *slot = true;
                    }
                    Effect::WriteItems
                } else if let Some(input) = input {
                    Effect::InPlace(input)
                } else {
                    Effect::Write
                }
            }
            ExprKind::Index { base, .. } => match base.as_var() {
                Some(tuple) if self.call_tuples.get(tuple.index()) == Some(&true) => {
                    self.facts
                        .tuple_items
                        .entry(tuple)
                        .or_default()
                        .push(target);
                    Effect::Item
                }
                _ => Effect::Rename(None),
            },
            _ => Effect::Write,
        };
        let (source, covers) = match effect {
            Effect::Rename(source) => (source, Covers::WithinSource),
            _ => (None, Covers::Own),
        };
        match effect {
            Effect::Rename(Some(source)) | Effect::InPlace(source) => {
                self.same_datum(target, source);
            }
            _ => {}
        }
        if let Some(slot) = self.facts.effects.get_mut(target.index()) {
            *slot = effect;
        }
        let slice = match &value.kind {
            ExprKind::Call(_, call) if value.call_role() == Some(OpRole::Slice) => Some(&**call),
            _ => None,
        };
        self.define(target, source, at, covers, slice);
    }

    /// A scalar assignment: its value where it is known on every path and iteration, and
    /// the loops whose variable it is computed from.
    fn note_scalar(&mut self, target: VarId, value: &Expr) {
        let is_tile = var(self.f, target).is_some_and(|v| matches!(v.ty, Some(Type::Tile(_))));
        if is_tile {
            return;
        }
        let known = self.scalars.eval(value);
        self.scalars.set(target, known);
        let deps = self.deps_of(value);
        if let Some(slot) = self.loop_deps.get_mut(target.index()) {
            *slot = deps;
        }
    }

    /// The loops whose variables `e` is computed from.
    fn deps_of(&self, e: &Expr) -> LoopSet {
        let mut deps = LoopSet::new();
        e.for_each_var_use(&mut |v, _| {
            for &number in self.loop_deps.get(v.index()).map_or(&[][..], |d| &d[..]) {
                if !deps.contains(&number) {
                    deps.push(number);
                }
            }
        });
        deps
    }

    /// The loops in `deps` are worth running iteration by iteration.
    fn want(&mut self, deps: &[u32]) {
        for open in &mut self.loops {
            if deps.contains(&open.number) {
                open.wanted = true;
            }
        }
    }

    /// Decides whether the loop `stmt` runs iteration by iteration: when something in it
    /// depends on its variable, its trip count is known and small, and the work stays bounded.
    fn close_loop(&mut self, stmt: &Stmt, for_stmt: &ForStmt) {
        let Some(open) = self.loops.pop() else {
            return;
        };
        // The statement walked last is the loop's last.
        for &v in &open.used_across {
            let last = &mut self.facts.last_use[v.index()];
            *last = (*last).max(self.number);
        }
        let body_work = self.work - open.work_before;
        let sequential = matches!(for_stmt.kind, LoopKind::Range | LoopKind::Unroll);
        let values = (open.wanted && sequential && for_stmt.loop_var.is_some())
            .then(|| range_values(&self.scalars, &for_stmt.bounds, MAX_UNROLLED_TRIPS))
            .flatten();
        // A fixpoint runs a body about twice.
        let mut trips = 2;
        if let Some(values) = values {
            let unrolled = open.work_before + values.len() as u64 * body_work;
            if unrolled <= MAX_UNROLLED_WORK {
                trips = values.len() as u64;
                self.facts.unrolled.insert(stmt_key(stmt), values);
            }
        }
        self.work = open.work_before + trips * body_work;
    }

    /// Records the inputs the call `value` (defining `target`) must not write over, as its
    /// op-table row says: every variable argument of an op that is not in-place safe (on an A5
    /// target only the arguments the row names), the arguments it forbids, and the source of
    /// a widening cast. The input the output reuses ("output reuses input k") is never one.
    fn record_must_not_alias(&mut self, target: VarId, value: &Expr, call: &Call, at: Span) {
        // An op the table does not list is in-place safe and forbids nothing.
        let (Some(info), ExprKind::Call(known, _)) = (value.call_info(), &value.kind) else {
            return;
        };
        let Some(op) = known.row().map(|row| row.name) else {
            return;
        };
        let arg = |k: usize| call.args.get(k).and_then(|a| Some((a.as_var()?, a.span)));
        let mut inputs: SmallVec<[(VarId, Span, MustNotAlias); 2]> = SmallVec::new();
        let mut forbid = |k: usize, why: MustNotAlias| {
            if info.reuses_input != Some(k)
                && let Some((v, span)) = arg(k)
            {
                inputs.push((v, span, why));
            }
        };
        if info.not_inplace_safe {
            let why = MustNotAlias::NotInPlaceSafe { op };
            match info.a5_forbidden_args.filter(|_| self.a5_target) {
                Some(args) => args.iter().for_each(|&k| forbid(k, why)),
                None => (0..call.args.len()).for_each(|k| forbid(k, why)),
            }
        } else {
            for &k in info.forbid {
                forbid(k, MustNotAlias::ForbiddenArgument { op, arg: k });
            }
        }
        if value.call_role() == Some(OpRole::Cast) {
            let bits = |v: VarId| match &var(self.f, v)?.ty {
                Some(Type::Tile(t)) => Some(t.dtype.bits()),
                Some(Type::Tensor(t)) => Some(t.dtype.bits()),
                _ => None,
            };
            if let Some((source, _)) = arg(0)
                && let (Some(out_bits), Some(in_bits)) = (bits(target), bits(source))
                && out_bits > in_bits
            {
                forbid(0, MustNotAlias::WideningCast { op });
            }
        }
        if !inputs.is_empty() {
            self.facts.must_not_alias.push(MustNotAliasOp {
                output: target,
                inputs,
                at,
            });
        }
    }

    /// Records the regions the loop or `if` `stmt` touched; they count for its parent too.
    fn close(&mut self, stmt: &Stmt) {
        let Some(mut touched) = self.open.pop() else {
            return;
        };
        touched.sort_unstable();
        touched.dedup();
        if let Some(parent) = self.open.last_mut() {
            parent.extend(touched.iter().copied());
        }
        self.facts.touched.insert(stmt_key(stmt), touched);
    }

    fn same_datum(&mut self, a: VarId, b: VarId) {
        let (ra, rb) = (self.facts.datum_of(a), self.facts.datum_of(b));
        if let Some(slot) = self.facts.datum.get_mut(ra as usize)
            && (rb as usize) < self.f.vars.len()
        {
            *slot = rb;
        }
    }

    /// Records where `v` is defined and, for an on-chip tile, the bytes its data occupies.
    /// A MemRef may be larger than its tile's data (the packer sizes a shared buffer's first
    /// tile by the buffer), so a tile covers at most its shape's bytes from its offset; a view
    /// or alias covers its MemRef's bytes within its source's. A symbolic offset takes its
    /// source's range (a runtime slice lies inside its source), else the whole region.
    fn define(
        &mut self,
        v: VarId,
        source: Option<VarId>,
        at: Span,
        covers: Covers,
        slice: Option<&Call>,
    ) {
        let Some(slot) = self.facts.defs.get_mut(v.index()) else {
            return;
        };
        if slot.is_none() {
            self.defined_at[v.index()] = self.number;
        }
        slot.get_or_insert(at);
        let f: &'a Function = self.f;
        let Some(variable) = var(f, v) else {
            return;
        };
        let Some(memref) = on_chip_memref(variable) else {
            return;
        };
        let tile = match &variable.ty {
            Some(Type::Tile(t)) => Some(t),
            _ => None,
        };
        let space = tile.and_then(|t| t.space);
        let region_name: &'a str = if self.addressed {
            space.unwrap_or(MemSpace::Ddr).name()
        } else {
            memref.base.as_str()
        };
        let region = self.region(region_name);
        if let Some(open) = self.open.last_mut() {
            open.push(region);
        }
        let source_place = source
            .and_then(|s| self.facts.places.get(s.index()).copied().flatten())
            .filter(|p| p.region == region);
        if let (Some(call), Some(src), Some(source)) = (slice, source_place, source) {
            // A Vec slice's bytes are its source's at the slice operands' offset, whatever its
            // MemRef prints: AllocateMemoryAddr prints a dynamic slice at its source's bare
            // address (PTO places the window from the operands).
            if space == Some(MemSpace::Vec)
                && let Some((offsets, geometry)) = self.slice_window(call, source)
            {
                let place = match geometry.place(&self.scalars, offsets, src) {
                    Some(place) => place,
                    None => {
                        self.depend_on_iteration(v, offsets, || Moving::Slice {
                            source,
                            offsets: offsets.iter().cloned().collect(),
                            geometry,
                        });
                        src
                    }
                };
                self.facts.places[v.index()] = Some(place);
                return;
            }
            // Elsewhere only a slice at a known offset prints where it is.
            let offsets = call.args.get(2);
            if self.addressed && offsets.is_some_and(|o| self.scalars.eval_all(o).is_none()) {
                self.facts.places[v.index()] = Some(src);
                return;
            }
        }
        let size = memref.size_bytes();
        let offset = memref.offset();
        let start = memref
            .const_offset()
            .or_else(|| offset.and_then(|o| self.scalars.eval(o)));
        let data = tile.and_then(data_bytes);
        let place = match (start.zip(size), source_place) {
            (Some((start, size)), Some(src)) if covers == Covers::WithinSource => {
                let end = start.saturating_add(size);
                let clipped = (start.max(src.start), end.min(src.end));
                let (start, end) = if clipped.0 < clipped.1 {
                    clipped
                } else {
                    (start, end)
                };
                Place {
                    region,
                    start,
                    end,
                    written_end: end,
                }
            }
            (Some((start, size)), _) => tile_place(region, start, size, data, space),
            (None, source_place) => {
                if let (Some(offset), Some(size)) = (offset, size) {
                    let within = source_place
                        .and(source)
                        .filter(|_| covers == Covers::WithinSource);
                    self.depend_on_iteration(v, std::slice::from_ref(offset), || Moving::Offset {
                        offset: offset.clone(),
                        size,
                        data,
                        space,
                        within,
                    });
                }
                match source_place {
                    Some(src) => src,
                    None => Place {
                        region,
                        start: i64::MIN,
                        end: i64::MAX,
                        written_end: i64::MAX,
                    },
                }
            }
        };
        self.facts.places[v.index()] = Some(place);
    }

    /// The number of the region named `name`, numbered as first met.
    fn region(&mut self, name: &'a str) -> u32 {
        // Consecutive tiles mostly share a base: compare with the last one before hashing.
        if let Some((last, region)) = self.last_region
            && last == name
        {
            return region;
        }
        let next = self.regions.len() as u32;
        let names = &mut self.facts.region_names;
        let region = *self.regions.entry(name).or_insert_with(|| {
            names.push(name.to_string());
            next
        });
        self.last_region = Some((name, region));
        region
    }

    /// The offsets of a `tile.slice` of `source` and where they place its window, from the
    /// static shapes.
    fn slice_window<'c>(
        &self,
        call: &'c Call,
        source: VarId,
    ) -> Option<(&'c [Expr], SliceGeometry)> {
        let Some(Type::Tile(src)) = &var(self.f, source)?.ty else {
            return None;
        };
        let src_shape: SmallVec<[i64; 4]> = src
            .shape
            .iter()
            .map(Expr::as_const_int)
            .collect::<Option<_>>()?;
        let list = |e: &'c Expr| match &e.kind {
            ExprKind::List(items) | ExprKind::Tuple(items) => Some(&items[..]),
            _ => None,
        };
        let shape = list(call.args.get(1)?)?;
        let offsets = list(call.args.get(2)?)?;
        if shape.len() != src_shape.len() || offsets.len() != src_shape.len() {
            return None;
        }
        let mut strides: SmallVec<[i64; 2]> = SmallVec::from_elem(1, src_shape.len());
        for k in (0..src_shape.len().saturating_sub(1)).rev() {
            strides[k] = strides[k + 1].checked_mul(src_shape[k + 1])?;
        }
        let mut extent: i64 = 1;
        for (dim, stride) in shape.iter().zip(&strides) {
            let dim = dim.as_const_int()?;
            extent = extent.checked_add(dim.checked_sub(1)?.checked_mul(*stride)?)?;
        }
        let bits = i64::from(src.dtype.storage_bits());
        Some((
            offsets,
            SliceGeometry {
                strides,
                extent,
                bits,
            },
        ))
    }

    /// `v`'s bytes depend on the scalars in `operands`, not known on every iteration: the
    /// loops they are computed from are worth running iteration by iteration, and the
    /// interpretation narrows `v`'s place (`moving`) on each. Nothing when no loop is involved.
    fn depend_on_iteration(
        &mut self,
        v: VarId,
        operands: &[Expr],
        moving: impl FnOnce() -> Moving,
    ) {
        let mut deps = LoopSet::new();
        for e in operands {
            for number in self.deps_of(e) {
                if !deps.contains(&number) {
                    deps.push(number);
                }
            }
        }
        if deps.is_empty() {
            return;
        }
        self.want(&deps);
        self.facts.moving.insert(v, moving());
    }
}

/// Where a tile written at `start` sits: its data's bytes, at most its MemRef's `size`. A write
/// reaches further: in Vec its rows padded to the 32-byte blocks a vector op writes, elsewhere
/// (fractal layouts: an Acc or L0 tile fills whole fractal rows) its whole MemRef.
fn tile_place(
    region: u32,
    start: i64,
    size: i64,
    data: Option<i64>,
    space: Option<MemSpace>,
) -> Place {
    let data = data.map_or(size, |d| d.min(size));
    let end = start.saturating_add(data);
    let written = match space {
        Some(MemSpace::Vec) => data.saturating_add(31) / 32 * 32,
        _ => size,
    };
    Place {
        region,
        start,
        end,
        written_end: start.saturating_add(written.min(size)).max(end),
    }
}

impl Moving {
    /// Its place where `scalars` give its offset; `source` is where a slice's source sits (for
    /// an offset, the tile's own place on every iteration, for its region).
    pub(super) fn place(&self, scalars: &Scalars, source: Place) -> Option<Place> {
        match self {
            Moving::Slice {
                offsets, geometry, ..
            } => geometry.place(scalars, offsets, source),
            Moving::Offset {
                offset,
                size,
                data,
                space,
                ..
            } => {
                let start = scalars.eval(offset)?;
                Some(tile_place(source.region, start, *size, *data, *space))
            }
        }
    }
}

/// A loop's or `if`'s key in [`Facts::touched`].
pub(super) fn stmt_key(stmt: &Stmt) -> usize {
    std::ptr::from_ref(stmt) as usize
}

/// The bytes a tile's data takes: its static shape's elements at the dtype's storage width.
fn data_bytes(tile: &TileType) -> Option<i64> {
    let mut elements: i64 = 1;
    for dim in tile.shape.iter() {
        elements = elements.checked_mul(dim.as_const_int()?)?;
    }
    let bits = elements.checked_mul(i64::from(tile.dtype.storage_bits()))?;
    Some((bits + 7) / 8)
}
