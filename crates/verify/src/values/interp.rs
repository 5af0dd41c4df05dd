//! The abstract interpreter: every statement run over the cells of every region, loops to
//! their fixpoint or iteration by iteration, reads checked as they happen.

use smallvec::SmallVec;

use memreuse_ir::{Expr, ForStmt, Function, Span, Stmt, StmtKind, VarId};

use crate::scalars::Scalars;

use super::cells::{
    Causes, Cell, ValueSet, fill_gaps, intersect_cells, join_focused, normalize, normalize_around,
    overwrite, push_merged, range_of, same_cells, set_cause_in, split_range,
};
use super::facts::{Effect, Facts, Moving, Place, stmt_key};
use super::violation::{Cause, RenameKind};

/// Cells per region.
#[derive(Clone, Debug, Default)]
struct State {
    pub(super) regions: Vec<Vec<Cell>>,
}

/// A read that found its value missing.
pub(super) struct Found {
    pub(super) var: VarId,
    pub(super) read: Span,
    pub(super) cause: Option<Cause>,
    pub(super) bytes: (i64, i64),
}

pub(super) struct Interp<'f> {
    pub(super) f: &'f Function,
    pub(super) facts: &'f Facts,
    /// The scalars known where the interpretation is (a loop run iteration by iteration
    /// knows its variable).
    pub(super) scalars: Scalars,
    /// Indexed by `VarId`: where a tile of [`Facts::moving`] sits on this iteration, when its
    /// offset is known here.
    moved: Vec<Option<Place>>,
    /// In a focused pass: the values whose causes it follows.
    focus: Option<Foci>,
    pub(super) found: Vec<Found>,
    /// A focused pass stops once each focus value has failed a read.
    pub(super) done: bool,
    /// For each iteration of a loop run iteration by iteration that is running (the
    /// innermost last), what it decided from the scalars so far, in order
    /// ([`Interp::iterations`]).
    traces: Vec<Vec<Decision<'f>>>,
}

