//! Offset-based placement (dynamic storage allocation) for one memory space.
//!
//! Every buffer gets a byte offset; buffers whose lifetimes overlap, and the extra
//! [`Problem::disjoint_pairs`], get disjoint byte ranges. The objective is the smallest peak
//! (highest byte used); among plans with the same peak, fewer buffers placed on bytes that an
//! earlier buffer used (each such reuse is a write-after-read dependency).
//!
//! [`solve`] with [`Method::Dsa`] computes the lower bound first, runs a portfolio of greedy
//! placements and stops if one reaches the bound; otherwise it runs a MiniMalloc-style
//! branch-and-bound over canonical layouts that only ever replaces the plan with a lower-peak
//! one. The search is deterministic for a given node budget ([`SolveOptions::node_limit`]);
//! the time limit only stops it earlier, so a plan can depend on the machine's speed when the
//! time limit, not the node budget, ends the search.

mod bound;
mod greedy;
mod instance;
mod problem;
mod search;

use std::collections::BTreeMap;
use std::time::Duration;

use thiserror::Error;

pub use bound::{LiveBytesPeak, lower_bound, max_live_bytes};
pub use problem::{Buffer, CsvError, CsvErrorKind, CsvProblem, Problem, ProblemError, parse_csv};

use greedy::{Fit, GreedyPlacer, Order};
use instance::Instance;
use search::Budget;

/// Which placement [`solve`] runs (its method, not one of memreuse's planners).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Method {
    /// The greedy portfolio, then the exact anytime search.
    #[default]
    Dsa,
    /// First-fit decreasing: largest first, each at the lowest offset free over its lifetime.
    FirstFitDecreasing,
    /// Best-fit: largest first, each in the tightest gap free over its lifetime.
    BestFit,
}

/// Limits and the method for [`solve`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolveOptions {
    pub method: Method,
    /// Wall-clock limit for the whole solve; the greedy portfolio always completes its first
    /// placement, so a valid plan is returned even when it is exceeded.
    pub time_limit: Option<Duration>,
    /// Total branch-and-bound nodes the search may visit; with a time limit that never
    /// triggers, the result depends only on this budget.
    pub node_limit: Option<u64>,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            method: Method::Dsa,
            time_limit: Some(Duration::from_millis(1000)),
            node_limit: None,
        }
    }
}

/// A plan: one byte offset per buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// Byte offset of each buffer, in the problem's order; multiples of the alignment.
    pub offsets: Vec<u64>,
    /// The highest byte used plus one.
    pub peak: u64,
    /// No plan can have a lower peak than this.
    pub lower_bound: u64,
    pub stats: SolveStats,
}

impl Solution {
    /// Whether the peak provably cannot be lowered.
    pub fn is_optimal(&self) -> bool {
        self.peak == self.lower_bound
    }
}

/// How the plan was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolveStats {
    /// The best peak of the greedy placements, in bytes.
    pub greedy_peak: u64,
    /// Branch-and-bound nodes visited.
    pub search_nodes: u64,
    /// Whether the time or node limit ended the search before it finished.
    pub stopped_early: bool,
    /// Buffers placed on bytes that a buffer whose lifetime ended earlier used.
    pub reused_roots: usize,
}

/// Why [`solve`] returned no plan.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SolveError {
    #[error(transparent)]
    InvalidProblem(#[from] ProblemError),
    #[error(
        "capacity {capacity} exceeded at instant {instant}: {live_bytes} bytes are live in buffers {live:?}"
    )]
    LiveBytesExceedCapacity {
        capacity: u64,
        instant: u64,
        live_bytes: u64,
        live: Vec<usize>,
    },
    #[error(
        "no plan found within capacity {capacity}: the best peak is {peak}, reached at instant {instant} by buffers {live:?}"
    )]
    NoPlanWithinCapacity {
        capacity: u64,
        peak: u64,
        instant: u64,
        live: Vec<usize>,
    },
}

/// Why a plan is invalid, from [`check_solution`].
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SolutionError {
    #[error("{found} offsets for {expected} buffers")]
    WrongLength { expected: usize, found: usize },
    #[error("buffer {index}: offset {offset} is not a multiple of the alignment {alignment}")]
    Misaligned {
        index: usize,
        offset: u64,
        alignment: u64,
    },
    #[error("buffers {first} and {second} must be disjoint but share bytes")]
    Overlap { first: usize, second: usize },
    #[error("buffer {index} ends at byte {top}, past the capacity {capacity}")]
    OverCapacity {
        index: usize,
        top: u64,
        capacity: u64,
    },
    #[error("buffer {index}: offset {offset} + size {size} overflows")]
    OffsetOverflow {
        index: usize,
        offset: u64,
        size: u64,
    },
}

