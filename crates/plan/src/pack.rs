//! Global first-fit-decreasing packing of sharing groups into buffers, per memory space
//! (rules §6.2–§6.6).
//!
//! The result is exactly first-fit over buffers in creation order, but a candidate does not
//! compare itself with every member of every buffer. An occupancy index over statements skips
//! the buffers that surely hold a member live during the candidate's interval, which the
//! lifetime gate would reject anyway (unless an if-phi family explains the overlap, so a
//! family member looks at every buffer). Each remaining buffer keeps its members sorted by
//! definition (so the lifetime gate looks only at members near the candidate's interval) and
//! the union of what its members forbid, so the other gates are set lookups.

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap, FxHashSet};

use super::occupancy::Occupancy;
use super::timeline::{Member, Timeline};
use crate::analysis::forbid_alias::{ForbidMap, Hazard};
use crate::analysis::lifetimes::{Interval, Lifetimes, overlaps};
use memreuse_ir::{Function, MemSpace, Name, Type, VarId};

/// What the gates of `can_share` consult of a function besides its lifetimes and the hazard,
/// resolved to intervals once per function (the sharing rules keep it).
#[derive(Clone, Debug, PartialEq)]
pub struct ShareIndex {
    /// For each interval, the intervals whose base one of its forbidden operands sits on.
    forbids: Vec<Vec<usize>>,
    /// The intervals of declared (pinned) allocations.
    pinned: FxHashSet<usize>,
}

impl ShareIndex {
    pub fn new(
        f: &Function,
        lifetimes: &Lifetimes,
        forbid: &ForbidMap,
        pinned_bases: &FxHashSet<Name>,
    ) -> ShareIndex {
        // A forbidden operand resolves to its current base, which also covers views and iter
        // args (rules §6.2 gate 3: nothing in the space being packed is committed yet). A grouped
        // operand's group is the interval of its base; only the others need the base table.
        let mut interval_of_base: Option<FxHashMap<&str, usize>> = None;
        let mut forbids = Vec::with_capacity(lifetimes.intervals.len());
        for interval in 0..lifetimes.intervals.len() {
            let operands = forbid.forbidden(interval);
            let mut targets: Vec<usize> = Vec::with_capacity(operands.len());
            for &operand in operands {
                if let Some(group) = lifetimes.group_of(operand) {
                    targets.push(group);
                    continue;
                }
                let Some(base) = f.vars[operand].ty.as_ref().and_then(Type::memref) else {
                    continue;
                };
                let by_base = interval_of_base.get_or_insert_with(|| {
                    lifetimes
                        .intervals
                        .iter()
                        .enumerate()
                        .map(|(i, iv)| (iv.base.as_str(), i))
                        .collect()
                });
                targets.extend(by_base.get(base.base.as_str()).copied());
            }
            targets.sort_unstable();
            targets.dedup();
            forbids.push(targets);
        }
        let pinned = if pinned_bases.is_empty() {
            FxHashSet::default()
        } else {
            lifetimes
                .intervals
                .iter()
                .enumerate()
                .filter(|(_, iv)| pinned_bases.contains(&iv.base))
                .map(|(i, _)| i)
                .collect()
        };
        ShareIndex { forbids, pinned }
    }
}

/// Everything the gates of `can_share` consult, for one function.
pub struct ShareFacts<'a> {
    pub lifetimes: &'a Lifetimes,
    /// For each interval, the intervals whose base one of its forbidden operands sits on.
    pub forbids: &'a [Vec<usize>],
    pub hazard: Option<&'a Hazard>,
    pub pinned: &'a FxHashSet<usize>,
}

