//! Exact anytime search in the style of MiniMalloc (Moffitt, ASPLOS'23).
//!
//! A feasibility search at a fixed capacity builds canonical layouts: buffers are placed in
//! non-decreasing offset order, each at its lowest offset above the placed buffers it conflicts
//! with, so every buffer sits at 0 or on top of a conflicting buffer. Branching picks the next
//! buffer among the unplaced ones ordered by that offset. Pruning:
//! - symmetry: at equal offsets, buffers go in preorder rank order;
//! - dominance: a buffer whose placement would leave room under it for a whole other unplaced
//!   buffer is skipped (that buffer could go first);
//! - "hatless" buffers: when a buffer that no unplaced buffer conflicts with fails, its
//!   siblings fail too (see [`Search::descend`]);
//! - sections: in every elementary time interval, the unplaced buffers live there, stacked
//!   above the current offset, the section's highest placed buffer and their own lowest
//!   offsets, must fit under the capacity. Only the sections a placement changes are checked;
//! - decomposition: once no unplaced buffer crosses a section boundary, the two sides are
//!   solved one after the other, each re-ranked by the section totals left (as MiniMalloc
//!   re-sorts every sub-problem; with the first ranks kept, E, H and I were out of reach).
//!
//! [`improve`] restarts such searches under small node limits with several preorders and
//! targets (the lower bound, and probes between it and the incumbent), keeping the best plan
//! found; exhausting an attempt proves its target out of reach and raises the bound.

use std::time::{Duration, Instant};

use super::bound::lower_bound_units;
use super::instance::Instance;

/// Buffers above which the search is not attempted (recursion depth, per-node sorting).
const MAX_SEARCH_BUFFERS: usize = 4096;
/// Conflict-list entries above which the search is not attempted (memory, per-node work).
const MAX_CONFLICT_ENTRIES: usize = 4_000_000;
/// How often (in nodes) the wall clock is read.
const CLOCK_INTERVAL: u64 = 128;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SearchStats {
    pub nodes: u64,
    /// The time or node budget ran out before the search finished.
    pub stopped_early: bool,
}

pub(crate) struct SearchOutcome {
    /// Unit offsets of a plan with a lower peak than the incumbent, if one was found.
    pub unit_offsets: Option<Vec<u64>>,
    pub stats: SearchStats,
}

/// Static preorders tried in turn (MiniMalloc's "WAT", "TAW", "TWA"): by lifetime width, area
/// and the largest section total over the lifetime, each descending.
#[derive(Clone, Copy)]
enum Preorder {
    WidthAreaTotal,
    TotalAreaWidth,
    TotalWidthArea,
}

/// The order the perturbed and probing attempts cycle through.
const PREORDERS: [Preorder; 3] = [
    Preorder::WidthAreaTotal,
    Preorder::TotalAreaWidth,
    Preorder::TotalWidthArea,
];

/// The order the round robin cycles through: "TWA" first, as it is the quickest on six of
/// the nine MiniMalloc instances whose bound is reachable (the probes, though, take D and J
/// below 2^20 far sooner starting from "WAT"; see BENCHMARKS.md).
const ROUND_ROBIN_PREORDERS: [Preorder; 3] = [
    Preorder::TotalWidthArea,
    Preorder::TotalAreaWidth,
    Preorder::WidthAreaTotal,
];

/// Node limit of the shortest attempts, per buffer.
const ATTEMPT_UNIT_PER_BUFFER: u64 = 4;
/// Relative noise (per mille) on the keys of the perturbed preorders.
const PREORDER_NOISE: u64 = 200;

/// The kinds of attempts [`improve`] interleaves, by nodes spent (see [`NODE_COST`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stream {
    /// MiniMalloc's round robin at the lower bound: its three preorders under doubling limits
    /// (from two units: they often need a few thousand nodes). With independent parts
    /// re-ranked, this alone reaches the bound of every MiniMalloc instance where it is known
    /// to be reachable, within about 10^5 nodes.
    RoundRobin,
    /// Randomly perturbed copies of those preorders at the lower bound, with Luby limits.
    Perturbed,
    /// Targets between the bound and the incumbent, so that instances whose bound is out of
    /// reach still improve in large steps.
    Probe,
}

/// How much each node of a stream counts when choosing the stream to run next: the round
/// robin gets three fifths of the nodes, the perturbed and probing streams a fifth each (the
/// probes need only a few ten thousand nodes to take D and J below 2^20).
const NODE_COST: [u64; 3] = [1, 3, 3];

