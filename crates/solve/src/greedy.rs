//! Greedy placements: buffers in a fixed order, each at a free offset over its whole lifetime.

use super::instance::{Instance, for_each_cover_node};

/// Which free gap a buffer takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fit {
    /// The lowest gap that is large enough.
    First,
    /// The smallest gap that is large enough (lowest on ties); on top if none is.
    Best,
}

/// The order in which buffers are placed; remaining ties go to the lower index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Order {
    /// Busiest first: the largest load over the lifetime (MiniMalloc's "total"), then the
    /// longest lifetime, then the largest size. Places the buffers that decide the peak first.
    LoadDescending,
    /// As [`Order::LoadDescending`] but the largest size before the longest lifetime.
    LoadThenSizeDescending,
    /// Largest first, earlier start on ties.
    SizeDescending,
    /// Longest lifetime first, larger on ties.
    LengthDescending,
    /// Largest size × lifetime first.
    AreaDescending,
    /// Earliest start first, longer lifetime on ties: what an allocator running through time
    /// would do.
    StartAscending,
}

impl Order {
    /// The buffer indices in this order. `lifetime_loads` is
    /// [`Instance::max_load_over_lifetimes`].
    pub fn arrange(self, instance: &Instance, lifetime_loads: &[u64]) -> Vec<u32> {
        use std::cmp::Reverse;
        let mut order: Vec<u32> = (0..instance.len() as u32).collect();
        let size = |b: u32| instance.units[b as usize];
        let length = |b: u32| instance.lengths[b as usize];
        let start = |b: u32| instance.first_section[b as usize];
        match self {
            Order::LoadDescending => order
                .sort_by_key(|&b| (Reverse((lifetime_loads[b as usize], length(b), size(b))), b)),
            Order::LoadThenSizeDescending => order
                .sort_by_key(|&b| (Reverse((lifetime_loads[b as usize], size(b), length(b))), b)),
            Order::SizeDescending => order.sort_by_key(|&b| (Reverse(size(b)), start(b), b)),
            Order::LengthDescending => order.sort_by_key(|&b| (Reverse((length(b), size(b))), b)),
            Order::AreaDescending => order.sort_by_key(|&b| {
                let area = u128::from(size(b)) * u128::from(length(b));
                (Reverse((area, size(b))), b)
            }),
            Order::StartAscending => order.sort_by_key(|&b| (start(b), Reverse(length(b)), b)),
        }
        order
    }
}

/// Places buffers one by one; reusable across orders to keep its memory.
pub(crate) struct GreedyPlacer<'a> {
    instance: &'a Instance,
    placed: Vec<bool>,
    offsets: Vec<u64>,
    /// Per node of a segment tree over sections: the bytes of the placed buffers whose
    /// lifetime covers the node in the canonical decomposition (found by stabbing a section).
    covering: Vec<ByteUnion>,
    /// Per node: the bytes of the placed buffers whose first section lies in the node.
    starting: Vec<ByteUnion>,
    /// Occupied `(offset, top)` ranges of the placed neighbours of the buffer being placed.
    occupied: Vec<(u64, u64)>,
    /// Scratch space for sorting `occupied`.
    sort_scratch: Vec<(u64, u64)>,
}

impl<'a> GreedyPlacer<'a> {
    pub fn new(instance: &'a Instance) -> Self {
        let nodes = 2 * instance.leaf_base();
        GreedyPlacer {
            instance,
            placed: vec![false; instance.len()],
            offsets: vec![0; instance.len()],
            covering: vec![ByteUnion::default(); nodes],
            starting: vec![ByteUnion::default(); nodes],
            occupied: Vec::new(),
            sort_scratch: Vec::new(),
        }
    }