impl<'a> ShareFacts<'a> {
    pub fn new(
        lifetimes: &'a Lifetimes,
        index: &'a ShareIndex,
        hazard: Option<&'a Hazard>,
    ) -> ShareFacts<'a> {
        ShareFacts {
            lifetimes,
            forbids: &index.forbids,
            hazard,
            pinned: &index.pinned,
        }
    }

    fn interval(&self, i: usize) -> &Interval {
        &self.lifetimes.intervals[i]
    }

    /// Gate 1 for two intervals whose group intervals overlap: sharing is allowed only when
    /// an if-phi family explains the overlap.
    fn family_explains_overlap(&self, a: usize, b: usize) -> bool {
        if !self.lifetimes.has_families() {
            return false;
        }
        let (a, b) = (self.interval(a), self.interval(b));
        let mut family_pair = false;
        for &x in &a.members {
            for &y in &b.members {
                if self.lifetimes.same_family(x, y) {
                    family_pair = true;
                } else if self.lifetimes.vars_overlap(x, y) {
                    return false;
                }
            }
        }
        family_pair
    }

    fn reads_tpop(&self, i: usize) -> bool {
        self.hazard
            .is_some_and(|h| h.reads_tpop.contains(&self.interval(i).rep))
    }

    fn load_derived(&self, i: usize) -> bool {
        self.hazard
            .is_some_and(|h| h.load_derived.contains(&self.interval(i).rep))
    }
}

/// The pipeline-stage gate's state for one memory space (rules §6.6).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineGate {
    pub space: MemSpace,
    /// The space's capacity is known (a backend is configured and reports one).
    pub capacity_known: bool,
    /// Set by the capacity loop's last resort; the legacy predicate then applies.
    pub forced_legacy: bool,
    /// Per pipeline group id: its stages in ascending order and its affordable depth `F`.
    pub groups: BTreeMap<i64, PipelineGroup>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineGroup {
    pub slot: i64,
    pub stages: Vec<i64>,
    /// The affordable depth `F` (the shed loop lowers it).
    pub depth: usize,
    /// The representative of the group's first interval, to locate diagnostics.
    pub first_member: Option<VarId>,
}

impl PipelineGroup {
    /// The depth `F` the gate starts the group at under `capacity` (rules §6.6): its requested
    /// depth as far as the capacity affords its slot, 1 when the capacity is unknown.
    pub fn affordable_depth(&self, capacity: Option<i64>) -> usize {
        affordable_depth(self.slot, self.stages.len(), capacity)
    }

    fn residue(&self, stage: i64) -> usize {
        let ordinal = self.stages.partition_point(|&s| s < stage);
        ordinal % self.depth.max(1)
    }
}

/// The depth `F` a pipeline group of `stages` stages whose largest tile takes `slot` bytes
/// starts at under `capacity` ([`PipelineGroup::affordable_depth`]).
pub fn affordable_depth(slot: i64, stages: usize, capacity: Option<i64>) -> usize {
    match capacity {
        Some(capacity) if slot != 0 => {
            let affordable = usize::try_from(capacity / slot).unwrap_or(0);
            stages.min(affordable).max(1)
        }
        _ => 1,
    }
}

impl PipelineGate {
    pub fn new(space: MemSpace, intervals: &[&Interval], capacity: Option<i64>) -> PipelineGate {
        let mut groups: BTreeMap<i64, PipelineGroup> = BTreeMap::new();
        for iv in intervals {
            for &(group, stage) in &iv.pipeline {
                let entry = groups.entry(group).or_insert(PipelineGroup {
                    slot: 0,
                    stages: Vec::new(),
                    depth: 1,
                    first_member: Some(iv.rep),
                });
                entry.slot = entry.slot.max(iv.size);
                if let Err(at) = entry.stages.binary_search(&stage) {
                    entry.stages.insert(at, stage);
                }
            }
        }
        let capacity_known = capacity.is_some();
        for group in groups.values_mut() {
            group.depth = group.affordable_depth(capacity);
        }
        PipelineGate {
            space,
            capacity_known,
            forced_legacy: false,
            groups,
        }
    }

    fn blocks(&self, a: &Interval, b: &Interval) -> bool {
        let gated = !self.forced_legacy && self.capacity_known;
        if !gated && self.space.is_l0() {
            return false;
        }
        if a.pipeline.is_empty() || b.pipeline.is_empty() {
            return false;
        }
        for &(ga, sa) in &a.pipeline {
            for &(gb, sb) in &b.pipeline {
                if ga != gb {
                    continue;
                }
                let separated = if gated {
                    self.groups
                        .get(&ga)
                        .is_some_and(|g| g.residue(sa) != g.residue(sb))
                } else {
                    sa != sb && (a.pipeline_load || b.pipeline_load)
                };
                if separated {
                    return true;
                }
            }
        }
        false
    }