/// Searches for plans below `incumbent`'s peak within `budget`.
///
/// Depth-first search at a fixed capacity is heavy-tailed: an early mistake is explored
/// exhaustively, and which preorder avoids it differs from instance to instance. So the
/// attempts are restarts from three streams ([`Stream`]) that take turns by nodes spent; the
/// perturbed preorders are seeded by the attempt number, so a run is deterministic. An
/// attempt that exhausts its space proves that no plan fits its target and raises the bound.
pub(crate) fn improve(instance: &Instance, incumbent: &[u64], budget: &Budget) -> SearchOutcome {
    let mut stats = SearchStats::default();
    let peak_of = |offsets: &[u64]| {
        offsets
            .iter()
            .zip(&instance.units)
            .map(|(o, u)| o + u)
            .max()
            .unwrap_or(0)
    };
    let mut best_peak = peak_of(incumbent);
    let mut lower = lower_bound_units(instance);
    let mut improved: Option<Vec<u64>> = None;
    let Some(space) = SearchSpace::new(instance) else {
        return SearchOutcome {
            unit_offsets: None,
            stats,
        };
    };
    let loads = instance.section_loads();
    let lifetime_loads = instance.max_load_over_lifetimes(&loads);
    let unit = ATTEMPT_UNIT_PER_BUFFER * instance.len() as u64;
    let streams = [Stream::RoundRobin, Stream::Perturbed, Stream::Probe];
    let mut spent = [0u64; 3];
    let mut attempts = [0u64; 3];
    while best_peak > lower {
        let index = (0..3)
            .min_by_key(|&i| (spent[i].saturating_mul(NODE_COST[i]), i))
            .unwrap_or(0);
        let attempt = attempts[index];
        attempts[index] += 1;
        let (preorder, seed, target, limit) = match streams[index] {
            Stream::RoundRobin => (
                ROUND_ROBIN_PREORDERS[(attempt % 3) as usize],
                None,
                lower,
                unit.saturating_mul(2 << (attempt / 3).min(40)),
            ),
            Stream::Perturbed => (
                PREORDERS[(attempt % 3) as usize],
                Some(attempt),
                lower,
                unit.saturating_mul(luby(attempt + 1)),
            ),
            Stream::Probe => {
                // Half, three quarters, seven eighths and all of the way from the bound to
                // just below the incumbent.
                let eighths = [4, 6, 7, 8][(attempt % 4) as usize];
                let gap = best_peak - 1 - lower;
                let target = lower + gap / 8 * eighths + gap % 8 * eighths / 8;
                let round = attempt / 4;
                (
                    PREORDERS[(round % 3) as usize],
                    (round >= 3).then_some(u64::MAX - round),
                    target,
                    unit.saturating_mul(luby(round + 1)),
                )
            }
        };
        let ranking = Ranking::new(instance, preorder, seed);
        let mut search = Search::new(&space, &ranking, &lifetime_loads, target);
        let before = stats.nodes;
        let verdict = search.run(limit, &mut stats, budget);
        spent[index] += stats.nodes - before;
        match verdict {
            Verdict::Found => {
                best_peak = peak_of(&search.offsets);
                improved = Some(search.offsets);
            }
            Verdict::Infeasible => lower = target + 1,
            Verdict::AttemptLimit => {}
            Verdict::OutOfBudget => {
                stats.stopped_early = true;
                break;
            }
        }
    }
    SearchOutcome {
        unit_offsets: improved,
        stats,
    }
}

/// The `index`-th term (from 1) of the Luby sequence 1 1 2 1 1 2 4 1 1 2 1 1 2 4 8 ...
fn luby(index: u64) -> u64 {
    let mut index = index.max(1);
    loop {
        let mut k = 1;
        while k < 63 && (1u64 << k) - 1 < index {
            k += 1;
        }
        if (1u64 << k) - 1 <= index {
            return 1 << (k - 1);
        }
        index -= (1 << (k - 1)) - 1;
    }
}

/// For each buffer, every other buffer it must not share bytes with (zero-size ones excluded);
/// `None` when the lists would be too large to search over.
fn conflict_lists(instance: &Instance) -> Option<Vec<Vec<u32>>> {
    let mut lists = vec![Vec::new(); instance.len()];
    let mut entries = 0;
    for (buffer, list) in lists.iter_mut().enumerate() {
        if instance.units[buffer] == 0 {
            continue;
        }
        instance.for_each_lifetime_neighbor(buffer, |other| {
            if instance.units[other] > 0 {
                list.push(other as u32);
            }
        });
        list.extend(
            instance.extra_neighbors[buffer]
                .iter()
                .filter(|&&other| instance.units[other as usize] > 0),
        );
        list.sort_unstable();
        list.dedup();
        entries += list.len();
        if entries > MAX_CONFLICT_ENTRIES {
            return None;
        }
    }
    Some(lists)
}

/// How one attempt ranks buffers: a preorder and, for the perturbed attempts, each buffer's
/// random factors (per mille) for its three keys.
struct Ranking {
    preorder: Preorder,
    noise: Option<Vec<[u64; 3]>>,
}