    /// Unit offsets of every buffer, placed in `order` with `fit`.
    pub fn place(&mut self, order: &[u32], fit: Fit) -> Vec<u64> {
        self.placed.fill(false);
        self.covering.iter_mut().for_each(ByteUnion::clear);
        self.starting.iter_mut().for_each(ByteUnion::clear);
        let mut peak = 0;
        for &buffer in order {
            let buffer = buffer as usize;
            let size = self.instance.units[buffer];
            let offset = if size == 0 {
                0
            } else {
                self.collect_occupied(buffer);
                sort_by_offset(&mut self.occupied, &mut self.sort_scratch);
                let offset = choose_gap(&self.occupied, size, peak, fit);
                self.record(buffer, (offset, offset + size));
                offset
            };
            self.offsets[buffer] = offset;
            self.placed[buffer] = true;
            peak = peak.max(offset + size);
        }
        self.offsets.clone()
    }

    /// Files a placed buffer's byte range under its lifetime.
    fn record(&mut self, buffer: usize, range: (u64, u64)) {
        let first = self.instance.first_section[buffer];
        let end = self.instance.end_section[buffer];
        for_each_cover_node(self.instance.leaf_base(), first, end, |node| {
            self.covering[node].insert(range);
        });
        let mut node = self.instance.leaf_base() + first as usize;
        while node >= 1 {
            self.starting[node].insert(range);
            node /= 2;
        }
    }

    /// Gathers the byte ranges of the placed buffers `buffer` must not overlap.
    fn collect_occupied(&mut self, buffer: usize) {
        self.occupied.clear();
        let first = self.instance.first_section[buffer];
        let end = self.instance.end_section[buffer];
        // Placed buffers live when `buffer` starts, then those starting during its lifetime.
        let mut node = self.instance.leaf_base() + first as usize;
        while node >= 1 {
            self.occupied.extend_from_slice(&self.covering[node].ranges);
            node /= 2;
        }
        for_each_cover_node(self.instance.leaf_base(), first + 1, end, |node| {
            self.occupied.extend_from_slice(&self.starting[node].ranges);
        });
        for &other in &self.instance.extra_neighbors[buffer] {
            let other = other as usize;
            let size = self.instance.units[other];
            if self.placed[other] && size > 0 {
                self.occupied
                    .push((self.offsets[other], self.offsets[other] + size));
            }
        }
    }
}

/// A set of bytes as sorted, disjoint, non-touching `(start, end)` ranges. Neighbouring
/// buffers are mostly stacked without gaps, so a union stays far shorter than the list of
/// buffers it covers, which keeps gathering and sorting cheap.
#[derive(Clone, Default)]
struct ByteUnion {
    ranges: Vec<(u64, u64)>,
}

impl ByteUnion {
    fn clear(&mut self) {
        self.ranges.clear();
    }

    fn insert(&mut self, (start, end): (u64, u64)) {
        let first = self.ranges.partition_point(|&(_, e)| e < start);
        let last = self.ranges.partition_point(|&(s, _)| s <= end);
        if first == last {
            self.ranges.insert(first, (start, end));
        } else {
            let merged = (
                start.min(self.ranges[first].0),
                end.max(self.ranges[last - 1].1),
            );
            self.ranges[first] = merged;
            self.ranges.drain(first + 1..last);
        }
    }
}

/// Sorts `(offset, top)` ranges by offset. This sort dominates greedy placement on large
/// problems, so it is a least-significant-digit radix sort over the bytes in which offsets
/// differ (several times faster than a comparison sort for thousands of ranges).
fn sort_by_offset(ranges: &mut Vec<(u64, u64)>, scratch: &mut Vec<(u64, u64)>) {
    const SMALL: usize = 64;
    if ranges.len() <= SMALL {
        ranges.sort_unstable_by_key(|&(offset, _)| offset);
        return;
    }
    let highest = ranges.iter().map(|&(offset, _)| offset).max().unwrap_or(0);
    let digits = (u64::BITS - highest.leading_zeros()).div_ceil(8);
    scratch.clear();
    scratch.resize(ranges.len(), (0, 0));
    for digit in 0..digits {
        let shift = 8 * digit;
        let mut counts = [0usize; 256];
        for &(offset, _) in ranges.iter() {
            counts[((offset >> shift) & 0xff) as usize] += 1;
        }
        if counts.contains(&ranges.len()) {
            continue;
        }
        let mut next = 0;
        for count in &mut counts {
            let start = next;
            next += *count;
            *count = start;
        }
        for &range in ranges.iter() {
            let bucket = &mut counts[((range.0 >> shift) & 0xff) as usize];
            scratch[*bucket] = range;
            *bucket += 1;
        }
        std::mem::swap(ranges, scratch);
    }
}