    /// `blocks(a, m)` for some member `m` of a buffer, from the buffer's stages by group.
    fn blocks_any(&self, a: &Interval, stages: &FxHashMap<i64, GroupStages>) -> bool {
        let gated = !self.forced_legacy && self.capacity_known;
        if !gated && self.space.is_l0() {
            return false;
        }
        a.pipeline.iter().any(|&(group, stage)| {
            let Some(present) = stages.get(&group) else {
                return false;
            };
            if gated {
                self.groups.get(&group).is_some_and(|g| {
                    let residue = g.residue(stage);
                    present.all.iter().any(|&s| g.residue(s) != residue)
                })
            } else {
                // Different stages separate only when one of the two is a pipeline load.
                let others = if a.pipeline_load {
                    &present.all
                } else {
                    &present.loads
                };
                others.iter().any(|&s| s != stage)
            }
        })
    }
}

/// The distinct stages a buffer's members have in one pipeline group.
#[derive(Clone, Debug, Default)]
struct GroupStages {
    all: Vec<i64>,
    /// Stages of members that are pipeline loads.
    loads: Vec<i64>,
}

fn record_stages(index: &mut FxHashMap<i64, GroupStages>, iv: &Interval) {
    for &(group, stage) in &iv.pipeline {
        let stages = index.entry(group).or_default();
        if !stages.all.contains(&stage) {
            stages.all.push(stage);
        }
        if iv.pipeline_load && !stages.loads.contains(&stage) {
            stages.loads.push(stage);
        }
    }
}

/// The first gate of `can_share` that keeps two intervals of one space apart (rules §6.2),
/// or pinning, which keeps a declared allocation out of every shared buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Blocker {
    /// One of the two is a declared (pinned) allocation.
    Pinned(usize),
    /// Their lifetimes overlap and no if-phi family explains it.
    Lifetime,
    /// The 910B split-AIV load + tpop hazard: `writer` reads tpop where `load` dies.
    Hazard { writer: usize, load: usize },
    /// `writer`'s op must not write over `operand`'s buffer.
    ForbidAlias { writer: usize, operand: usize },
    /// Different pipeline stages that must stay in separate buffers.
    PipelineStage,
}

/// `can_share(a, b)` as one pair, gate by gate; `None` when nothing keeps them apart.
pub fn pair_blocker(
    facts: &ShareFacts,
    gate: &PipelineGate,
    a: usize,
    b: usize,
) -> Option<Blocker> {
    for i in [a, b] {
        if facts.pinned.contains(&i) {
            return Some(Blocker::Pinned(i));
        }
    }
    let (ia, ib) = (facts.interval(a), facts.interval(b));
    if ia.overlaps(ib) && !facts.family_explains_overlap(a, b) {
        return Some(Blocker::Lifetime);
    }
    for (writer, load) in [(a, b), (b, a)] {
        if facts.reads_tpop(writer)
            && facts.load_derived(load)
            && facts.interval(writer).def == facts.interval(load).last
        {
            return Some(Blocker::Hazard { writer, load });
        }
    }
    for (writer, operand) in [(a, b), (b, a)] {
        if facts.forbids[writer].contains(&operand) {
            return Some(Blocker::ForbidAlias { writer, operand });
        }
    }
    if gate.blocks(ia, ib) {
        return Some(Blocker::PipelineStage);
    }
    None
}

/// One shared buffer: intervals (indices into `Lifetimes::intervals`) in insertion order.
#[derive(Clone, Debug)]
pub struct Buffer {
    pub members: Vec<usize>,
    /// Byte offset of each member inside the buffer: 0 for whole-buffer sharing, the subrange
    /// start for members the overflow fallback placed inside an arena (seed S4).
    pub placements: Vec<i64>,
    /// Whether some member sits in a subrange; every member then keeps its own size.
    pub subdivided: bool,
    /// The largest member's size in bytes: the buffer's size.
    pub size: i64,
    pub pinned: bool,
    /// Members by definition, with their last use: the lifetime gate's index.
    timeline: Timeline,
    /// Whether two members overlap in time (allowed through if-phi families); the ordered
    /// walk of the lifetime gate is exact only when they do not.
    overlapping_members: bool,
    /// Intervals some member forbids.
    forbidden_by_members: FxHashSet<usize>,
    /// The stages members carry, by pipeline group: the pipeline gate's index.
    stages_by_group: FxHashMap<i64, GroupStages>,
    /// Hazard index: defs of members whose representative reads tpop, lasts of load-derived.
    tpop_reader_defs: FxHashSet<u32>,
    load_lasts: FxHashSet<u32>,
}