/// Plans `problem`. Errors when the problem is invalid or its capacity cannot be respected.
pub fn solve(problem: &Problem, options: &SolveOptions) -> Result<Solution, SolveError> {
    problem.validate()?;
    let live_peak = max_live_bytes(problem);
    if let Some(capacity) = problem.capacity
        && live_peak.bytes > capacity
    {
        return Err(SolveError::LiveBytesExceedCapacity {
            capacity,
            instant: live_peak.instant,
            live_bytes: live_peak.bytes,
            live: live_peak.live,
        });
    }
    let lower_bound = lower_bound(problem);
    let instance = Instance::new(problem);
    let budget = Budget::new(options.time_limit, options.node_limit);
    let greedy = match options.method {
        Method::Dsa => run_portfolio(problem, &instance, PORTFOLIO[0], &PORTFOLIO[1..], &budget),
        Method::FirstFitDecreasing => run_portfolio(
            problem,
            &instance,
            (Order::SizeDescending, Fit::First),
            &[],
            &budget,
        ),
        Method::BestFit => run_portfolio(
            problem,
            &instance,
            (Order::SizeDescending, Fit::Best),
            &[],
            &budget,
        ),
    };
    let greedy_peak = greedy.peak;
    let mut best = greedy;
    let mut search_stats = search::SearchStats::default();
    if options.method == Method::Dsa && best.peak > lower_bound {
        let outcome = search::improve(&instance, &best.unit_offsets, &budget);
        search_stats = outcome.stats;
        if let Some(unit_offsets) = outcome.unit_offsets {
            let candidate = Candidate::new(problem, unit_offsets);
            if candidate.peak < best.peak {
                best = candidate;
            }
        }
    }
    let offsets = best.byte_offsets(problem.alignment);
    if let Some(capacity) = problem.capacity
        && best.peak > capacity
    {
        let (instant, live) = instant_of_peak(problem, &offsets);
        return Err(SolveError::NoPlanWithinCapacity {
            capacity,
            peak: best.peak,
            instant,
            live,
        });
    }
    let reused_roots = count_reused_roots(problem, &offsets);
    Ok(Solution {
        offsets,
        peak: best.peak,
        lower_bound,
        stats: SolveStats {
            greedy_peak,
            search_nodes: search_stats.nodes,
            stopped_early: search_stats.stopped_early || budget.expired(),
            reused_roots,
        },
    })
}

/// Checks a plan against every hard constraint; returns its peak.
pub fn check_solution(problem: &Problem, offsets: &[u64]) -> Result<u64, SolutionError> {
    let buffers = &problem.buffers;
    if offsets.len() != buffers.len() {
        return Err(SolutionError::WrongLength {
            expected: buffers.len(),
            found: offsets.len(),
        });
    }
    let mut peak = 0;
    for (index, (buffer, &offset)) in buffers.iter().zip(offsets).enumerate() {
        if problem.alignment == 0 || offset % problem.alignment != 0 {
            return Err(SolutionError::Misaligned {
                index,
                offset,
                alignment: problem.alignment,
            });
        }
        let top = offset
            .checked_add(buffer.size)
            .ok_or(SolutionError::OffsetOverflow {
                index,
                offset,
                size: buffer.size,
            })?;
        if let Some(capacity) = problem.capacity
            && top > capacity
        {
            return Err(SolutionError::OverCapacity {
                index,
                top,
                capacity,
            });
        }
        peak = peak.max(top);
    }
    let shares_bytes = |a: usize, b: usize| {
        buffers[a].size > 0
            && buffers[b].size > 0
            && offsets[a] < offsets[b] + buffers[b].size
            && offsets[b] < offsets[a] + buffers[a].size
    };
    for &(first, second) in &problem.disjoint_pairs {
        if first < buffers.len() && second < buffers.len() && shares_bytes(first, second) {
            return Err(SolutionError::Overlap { first, second });
        }
    }
    // Sweep through time keeping the live buffers by offset: they are pairwise disjoint, so a
    // newcomer only needs checking against its neighbours in offset order.
    let mut live: BTreeMap<u64, usize> = BTreeMap::new();
    for (_, is_start, index) in lifetime_events(problem) {
        let size = buffers[index].size;
        if size == 0 {
            continue;
        }
        let offset = offsets[index];
        if !is_start {
            live.remove(&offset);
            continue;
        }
        if let Some((_, &below)) = live.range(..=offset).next_back()
            && shares_bytes(below, index)
        {
            return Err(overlap(below, index));
        }
        if let Some((_, &above)) = live.range(offset..).next()
            && shares_bytes(above, index)
        {
            return Err(overlap(above, index));
        }
        live.insert(offset, index);
    }
    Ok(peak)
}

fn overlap(a: usize, b: usize) -> SolutionError {
    SolutionError::Overlap {
        first: a.min(b),
        second: a.max(b),
    }
}

/// `(time, is_start, buffer)` for every lifetime end point, ends first at equal times.
fn lifetime_events(problem: &Problem) -> Vec<(u64, bool, usize)> {
    let mut events: Vec<(u64, bool, usize)> = problem
        .buffers
        .iter()
        .enumerate()
        .flat_map(|(index, b)| [(b.lower, true, index), (b.upper, false, index)])
        .collect();
    events.sort_unstable();
    events
}