impl Ranking {
    /// With a `seed`, every key is scaled by its own random factor within [`PREORDER_NOISE`]
    /// per mille of one.
    fn new(instance: &Instance, preorder: Preorder, seed: Option<u64>) -> Ranking {
        let noise = seed.map(|seed| {
            let mut random = SplitMix64(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let mut factor = || 1000 - PREORDER_NOISE / 2 + random.below(PREORDER_NOISE + 1);
            (0..instance.len())
                .map(|_| [factor(), factor(), factor()])
                .collect()
        });
        Ranking { preorder, noise }
    }

    /// The sort key of `buffer` (larger first) when `total` is the largest section total over
    /// its lifetime.
    fn key(&self, instance: &Instance, buffer: usize, total: u64) -> (u128, u128, u128) {
        let width = u128::from(instance.lengths[buffer]);
        let area = u128::from(instance.units[buffer]) * width;
        let total = u128::from(total);
        let keys = match self.preorder {
            Preorder::WidthAreaTotal => [width, area, total],
            Preorder::TotalAreaWidth => [total, area, width],
            Preorder::TotalWidthArea => [total, width, area],
        };
        let scaled = |position: usize| match &self.noise {
            Some(noise) => keys[position].saturating_mul(u128::from(noise[buffer][position])),
            None => keys[position],
        };
        (scaled(0), scaled(1), scaled(2))
    }

    /// The rank of each buffer (0 = first) given the largest section total over its lifetime.
    fn ranks(&self, instance: &Instance, lifetime_loads: &[u64]) -> Vec<u32> {
        let mut order: Vec<usize> = (0..instance.len()).collect();
        order.sort_by_cached_key(|&b| {
            (
                std::cmp::Reverse(self.key(instance, b, lifetime_loads[b])),
                b,
            )
        });
        let mut rank = vec![0; instance.len()];
        for (position, &buffer) in order.iter().enumerate() {
            rank[buffer] = position as u32;
        }
        rank
    }
}

/// A small deterministic generator (SplitMix64) for the perturbed preorders.
struct SplitMix64(u64);

impl SplitMix64 {
    /// A value in `0..bound` (`bound` > 0; the slight modulo bias does not matter here).
    fn below(&mut self, bound: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % bound
    }
}

#[derive(Debug)]
enum Verdict {
    /// Every buffer of the (sub)problem is placed; the offsets stay in the search state.
    Found,
    /// The whole search space was explored: no plan fits the capacity.
    Infeasible,
    /// This attempt's node limit ran out.
    AttemptLimit,
    /// The solve's time or node budget ran out.
    OutOfBudget,
}

const UNPLACED: u64 = u64::MAX;

/// A buffer that may be placed next: `(lowest offset, rank, buffer)`.
type Candidate = (u64, u32, u32);

/// What [`Search::place`] found out.
struct Placed {
    /// No unplaced buffer conflicts with the placed one.
    hatless: bool,
    /// The sections whose floor changed still fit under the capacity.
    fits: bool,
}

/// Undo records for backtracking.
enum Change {
    MinOffset { buffer: u32, previous: u64 },
    Floor { section: u32, previous: u64 },
}

/// Static data shared by every attempt.
pub(crate) struct SearchSpace<'a> {
    instance: &'a Instance,
    conflicts: Vec<Vec<u32>>,
    /// The buffers live in each section, as `members[member_starts[s]..member_starts[s + 1]]`.
    member_starts: Vec<u32>,
    members: Vec<u32>,
    /// Where each buffer's membership of its first section is numbered; its membership of
    /// section `s` is entry `entry_base[b] + s - first_section[b]`.
    entry_base: Vec<u32>,
    /// Whether independent time ranges may be solved separately: extra disjoint pairs can tie
    /// buffers across a time cut, so only without them.
    decompose: bool,
}

impl<'a> SearchSpace<'a> {
    /// `None` when the problem is too large to search.
    fn new(instance: &'a Instance) -> Option<Self> {
        if instance.len() > MAX_SEARCH_BUFFERS {
            return None;
        }
        let conflicts = conflict_lists(instance)?;
        let mut counts = vec![0u32; instance.section_count + 1];
        for b in (0..instance.len()).filter(|&b| instance.units[b] > 0) {
            for section in instance.first_section[b]..instance.end_section[b] {
                counts[section as usize + 1] += 1;
            }
        }
        for section in 0..instance.section_count {
            counts[section + 1] += counts[section];
        }
        let member_starts = counts;
        let mut fill = member_starts.clone();
        let mut members = vec![0u32; member_starts[instance.section_count] as usize];
        for b in (0..instance.len()).filter(|&b| instance.units[b] > 0) {
            for section in instance.first_section[b]..instance.end_section[b] {
                members[fill[section as usize] as usize] = b as u32;
                fill[section as usize] += 1;
            }
        }
        let decompose = instance.extra_neighbors.iter().all(Vec::is_empty);
        let mut entry_base = Vec::with_capacity(instance.len());
        let mut entries = 0u32;
        for b in 0..instance.len() {
            entry_base.push(entries);
            if instance.units[b] > 0 {
                entries += instance.end_section[b] - instance.first_section[b];
            }
        }
        Some(SearchSpace {
            instance,
            conflicts,
            member_starts,
            members,
            entry_base,
            decompose,
        })
    }

    fn entry(&self, buffer: usize, section: u32) -> usize {
        (self.entry_base[buffer] + section - self.instance.first_section[buffer]) as usize
    }
}

