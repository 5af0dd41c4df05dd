//! Recency in the sled store: which generation last used each entry, kept as records of
//! uses rather than as one mark per entry.
//!
//! A cold run uses every entry it writes, and one sled insert per mark cost it about as much
//! as writing the values (20,000 functions: +0.2 s CPU and +150 MB peak memory, for marks of
//! 41 bytes). So a flush appends its marks as a few records of up to [`ITEMS_PER_RECORD`]
//! uses each, and whoever needs the latest generation of every entry (pruning) merges the
//! records. Once [`RECENT_RECORDS_KEPT`] records have piled up since the last merge, they are
//! merged into compacted records, so neither reading nor storing them grows with the number
//! of runs.
//!
//! The `uses` tree holds, by [`UsesKey`]: the last generation handed out, the compacted
//! records, and the records appended since. Records are only appended, merged and removed
//! under the store's marking lock, so one process is enough to keep their numbers dense.

use std::ops::Bound;

use super::entry::{Key, Kind, LastUses};

/// Uses in one record: 41 KB, well under the size at which sled moves a page out to a file
/// of its own.
const ITEMS_PER_RECORD: usize = 1024;

/// Records appended since the last merge that trigger the next one (about 64 flushes that
/// wrote something, or three cold runs of 20,000 functions).
pub const RECENT_RECORDS_KEPT: u64 = 64;

/// One use: kind, key, generation (big-endian).
const ITEM_LEN: usize = 1 + 32 + 8;

/// A key of the `uses` tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UsesKey {
    /// The last generation handed out (big-endian u64).
    Generation,
    /// A record of the last merge, numbered from 0.
    Compacted(u64),
    /// A record appended since, numbered densely.
    Recent(u64),
}

const GENERATION_TAG: u8 = 0;
const COMPACTED_TAG: u8 = 1;
const RECENT_TAG: u8 = 2;

impl UsesKey {
    pub fn bytes(self) -> Vec<u8> {
        let (tag, number) = match self {
            UsesKey::Generation => return vec![GENERATION_TAG],
            UsesKey::Compacted(n) => (COMPACTED_TAG, n),
            UsesKey::Recent(n) => (RECENT_TAG, n),
        };
        let mut bytes = Vec::with_capacity(9);
        bytes.push(tag);
        bytes.extend_from_slice(&number.to_be_bytes());
        bytes
    }

    pub fn parse(bytes: &[u8]) -> Option<UsesKey> {
        let (&tag, rest) = bytes.split_first()?;
        match (tag, rest.len()) {
            (GENERATION_TAG, 0) => Some(UsesKey::Generation),
            (COMPACTED_TAG, 8) => Some(UsesKey::Compacted(u64::from_be_bytes(
                rest.try_into().ok()?,
            ))),
            (RECENT_TAG, 8) => Some(UsesKey::Recent(u64::from_be_bytes(rest.try_into().ok()?))),
            _ => None,
        }
    }

    /// The range of keys of the records appended since the last merge.
    pub fn recent_range() -> (Bound<Vec<u8>>, Bound<Vec<u8>>) {
        (
            Bound::Included(vec![RECENT_TAG]),
            Bound::Excluded(vec![RECENT_TAG + 1]),
        )
    }
}

pub fn generation_of(value: &[u8]) -> Option<u64> {
    Some(u64::from_be_bytes(value.try_into().ok()?))
}

/// `entries` used by `generation`, as records.
pub fn records<'a>(
    entries: &'a [(Kind, Key)],
    generation: u64,
) -> impl Iterator<Item = Vec<u8>> + 'a {
    entries.chunks(ITEMS_PER_RECORD).map(move |chunk| {
        let mut record = Vec::with_capacity(chunk.len() * ITEM_LEN);
        for (kind, key) in chunk {
            push_item(&mut record, *kind, key, generation);
        }
        record
    })
}

/// The merged uses as records, in key order (so that a merge writes the same bytes for the
/// same uses).
pub fn records_of(uses: &LastUses) -> Vec<Vec<u8>> {
    let mut sorted: Vec<(&(Kind, Key), &u64)> = uses.iter().collect();
    sorted.sort_unstable_by_key(|(entry, _)| **entry);
    sorted
        .chunks(ITEMS_PER_RECORD)
        .map(|chunk| {
            let mut record = Vec::with_capacity(chunk.len() * ITEM_LEN);
            for ((kind, key), generation) in chunk {
                push_item(&mut record, *kind, key, **generation);
            }
            record
        })
        .collect()
}

fn push_item(record: &mut Vec<u8>, kind: Kind, key: &Key, generation: u64) {
    record.push(kind as u8);
    record.extend_from_slice(&key.0);
    record.extend_from_slice(&generation.to_be_bytes());
}

/// Adds a record's uses to `uses`, keeping each entry's latest generation. A record that does
/// not parse is skipped whole: recency only orders pruning, it never decides a result.
pub fn merge_record(uses: &mut LastUses, record: &[u8]) {
    let items = record.chunks_exact(ITEM_LEN);
    if !items.remainder().is_empty() {
        return;
    }
    let mut parsed = Vec::with_capacity(items.len());
    for item in items {
        let Some(kind) = Kind::ALL.into_iter().find(|k| *k as u8 == item[0]) else {
            return;
        };
        let Ok(key) = <[u8; 32]>::try_from(&item[1..33]) else {
            return;
        };
        let Some(generation) = generation_of(&item[33..]) else {
            return;
        };
        parsed.push(((kind, Key(key)), generation));
    }
    for (entry, generation) in parsed {
        let last = uses.entry(entry).or_insert(generation);
        *last = (*last).max(generation);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_and_recent_records_sort_after_the_rest() {
        for key in [
            UsesKey::Generation,
            UsesKey::Compacted(7),
            UsesKey::Recent(u64::MAX),
        ] {
            assert_eq!(UsesKey::parse(&key.bytes()), Some(key));
        }
        assert!(UsesKey::Compacted(u64::MAX).bytes() < UsesKey::Recent(0).bytes());
        assert!(UsesKey::Generation.bytes() < UsesKey::Compacted(0).bytes());
        assert_eq!(UsesKey::parse(&[RECENT_TAG, 1, 2]), None);
    }

    #[test]
    fn merged_records_keep_the_latest_generation_and_skip_damaged_ones() {
        let (a, b) = ((Kind::Plan, Key([1; 32])), (Kind::File, Key([2; 32])));
        let mut uses = LastUses::default();
        for record in records(&[a, b], 5).chain(records(&[a], 3)) {
            merge_record(&mut uses, &record);
        }
        let mut damaged = records(&[b], 9).next().expect("a record");
        damaged.pop();
        merge_record(&mut uses, &damaged);
        let mut unknown_kind = records(&[b], 9).next().expect("a record");
        unknown_kind[0] = 0;
        merge_record(&mut uses, &unknown_kind);
        assert_eq!(uses.get(&a), Some(&5));
        assert_eq!(uses.get(&b), Some(&5));

        let many: Vec<(Kind, Key)> = (0..2 * ITEMS_PER_RECORD + 1)
            .map(|n| (Kind::Plan, Key([(n % 251) as u8; 32])))
            .collect();
        assert_eq!(records(&many, 1).count(), 3);
        let mut merged = LastUses::default();
        for record in records_of(&uses) {
            merge_record(&mut merged, &record);
        }
        assert_eq!(merged, uses);
    }
}