impl Buffer {
    fn new(first: &Candidate, pinned: bool, facts: &ShareFacts) -> Buffer {
        // Room for the few members most buffers get, without growing on the way.
        let mut buffer = Buffer {
            members: Vec::with_capacity(8),
            placements: Vec::with_capacity(8),
            subdivided: false,
            size: 0,
            pinned,
            timeline: Timeline::default(),
            overlapping_members: false,
            forbidden_by_members: FxHashSet::default(),
            stages_by_group: FxHashMap::default(),
            tpop_reader_defs: FxHashSet::default(),
            load_lasts: FxHashSet::default(),
        };
        buffer.add(first, facts, Join::Disjoint, 0);
        buffer
    }

    pub fn representative(&self) -> usize {
        self.members[0]
    }

    fn add(&mut self, c: &Candidate, facts: &ShareFacts, join: Join, placement: i64) {
        let i = c.interval;
        self.members.push(i);
        self.placements.push(placement);
        self.size = self.size.max(c.size);
        self.timeline.insert(Member {
            def: c.def,
            last: c.last,
            interval: i,
        });
        self.overlapping_members |= join == Join::Overlapping;
        if c.forbids {
            self.forbidden_by_members
                .extend(facts.forbids[i].iter().copied());
        }
        if c.pipeline {
            record_stages(&mut self.stages_by_group, facts.interval(i));
        }
        if facts.reads_tpop(i) {
            self.tpop_reader_defs.insert(c.def);
        }
        if facts.load_derived(i) {
            self.load_lasts.insert(c.last);
        }
    }

    /// Members whose interval overlaps `[def, last]` (rules §5.6); only the first one found
    /// when `first_only` (without if-phi families, any overlap already decides).
    fn overlapping(&self, def: u32, last: u32, first_only: bool, out: &mut Vec<usize>) {
        out.clear();
        if self.overlapping_members {
            out.extend(
                self.timeline
                    .iter()
                    .filter(|m| overlaps((m.def, m.last), (def, last)))
                    .map(|m| m.interval),
            );
            return;
        }
        // Members are pairwise disjoint, so walking down from the latest member that starts
        // before `last` can stop after the first group of members starting at or before `def`.
        let mut stop_at: Option<u32> = None;
        for m in self.timeline.defined_before(last) {
            if let Some(stop) = stop_at
                && m.def < stop
            {
                break;
            }
            if m.def <= def && stop_at.is_none() {
                stop_at = Some(m.def);
            }
            if overlaps((m.def, m.last), (def, last)) {
                out.push(m.interval);
                if first_only {
                    return;
                }
            }
        }
    }
}

/// What packing reads of a candidate interval, gathered in one pass over the intervals so the
/// first-fit loop, which visits them by size, does not reach back into them.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    interval: usize,
    size: i64,
    def: u32,
    last: u32,
    /// Whether it has forbidden operands.
    forbids: bool,
    /// Whether it carries pipeline stages.
    pipeline: bool,
    /// Whether a member is in an if-phi family, which may let it share with a buffer whose
    /// members' lifetimes overlap its own.
    in_family: bool,
}

impl Candidate {
    fn of(i: usize, facts: &ShareFacts) -> Candidate {
        let iv = facts.interval(i);
        Candidate {
            interval: i,
            size: iv.size,
            def: iv.def,
            last: iv.last,
            forbids: !facts.forbids[i].is_empty(),
            pipeline: !iv.pipeline.is_empty(),
            in_family: facts.lifetimes.has_families()
                && iv
                    .members
                    .iter()
                    .any(|&v| !facts.lifetimes.families(v).is_empty()),
        }
    }
}

