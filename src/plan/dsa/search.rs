//! Exact anytime search in the style of MiniMalloc (Moffitt, ASPLOS'23).
//!
//! A feasibility search at a fixed capacity builds canonical layouts: buffers are placed in
//! non-decreasing offset order, each at its lowest offset above the placed buffers it conflicts
//! with, so every buffer sits at 0 or on top of a conflicting buffer. Branching picks the next
//! buffer among the unplaced ones ordered by that offset. Pruning:
//! - symmetry: at equal offsets, buffers go in preorder rank order;
//! - dominance: a buffer whose placement would leave room under it for a whole other unplaced
//!   buffer is skipped (that buffer could go first);
//! - sections: in every elementary time interval, the unplaced buffers live there are stacked
//!   above the current floor and must fit under the capacity.
//!
//! [`improve`] alternates attempts at the lower bound and just below the incumbent under
//! doubling node limits and several preorders, keeping the best plan found; exhausting an
//! attempt at the bound proves the bound is out of reach and raises it.

use super::Budget;
use super::bound::lower_bound_units;
use super::instance::Instance;

/// Buffers above which the search is not attempted (recursion depth, per-node sorting).
const MAX_SEARCH_BUFFERS: usize = 4096;
/// Conflict-list entries above which the search is not attempted (memory, per-node work).
const MAX_CONFLICT_ENTRIES: usize = 4_000_000;
/// How often (in nodes) the wall clock is read.
const CLOCK_INTERVAL: u64 = 1024;

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

/// Searches for plans below `incumbent`'s peak within `budget`.
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
    let searchable = instance.len() <= MAX_SEARCH_BUFFERS;
    let Some(conflicts) = searchable.then(|| conflict_lists(instance)).flatten() else {
        return SearchOutcome {
            unit_offsets: None,
            stats,
        };
    };
    let loads = instance.section_loads();
    let lifetime_loads = instance.max_load_over_lifetimes(&loads);
    let preorders = [
        Preorder::WidthAreaTotal,
        Preorder::TotalAreaWidth,
        Preorder::TotalWidthArea,
    ]
    .map(|preorder| ranks(instance, &lifetime_loads, preorder));
    let mut attempt_limit = 2 * instance.len() as u64;
    'rounds: while best_peak > lower {
        for rank in &preorders {
            for target in [lower, best_peak - 1] {
                if target < lower || best_peak <= lower {
                    continue;
                }
                let mut search = Search::new(instance, &conflicts, rank, target);
                let verdict = search.run(attempt_limit, &mut stats, budget);
                match verdict {
                    Verdict::Found(offsets) => {
                        best_peak = peak_of(&offsets);
                        improved = Some(offsets);
                    }
                    Verdict::Infeasible => lower = target + 1,
                    Verdict::AttemptLimit => {}
                    Verdict::OutOfBudget => {
                        stats.stopped_early = true;
                        break 'rounds;
                    }
                }
            }
        }
        attempt_limit = attempt_limit.saturating_mul(2);
    }
    SearchOutcome {
        unit_offsets: improved,
        stats,
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

/// The rank of each buffer under `preorder` (0 = first).
fn ranks(instance: &Instance, lifetime_loads: &[u64], preorder: Preorder) -> Vec<u32> {
    let width = |b: usize| instance.lengths[b];
    let area = |b: usize| u128::from(instance.units[b]) * u128::from(instance.lengths[b]);
    let total = |b: usize| lifetime_loads[b];
    let mut order: Vec<usize> = (0..instance.len()).collect();
    order.sort_by_key(|&b| {
        let key = match preorder {
            Preorder::WidthAreaTotal => (u128::from(width(b)), area(b), u128::from(total(b))),
            Preorder::TotalAreaWidth => (u128::from(total(b)), area(b), u128::from(width(b))),
            Preorder::TotalWidthArea => (u128::from(total(b)), u128::from(width(b)), area(b)),
        };
        (std::cmp::Reverse(key), b)
    });
    let mut rank = vec![0; instance.len()];
    for (position, &buffer) in order.iter().enumerate() {
        rank[buffer] = position as u32;
    }
    rank
}

enum Verdict {
    Found(Vec<u64>),
    /// The whole search space was explored: no plan fits the capacity.
    Infeasible,
    /// This attempt's node limit ran out.
    AttemptLimit,
    /// The solve's time or node budget ran out.
    OutOfBudget,
}

const UNPLACED: u64 = u64::MAX;

/// Undo records for backtracking.
enum Change {
    MinOffset { buffer: u32, previous: u64 },
    Floor { section: u32, previous: u64 },
}

/// One feasibility search at a fixed capacity.
struct Search<'a> {
    instance: &'a Instance,
    conflicts: &'a [Vec<u32>],
    rank: &'a [u32],
    capacity: u64,
    offsets: Vec<u64>,
    /// Lowest offset each unplaced buffer can take: the highest top of its placed conflicts.
    min_offsets: Vec<u64>,
    /// Per section: the top of the highest buffer placed there.
    floors: Vec<u64>,
    /// Per section: the total size of the unplaced buffers live there.
    unplaced_totals: Vec<u64>,
    /// Unplaced buffers with a non-zero size.
    unplaced: Vec<u32>,
    trail: Vec<Change>,
    /// Per depth, scratch space for the candidate ordering.
    orderings: Vec<Vec<(u64, u32, u32)>>,
    nodes: u64,
    node_limit: u64,
}