/// One feasibility search at a fixed capacity.
struct Search<'a> {
    space: &'a SearchSpace<'a>,
    instance: &'a Instance,
    ranking: &'a Ranking,
    /// Each buffer's position in the preorder; an independent part is re-ranked from the
    /// section totals left when it splits off, as a fresh problem would be.
    rank: Vec<u32>,
    capacity: u64,
    offsets: Vec<u64>,
    /// Lowest offset each unplaced buffer can take: the highest top of its placed conflicts.
    min_offsets: Vec<u64>,
    /// Per section: the top of the highest buffer placed there (placements go up, so no
    /// unplaced buffer live there can go lower).
    floors: Vec<u64>,
    /// Per section: the total size of the unplaced buffers live there.
    unplaced_totals: Vec<u64>,
    /// Per section, its slice of `members` with the unplaced buffers first: a sparse set whose
    /// removals are undone in reverse order by growing `unplaced_members` back.
    members: Vec<u32>,
    unplaced_members: Vec<u32>,
    /// Per membership entry (see [`SearchSpace::entry`]): its position in `members`.
    member_positions: Vec<u32>,
    /// Per boundary between sections `j` and `j + 1`: unplaced buffers live on both sides.
    /// When it drops to zero, the two sides are independent subproblems.
    cuts: Vec<u32>,
    /// Placed buffers in placement order, with the trail length before each placement.
    placements: Vec<(u32, usize)>,
    trail: Vec<Change>,
    /// Per depth, scratch space for the candidate ordering.
    orderings: Vec<Vec<Candidate>>,
    /// Scratch for [`Search::order_candidates`].
    kept: Vec<Candidate>,
    raised: Vec<Candidate>,
    /// Per depth, scratch space for [`Search::fill_offset_limits`].
    offset_limits: Vec<Vec<u64>>,
    nodes: u64,
    node_limit: u64,
    /// The budget's deadline for this attempt, checked every [`CLOCK_INTERVAL`] nodes.
    deadline: Option<Instant>,
}

impl<'a> Search<'a> {
    fn new(
        space: &'a SearchSpace<'a>,
        ranking: &'a Ranking,
        lifetime_loads: &[u64],
        capacity: u64,
    ) -> Self {
        let instance = space.instance;
        let rank = ranking.ranks(instance, lifetime_loads);
        let offsets = instance
            .units
            .iter()
            .map(|&units| if units == 0 { 0 } else { UNPLACED })
            .collect();
        let mut cuts = vec![0u32; instance.section_count.saturating_sub(1)];
        for b in (0..instance.len()).filter(|&b| instance.units[b] > 0) {
            for boundary in instance.first_section[b]..instance.end_section[b] - 1 {
                cuts[boundary as usize] += 1;
            }
        }
        let mut member_positions = vec![0u32; space.members.len()];
        for section in 0..instance.section_count {
            let start = space.member_starts[section] as usize;
            let end = space.member_starts[section + 1] as usize;
            for position in start..end {
                let b = space.members[position] as usize;
                member_positions[space.entry(b, section as u32)] = position as u32;
            }
        }
        let unplaced_members = (0..instance.section_count)
            .map(|s| space.member_starts[s + 1] - space.member_starts[s])
            .collect();
        Search {
            space,
            instance,
            ranking,
            rank,
            capacity,
            offsets,
            members: space.members.clone(),
            unplaced_members,
            member_positions,
            min_offsets: vec![0; instance.len()],
            floors: vec![0; instance.section_count],
            unplaced_totals: instance.section_loads(),
            cuts,
            placements: Vec::new(),
            trail: Vec::new(),
            orderings: Vec::new(),
            kept: Vec::new(),
            raised: Vec::new(),
            offset_limits: Vec::new(),
            nodes: 0,
            node_limit: 0,
            deadline: None,
        }
    }

    /// Runs one attempt; on success the plan is in `self.offsets`.
    fn run(&mut self, attempt_limit: u64, stats: &mut SearchStats, budget: &Budget) -> Verdict {
        let budget_left = budget.node_limit.saturating_sub(stats.nodes);
        let limited_by_budget = budget_left <= attempt_limit;
        self.node_limit = attempt_limit.min(budget_left);
        self.deadline = budget.deadline;
        let mut buffers: Vec<u32> = (0..self.instance.len() as u32)
            .filter(|&b| self.instance.units[b as usize] > 0)
            .collect();
        buffers.sort_by_key(|&b| self.rank[b as usize]);
        let sections = (0, self.instance.section_count as u32);
        // Time ranges that no buffer crosses are independent from the start.
        let mut initial_cuts: Vec<u32> = (0..self.cuts.len() as u32)
            .filter(|&boundary| self.cuts[boundary as usize] == 0 && self.space.decompose)
            .map(|boundary| boundary + 1)
            .collect();
        let verdict = self.solve_split(&buffers, sections, &mut initial_cuts, 0);
        stats.nodes += self.nodes;
        match verdict {
            Verdict::AttemptLimit if limited_by_budget => Verdict::OutOfBudget,
            other => other,
        }
    }

