//! Lower bounds on the peak: no plan can beat the most bytes live at one instant, nor the two
//! sizes of a must-be-disjoint pair stacked.

use super::instance::Instance;
use super::problem::Problem;

/// The instant where the most bytes are live.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveBytesPeak {
    /// The bytes live then (a lower bound on every plan's peak).
    pub bytes: u64,
    /// The earliest instant with that many live bytes (0 for a problem without buffers).
    pub instant: u64,
    /// The buffers live at `instant`, by index.
    pub live: Vec<usize>,
}

/// The maximum over time of the sum of live sizes, where it happens and who is live then.
pub fn max_live_bytes(problem: &Problem) -> LiveBytesPeak {
    // Ends sort before starts at the same instant: lifetimes are half-open.
    let mut events: Vec<(u64, bool, u64)> = problem
        .buffers
        .iter()
        .flat_map(|b| [(b.lower, true, b.size), (b.upper, false, b.size)])
        .collect();
    events.sort_unstable();
    let (mut live_bytes, mut best, mut instant) = (0u64, 0u64, 0u64);
    for (time, is_start, size) in events {
        if is_start {
            // Saturating: this is public and may see a problem that was never validated.
            live_bytes = live_bytes.saturating_add(size);
            if live_bytes > best {
                best = live_bytes;
                instant = time;
            }
        } else {
            live_bytes = live_bytes.saturating_sub(size);
        }
    }
    let live = problem.live_at(instant);
    LiveBytesPeak {
        bytes: best,
        instant,
        live,
    }
}

/// The lower bound on the peak in bytes.
pub fn lower_bound(problem: &Problem) -> u64 {
    let pair_bound = problem
        .disjoint_pairs
        .iter()
        .filter_map(|&(a, b)| {
            Some(
                problem
                    .buffers
                    .get(a)?
                    .size
                    .saturating_add(problem.buffers.get(b)?.size),
            )
        })
        .max()
        .unwrap_or(0);
    max_live_bytes(problem).bytes.max(pair_bound)
}

/// The same bound counted in alignment units over the rounded-up sizes.
pub(crate) fn lower_bound_units(instance: &Instance) -> u64 {
    let live = instance.section_loads().into_iter().max().unwrap_or(0);
    let pairs = (0..instance.len())
        .flat_map(|a| {
            instance.extra_neighbors[a]
                .iter()
                .map(move |&b| instance.units[a] + instance.units[b as usize])
        })
        .max()
        .unwrap_or(0);
    live.max(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::Buffer;

    fn buffer(lower: u64, upper: u64, size: u64) -> Buffer {
        Buffer { lower, upper, size }
    }

    #[test]
    fn touching_lifetimes_do_not_add_up() {
        let problem = Problem::new(vec![buffer(0, 3, 4), buffer(3, 9, 4), buffer(0, 9, 4)]);
        let peak = max_live_bytes(&problem);
        assert_eq!(peak.bytes, 8);
        assert_eq!(peak.instant, 0);
        assert_eq!(peak.live, [0, 2]);
    }

    #[test]
    fn disjoint_pairs_raise_the_bound() {
        let problem =
            Problem::new(vec![buffer(0, 3, 4), buffer(3, 9, 5)]).with_disjoint_pairs(vec![(0, 1)]);
        assert_eq!(max_live_bytes(&problem).bytes, 5);
        assert_eq!(lower_bound(&problem), 9);
        assert_eq!(lower_bound_units(&Instance::new(&problem)), 9);
    }
}