/// How a candidate a buffer accepts stands in time to the buffer's members.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Join {
    /// Its lifetime overlaps none of theirs.
    Disjoint,
    /// Its lifetime overlaps a member's (an if-phi family explains it), or it takes a
    /// subrange of an arena, beside members live at the same time.
    Overlapping,
}

/// The buffers packed so far, in creation order, and the buffer of each interval placed.
struct Packing {
    buffers: Vec<Buffer>,
    buffer_of: Vec<Option<usize>>,
}

impl Packing {
    fn new(facts: &ShareFacts) -> Packing {
        Packing {
            buffers: Vec::new(),
            buffer_of: vec![None; facts.lifetimes.intervals.len()],
        }
    }

    /// `can_share(c, every member of buffer index)` with the gates in the order of rules
    /// §6.2; `None` when a gate refuses.
    fn fits(
        &self,
        index: usize,
        c: &Candidate,
        facts: &ShareFacts,
        gate: &PipelineGate,
        scratch: &mut Vec<usize>,
    ) -> Option<Join> {
        let buffer = &self.buffers[index];
        let candidate = c.interval;
        buffer.overlapping(c.def, c.last, !facts.lifetimes.has_families(), scratch);
        for &member in scratch.iter() {
            if !facts.family_explains_overlap(candidate, member) {
                return None;
            }
        }
        if facts.hazard.is_some()
            && ((facts.reads_tpop(candidate) && buffer.load_lasts.contains(&c.def))
                || (facts.load_derived(candidate) && buffer.tpop_reader_defs.contains(&c.last)))
        {
            return None;
        }
        if buffer.forbidden_by_members.contains(&candidate)
            || (c.forbids
                && facts.forbids[candidate]
                    .iter()
                    .any(|&f| self.buffer_of[f] == Some(index)))
        {
            return None;
        }
        if c.pipeline && gate.blocks_any(facts.interval(candidate), &buffer.stages_by_group) {
            return None;
        }
        Some(if scratch.is_empty() {
            Join::Disjoint
        } else {
            Join::Overlapping
        })
    }

    /// Adds `c` to buffer `index`, at `placement` inside it.
    fn join(
        &mut self,
        index: usize,
        c: &Candidate,
        facts: &ShareFacts,
        join: Join,
        placement: i64,
    ) {
        self.buffers[index].add(c, facts, join, placement);
        self.buffer_of[c.interval] = Some(index);
    }

    /// Opens a buffer with `c` alone; returns its index.
    fn open(&mut self, c: &Candidate, pinned: bool, facts: &ShareFacts) -> usize {
        let index = self.buffers.len();
        self.buffer_of[c.interval] = Some(index);
        self.buffers.push(Buffer::new(c, pinned, facts));
        index
    }
}

/// First-fit-decreasing over the given intervals of one space (rules §6.3 step 2).
pub fn pack(intervals: &[usize], facts: &ShareFacts, gate: &PipelineGate) -> Vec<Buffer> {
    pack_subdivided(intervals, facts, gate, &|_| false, 1)
}

/// The capacity-overflow subrange fallback (seed S4): first-fit-decreasing as [`pack`], but a
/// candidate that can join no buffer whole may take the lowest aligned gap of an existing
/// arena that no member it cannot share bytes with occupies. Arenas never grow, pinned arenas
/// stay closed, and only `eligible` intervals are placed into subranges.
pub fn pack_subdivided(
    intervals: &[usize],
    facts: &ShareFacts,
    gate: &PipelineGate,
    eligible: &dyn Fn(usize) -> bool,
    alignment: i64,
) -> Vec<Buffer> {
    let order = first_fit_decreasing_order(intervals, facts);
    let mut packing = Packing::new(facts);
    let mut occupancy = Occupancy::new(order.iter().map(|c| c.last).max().unwrap_or(0));
    let mut scratch = Vec::new();
    // The members of an arena by byte range, for `lowest_gap`.
    let mut ranges = Vec::new();
    for c in &order {
        let candidate = c.interval;
        let pinned = facts.pinned.contains(&candidate);
        let whole = if pinned {
            None
        } else {
            let fit = |index: usize, scratch: &mut Vec<usize>| {
                packing.fits(index, c, facts, gate, scratch)
            };
            first_plausible_fit(&occupancy, c, fit, &mut scratch)
                .map(|(index, join)| (index, join, None))
        };
        let placed = whole.or_else(|| {
            if pinned || !eligible(candidate) {
                return None;
            }
            packing
                .buffers
                .iter()
                .enumerate()
                .find_map(|(index, buffer)| {
                    if buffer.pinned || !eligible(buffer.representative()) {
                        return None;
                    }
                    lowest_gap(buffer, candidate, facts, gate, alignment, &mut ranges)
                        .map(|offset| (index, Join::Overlapping, Some(offset)))
                })
        });
        match placed {
            Some((index, join, subrange)) => {
                packing.join(index, c, facts, join, subrange.unwrap_or(0));
                packing.buffers[index].subdivided |= subrange.is_some();
                occupancy.add_member(index, c.def, c.last);
            }
            None => {
                let index = packing.open(c, pinned, facts);
                occupancy.push_buffer(pinned);
                occupancy.add_member(index, c.def, c.last);
            }
        }
    }
    packing.buffers
}