    /// Solves the unplaced `buffers` (sorted by rank) living within `sections` from scratch.
    fn solve_partition(
        &mut self,
        buffers: &mut Vec<u32>,
        sections: (u32, u32),
        depth: usize,
    ) -> Verdict {
        if self.sections_fit(sections) {
            self.descend(buffers, sections, depth, (0, 0), None)
        } else {
            Verdict::Infeasible
        }
    }

    /// Places the next buffer of the partition; `last` is the previous `(offset, rank)` and
    /// `parent` the candidate ordering of the node that placed it, if in the same partition.
    fn descend(
        &mut self,
        buffers: &mut Vec<u32>,
        sections: (u32, u32),
        depth: usize,
        last: (u64, u32),
        parent: Option<&[Candidate]>,
    ) -> Verdict {
        if self.nodes >= self.node_limit {
            return Verdict::AttemptLimit;
        }
        self.nodes += 1;
        if self.nodes.is_multiple_of(CLOCK_INTERVAL) && expired(self.deadline) {
            return Verdict::OutOfBudget;
        }
        if buffers.is_empty() {
            return Verdict::Found;
        }
        if self.orderings.len() <= depth {
            self.orderings.push(Vec::new());
        }
        let mut ordering = std::mem::take(&mut self.orderings[depth]);
        self.order_candidates(buffers, parent, &mut ordering);
        // Every unplaced buffer can still go at its lowest offset; placing anything at or above
        // the lowest such top would leave that buffer's slot empty under it.
        let min_height = ordering
            .iter()
            .map(|&(offset, _, b)| offset + self.instance.units[b as usize])
            .min()
            .unwrap_or(u64::MAX);
        if self.offset_limits.len() <= depth {
            self.offset_limits.push(Vec::new());
        }
        let mut limits = std::mem::take(&mut self.offset_limits[depth]);
        self.fill_offset_limits(sections, &mut limits);
        let span = (sections.1 - sections.0) as usize;
        let mut verdict = Verdict::Infeasible;
        let mut new_cuts = Vec::new();
        for &(offset, rank, buffer) in &ordering {
            if offset >= min_height {
                break;
            }
            if (offset, rank) < last {
                continue;
            }
            let b = buffer as usize;
            // Placing `b` leaves every other section's unplaced total above `offset` (and its
            // own sections' totals above `offset` too, `b` included), so the section check
            // can be decided here without placing.
            let first = (self.instance.first_section[b] - sections.0) as usize;
            let end = (self.instance.end_section[b] - sections.0) as usize;
            let limit = limits[first].min(limits[span + 1 + end]);
            if offset + self.instance.units[b] > self.capacity || offset > limit {
                if self.is_hatless(b) {
                    break;
                }
                continue;
            }
            let placements = self.placements.len();
            let position = buffers.partition_point(|&other| self.rank[other as usize] < rank);
            buffers.remove(position);
            new_cuts.clear();
            let Placed { hatless, fits } = self.place(b, offset, &mut new_cuts);
            let outcome = if !fits {
                Verdict::Infeasible
            } else if new_cuts.is_empty() {
                self.descend(
                    buffers,
                    sections,
                    depth + 1,
                    (offset, rank),
                    Some(&ordering),
                )
            } else {
                self.solve_split(buffers, sections, &mut new_cuts, depth + 1)
            };
            if matches!(outcome, Verdict::Found) {
                verdict = outcome;
                break;
            }
            self.undo_to(placements);
            buffers.insert(position, buffer);
            if !matches!(outcome, Verdict::Infeasible) {
                verdict = outcome;
                break;
            }
            // Nothing unplaced conflicts with this buffer, so its lowest offset can never rise:
            // once a sibling goes first, the monotonic order can never place it, and whatever
            // the sibling's subtree could complete, the subtree just refuted could too.
            if hatless {
                break;
            }
        }
        self.orderings[depth] = ordering;
        self.offset_limits[depth] = limits;
        verdict
    }

    /// Fills `ordering` with the unplaced `buffers` by `(lowest offset, rank)`. From the
    /// parent's ordering only the entries whose lowest offset rose need sorting (a few
    /// neighbours of the buffer just placed); the rest keep their order, and a merge joins them.
    fn order_candidates(
        &mut self,
        buffers: &[u32],
        parent: Option<&[Candidate]>,
        ordering: &mut Vec<Candidate>,
    ) {
        ordering.clear();
        let Some(parent) = parent else {
            ordering.extend(
                buffers
                    .iter()
                    .map(|&b| (self.min_offsets[b as usize], self.rank[b as usize], b)),
            );
            ordering.sort_unstable();
            return;
        };
        let mut kept = std::mem::take(&mut self.kept);
        let mut raised = std::mem::take(&mut self.raised);
        kept.clear();
        raised.clear();
        for &(offset, rank, b) in parent {
            let b_index = b as usize;
            if self.offsets[b_index] != UNPLACED {
                continue;
            }
            let current = self.min_offsets[b_index];
            if current == offset {
                kept.push((offset, rank, b));
            } else {
                raised.push((current, rank, b));
            }
        }
        raised.sort_unstable();
        let (mut i, mut j) = (0, 0);
        while i < kept.len() && j < raised.len() {
            if kept[i] < raised[j] {
                ordering.push(kept[i]);
                i += 1;
            } else {
                ordering.push(raised[j]);
                j += 1;
            }
        }
        ordering.extend_from_slice(&kept[i..]);
        ordering.extend_from_slice(&raised[j..]);
        self.kept = kept;
        self.raised = raised;
    }

