//! `V001`/`V002`: every on-chip tile names a surviving alloc and fits inside it.

use rustc_hash::{FxHashMap, FxHashSet};

use super::liveness::{Bytes, Liveness, TileFact, var};
use crate::options::VerifyOptions;
use crate::text::{Text, Tile, Worded, Words, text};
use memreuse_ir::codes;
use memreuse_ir::{Expr, Function, MemSpace, Name, Stmt, StmtKind, Type};

/// The on-chip bases tiles of `f` sit on that no alloc of `f` defines.
pub(super) fn bases_without_alloc(f: &Function) -> FxHashSet<Name> {
    let allocs = allocs_of(f);
    f.vars
        .iter()
        .filter_map(|(_, v)| match &v.ty {
            Some(Type::Tile(tile)) if tile.space != Some(MemSpace::Ddr) => tile.memref.as_ref(),
            _ => None,
        })
        .filter(|memref| !allocs.contains_key(memref.base.as_str()))
        .map(|memref| memref.base.clone())
        .collect()
}

/// `allocless`: bases the input already used without an alloc, which are not removed allocs.
pub(super) fn check(
    f: &Function,
    live: &Liveness,
    opts: &VerifyOptions,
    allocless: &FxHashSet<Name>,
) -> Vec<Worded> {
    let allocs = allocs_of(f);
    let mut out = Vec::new();
    let mut missing: FxHashMap<&Name, Vec<&TileFact>> = FxHashMap::default();
    // Each tile's alloc size, looked up once for both checks.
    let alloc_sizes: Vec<Option<Option<i64>>> = live
        .tiles
        .iter()
        .map(|tile| allocs.get(tile.base.as_str()).copied())
        .collect();
    for (tile, alloc) in live.tiles.iter().zip(&alloc_sizes) {
        if alloc.is_none() && !allocless.contains(&tile.base) {
            missing.entry(&tile.base).or_default().push(tile);
        }
    }
    let mut missing: Vec<_> = missing.into_iter().collect();
    missing.sort_by_key(|(_, tiles)| tiles[0].def);
    for (base, tiles) in missing {
        let shown = tiles.len().min(4);
        let mut subject = Text::from(if shown == 1 { "tile " } else { "tiles " });
        for (k, tile) in tiles[..shown].iter().enumerate() {
            if k > 0 {
                subject = subject.then(", ");
            }
            subject = subject.then(text![Tile(tile.var)]);
        }
        if tiles.len() > shown {
            subject = subject.then(format!(", {} more", tiles.len() - shown));
        }
        let verb = if shown == 1 && tiles.len() == 1 {
            " is"
        } else {
            " are"
        };
        out.push(
            Worded::error(
                codes::MEMREF_WITHOUT_ALLOC,
                subject.then(format!(
                    "{verb} placed on '{base}', which no `tile.alloc` in function '{}' defines",
                    f.name
                )),
                tiles[0].site,
            )
            .with_hint("an alloc was removed while a tile still uses its base; keep the alloc or move the tile"),
        );
    }
    // With absolute addresses a base's window starts at its lowest tile address (rules §8).
    let mut window_start: FxHashMap<&Name, i64> = FxHashMap::default();
    if opts.addressed() {
        for tile in &live.tiles {
            if let Bytes::Known { start, .. } = tile.bytes {
                let lowest = window_start.entry(&tile.base).or_insert(start);
                *lowest = (*lowest).min(start);
            }
        }
    }
    for (tile, alloc) in live.tiles.iter().zip(&alloc_sizes) {
        let (false, Some(Some(alloc_size)), Bytes::Known { start, end }) =
            (tile.inherited, alloc, tile.bytes)
        else {
            continue;
        };
        let window = window_start.get(&tile.base).copied().unwrap_or(0);
        if start < window || end > window.saturating_add(*alloc_size) {
            let place = if opts.addressed() {
                format!(
                    "the window [{window}, {}) of '{}'",
                    window.saturating_add(*alloc_size),
                    tile.base
                )
            } else {
                format!("'{}', which has {alloc_size} bytes", tile.base)
            };
            out.push(
                Worded::error(
                    codes::MEMREF_OUTSIDE_ALLOC,
                    text![
                        "tile ",
                        Tile(tile.var),
                        format!(" covers {}, outside {place}", tile.bytes)
                    ],
                    tile.site,
                )
                .with_hint(
                    "a tile's MemRef must lie inside its alloc: grow the alloc or move the tile",
                ),
            );
        }
    }
    out
}

/// [`collect_allocs`] over the whole body.
fn allocs_of(f: &Function) -> FxHashMap<&str, Option<i64>> {
    // Allocs sit mostly at the top level: room for one per statement there, so the table
    // does not grow (and rehash every name) on the way.
    let mut allocs = FxHashMap::with_capacity_and_hasher(f.body.len(), Default::default());
    collect_allocs(f, &f.body, &mut allocs);
    allocs
}

/// Bases defined by a `tile.alloc`/`tensor.alloc` anywhere in the body, with their constant size.
fn collect_allocs<'f>(
    f: &'f Function,
    body: &'f [Stmt],
    out: &mut FxHashMap<&'f str, Option<i64>>,
) {
    for stmt in body {
        match &stmt.kind {
            StmtKind::Assign { target, value } => {
                if value.is_alloc_call()
                    && let Some(call) = value.as_call()
                    && let Some(v) = var(f, *target)
                {
                    let size = call.args.get(1).and_then(Expr::as_const_int);
                    out.insert(v.name.as_str(), size);
                }
            }
            StmtKind::For(for_stmt) => collect_allocs(f, &for_stmt.body, out),
            StmtKind::If(if_stmt) => {
                collect_allocs(f, &if_stmt.then_body, out);
                if let Some(else_body) = &if_stmt.else_body {
                    collect_allocs(f, else_body, out);
                }
            }
            StmtKind::With(with) => collect_allocs(f, &with.body, out),
            StmtKind::Eval(_)
            | StmtKind::Yield { .. }
            | StmtKind::Return { .. }
            | StmtKind::Pass => {}
        }
    }
}