/// The candidates in the order first-fit-decreasing visits them: larger first, then earlier.
fn first_fit_decreasing_order(intervals: &[usize], facts: &ShareFacts) -> Vec<Candidate> {
    let mut order: Vec<Candidate> = intervals.iter().map(|&i| Candidate::of(i, facts)).collect();
    // The keys are distinct, so the unstable sort gives the one first-fit-decreasing order.
    order.sort_unstable_by_key(|c| (std::cmp::Reverse(c.size), c.def, c.interval));
    order
}

/// The first buffer, in creation order, that `fit` accepts among those the occupancy index
/// leaves plausible for `c`; with the buffer, how `c` joins it.
fn first_plausible_fit(
    occupancy: &Occupancy,
    c: &Candidate,
    mut fit: impl FnMut(usize, &mut Vec<usize>) -> Option<Join>,
    scratch: &mut Vec<usize>,
) -> Option<(usize, Join)> {
    for group in 0..occupancy.group_count() {
        let mut plausible = if c.in_family {
            occupancy.open(group)
        } else {
            occupancy.plausible(group, c.def, c.last)
        };
        while plausible != 0 {
            let index = group * 64 + plausible.trailing_zeros() as usize;
            plausible &= plausible - 1;
            if let Some(join) = fit(index, scratch) {
                return Some((index, join));
            }
        }
    }
    None
}

