//! The packer's buffer index: for a span of statements, which buffers surely hold a member
//! live somewhere in it (rules §6.3's first fit stays exact because a candidate skips only
//! buffers its lifetime gate would reject anyway).
//!
//! Statements are cut into fine blocks of `FINE` statements, and fine blocks into coarse
//! blocks of `COARSE`. Per 64 buffers (one bit each) and per block the index records which
//! buffers have a member live somewhere in the block (`touched`) and which have one member
//! live throughout it (`covered`). A span surely meets a buffer when a member covers one of
//! the span's two end blocks or touches a block strictly inside the span; a member that only
//! touches an end block may lie outside the span, so that buffer stays plausible and the
//! packer checks it exactly. Coarse blocks answer the inside of long spans in fewer words.
//! Memory is two words per fine block and one per coarse block, per 64 buffers.
//!
//! An interval `(def, last)` occupies the statements `def..last`: two intervals overlap
//! (rules §5.6, touching is not overlapping) exactly when those ranges meet, unless one is
//! empty. An empty member (`def == last`) is not recorded. An empty candidate overlaps the
//! members whose range holds its statement past their first one, which a member covering the
//! candidate's block does unless the statement opens the block.

/// Statements per fine block.
const FINE: u32 = 16;
/// Fine blocks per coarse block.
const COARSE: usize = 16;

#[derive(Debug)]
pub struct Occupancy {
    fine_blocks: usize,
    coarse_blocks: usize,
    /// Buffers `64 * g .. 64 * g + 64` in group `g`.
    groups: Vec<BufferGroup>,
    buffer_count: usize,
}

#[derive(Debug)]
struct BufferGroup {
    /// Per fine block: buffers with a member live somewhere in it.
    touched: Vec<u64>,
    /// Per fine block: buffers with one member live throughout it.
    covered: Vec<u64>,
    /// Per coarse block: buffers with a member live somewhere in it.
    coarse_touched: Vec<u64>,
    /// Buffers that exist and no candidate may join (declared allocations).
    closed: u64,
    /// Buffers that exist.
    present: u64,
}

impl Occupancy {
    /// An index for intervals whose `last` is at most `last_statement`.
    pub fn new(last_statement: u32) -> Occupancy {
        let fine_blocks = (last_statement / FINE) as usize + 1;
        Occupancy {
            fine_blocks,
            coarse_blocks: fine_blocks.div_ceil(COARSE),
            groups: Vec::new(),
            buffer_count: 0,
        }
    }

    /// Registers the next buffer (buffers are numbered in creation order).
    pub fn push_buffer(&mut self, closed: bool) {
        let (group, bit) = split(self.buffer_count);
        if group == self.groups.len() {
            self.groups.push(BufferGroup {
                touched: vec![0; self.fine_blocks],
                covered: vec![0; self.fine_blocks],
                coarse_touched: vec![0; self.coarse_blocks],
                closed: 0,
                present: 0,
            });
        }
        let g = &mut self.groups[group];
        g.present |= bit;
        if closed {
            g.closed |= bit;
        }
        self.buffer_count += 1;
    }

    /// Records that `buffer` has a member with interval `(def, last)`.
    pub fn add_member(&mut self, buffer: usize, def: u32, last: u32) {
        let Some(occupied_to) = last_occupied(def, last) else {
            return;
        };
        let (group, bit) = split(buffer);
        let g = &mut self.groups[group];
        let (first, end) = ((def / FINE) as usize, (occupied_to / FINE) as usize);
        for word in &mut g.touched[first..=end] {
            *word |= bit;
        }
        // Fine blocks `c` with `c * FINE >= def` and `(c + 1) * FINE <= last`.
        let covered_from = def.div_ceil(FINE) as usize;
        let covered_to = (last / FINE) as usize;
        for word in g
            .covered
            .get_mut(covered_from..covered_to)
            .unwrap_or(&mut [])
        {
            *word |= bit;
        }
        for word in &mut g.coarse_touched[first / COARSE..=end / COARSE] {
            *word |= bit;
        }
    }

    /// How many groups of 64 buffers exist.
    pub fn group_count(&self) -> usize {
        self.groups.len()
    }

    /// The buffers of `group` (bit `k` is buffer `64 * group + k`) that exist and are open.
    pub fn open(&self, group: usize) -> u64 {
        let g = &self.groups[group];
        g.present & !g.closed
    }

    /// The open buffers of `group` that may have no member overlapping interval `(def, last)`.
    pub fn plausible(&self, group: usize, def: u32, last: u32) -> u64 {
        self.open(group) & !self.surely_busy(group, def, last)
    }

    /// The buffers of `group` with a member that surely overlaps interval `(def, last)`.
    fn surely_busy(&self, group: usize, def: u32, last: u32) -> u64 {
        let g = &self.groups[group];
        let Some(occupied_to) = last_occupied(def, last) else {
            let inside_a_block = !def.is_multiple_of(FINE);
            return if inside_a_block {
                g.covered[(def / FINE) as usize]
            } else {
                0
            };
        };
        let (first, end) = ((def / FINE) as usize, (occupied_to / FINE) as usize);
        let mut busy = g.covered[first] | g.covered[end];
        if end > first + 1 {
            busy |= g.touched_within(first + 1, end - 1);
        }
        busy
    }
}

