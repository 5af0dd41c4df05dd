//! The internal form of a problem: sizes counted in alignment units, time compressed to the
//! elementary intervals ("sections") between lifetime endpoints, and an index that lists the
//! buffers whose lifetimes overlap a given one without materialising every conflicting pair.

use super::problem::Problem;

/// A validated problem with sizes in alignment units (offsets in units are multiples of the
/// alignment in bytes, so alignment disappears from the placement logic).
pub(crate) struct Instance {
    /// First section of each buffer's lifetime.
    pub first_section: Vec<u32>,
    /// One past the last section of each buffer's lifetime.
    pub end_section: Vec<u32>,
    /// Sizes rounded up to whole alignment units.
    pub units: Vec<u64>,
    /// Lifetime lengths in the problem's time unit.
    pub lengths: Vec<u64>,
    /// Extra must-be-disjoint neighbours of each buffer (lifetime overlap not implied).
    pub extra_neighbors: Vec<Vec<u32>>,
    pub section_count: usize,
    /// Buffers ordered by first section, with `first_section` of each in `sorted_firsts`.
    by_first_section: Vec<u32>,
    sorted_firsts: Vec<u32>,
    /// Stabbing tree over sections (a power of two of leaves): node `k` lists, in
    /// `stab_members[stab_starts[k]..stab_starts[k + 1]]`, the buffers whose section range
    /// covers node `k`'s range in the canonical decomposition.
    leaf_base: usize,
    stab_starts: Vec<u32>,
    stab_members: Vec<u32>,
}

impl Instance {
    /// Builds the internal form; `problem` must be valid.
    pub fn new(problem: &Problem) -> Instance {
        let count = problem.buffers.len();
        let mut coordinates: Vec<u64> = problem
            .buffers
            .iter()
            .flat_map(|buffer| [buffer.lower, buffer.upper])
            .collect();
        coordinates.sort_unstable();
        coordinates.dedup();
        let section_of = |time: u64| coordinates.partition_point(|&c| c < time) as u32;
        let first_section: Vec<u32> = problem
            .buffers
            .iter()
            .map(|b| section_of(b.lower))
            .collect();
        let end_section: Vec<u32> = problem
            .buffers
            .iter()
            .map(|b| section_of(b.upper))
            .collect();
        let section_count = coordinates.len().saturating_sub(1);
        let units = problem
            .buffers
            .iter()
            .map(|b| b.size.div_ceil(problem.alignment))
            .collect();
        let lengths = problem.buffers.iter().map(|b| b.upper - b.lower).collect();

        let mut extra_neighbors = vec![Vec::new(); count];
        for &(first, second) in &problem.disjoint_pairs {
            extra_neighbors[first].push(second as u32);
            extra_neighbors[second].push(first as u32);
        }
        for neighbors in &mut extra_neighbors {
            neighbors.sort_unstable();
            neighbors.dedup();
        }

        let mut by_first_section: Vec<u32> = (0..count as u32).collect();
        by_first_section.sort_by_key(|&b| (first_section[b as usize], b));
        let sorted_firsts = by_first_section
            .iter()
            .map(|&b| first_section[b as usize])
            .collect();

        let leaf_base = section_count.max(1).next_power_of_two();
        let mut stab_counts = vec![0u32; 2 * leaf_base + 1];
        for b in 0..count {
            for_each_cover_node(leaf_base, first_section[b], end_section[b], |node| {
                stab_counts[node] += 1;
            });
        }
        let mut stab_starts = vec![0u32; 2 * leaf_base + 1];
        for node in 0..2 * leaf_base {
            stab_starts[node + 1] = stab_starts[node] + stab_counts[node];
        }
        let mut fill = stab_starts.clone();
        let mut stab_members = vec![0u32; stab_starts[2 * leaf_base] as usize];
        for b in 0..count {
            for_each_cover_node(leaf_base, first_section[b], end_section[b], |node| {
                stab_members[fill[node] as usize] = b as u32;
                fill[node] += 1;
            });
        }

        Instance {
            first_section,
            end_section,
            units,
            lengths,
            extra_neighbors,
            section_count,
            by_first_section,
            sorted_firsts,
            leaf_base,
            stab_starts,
            stab_members,
        }
    }

    /// Leaves of the segment trees over sections (a power of two, at least one).
    pub fn leaf_base(&self) -> usize {
        self.leaf_base
    }