    /// Fills `limits` with, for the sections of the range, the highest offset at which the
    /// next placement leaves room for each section's unplaced total: `limits[i]` is the
    /// minimum over the first `i` sections and `limits[span + 1 + i]` over sections `i..`.
    fn fill_offset_limits(&self, sections: (u32, u32), limits: &mut Vec<u64>) {
        let range = sections.0 as usize..sections.1 as usize;
        let span = range.len();
        limits.clear();
        limits.resize(2 * (span + 1), u64::MAX);
        let room = |total: u64| {
            if total == 0 {
                u64::MAX
            } else {
                self.capacity.saturating_sub(total)
            }
        };
        for (i, &total) in self.unplaced_totals[range.clone()].iter().enumerate() {
            limits[i + 1] = limits[i].min(room(total));
        }
        for (i, &total) in self.unplaced_totals[range].iter().enumerate().rev() {
            limits[span + 1 + i] = limits[span + 2 + i].min(room(total));
        }
    }

    /// Whether no unplaced buffer conflicts with `buffer`.
    fn is_hatless(&self, buffer: usize) -> bool {
        self.space.conflicts[buffer]
            .iter()
            .all(|&other| self.offsets[other as usize] != UNPLACED)
    }

    /// Solves the independent time ranges between `cut_sections` one after the other.
    fn solve_split(
        &mut self,
        buffers: &[u32],
        sections: (u32, u32),
        cut_sections: &mut [u32],
        depth: usize,
    ) -> Verdict {
        cut_sections.sort_unstable();
        let placements = self.placements.len();
        let bounds = std::iter::once(sections.0)
            .chain(cut_sections.iter().copied())
            .chain(std::iter::once(sections.1));
        let mut start = sections.0;
        for end in bounds.skip(1) {
            let range = (start, end);
            start = end;
            let mut part: Vec<u32> = buffers
                .iter()
                .copied()
                .filter(|&b| {
                    range.0 <= self.instance.first_section[b as usize]
                        && self.instance.end_section[b as usize] <= range.1
                })
                .collect();
            if part.is_empty() {
                continue;
            }
            let previous_ranks = self.rerank(&mut part);
            let verdict = self.solve_partition(&mut part, range, depth);
            for (b, rank) in previous_ranks {
                self.rank[b as usize] = rank;
            }
            if !matches!(verdict, Verdict::Found) {
                self.undo_to(placements);
                return verdict;
            }
        }
        Verdict::Found
    }

    /// Ranks the buffers of an independent part among themselves by the section totals left
    /// now (reusing their rank values, so other parts keep theirs) and sorts `part` by the new
    /// ranks; returns the previous ranks.
    fn rerank(&mut self, part: &mut [u32]) -> Vec<(u32, u32)> {
        let previous: Vec<(u32, u32)> = part.iter().map(|&b| (b, self.rank[b as usize])).collect();
        let mut keyed: Vec<((u128, u128, u128), u32)> = part
            .iter()
            .map(|&b| {
                let b_index = b as usize;
                let sections = self.instance.first_section[b_index] as usize
                    ..self.instance.end_section[b_index] as usize;
                let total = self.unplaced_totals[sections]
                    .iter()
                    .copied()
                    .max()
                    .unwrap_or(0);
                (self.ranking.key(self.instance, b_index, total), b)
            })
            .collect();
        keyed.sort_unstable_by_key(|&(key, b)| (std::cmp::Reverse(key), b));
        // `part` is sorted by rank, so its rank values come in ascending order.
        for (&(_, b), &(_, rank)) in keyed.iter().zip(&previous) {
            self.rank[b as usize] = rank;
        }
        part.sort_unstable_by_key(|&b| self.rank[b as usize]);
        previous
    }

