//! A buffer's members ordered by definition, with their last uses: the index the lifetime gate
//! of first-fit packing searches (rules §6.3). Entries live in sorted chunks of bounded length
//! under one sorted array of chunk heads, a two-level B-tree: a search is a binary search over
//! the heads plus one inside a chunk, and an insert moves at most one chunk's entries.

use smallvec::SmallVec;

/// One member: its interval's definition, last use and index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Member {
    pub def: u32,
    pub last: u32,
    pub interval: usize,
}

impl Member {
    /// `(def, interval)` as one integer, so searches compare single words (interval indices
    /// fit in 32 bits: there are fewer intervals than variables, whose ids are `u32`).
    fn key(&self) -> u64 {
        key(self.def, self.interval)
    }
}

fn key(def: u32, interval: usize) -> u64 {
    (u64::from(def) << 32) | interval as u64
}

/// Entries per chunk before it splits in two.
const CHUNK: usize = 64;

/// Most buffers keep fewer members than a chunk holds: their one head and chunk sit inline,
/// so a new buffer allocates no index.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    /// The key of each chunk's first entry, ascending.
    heads: SmallVec<[u64; 1]>,
    /// Non-empty chunks, each sorted by key; all of chunk `c` precede all of chunk `c + 1`.
    chunks: SmallVec<[Vec<Member>; 1]>,
}

impl Timeline {
    pub fn insert(&mut self, member: Member) {
        let key = member.key();
        // The last chunk whose head is at most `key`, or the first chunk.
        let c = self.heads.partition_point(|&h| h <= key).saturating_sub(1);
        let Some(chunk) = self.chunks.get_mut(c) else {
            self.heads.push(key);
            // Most buffers keep a few members: room for them from the start.
            let mut chunk = Vec::with_capacity(8);
            chunk.push(member);
            self.chunks.push(chunk);
            return;
        };
        let at = chunk.partition_point(|m| m.key() < key);
        chunk.insert(at, member);
        self.heads[c] = chunk[0].key();
        if chunk.len() > CHUNK {
            let tail = chunk.split_off(chunk.len() / 2);
            self.heads.insert(c + 1, tail[0].key());
            self.chunks.insert(c + 1, tail);
        }
    }

    /// All members in key order.
    pub fn iter(&self) -> impl Iterator<Item = &Member> {
        self.chunks.iter().flatten()
    }

    /// Members defined before `def`, latest first.
    pub fn defined_before(&self, def: u32) -> impl Iterator<Item = &Member> {
        let bound = key(def, 0);
        let c = self.heads.partition_point(|&h| h < bound);
        self.chunks[..c]
            .iter()
            .rev()
            .enumerate()
            .flat_map(move |(j, chunk)| {
                // Only the latest chunk can hold members at or past the bound.
                let end = if j == 0 {
                    chunk.partition_point(|m| m.key() < bound)
                } else {
                    chunk.len()
                };
                chunk[..end].iter().rev()
            })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// The chunked index answers exactly as an ordered map of the same members.
        #[test]
        fn matches_an_ordered_map(
            members in proptest::collection::vec((0u32..400, 0u32..40), 0..600),
            probes in proptest::collection::vec(0u32..450, 1..20),
        ) {
            let mut timeline = Timeline::default();
            let mut reference = BTreeMap::new();
            for (interval, &(def, length)) in members.iter().enumerate() {
                timeline.insert(Member { def, last: def + length, interval });
                reference.insert((def, interval), def + length);
            }
            let flatten = |(&(def, interval), &last): (&(u32, usize), &u32)| Member { def, last, interval };
            prop_assert_eq!(
                timeline.iter().copied().collect::<Vec<_>>(),
                reference.iter().map(flatten).collect::<Vec<_>>()
            );
            for def in probes {
                prop_assert_eq!(
                    timeline.defined_before(def).copied().collect::<Vec<_>>(),
                    reference.range(..(def, 0)).rev().map(flatten).collect::<Vec<_>>()
                );
            }
        }
    }
}