impl BufferGroup {
    /// The union of `touched` over fine blocks `lo..=hi`, whole coarse blocks read at once.
    fn touched_within(&self, lo: usize, hi: usize) -> u64 {
        let coarse_from = lo.div_ceil(COARSE);
        let coarse_to = (hi + 1) / COARSE;
        if coarse_from >= coarse_to {
            return or_all(&self.touched[lo..=hi]);
        }
        or_all(&self.touched[lo..coarse_from * COARSE])
            | or_all(&self.coarse_touched[coarse_from..coarse_to])
            | or_all(&self.touched[coarse_to * COARSE..=hi])
    }
}

/// The last statement interval `(def, last)` occupies, or `None` when it occupies none.
fn last_occupied(def: u32, last: u32) -> Option<u32> {
    last.checked_sub(1).filter(|&l| l >= def)
}

fn or_all(words: &[u64]) -> u64 {
    words.iter().fold(0, |acc, w| acc | w)
}

/// A buffer's group and its bit within the group.
fn split(buffer: usize) -> (usize, u64) {
    (buffer / 64, 1 << (buffer % 64))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::analysis::lifetimes::overlaps;

    fn block(s: u32) -> u32 {
        s / FINE
    }

    /// The rule the index implements, read off the members directly: over the statements
    /// each interval occupies, a member covers one of the candidate's end blocks, or touches
    /// a fine block strictly between them.
    fn surely_busy_by_rule(members: &[(u32, u32)], def: u32, last: u32) -> bool {
        let covers = |(d, l): (u32, u32), b: u32| d <= b * FINE && l >= (b + 1) * FINE;
        let mut members = members.iter().copied().filter(|&(d, l)| l > d);
        if last <= def {
            return !def.is_multiple_of(FINE) && members.any(|m| covers(m, block(def)));
        }
        let (first, end) = (block(def), block(last - 1));
        members.any(|(d, l)| {
            let covers = |b: u32| covers((d, l), b);
            covers(first)
                || covers(end)
                || (first + 1..end).any(|b| block(d) <= b && b <= block(l - 1))
        })
    }

    proptest! {
        /// The index answers exactly its rule, and the rule never calls a buffer busy when
        /// none of its members overlaps the span (so skipping it keeps first fit exact).
        #[test]
        fn surely_busy_is_the_rule_and_sound(
            buffers in proptest::collection::vec(
                proptest::collection::vec((0u32..700, 0u32..300), 0..5), 1..140),
            closed in proptest::collection::vec(any::<bool>(), 140),
            query in (0u32..700, 0u32..300),
        ) {
            let last_statement = 1000;
            let members: Vec<Vec<(u32, u32)>> = buffers
                .iter()
                .map(|ms| ms.iter().map(|&(d, len)| (d, d + len)).collect())
                .collect();
            let mut index = Occupancy::new(last_statement);
            for (b, ms) in members.iter().enumerate() {
                index.push_buffer(closed[b]);
                for &(d, l) in ms {
                    index.add_member(b, d, l);
                }
            }
            let (def, last) = (query.0, query.0 + query.1);
            for (b, ms) in members.iter().enumerate() {
                let (group, bit) = split(b);
                let busy = index.surely_busy(group, def, last) & bit != 0;
                prop_assert_eq!(busy, surely_busy_by_rule(ms, def, last));
                if busy {
                    prop_assert!(ms.iter().any(|&m| overlaps(m, (def, last))));
                }
                let plausible = index.plausible(group, def, last) & bit != 0;
                prop_assert_eq!(plausible, !busy && !closed[b]);
            }
            let beyond = members.len();
            let (group, bit) = split(beyond);
            if group < index.group_count() {
                prop_assert_eq!(index.open(group) & bit, 0);
            }
        }
    }

    #[test]
    fn long_spans_see_members_through_coarse_blocks() {
        let mut index = Occupancy::new(10_000);
        index.push_buffer(false);
        index.push_buffer(false);
        index.add_member(0, 5_000, 5_002);
        index.add_member(1, 9_000, 10_000);
        assert_eq!(index.plausible(0, 0, 9_998), 0);
        assert_eq!(index.plausible(0, 0, 4_000), 0b11);
        // Member 0 only touches the candidate's first block, member 1 starts after it ends.
        assert_eq!(index.plausible(0, 5_001, 8_990), 0b11);
        // An empty candidate meets a covering member unless it opens the block.
        assert_eq!(index.plausible(0, 9_601, 9_601), 0b01);
        assert_eq!(index.plausible(0, 9_600, 9_600), 0b11);
        // Empty members never make a buffer busy.
        assert_eq!(index.plausible(0, 5_001, 5_001), 0b11);
        index.add_member(0, 7_000, 7_000);
        assert_eq!(index.plausible(0, 6_000, 8_000), 0b11);
    }
}