    /// Places `buffer` at `offset` and propagates; section boundaries that no unplaced
    /// buffer crosses any more are added to `new_cuts` (as the first section after them).
    ///
    /// The section check is made here for the sections whose floor changed: `buffer`'s own
    /// and those raised by propagation. The caller answers for the others, whose only change
    /// is that no placement can go below `offset` any more.
    fn place(&mut self, buffer: usize, offset: u64, new_cuts: &mut Vec<u32>) -> Placed {
        self.placements.push((buffer as u32, self.trail.len()));
        let mut fits = true;
        let units = self.instance.units[buffer];
        let top = offset + units;
        self.offsets[buffer] = offset;
        let (first, end) = (
            self.instance.first_section[buffer],
            self.instance.end_section[buffer],
        );
        for section in first..end {
            let s = section as usize;
            self.trail.push(Change::Floor {
                section,
                previous: self.floors[s],
            });
            self.floors[s] = top;
            self.unplaced_totals[s] -= units;
            let total = self.unplaced_totals[s];
            fits &= total == 0 || top + total <= self.capacity;
            // Swap `buffer` behind the section's unplaced members.
            let start = self.space.member_starts[s];
            self.unplaced_members[s] -= 1;
            let last = start + self.unplaced_members[s];
            let entry = self.space.entry(buffer, section);
            let position = self.member_positions[entry];
            let moved = self.members[last as usize] as usize;
            let moved_entry = self.space.entry(moved, section);
            self.members.swap(position as usize, last as usize);
            self.member_positions[moved_entry] = position;
            self.member_positions[entry] = last;
        }
        for boundary in first..end - 1 {
            self.cuts[boundary as usize] -= 1;
            if self.cuts[boundary as usize] == 0 && self.space.decompose {
                new_cuts.push(boundary + 1);
            }
        }
        if !fits {
            // The placement is refuted: propagating it would be undone unused.
            return Placed {
                hatless: self.is_hatless(buffer),
                fits,
            };
        }
        let mut hatless = true;
        // The sections of the buffers whose lowest offset rose. Lifetime neighbours all meet
        // `buffer`'s lifetime, so their sections form one range: scanning it whole costs far
        // less than marking each neighbour's sections.
        let (mut affected_first, mut affected_end) = (u32::MAX, 0);
        for &other in &self.space.conflicts[buffer] {
            let o = other as usize;
            hatless &= self.offsets[o] != UNPLACED;
            if self.offsets[o] == UNPLACED && self.min_offsets[o] < top {
                self.trail.push(Change::MinOffset {
                    buffer: other,
                    previous: self.min_offsets[o],
                });
                self.min_offsets[o] = top;
                affected_first = affected_first.min(self.instance.first_section[o]);
                affected_end = affected_end.max(self.instance.end_section[o]);
            }
        }
        // Every unplaced buffer goes at or above its lowest offset, so a section where each of
        // them starts too high for the section's unplaced total to fit cannot be completed.
        // (Sections elsewhere only saw `offset` rise, which the caller checked.) Most scans stop
        // at the first buffer that still fits.
        for section in affected_first..affected_end {
            let s = section as usize;
            let total = self.unplaced_totals[s];
            if total == 0 {
                continue;
            }
            let room = self.capacity.saturating_sub(total);
            let start = self.space.member_starts[s] as usize;
            let unplaced = &self.members[start..start + self.unplaced_members[s] as usize];
            if unplaced
                .iter()
                .all(|&b| self.min_offsets[b as usize] > room)
            {
                fits = false;
                break;
            }
        }
        Placed { hatless, fits }
    }

    /// Takes back every placement after the first `placements`.
    fn undo_to(&mut self, placements: usize) {
        while self.placements.len() > placements {
            let Some((buffer, trail_mark)) = self.placements.pop() else {
                break;
            };
            while self.trail.len() > trail_mark {
                match self.trail.pop() {
                    Some(Change::MinOffset { buffer, previous }) => {
                        self.min_offsets[buffer as usize] = previous
                    }
                    Some(Change::Floor { section, previous }) => {
                        self.floors[section as usize] = previous
                    }
                    None => break,
                }
            }
            let b = buffer as usize;
            let units = self.instance.units[b];
            let (first, end) = (self.instance.first_section[b], self.instance.end_section[b]);
            for section in first..end {
                self.unplaced_totals[section as usize] += units;
                self.unplaced_members[section as usize] += 1;
            }
            for boundary in first..end - 1 {
                self.cuts[boundary as usize] += 1;
            }
            self.offsets[b] = UNPLACED;
        }
    }

    /// Whether, in every section of the range, the unplaced buffers stacked above the floor
    /// fit under the capacity. Placements keep this true incrementally (see [`Search::place`]).
    fn sections_fit(&self, sections: (u32, u32)) -> bool {
        let range = sections.0 as usize..sections.1 as usize;
        self.floors[range.clone()]
            .iter()
            .zip(&self.unplaced_totals[range])
            .all(|(&floor, &total)| total == 0 || floor + total <= self.capacity)
    }
}

fn expired(deadline: Option<Instant>) -> bool {
    deadline.is_some_and(|deadline| Instant::now() >= deadline)
}

/// The time and node limits shared by every phase.
pub(crate) struct Budget {
    pub deadline: Option<Instant>,
    pub node_limit: u64,
}

impl Budget {
    pub fn new(time_limit: Option<Duration>, node_limit: Option<u64>) -> Budget {
        Budget {
            deadline: time_limit.map(|limit| Instant::now() + limit),
            node_limit: node_limit.unwrap_or(u64::MAX),
        }
    }