/// Buffers whose bytes overlap those of a buffer whose lifetime ended at or before their start
/// (each is a write-after-read dependency). `offsets` must have one entry per buffer.
pub fn count_reused_roots(problem: &Problem, offsets: &[u64]) -> usize {
    // Byte ranges used by retired buffers, merged: start -> end.
    let mut retired: BTreeMap<u64, u64> = BTreeMap::new();
    let mut reused = 0;
    for (_, is_start, index) in lifetime_events(problem) {
        let Some(&start) = offsets.get(index) else {
            continue;
        };
        let size = problem.buffers[index].size;
        if size == 0 {
            continue;
        }
        let end = start.saturating_add(size);
        if is_start {
            if retired
                .range(..end)
                .next_back()
                .is_some_and(|(_, &retired_end)| retired_end > start)
            {
                reused += 1;
            }
            continue;
        }
        let mut merged_start = start;
        let mut merged_end = end;
        let touching: Vec<(u64, u64)> = retired
            .range(..=end)
            .rev()
            .take_while(|&(_, &e)| e >= start)
            .map(|(&s, &e)| (s, e))
            .collect();
        for (s, e) in touching {
            retired.remove(&s);
            merged_start = merged_start.min(s);
            merged_end = merged_end.max(e);
        }
        retired.insert(merged_start, merged_end);
    }
    reused
}

/// The earliest instant at which a buffer reaching the plan's peak is live, and who is live.
fn instant_of_peak(problem: &Problem, offsets: &[u64]) -> (u64, Vec<usize>) {
    let tops = problem
        .buffers
        .iter()
        .zip(offsets)
        .map(|(b, &offset)| offset + b.size);
    let Some((topmost, _)) = tops
        .enumerate()
        .max_by_key(|&(index, top)| (top, usize::MAX - index))
    else {
        return (0, Vec::new());
    };
    let instant = problem.buffers[topmost].lower;
    let live = problem.live_at(instant);
    (instant, live)
}

/// The greedy placements the DSA planner tries, the most often best first (load-descending
/// best fit reaches the bound on the largest public instances).
const PORTFOLIO: [(Order, Fit); 12] = [
    (Order::LoadDescending, Fit::Best),
    (Order::SizeDescending, Fit::First),
    (Order::SizeDescending, Fit::Best),
    (Order::LengthDescending, Fit::Best),
    (Order::LoadDescending, Fit::First),
    (Order::LoadThenSizeDescending, Fit::Best),
    (Order::LoadThenSizeDescending, Fit::First),
    (Order::LengthDescending, Fit::First),
    (Order::AreaDescending, Fit::Best),
    (Order::AreaDescending, Fit::First),
    (Order::StartAscending, Fit::Best),
    (Order::StartAscending, Fit::First),
];

/// A complete placement with its peak in bytes.
struct Candidate {
    unit_offsets: Vec<u64>,
    peak: u64,
}

impl Candidate {
    fn new(problem: &Problem, unit_offsets: Vec<u64>) -> Candidate {
        let peak = problem
            .buffers
            .iter()
            .zip(&unit_offsets)
            .map(|(b, &offset)| offset * problem.alignment + b.size)
            .max()
            .unwrap_or(0);
        Candidate { unit_offsets, peak }
    }

    fn unit_peak(&self, instance: &Instance) -> u64 {
        self.unit_offsets
            .iter()
            .zip(&instance.units)
            .map(|(offset, units)| offset + units)
            .max()
            .unwrap_or(0)
    }

    fn byte_offsets(&self, alignment: u64) -> Vec<u64> {
        self.unit_offsets.iter().map(|&o| o * alignment).collect()
    }
}

/// Runs the greedy placements in turn (always `first`, the others while time remains and the
/// bound is not reached) and keeps the lowest peak, then the fewest reused roots.
fn run_portfolio(
    problem: &Problem,
    instance: &Instance,
    first: (Order, Fit),
    others: &[(Order, Fit)],
    budget: &Budget,
) -> Candidate {
    let loads = instance.section_loads();
    let lifetime_loads = instance.max_load_over_lifetimes(&loads);
    let unit_bound = bound::lower_bound_units(instance);
    let mut placer = GreedyPlacer::new(instance);
    let mut run = |(order, fit): (Order, Fit)| {
        Candidate::new(
            problem,
            placer.place(&order.arrange(instance, &lifetime_loads), fit),
        )
    };
    let reuse_of = |candidate: &Candidate| {
        count_reused_roots(problem, &candidate.byte_offsets(problem.alignment))
    };
    let mut best = run(first);
    let mut best_reuse = None;
    for &entry in others {
        if best.unit_peak(instance) <= unit_bound || budget.expired() {
            break;
        }
        let candidate = run(entry);
        if candidate.peak < best.peak {
            best = candidate;
            best_reuse = None;
        } else if candidate.peak == best.peak {
            let incumbent_reuse = *best_reuse.get_or_insert_with(|| reuse_of(&best));
            let reuse = reuse_of(&candidate);
            if reuse < incumbent_reuse {
                best = candidate;
                best_reuse = Some(reuse);
            }
        }
    }
    best
}