    pub fn len(&self) -> usize {
        self.units.len()
    }

    /// Calls `visit` once for every other buffer whose lifetime overlaps `buffer`'s. Cost: the
    /// number of such buffers plus a logarithm.
    pub fn for_each_lifetime_neighbor(&self, buffer: usize, mut visit: impl FnMut(usize)) {
        let first = self.first_section[buffer];
        let end = self.end_section[buffer];
        // Live when `buffer` starts: their section range covers `first`.
        let mut node = self.leaf_base + first as usize;
        while node >= 1 {
            let members = self.stab_starts[node] as usize..self.stab_starts[node + 1] as usize;
            for &other in &self.stab_members[members] {
                if other as usize != buffer {
                    visit(other as usize);
                }
            }
            node /= 2;
        }
        // Start strictly inside `buffer`'s lifetime.
        let from = self.sorted_firsts.partition_point(|&s| s <= first);
        let to = self.sorted_firsts.partition_point(|&s| s < end);
        for &other in &self.by_first_section[from..to] {
            visit(other as usize);
        }
    }

    /// Sum of the unit sizes live in each section.
    pub fn section_loads(&self) -> Vec<u64> {
        let mut delta = vec![0i128; self.section_count + 1];
        for b in 0..self.len() {
            delta[self.first_section[b] as usize] += i128::from(self.units[b]);
            delta[self.end_section[b] as usize] -= i128::from(self.units[b]);
        }
        let mut running = 0i128;
        delta[..self.section_count]
            .iter()
            .map(|d| {
                running += d;
                running as u64
            })
            .collect()
    }

    /// For each buffer, the largest section load over its lifetime.
    pub fn max_load_over_lifetimes(&self, loads: &[u64]) -> Vec<u64> {
        let base = self.leaf_base;
        let mut tree = vec![0u64; 2 * base];
        tree[base..base + loads.len()].copy_from_slice(loads);
        for node in (1..base).rev() {
            tree[node] = tree[2 * node].max(tree[2 * node + 1]);
        }
        (0..self.len())
            .map(|b| {
                let mut best = 0;
                for_each_cover_node(base, self.first_section[b], self.end_section[b], |node| {
                    best = best.max(tree[node]);
                });
                best
            })
            .collect()
    }
}

/// Visits the canonical nodes of a bottom-up segment tree with `leaf_base` leaves covering
/// leaves `[first, end)`.
pub(crate) fn for_each_cover_node(
    leaf_base: usize,
    first: u32,
    end: u32,
    mut visit: impl FnMut(usize),
) {
    let mut low = leaf_base + first as usize;
    let mut high = leaf_base + end as usize;
    while low < high {
        if low & 1 == 1 {
            visit(low);
            low += 1;
        }
        if high & 1 == 1 {
            high -= 1;
            visit(high);
        }
        low /= 2;
        high /= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::Buffer;

    #[test]
    fn lists_exactly_the_lifetime_neighbors() {
        let lifetimes = [(0, 3), (3, 9), (0, 9), (9, 21), (0, 21), (2, 4), (8, 10)];
        let buffers: Vec<Buffer> = lifetimes
            .iter()
            .map(|&(lower, upper)| Buffer {
                lower,
                upper,
                size: 1,
            })
            .collect();
        let instance = Instance::new(&Problem::new(buffers.clone()));
        for b in 0..buffers.len() {
            let mut found = Vec::new();
            instance.for_each_lifetime_neighbor(b, |other| found.push(other));
            found.sort_unstable();
            let expected: Vec<usize> = (0..buffers.len())
                .filter(|&o| o != b && buffers[o].lifetime_overlaps(&buffers[b]))
                .collect();
            assert_eq!(found, expected, "buffer {b}");
        }
    }

    #[test]
    fn loads_follow_the_sections() {
        let buffers = vec![
            Buffer {
                lower: 0,
                upper: 4,
                size: 5,
            },
            Buffer {
                lower: 2,
                upper: 6,
                size: 7,
            },
        ];
        let instance = Instance::new(&Problem::new(buffers).with_alignment(2));
        assert_eq!(instance.units, [3, 4]);
        assert_eq!(instance.section_loads(), [3, 7, 4]);
        assert_eq!(
            instance.max_load_over_lifetimes(&instance.section_loads()),
            [7, 7]
        );
    }
}