/// The lowest `alignment`-aligned offset inside `arena` where `candidate` overlaps no byte
/// range of a member it may not share bytes with.
///
/// The members are walked by byte range (`ranges` is scratch space) and the gates asked only
/// of a member that could move the offset (one ending past it, starting before the
/// candidate's end there): most members lie below the offset or past the gap found.
fn lowest_gap(
    arena: &Buffer,
    candidate: usize,
    facts: &ShareFacts,
    gate: &PipelineGate,
    alignment: i64,
    ranges: &mut Vec<(i64, i64, usize)>,
) -> Option<i64> {
    let arena_size = arena.size;
    let size = facts.interval(candidate).size;
    if size > arena_size {
        return None;
    }
    ranges.clear();
    ranges.extend(
        arena
            .members
            .iter()
            .zip(&arena.placements)
            .map(|(&m, &at)| (at, at + facts.interval(m).size, m)),
    );
    ranges.sort_unstable();
    let align = |x: i64| (x + alignment - 1) / alignment * alignment;
    let mut offset = 0;
    for &(start, end, member) in ranges.iter() {
        if offset + size <= start {
            break;
        }
        if align(end) > offset && pair_blocker(facts, gate, candidate, member).is_some() {
            offset = align(end);
        }
    }
    (offset + size <= arena_size).then_some(offset)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn interval(pipeline: Vec<(i64, i64)>, pipeline_load: bool, space: MemSpace) -> Interval {
        Interval {
            rep: VarId(0),
            base: Name::from("b"),
            space,
            size: 1024,
            def: 0,
            last: 1,
            members: Default::default(),
            pipeline,
            pipeline_load,
        }
    }

    fn memberships() -> impl Strategy<Value = (Vec<(i64, i64)>, bool)> {
        (
            proptest::collection::vec((0i64..3, 0i64..4), 0..3),
            any::<bool>(),
        )
    }

    /// First fit by trying every buffer in creation order: what the occupancy index must
    /// reproduce while trying fewer.
    fn pack_by_scanning(
        intervals: &[usize],
        facts: &ShareFacts,
        gate: &PipelineGate,
    ) -> Vec<Vec<usize>> {
        let order = first_fit_decreasing_order(intervals, facts);
        let mut packing = Packing::new(facts);
        let mut scratch = Vec::new();
        for c in &order {
            let pinned = facts.pinned.contains(&c.interval);
            let fit = (0..packing.buffers.len()).find_map(|index| {
                if pinned || packing.buffers[index].pinned {
                    return None;
                }
                packing
                    .fits(index, c, facts, gate, &mut scratch)
                    .map(|join| (index, join))
            });
            match fit {
                Some((index, join)) => packing.join(index, c, facts, join, 0),
                None => {
                    packing.open(c, pinned, facts);
                }
            }
        }
        packing.buffers.into_iter().map(|b| b.members).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Packing through the occupancy index gives exactly the buffers that trying every
        /// buffer gives, with and without control flow (if-phi families), and under 910B rules
        /// (the hazard, a known capacity for the pipeline-stage gate).
        #[test]
        fn indexed_first_fit_is_first_fit(
            seed in any::<u64>(),
            tiles in 20usize..400,
            max_live in prop_oneof![Just(None), (1usize..12).prop_map(Some)],
            control_flow in any::<bool>(),
            backend in prop_oneof![
                Just(memreuse_ir::backend::Backend::None),
                Just(memreuse_ir::backend::Backend::Ascend910B),
            ],
        ) {
            let cfg = memreuse_testgen::synth::SynthConfig {
                functions: 2,
                tiles_per_function: tiles,
                max_live,
                seed,
                control_flow,
            };
            let program = memreuse_ir::parse_program(&memreuse_testgen::synth::program_text("P", &cfg))
                .expect("generated programs parse");
            let config = crate::PlanConfig { backend, ..Default::default() };
            for f in &program.functions {
                let lifetimes = crate::analysis::lifetimes::analyze(f);
                let Ok(rules) = crate::SharingRules::of(f, &lifetimes, &config) else {
                    continue;
                };
                let facts = rules.facts(&lifetimes);
                for (space, in_space) in crate::spaces_of(&lifetimes) {
                    let ivs: Vec<&Interval> =
                        in_space.iter().map(|&i| &lifetimes.intervals[i]).collect();
                    let gate = PipelineGate::new(space, &ivs, config.capacity(space));
                    let indexed: Vec<Vec<usize>> =
                        pack(&in_space, &facts, &gate).into_iter().map(|b| b.members).collect();
                    prop_assert_eq!(indexed, pack_by_scanning(&in_space, &facts, &gate));
                }
            }
        }

        /// The buffer index answers exactly "does the candidate's stage gate block some member".
        #[test]
        fn blocks_any_matches_blocks_per_member(
            candidate in memberships(),
            members in proptest::collection::vec(memberships(), 0..6),
            l0 in any::<bool>(),
            capacity in proptest::option::of(1024i64..8192),
            forced_legacy in any::<bool>(),
            depths in proptest::collection::vec(1usize..5, 3),
        ) {
            let space = if l0 { MemSpace::Right } else { MemSpace::Vec };
            let candidate = interval(candidate.0, candidate.1, space);
            let members: Vec<Interval> =
                members.into_iter().map(|(p, l)| interval(p, l, space)).collect();
            let all: Vec<&Interval> = members.iter().chain([&candidate]).collect();
            let mut gate = PipelineGate::new(space, &all, capacity);
            gate.forced_legacy = forced_legacy;
            for (id, group) in gate.groups.iter_mut() {
                group.depth = depths[*id as usize].min(group.stages.len()).max(1);
            }
            let mut index = FxHashMap::default();
            for m in &members {
                record_stages(&mut index, m);
            }
            let expected = !candidate.pipeline.is_empty()
                && members.iter().any(|m| gate.blocks(&candidate, m));
            let actual = !candidate.pipeline.is_empty() && gate.blocks_any(&candidate, &index);
            prop_assert_eq!(actual, expected);
        }
    }
}