    pub fn expired(&self) -> bool {
        expired(self.deadline)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::{Buffer, Problem};
    use proptest::prelude::*;

    /// The optimal peak by brute force: every permutation, each buffer on top of the highest
    /// conflicting buffer placed before it (every layout is dominated by one built this way).
    fn brute_force_peak(instance: &Instance) -> u64 {
        let conflicts = conflict_lists(instance).unwrap();
        let mut order: Vec<usize> = (0..instance.len()).collect();
        let mut best = u64::MAX;
        permute(&mut order, 0, &mut |order| {
            let mut tops = vec![None; instance.len()];
            let mut peak = 0;
            for &b in order {
                let offset = conflicts[b]
                    .iter()
                    .filter_map(|&o| tops[o as usize])
                    .max()
                    .unwrap_or(0);
                tops[b] = Some(offset + instance.units[b]);
                peak = peak.max(offset + instance.units[b]);
            }
            best = best.min(peak);
        });
        best
    }

    fn permute(items: &mut Vec<usize>, k: usize, visit: &mut impl FnMut(&[usize])) {
        if k == items.len() {
            visit(items);
            return;
        }
        for i in k..items.len() {
            items.swap(k, i);
            permute(items, k + 1, visit);
            items.swap(k, i);
        }
    }

    fn verdict_at(space: &SearchSpace, ranking: &Ranking, capacity: u64) -> Verdict {
        let budget = Budget {
            deadline: None,
            node_limit: u64::MAX,
        };
        let loads = space.instance.section_loads();
        let lifetime_loads = space.instance.max_load_over_lifetimes(&loads);
        Search::new(space, ranking, &lifetime_loads, capacity).run(
            u64::MAX,
            &mut SearchStats::default(),
            &budget,
        )
    }

    #[test]
    fn luby_sequence() {
        let terms: Vec<u64> = (1..=15).map(luby).collect();
        assert_eq!(terms, [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]);
        assert_eq!(luby(0), 1);
    }

    #[test]
    fn perturbed_preorders_are_permutations_fixed_by_the_seed() {
        let buffers: Vec<Buffer> = (0..40)
            .map(|i| Buffer {
                lower: i % 7,
                upper: i % 7 + 1 + i % 5,
                size: 1 + i * 37 % 11,
            })
            .collect();
        let instance = Instance::new(&Problem::new(buffers));
        let loads = instance.section_loads();
        let lifetime_loads = instance.max_load_over_lifetimes(&loads);
        let rank = |seed| {
            Ranking::new(&instance, Preorder::TotalWidthArea, seed)
                .ranks(&instance, &lifetime_loads)
        };
        let mut sorted = rank(Some(5));
        assert_eq!(sorted, rank(Some(5)));
        assert_ne!(rank(Some(5)), rank(None));
        sorted.sort_unstable();
        assert_eq!(sorted, (0..40).collect::<Vec<u32>>());
    }

    #[test]
    fn a_part_is_re_ranked_by_the_totals_left_among_its_own_rank_values() {
        let buffers = vec![
            Buffer {
                lower: 0,
                upper: 2,
                size: 5,
            },
            Buffer {
                lower: 1,
                upper: 3,
                size: 2,
            },
            Buffer {
                lower: 3,
                upper: 5,
                size: 4,
            },
        ];
        let instance = Instance::new(&Problem::new(buffers));
        let space = SearchSpace::new(&instance).unwrap();
        let ranking = Ranking::new(&instance, Preorder::TotalAreaWidth, None);
        let loads = instance.section_loads();
        let lifetime_loads = instance.max_load_over_lifetimes(&loads);
        let mut search = Search::new(&space, &ranking, &lifetime_loads, 10);
        // Buffers 0 and 1 share the largest section total (7); 0 has the larger area.
        assert_eq!(search.rank, [0, 1, 2]);
        search.place(0, 0, &mut Vec::new());
        // With 0 placed, 1's largest total left is 2 and 2's is 4.
        let mut part = vec![1, 2];
        let previous = search.rerank(&mut part);
        assert_eq!(previous, [(1, 1), (2, 2)]);
        assert_eq!(part, [2, 1]);
        assert_eq!(search.rank, [0, 2, 1]);
    }

    proptest! {
        #[test]
        fn search_is_exact_on_small_problems(
            specs in prop::collection::vec((0u64..8, 1u64..5, 1u64..9), 1..7),
            pairs in prop::collection::vec((0usize..7, 0usize..7), 0..3),
        ) {
            let buffers: Vec<Buffer> = specs
                .iter()
                .map(|&(lower, length, size)| Buffer { lower, upper: lower + length, size })
                .collect();
            let count = buffers.len();
            let pairs = pairs
                .into_iter()
                .filter(|&(a, b)| a < count && b < count && a != b)
                .collect();
            let problem = Problem::new(buffers).with_disjoint_pairs(pairs);
            let instance = Instance::new(&problem);
            let optimum = brute_force_peak(&instance);
            let space = SearchSpace::new(&instance).unwrap();
            let ranking = Ranking::new(&instance, Preorder::TotalAreaWidth, None);
            prop_assert!(matches!(verdict_at(&space, &ranking, optimum), Verdict::Found));
            prop_assert!(matches!(verdict_at(&space, &ranking, optimum - 1), Verdict::Infeasible));
        }
    }
}