/// Picks the offset for a buffer of `size` units given the occupied ranges over its lifetime
/// (sorted by offset, possibly overlapping each other) and the peak so far.
fn choose_gap(occupied: &[(u64, u64)], size: u64, peak: u64, fit: Fit) -> u64 {
    let mut covered_to = 0;
    // Best fit: (gap length, offset) of the tightest gap so far. The space between the
    // highest neighbour and the current peak counts as a gap: filling it costs nothing.
    let mut tightest: Option<(u64, u64)> = None;
    let mut consider = |start: u64, end: u64| -> bool {
        let length = end - start;
        if length < size {
            return false;
        }
        if fit == Fit::First {
            tightest = Some((length, start));
            return true;
        }
        if tightest.is_none_or(|(best, _)| length < best) {
            tightest = Some((length, start));
        }
        false
    };
    for &(offset, top) in occupied.iter() {
        if offset > covered_to && consider(covered_to, offset) {
            return covered_to;
        }
        covered_to = covered_to.max(top);
    }
    if peak > covered_to {
        consider(covered_to, peak);
    }
    tightest.map_or(covered_to, |(_, offset)| offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_unions_merge_touching_and_overlapping_ranges() {
        let mut union = ByteUnion::default();
        for range in [
            (10, 12),
            (0, 2),
            (4, 6),
            (2, 4),
            (11, 20),
            (30, 31),
            (5, 30),
        ] {
            union.insert(range);
        }
        assert_eq!(union.ranges, [(0, 31)]);
        union.clear();
        union.insert((5, 6));
        union.insert((1, 2));
        union.insert((8, 9));
        assert_eq!(union.ranges, [(1, 2), (5, 6), (8, 9)]);
    }

    #[test]
    fn radix_sort_orders_by_offset() {
        let mut ranges: Vec<(u64, u64)> = (0..500u64)
            .map(|i| ((i * 7919 + 13) % 1009 * 65_537, i))
            .collect();
        let mut expected = ranges.clone();
        expected.sort_by_key(|&(offset, _)| offset);
        sort_by_offset(&mut ranges, &mut Vec::new());
        assert_eq!(
            ranges.iter().map(|r| r.0).collect::<Vec<_>>(),
            expected.iter().map(|r| r.0).collect::<Vec<_>>()
        );
    }

    #[test]
    fn first_fit_takes_the_lowest_gap_and_best_fit_the_tightest() {
        let occupied = [(0, 2), (3, 4), (6, 8), (9, 12)];
        assert_eq!(choose_gap(&occupied, 1, 12, Fit::First), 2);
        assert_eq!(choose_gap(&occupied, 1, 12, Fit::Best), 2);
        assert_eq!(choose_gap(&occupied, 2, 12, Fit::First), 4);
        assert_eq!(choose_gap(&occupied, 2, 20, Fit::Best), 4);
        assert_eq!(choose_gap(&occupied, 5, 20, Fit::Best), 12);
        assert_eq!(choose_gap(&occupied, 5, 14, Fit::First), 12);
    }

    #[test]
    fn nested_ranges_do_not_open_false_gaps() {
        let occupied = [(0, 10), (2, 3), (12, 13)];
        assert_eq!(choose_gap(&occupied, 2, 13, Fit::First), 10);
        assert_eq!(choose_gap(&occupied, 3, 13, Fit::First), 13);
    }
}