/// What an iteration decides from the scalars it knows: replayed on the next value of the
/// loop variable, it tells whether that iteration does the same ([`Interp::iterations`]).
#[derive(Clone, Copy, Debug)]
enum Decision<'f> {
    /// A scalar assigned: its value follows the scalars.
    Scalar(VarId, &'f Expr),
    /// A loop variable set, to a value or to none.
    LoopVar(VarId, Option<i64>),
    /// An `if` condition, and the arm it selects (`None`: unknown, both run).
    Arm(&'f Expr, Option<bool>),
    /// A tile of [`Facts::moving`] placed: where it sat, and where it sits now.
    Moved {
        tile: VarId,
        before: Option<Place>,
        now: Option<Place>,
    },
}

/// The values a focused pass follows, each in its region, and which have failed a read. A
/// value is followed only in its own region: where a tile placed per iteration sits in
/// another, the pass of that region sees it as any other tile.
pub(super) struct Foci {
    /// The regions followed, sorted, each with its values (sorted).
    pub(super) regions: SmallVec<[(u32, SmallVec<[VarId; 4]>); 2]>,
    /// Every followed value, sorted, with its region and whether it has failed a read.
    pub(super) values: SmallVec<[(VarId, u32, bool); 8]>,
    pending: usize,
}

impl Foci {
    pub(super) fn new(by_region: Vec<(u32, SmallVec<[VarId; 4]>)>) -> Foci {
        let mut regions: SmallVec<[(u32, SmallVec<[VarId; 4]>); 2]> = by_region.into();
        regions.sort_unstable_by_key(|&(r, _)| r);
        let mut values: SmallVec<[(VarId, u32, bool); 8]> = SmallVec::new();
        for (region, in_region) in &mut regions {
            in_region.sort_unstable();
            values.extend(in_region.iter().map(|&v| (v, *region, false)));
        }
        values.sort_unstable_by_key(|&(v, _, _)| v);
        Foci {
            pending: values.len(),
            regions,
            values,
        }
    }
    fn follows(&self, region: u32) -> bool {
        self.regions
            .binary_search_by_key(&region, |&(r, _)| r)
            .is_ok()
    }
    /// The values followed in `region`, sorted.
    fn in_region(&self, region: u32) -> &[VarId] {
        match self.regions.binary_search_by_key(&region, |&(r, _)| r) {
            Ok(i) => &self.regions[i].1,
            Err(_) => &[],
        }
    }
    /// `v`'s index among the values, when it is followed in `region`.
    fn index_in(&self, v: VarId, region: u32) -> Option<usize> {
        let i = self.values.binary_search_by_key(&v, |&(v, _, _)| v).ok()?;
        (self.values[i].1 == region).then_some(i)
    }
}

/// A rename: the target and where it takes its value from (`None`: bound as it is).
type Pair = (VarId, Option<VarId>);

/// Byte ranges `[start, end)` of one region.
type Ranges = SmallVec<[(i64, i64); 2]>;

impl<'f> Interp<'f> {
    pub(super) fn new(f: &'f Function, facts: &'f Facts, focus: Option<Foci>) -> Interp<'f> {
        Interp {
            f,
            facts,
            scalars: Scalars::new(f.vars.len()),
            moved: vec![
                None;
                if facts.moving.is_empty() {
                    0
                } else {
                    f.vars.len()
                }
            ],
            focus,
            found: Vec::new(),
            done: false,
            traces: Vec::new(),
        }
    }

    pub(super) fn run(&mut self) {
        let mut state = State {
            regions: vec![Vec::new(); self.facts.region_names.len()],
        };
        let params: SmallVec<[Pair; 4]> = self.facts.params.iter().map(|&p| (p, None)).collect();
        self.rename(&mut state, &params, RenameKind::Rename, self.f.span);
        self.stmts(&mut state, &self.f.body);
    }

    /// Where `v` sits, if this pass follows it: a focused pass follows only the focus values'
    /// regions, as no other region's contents can change where they are.
    pub(super) fn place(&self, v: VarId) -> Option<Place> {
        let place = self.located(v)?;
        match &self.focus {
            Some(foci) if !foci.follows(place.region) => None,
            _ => Some(place),
        }
    }

    /// Where `v` sits here: on this iteration, or on every one.
    fn located(&self, v: VarId) -> Option<Place> {
        match self.moved.get(v.index()).copied().flatten() {
            Some(place) => Some(place),
            None => self.facts.places.get(v.index()).copied().flatten(),
        }
    }

    /// Narrows the place of a tile of [`Facts::moving`] being defined to this iteration's (or
    /// widens it back where its offset is not known here); its name leaves its old place.
    fn place_moving(&mut self, state: &mut State, v: VarId) {
        let Some(moving) = self.facts.moving.get(&v) else {
            return;
        };
        let own = self.facts.places.get(v.index()).copied().flatten();
        let now = self.moving_place(moving, own);
        let Some(slot) = self.moved.get_mut(v.index()) else {
            return;
        };
        let before = std::mem::replace(slot, now);
        self.record(Decision::Moved {
            tile: v,
            before,
            now,
        });
        if let Some(old) = before.or(own).filter(|_| before != now)
            && self.focus.as_ref().is_none_or(|f| f.follows(old.region))
        {
            let cells = &mut state.regions[old.region as usize];
            let (lo, hi) = range_of(cells, old.start, old.end);
            for c in &mut cells[lo..hi] {
                c.remove(v);
            }
        }
    }

    /// Where a tile of [`Facts::moving`] whose place on every iteration is `own` sits on
    /// this one, from the scalars known here.
    fn moving_place(&self, moving: &Moving, own: Option<Place>) -> Option<Place> {
        match moving {
            Moving::Slice { source, .. } => self
                .located(*source)
                .and_then(|src| moving.place(&self.scalars, src)),
            Moving::Offset { within, .. } => {
                let place = own.and_then(|own| moving.place(&self.scalars, own));
                match within.and_then(|s| self.located(s)) {
                    Some(src) => place.map(|p| Place {
                        start: p.start.max(src.start),
                        end: p.end.min(src.end),
                        written_end: p.end.min(src.end),
                        ..p
                    }),
                    None => place,
                }
                .filter(|p| p.start < p.end)
            }
        }
    }

    /// Whether `v`, sitting in `region`, is a focus value there.
    fn is_focus_in(&self, v: VarId, region: u32) -> bool {
        self.focus
            .as_ref()
            .is_some_and(|foci| foci.index_in(v, region).is_some())
    }

    /// Whether `v` is an on-chip tile at all.
    fn is_tile(&self, v: VarId) -> bool {
        self.facts
            .places
            .get(v.index())
            .is_some_and(Option::is_some)
    }

    /// Runs a statement list; returns the yield that ends it, if any.
    fn stmts(&mut self, state: &mut State, body: &'f [Stmt]) -> Option<(&'f [Expr], Span)> {
        let mut yielded = None;
        let first = self.facts.first_slot(body);
        for (i, stmt) in body.iter().enumerate() {
            if self.done {
                return yielded;
            }
            // Every statement reads its operands (the loop header, the condition) first.
            for &(v, span) in self.facts.reads_of(first + i) {
                self.read(state, v, span);
            }
            match &stmt.kind {
                StmtKind::Assign { target, value } => {
                    if self.is_tile(*target) {
                        self.place_moving(state, *target);
                    } else {
                        let known = self.scalars.eval(value);
                        self.scalars.set(*target, known);
                        self.record(Decision::Scalar(*target, value));
                    }
                    self.assign(state, *target, stmt.span);
                }
                StmtKind::Eval(_) | StmtKind::Return { .. } | StmtKind::Pass => {}
                StmtKind::Yield { values } => yielded = Some((values.as_slice(), stmt.span)),
                StmtKind::For(for_stmt) => match self.facts.unrolled.get(&stmt_key(stmt)) {
                    Some(values) => self.iterations(state, stmt, for_stmt, values),
                    None => self.for_loop(state, stmt, for_stmt),
                },
                StmtKind::If(if_stmt) if let Some(taken) = self.scalars.eval(&if_stmt.cond) => {
                    // The condition is known here: only the arm it selects runs.
                    self.record(Decision::Arm(&if_stmt.cond, Some(taken != 0)));
                    let arm = if taken != 0 {
                        Some(&if_stmt.then_body)
                    } else {
                        if_stmt.else_body.as_ref()
                    };
                    let arm_yield = match arm {
                        Some(arm) => self.stmts(state, arm),
                        None => None,
                    };
                    self.bind_results(state, &if_stmt.return_vars, arm_yield, stmt.span);
                }
                StmtKind::If(if_stmt) => {
                    self.record(Decision::Arm(&if_stmt.cond, None));
                    let touched = self.touched(stmt);
                    // Only the regions the `if` touches differ between its arms.
                    let mut other: Vec<Vec<Cell>> = touched
                        .iter()
                        .map(|&r| state.regions[r as usize].clone())
                        .collect();
                    let then_yield = self.stmts(state, &if_stmt.then_body);
                    self.bind_results(state, &if_stmt.return_vars, then_yield, stmt.span);
                    for (&r, cells) in touched.iter().zip(&mut other) {
                        std::mem::swap(&mut state.regions[r as usize], cells);
                    }
                    let else_yield = match &if_stmt.else_body {
                        Some(else_body) => self.stmts(state, else_body),
                        None => None,
                    };
                    self.bind_results(state, &if_stmt.return_vars, else_yield, stmt.span);
                    for (&r, then_cells) in touched.iter().zip(&other) {
                        let joined = self.join_region(r, then_cells, &state.regions[r as usize]);
                        state.regions[r as usize] = joined;
                    }
                }
                StmtKind::With(with) => {
                    if let Some(y) = self.stmts(state, &with.body) {
                        yielded = Some(y);
                    }
                }
            }
        }
        yielded
    }

    /// An `if` arm's results take the values the arm yields (an arm without a yield binds
    /// them as they are).
    fn bind_results(
        &mut self,
        state: &mut State,
        results: &[VarId],
        yielded: Option<(&[Expr], Span)>,
        if_span: Span,
    ) {
        if results.is_empty() {
            return;
        }
        let pairs = pairs(results, yielded.map(|(values, _)| values));
        let at = yielded.map_or(if_span, |(_, at)| at);
        self.rename(state, &pairs, RenameKind::Rename, at);
    }

    /// The regions `stmt` (a loop or an `if`) can change, as far as this pass follows them.
    fn touched(&self, stmt: &Stmt) -> SmallVec<[u32; 8]> {
        let all = self.facts.touched.get(&stmt_key(stmt));
        let follows = |r: &&u32| self.focus.as_ref().is_none_or(|f| f.follows(**r));
        all.map(|t| t.iter().filter(follows).copied().collect())
            .unwrap_or_default()
    }

    /// Runs a loop iteration by iteration, its variable taking each of `values` in turn: at
    /// each back edge the iter args take the values yielded for them.
    fn iterations(
        &mut self,
        state: &mut State,
        stmt: &'f Stmt,
        for_stmt: &'f ForStmt,
        values: &[i64],
    ) {
        let at = stmt.span;
        let inits = pairs(&for_stmt.iter_args, Some(&for_stmt.init_values));
        self.rename(state, &inits, RenameKind::Rename, at);
        // An iteration that leaves the state as it found it, run again from that state and
        // deciding the same, does the same: its reads fail as they did, and it changes nothing.
        // So once one does, the next iterations only replay its decisions on their values,
        // and run only where one decides otherwise.
        let touched = self.touched(stmt);
        let mut repeating: Option<Vec<Decision<'f>>> = None;
        for &value in values {
            if let Some(loop_var) = for_stmt.loop_var {
                self.scalars.set(loop_var, Some(value));
                self.record(Decision::LoopVar(loop_var, Some(value)));
            }
            if let Some(trace) = &repeating
                && self.replays(trace)
            {
                // The iteration replayed decided as the one recorded: the loops around it
                // record those decisions as its own.
                for recording in &mut self.traces {
                    recording.extend_from_slice(trace);
                }
                continue;
            }
            let head: Vec<Vec<Cell>> = touched
                .iter()
                .map(|&r| state.regions[r as usize].clone())
                .collect();
            self.traces.push(Vec::new());
            let ran = self.iteration(state, for_stmt, at);
            let trace = self.traces.pop().unwrap_or_default();
            if !ran {
                return;
            }
            let regions_kept = touched
                .iter()
                .zip(&head)
                .all(|(&r, cells)| same_cells(&state.regions[r as usize], cells));
            repeating = (regions_kept && self.placed_back(&trace)).then_some(trace);
        }
        if let Some(loop_var) = for_stmt.loop_var {
            self.scalars.set(loop_var, None);
            self.record(Decision::LoopVar(loop_var, None));
        }
        self.bind_loop_results(state, for_stmt, at);
    }

    /// Adds `decision` to the decisions of each iteration being recorded (of the loops run
    /// iteration by iteration around it).
    fn record(&mut self, decision: Decision<'f>) {
        for trace in &mut self.traces {
            trace.push(decision);
        }
    }

    /// Replays the decisions of an iteration on the scalars known now: whether each comes
    /// out the same. The scalars it sets are the iteration's; a tile it places is placed
    /// only where every decision comes out the same (else the iteration runs, from where
    /// its tiles sat).
    fn replays(&mut self, trace: &[Decision<'f>]) -> bool {
        let mut placed: SmallVec<[(VarId, Option<Place>); 4]> = SmallVec::new();
        let same = trace.iter().all(|decision| match *decision {
            Decision::Scalar(target, value) => {
                let known = self.scalars.eval(value);
                self.scalars.set(target, known);
                true
            }
            Decision::LoopVar(loop_var, value) => {
                self.scalars.set(loop_var, value);
                true
            }
            Decision::Arm(cond, arm) => self.scalars.eval(cond).map(|t| t != 0) == arm,
            Decision::Moved { tile, now, .. } => {
                let own = self.facts.places.get(tile.index()).copied().flatten();
                let moving = self.facts.moving.get(&tile);
                let again = moving.and_then(|moving| self.moving_place(moving, own));
                let Some(slot) = self.moved.get_mut(tile.index()) else {
                    return false;
                };
                placed.push((tile, std::mem::replace(slot, again)));
                again == now
            }
        });
        if !same {
            for (tile, before) in placed.into_iter().rev() {
                self.moved[tile.index()] = before;
            }
        }
        same
    }

    /// Whether every tile an iteration placed (its decisions `trace`) sits where it sat
    /// before the iteration.
    fn placed_back(&self, trace: &[Decision<'f>]) -> bool {
        let mut seen: SmallVec<[VarId; 4]> = SmallVec::new();
        trace.iter().all(|decision| match *decision {
            Decision::Moved { tile, before, .. } if !seen.contains(&tile) => {
                seen.push(tile);
                self.moved.get(tile.index()).copied().flatten() == before
            }
            _ => true,
        })
    }

    /// Runs the loop's body once, then its back edge: every iter arg takes the value yielded
    /// for it, all at once. `false` when a focused pass is done.
    fn iteration(&mut self, state: &mut State, for_stmt: &'f ForStmt, at: Span) -> bool {
        let yielded = self.stmts(state, &for_stmt.body);
        if self.done {
            return false;
        }
        let carries = pairs(&for_stmt.iter_args, yielded.map(|(values, _)| values));
        let yield_span = yielded.map_or(at, |(_, span)| span);
        self.rename(state, &carries, RenameKind::Carry, yield_span);
        true
    }

    /// Runs a loop to its fixpoint. Regions the loop does not touch stay as they are; the
    /// state of the others at the head is the join of the entry and the back edge. A focused
    /// pass keeps each region it follows at its own fixpoint once reached: each later pass of
    /// the body starts it there again (so its reads fail as on the pass that reached it, and
    /// it leaves the loop as it would have), which is what a pass following it alone gives.
    fn for_loop(&mut self, state: &mut State, stmt: &'f Stmt, for_stmt: &'f ForStmt) {
        let at = stmt.span;
        if let Some(loop_var) = for_stmt.loop_var {
            self.scalars.set(loop_var, None);
            self.record(Decision::LoopVar(loop_var, None));
        }
        let touched = self.touched(stmt);
        let inits = pairs(&for_stmt.iter_args, Some(&for_stmt.init_values));
        self.rename(state, &inits, RenameKind::Rename, at);
        if self.focus.is_none() {
            self.drop_unused(state, stmt, &touched);
        }
        let saved = |state: &State| -> Vec<Vec<Cell>> {
            touched
                .iter()
                .map(|&r| state.regions[r as usize].clone())
                .collect()
        };
        let entry = saved(state);
        // Violations count only on the pass that starts from the fixpoint: earlier passes
        // start from states that hold more. (A focused pass keeps the first it meets.)
        let mark = self.found.len();
        // The head of the first pass is the entry state.
        let mut later_head: Option<Vec<Vec<Cell>>> = None;
        // A focused pass: the regions at their fixpoint, with their state there.
        let mut settled: Vec<Option<Vec<Cell>>> = vec![None; touched.len()];
        loop {
            if self.focus.is_none() {
                self.found.truncate(mark);
            }
            let head = later_head.as_ref().unwrap_or(&entry);
            if !self.iteration(state, for_stmt, at) {
                return;
            }
            let mut fixpoint = true;
            // The regions this pass of the body brought to their fixpoint.
            let mut reached: SmallVec<[usize; 4]> = SmallVec::new();
            let regions = touched.iter().zip(&entry).zip(head).zip(&settled);
            for (k, (((&r, entry_cells), head_cells), settled)) in regions.enumerate() {
                let cells = &mut state.regions[r as usize];
                if let Some(at_fixpoint) = settled {
                    cells.clone_from(at_fixpoint);
                    continue;
                }
                let next = self.join_region(r, entry_cells, cells);
                if same_cells(&next, head_cells) {
                    reached.push(k);
                } else {
                    fixpoint = false;
                }
                *cells = next;
            }
            if fixpoint {
                break;
            }
            if self.focus.is_some() {
                for k in reached {
                    settled[k] = Some(state.regions[touched[k] as usize].clone());
                }
            }
            later_head = Some(saved(state));
        }
        self.bind_loop_results(state, for_stmt, at);
    }

    /// Drops from the regions a loop touches the values no statement uses from its head on
    /// ([`Facts::last_use`]): where they are decides no read, yet a body that writes over
    /// them would change the head and cost another pass over the body to reach the fixpoint.
    /// The tiles whose place moves with the iteration stay (a value may sit outside the place
    /// its tile has next). Only the fast pass drops them: a focused pass follows causes.
    fn drop_unused(&self, state: &mut State, stmt: &Stmt, touched: &[u32]) {
        let Some(&head) = self.facts.loop_numbers.get(&stmt_key(stmt)) else {
            return;
        };
        let unused = |v: VarId| {
            self.facts
                .last_use
                .get(v.index())
                .is_some_and(|&last| last <= head)
                && !self.facts.moving.contains_key(&v)
        };
        for &r in touched {
            let cells = &mut state.regions[r as usize];
            let mut dropped = false;
            for c in cells.iter_mut() {
                let held = c.values.len();
                c.values.retain(|v| !unused(*v));
                dropped |= c.values.len() != held;
            }
            if dropped {
                let len = cells.len();
                normalize(cells, 0, len);
            }
        }
    }

    /// A loop's results take its iter args' values as the loop exits.
    fn bind_loop_results(&mut self, state: &mut State, for_stmt: &ForStmt, at: Span) {
        let results: SmallVec<[Pair; 4]> = for_stmt
            .return_vars
            .iter()
            .enumerate()
            .map(|(i, &r)| (r, for_stmt.iter_args.get(i).copied()))
            .collect();
        self.rename(state, &results, RenameKind::Rename, at);
    }

    fn assign(&mut self, state: &mut State, target: VarId, at: Span) {
        let Some(&effect) = self.facts.effects.get(target.index()) else {
            return;
        };
        match effect {
            Effect::Rename(source) => {
                self.rename(state, &[(target, source)], RenameKind::Rename, at);
            }
            Effect::WriteItems => {
                if let Some(items) = self.facts.tuple_items.get(&target) {
                    self.write_all(state, items, at);
                }
            }
            Effect::InPlace(input) => {
                if let Some(place) = self.place(target) {
                    self.write_in_place(state, place, target, input, at);
                }
            }
            Effect::Write => self.write_all(state, &[target], at),
            Effect::Item => {}
        }
    }

    /// Checks that every byte of `v`'s range holds `v`.
    fn read(&mut self, state: &State, v: VarId, span: Span) {
        let Some(place) = self.place(v) else {
            return;
        };
        // A focused pass checks a focus value's reads where it is followed, until one fails.
        let focus_index = match &self.focus {
            Some(foci) => match foci.index_in(v, place.region) {
                Some(i) if !foci.values[i].2 => Some(i),
                _ => return,
            },
            None => None,
        };
        let cells = &state.regions[place.region as usize];
        let mut at = cells.partition_point(|c| c.end <= place.start);
        let mut covered = place.start;
        while covered < place.end {
            match cells.get(at) {
                Some(cell) if cell.start <= covered && cell.holds(v) => {
                    covered = cell.end;
                    at += 1;
                }
                other => {
                    let cause = other
                        .filter(|c| c.start <= covered)
                        .and_then(|c| c.cause(v));
                    self.found.push(Found {
                        var: v,
                        read: span,
                        cause,
                        bytes: (place.start, place.end),
                    });
                    // A focus value's first failing read, on whatever iteration, is a real one
                    // (later iterations start from fewer values), with a real cause.
                    if let (Some(foci), Some(i)) = (&mut self.focus, focus_index) {
                        foci.values[i].2 = true;
                        foci.pending -= 1;
                        self.done = foci.pending == 0;
                    }
                    return;
                }
            }
        }
    }

    /// An op at `at` writes `outputs` at once: each holds its own bytes, and bytes two of them
    /// share hold neither.
    fn write_all(&mut self, state: &mut State, outputs: &[VarId], at: Span) {
        for &out in outputs {
            if let Some(place) = self.place(out) {
                self.clobber_tail(state, place, out, at);
                self.clobber(state, place, out, Some(out), at);
            }
        }
        for (i, &a) in outputs.iter().enumerate() {
            for &b in &outputs[i + 1..] {
                let (Some(pa), Some(pb)) = (self.place(a), self.place(b)) else {
                    continue;
                };
                let (a_end, b_end) = (pa.written_end, pb.written_end);
                if pa.region != pb.region || a_end <= pb.start || b_end <= pa.start {
                    continue;
                }
                let overlap = Place {
                    start: pa.start.max(pb.start),
                    end: a_end.min(b_end),
                    ..pa
                };
                // `b`, written last, holds the shared bytes and loses them to `a` (`a` lost
                // them to `b`).
                self.clobber(state, overlap, a, None, at);
            }
        }
    }

    /// An in-place result (`matmul_acc`, `fillpad_inplace`, ...) is written over its input:
    /// other values there are lost, but where the input is, the names of the input's datum
    /// (the input, its views and aliases) stay: the op, not the plan, decides that the input's
    /// buffer changes, so reading the input afterwards is the program's business. A loop init
    /// the input was carried from is a value of its own and is lost.
    fn write_in_place(
        &mut self,
        state: &mut State,
        place: Place,
        out: VarId,
        input: VarId,
        at: Span,
    ) {
        self.clobber_tail(state, place, out, at);
        let cells = &mut state.regions[place.region as usize];
        let (lo, hi) = split_range(cells, place.start, place.end);
        let kept: Ranges = cells[lo..hi]
            .iter()
            .filter(|c| c.holds(input))
            .map(|c| (c.start, c.end))
            .collect();
        let mut covered = place.start;
        for &(start, end) in kept.iter().chain([(place.end, place.end)].iter()) {
            if covered < start {
                let rest = Place {
                    start: covered,
                    end: start,
                    ..place
                };
                self.clobber(state, rest, out, Some(out), at);
            }
            covered = end;
        }
        let datum = self.facts.datum_of(input);
        let foci = self
            .focus
            .as_ref()
            .map_or(&[][..], |f| f.in_region(place.region));
        let cells = &mut state.regions[place.region as usize];
        for &(start, end) in &kept {
            let (lo, hi) = range_of(cells, start, end);
            for c in &mut cells[lo..hi] {
                for &f in foci {
                    if f != out && c.holds(f) && self.facts.datum_of(f) != datum {
                        c.set_cause(f, Some(Cause::Overwritten { writer: out, at }));
                    }
                }
                c.values.retain(|v| self.facts.datum_of(*v) == datum);
                c.insert(out);
                c.set_cause(out, None);
            }
        }
        let (lo, hi) = range_of(cells, place.start, place.end);
        normalize(cells, lo.saturating_sub(1), (hi + 1).min(cells.len()));
    }

    /// A write of `out` may reach past its data to its MemRef's end: those bytes hold nothing
    /// after it.
    fn clobber_tail(&mut self, state: &mut State, place: Place, out: VarId, at: Span) {
        if place.written_end > place.end {
            let tail = Place {
                start: place.end,
                end: place.written_end,
                ..place
            };
            self.clobber(state, tail, out, None, at);
        }
    }

    /// Replaces the contents of `place` by `value` (or by nothing), the work of `writer`'s op.
    fn clobber(
        &mut self,
        state: &mut State,
        place: Place,
        writer: VarId,
        value: Option<VarId>,
        at: Span,
    ) {
        let cells = &mut state.regions[place.region as usize];
        let Some(foci) = &self.focus else {
            overwrite(cells, place.start, place.end, value);
            return;
        };
        let (lo, hi) = split_range(cells, place.start, place.end);
        let mut values = ValueSet::new();
        values.extend_from_slice(value.as_slice());
        // Follow the focus values: remember where this write removed them.
        let mut replaced: Vec<Cell> = Vec::with_capacity(hi - lo + 2);
        let mut covered = place.start;
        for old in &cells[lo..hi] {
            if old.start > covered {
                push_merged(
                    &mut replaced,
                    covered,
                    old.start,
                    values.clone(),
                    Causes::new(),
                );
            }
            let mut causes = old.causes.clone();
            for &f in foci.in_region(place.region) {
                if Some(f) == value {
                    set_cause_in(&mut causes, f, None);
                } else if old.holds(f) {
                    set_cause_in(&mut causes, f, Some(Cause::Overwritten { writer, at }));
                }
            }
            push_merged(&mut replaced, old.start, old.end, values.clone(), causes);
            covered = old.end;
        }
        if covered < place.end {
            push_merged(&mut replaced, covered, place.end, values, Causes::new());
        }
        replaced.retain(|c| !c.is_blank());
        cells.splice(lo..hi, replaced);
    }

    /// Renames at `at`, all at once: each target is added wherever its source is, within the
    /// target's own range, after the target's previous instance is removed. A target without
    /// a source is bound over its whole range.
    fn rename(&mut self, state: &mut State, pairs: &[Pair], kind: RenameKind, at: Span) {
        // Most renames are of one target: it needs no lists of the targets and their sources.
        if let [(target, source)] = *pairs {
            let Some(p) = self.place(target) else {
                return;
            };
            let cells = &mut state.regions[p.region as usize];
            split_range(cells, p.start, p.end);
            let ranges = self.source_ranges(cells, source, p);
            self.rename_in(cells, (target, source, p), &ranges, kind, at);
            normalize_around(cells, p);
            return;
        }
        let placed: SmallVec<[(VarId, Option<VarId>, Place); 4]> = pairs
            .iter()
            .filter_map(|&(t, s)| self.place(t).map(|p| (t, s, p)))
            .collect();
        if placed.is_empty() {
            return;
        }
        for &(_, _, p) in &placed {
            split_range(&mut state.regions[p.region as usize], p.start, p.end);
        }
        // Where each source is, before any target changes.
        let mut holds: SmallVec<[Ranges; 4]> = SmallVec::new();
        for &(_, source, p) in &placed {
            holds.push(self.source_ranges(&state.regions[p.region as usize], source, p));
        }
        for (&placed, ranges) in placed.iter().zip(&holds) {
            let cells = &mut state.regions[placed.2.region as usize];
            self.rename_in(cells, placed, ranges, kind, at);
        }
        for &(_, _, p) in &placed {
            normalize_around(&mut state.regions[p.region as usize], p);
        }
    }

    /// Where in the target's place `p` a rename's source is (split at `p`'s ends): all of `p`
    /// for a target bound as it is.
    fn source_ranges(&self, cells: &[Cell], source: Option<VarId>, p: Place) -> Ranges {
        let (lo, hi) = range_of(cells, p.start, p.end);
        match source {
            Some(s) if self.is_tile(s) => cells[lo..hi]
                .iter()
                .filter(|c| c.holds(s))
                .map(|c| (c.start, c.end))
                .collect(),
            _ => SmallVec::from_elem((p.start, p.end), 1),
        }
    }

    /// Moves `target` (placed at `p`) onto `ranges`, where its source is, in one region.
    fn rename_in(
        &self,
        cells: &mut Vec<Cell>,
        (target, source, p): (VarId, Option<VarId>, Place),
        ranges: &[(i64, i64)],
        kind: RenameKind,
        at: Span,
    ) {
        let focused = self.is_focus_in(target, p.region);
        if focused {
            fill_gaps(cells, p.start, p.end);
        }
        let (lo, hi) = range_of(cells, p.start, p.end);
        for c in &mut cells[lo..hi] {
            c.remove(target);
            if focused {
                // Where a view's source was overwritten, so is the view.
                let cause = source
                    .filter(|&s| self.facts.datum_of(s) == self.facts.datum_of(target))
                    .and_then(|s| c.cause(s))
                    .filter(|cause| matches!(cause, Cause::Overwritten { .. }))
                    .unwrap_or_else(|| kind.cause(target, source, at));
                c.set_cause(target, Some(cause));
            }
        }
        for &(start, end) in ranges {
            fill_gaps(cells, start, end);
            let (lo, hi) = range_of(cells, start, end);
            for c in &mut cells[lo..hi] {
                c.insert(target);
                if focused {
                    c.set_cause(target, None);
                }
            }
        }
    }

    /// A region on both paths: the values a cell holds on each. In a focused pass, the cause
    /// of a missing focus value comes from the path that lost it.
    fn join_region(&self, region: u32, a: &[Cell], b: &[Cell]) -> Vec<Cell> {
        match &self.focus {
            None => intersect_cells(a, b),
            Some(foci) => join_focused(a, b, foci.in_region(region)),
        }
    }
}

/// Renames of `targets` from the expressions at the same positions.
pub(super) fn pairs(targets: &[VarId], sources: Option<&[Expr]>) -> SmallVec<[Pair; 4]> {
    targets
        .iter()
        .enumerate()
        .map(|(i, &t)| (t, sources.and_then(|s| s.get(i)).and_then(Expr::as_var)))
        .collect()
}
