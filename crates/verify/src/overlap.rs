//! `V003`: no tile is written over bytes that another tile still needs.

use super::liveness::{Liveness, TileFact};
use crate::finding::{Clobber, Finding};
use crate::text::{Tile, Worded, Words, text};
use memreuse_ir::Function;
use memreuse_ir::codes;
use memreuse_ir::diagnostics::Related;
use rustc_hash::FxHashMap;

/// A broken plan can have a conflict for nearly every pair of tiles; past this many findings
/// the rest of the function is summarised in one line.
const MAX_REPORTED: usize = 100;

/// Tiles can only share bytes of one base; with addressed MemRefs (absolute offsets), bytes of
/// one memory space.
pub(super) fn check(f: &Function, live: &Liveness, addressed: bool) -> Vec<Finding> {
    let tiles = &live.tiles;
    fn region(t: &TileFact, addressed: bool) -> (memreuse_ir::MemSpace, &str) {
        (t.space, if addressed { "" } else { t.base.as_str() })
    }
    let region = |t| region(t, addressed);
    // Tiles by region (in the regions' order), then definition: one integer key per tile, so
    // the sort compares no base names (the few distinct regions are ranked once).
    // Sized for a region per tile: growing the table would rehash every base name.
    let mut first_seen: FxHashMap<(memreuse_ir::MemSpace, &str), u32> =
        FxHashMap::with_capacity_and_hasher(tiles.len(), Default::default());
    // Consecutive tiles mostly share a region: compare with the last one before hashing.
    let mut last: Option<((memreuse_ir::MemSpace, &str), u32)> = None;
    let ids: Vec<u32> = tiles
        .iter()
        .map(|t| {
            let key = region(t);
            if let Some((last_key, id)) = last
                && last_key == key
            {
                return id;
            }
            let next = first_seen.len() as u32;
            let id = *first_seen.entry(key).or_insert(next);
            last = Some((key, id));
            id
        })
        .collect();
    let mut ranked: Vec<((memreuse_ir::MemSpace, &str), u32)> = first_seen.into_iter().collect();
    ranked.sort_unstable();
    let mut rank_of_id = vec![0u64; ranked.len()];
    for (rank, &(_, id)) in ranked.iter().enumerate() {
        rank_of_id[id as usize] = rank as u64;
    }
    let mut keyed: Vec<(u64, u32)> = tiles
        .iter()
        .zip(&ids)
        .enumerate()
        .map(|(i, (t, &id))| ((rank_of_id[id as usize] << 32) | u64::from(t.def), i as u32))
        .collect();
    keyed.sort_unstable();
    let order: Vec<u32> = keyed.into_iter().map(|(_, t)| t).collect();
    let tile = |t: u32| &tiles[t as usize];
    let mut out = Vec::new();
    // Tiles of the current region that are still read after the current step.
    let mut live_now: Vec<u32> = Vec::new();
    for same_base in order.chunk_by(|&a, &b| ids[a as usize] == ids[b as usize]) {
        live_now.clear();
        for same_def in same_base.chunk_by(|&a, &b| tile(a).def == tile(b).def) {
            let step = tile(same_def[0]).def;
            live_now.retain(|&v| tile(v).last > step);
            live_now.extend(same_def.iter().filter(|&&v| tile(v).last > step));
            for &w in same_def.iter().filter(|&&w| tile(w).writes) {
                let writer = tile(w);
                for &v in &live_now {
                    let victim = tile(v);
                    if victim.value == writer.value || !victim.bytes.intersects(writer.bytes) {
                        continue;
                    }
                    let Some(read) = live.clobbered_read(victim, writer) else {
                        continue;
                    };
                    if out.len() == MAX_REPORTED {
                        let more = Worded::error(
                            codes::CO_LIVE_OVERLAP,
                            format!(
                                "more co-live tiles share bytes in function '{}'; only the first {MAX_REPORTED} are reported",
                                f.name
                            ),
                            f.span,
                        );
                        out.push(Finding::new(more, None));
                        return out;
                    }
                    let (v, w) = (Tile(victim.var), Tile(writer.var));
                    let mut worded = Worded::error(
                        codes::CO_LIVE_OVERLAP,
                        text![
                            "tiles ",
                            v,
                            " and ",
                            w,
                            format!(" share bytes of '{}' while both are live: ", writer.base),
                            w,
                            format!(" ({}) is written here, and ", writer.bytes),
                            v,
                            format!(" ({}) is read again after it", victim.bytes),
                        ],
                        writer.site,
                    )
                    .with_hint(text![
                        w,
                        " may take bytes of ",
                        v,
                        " only from the last read of ",
                        v,
                        " on"
                    ]);
                    worded.related = vec![
                        Related {
                            span: victim.site,
                            message: text![v, " is defined here"],
                        },
                        Related {
                            span: read,
                            message: text![v, " is read here after ", w, " is written"],
                        },
                    ];
                    let clobber = Clobber {
                        victim: victim.var,
                        writer: writer.var,
                    };
                    out.push(Finding::new(worded, Some(clobber)));
                }
            }
        }
    }
    out
}