impl<'a> Search<'a> {
    fn new(
        instance: &'a Instance,
        conflicts: &'a [Vec<u32>],
        rank: &'a [u32],
        capacity: u64,
    ) -> Self {
        let mut unplaced: Vec<u32> = (0..instance.len() as u32)
            .filter(|&b| instance.units[b as usize] > 0)
            .collect();
        unplaced.sort_by_key(|&b| rank[b as usize]);
        let mut offsets = vec![UNPLACED; instance.len()];
        for (offset, &units) in offsets.iter_mut().zip(&instance.units) {
            if units == 0 {
                *offset = 0;
            }
        }
        Search {
            instance,
            conflicts,
            rank,
            capacity,
            offsets,
            min_offsets: vec![0; instance.len()],
            floors: vec![0; instance.section_count],
            unplaced_totals: instance.section_loads(),
            unplaced,
            trail: Vec::new(),
            orderings: Vec::new(),
            nodes: 0,
            node_limit: 0,
        }
    }

    fn run(&mut self, attempt_limit: u64, stats: &mut SearchStats, budget: &Budget) -> Verdict {
        self.node_limit = attempt_limit;
        let budget_left = budget.node_limit.saturating_sub(stats.nodes);
        let limited_by_budget = budget_left <= attempt_limit;
        self.node_limit = attempt_limit.min(budget_left);
        let verdict = if self.sections_fit(0) {
            self.descend(0, 0, 0, budget)
        } else {
            Verdict::Infeasible
        };
        stats.nodes += self.nodes;
        match verdict {
            Verdict::AttemptLimit if limited_by_budget => Verdict::OutOfBudget,
            other => other,
        }
    }

    /// Places the next buffer; `last_offset`/`last_rank` describe the previous placement.
    fn descend(&mut self, depth: usize, last_offset: u64, last_rank: u32, budget: &Budget) -> Verdict {
        if self.nodes >= self.node_limit {
            return Verdict::AttemptLimit;
        }
        self.nodes += 1;
        if self.nodes % CLOCK_INTERVAL == 0 && budget.expired() {
            return Verdict::OutOfBudget;
        }
        if self.unplaced.is_empty() {
            return Verdict::Found(self.offsets.clone());
        }
        if self.orderings.len() <= depth {
            self.orderings.push(Vec::new());
        }
        let mut ordering = std::mem::take(&mut self.orderings[depth]);
        ordering.clear();
        ordering.extend(
            self.unplaced
                .iter()
                .map(|&b| (self.min_offsets[b as usize], self.rank[b as usize], b)),
        );
        ordering.sort_unstable();
        // Every unplaced buffer can still go at its lowest offset; placing anything at or above
        // the lowest such top would leave that buffer's slot empty under it.
        let min_height = ordering
            .iter()
            .map(|&(offset, _, b)| offset + self.instance.units[b as usize])
            .min()
            .unwrap_or(u64::MAX);
        let mut verdict = Verdict::Infeasible;
        for &(offset, rank, buffer) in &ordering {
            if offset >= min_height {
                break;
            }
            if offset < last_offset || (offset == last_offset && rank < last_rank) {
                continue;
            }
            let buffer = buffer as usize;
            if offset + self.instance.units[buffer] > self.capacity {
                continue;
            }
            let mark = self.trail.len();
            self.place(buffer, offset);
            let outcome = if self.sections_fit(offset) {
                self.descend(depth + 1, offset, rank, budget)
            } else {
                Verdict::Infeasible
            };
            self.unplace(buffer, mark);
            if !matches!(outcome, Verdict::Infeasible) {
                verdict = outcome;
                break;
            }
        }
        self.orderings[depth] = ordering;
        verdict
    }

    fn place(&mut self, buffer: usize, offset: u64) {
        let units = self.instance.units[buffer];
        let top = offset + units;
        self.offsets[buffer] = offset;
        if let Some(position) = self.unplaced.iter().position(|&b| b as usize == buffer) {
            self.unplaced.remove(position);
        }
        for section in self.instance.first_section[buffer]..self.instance.end_section[buffer] {
            let s = section as usize;
            self.trail.push(Change::Floor {
                section,
                previous: self.floors[s],
            });
            self.floors[s] = top;
            self.unplaced_totals[s] -= units;
        }
        for &other in &self.conflicts[buffer] {
            let o = other as usize;
            if self.offsets[o] == UNPLACED && self.min_offsets[o] < top {
                self.trail.push(Change::MinOffset {
                    buffer: other,
                    previous: self.min_offsets[o],
                });
                self.min_offsets[o] = top;
            }
        }
    }

    fn unplace(&mut self, buffer: usize, mark: usize) {
        while self.trail.len() > mark {
            match self.trail.pop() {
                Some(Change::MinOffset { buffer, previous }) => {
                    self.min_offsets[buffer as usize] = previous
                }
                Some(Change::Floor { section, previous }) => self.floors[section as usize] = previous,
                None => break,
            }
        }
        let units = self.instance.units[buffer];
        for section in self.instance.first_section[buffer]..self.instance.end_section[buffer] {
            self.unplaced_totals[section as usize] += units;
        }
        self.offsets[buffer] = UNPLACED;
        let rank = self.rank[buffer];
        let position = self
            .unplaced
            .partition_point(|&b| self.rank[b as usize] < rank);
        self.unplaced.insert(position, buffer as u32);
    }

    /// Whether, in every section, the unplaced buffers stacked above the floor (never below
    /// the current placement offset) fit under the capacity.
    fn sections_fit(&self, offset: u64) -> bool {
        self.floors
            .iter()
            .zip(&self.unplaced_totals)
            .all(|(&floor, &total)| total == 0 || floor.max(offset) + total <= self.capacity)
    }
}
