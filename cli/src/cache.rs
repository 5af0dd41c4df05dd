//! `memreuse cache stats|prune|clear`: the state dir's cache, its size cap and eviction.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};

use crate::exit::Unavailable;
use crate::state;
use crate::summary::human_bytes;

#[derive(clap::Args)]
pub struct CacheArgs {
    #[command(subcommand)]
    pub action: CacheAction,
}

#[derive(clap::Subcommand)]
pub enum CacheAction {
    /// Entries, size on disk and the last run's hits and misses (as `memreuse stats`).
    Stats(crate::stats::StatsArgs),
    /// Evict least-recently-used entries until the cache fits its size cap.
    Prune {
        /// The cap [default: `[cache] max-size` of memreuse.toml, else 1 GiB], e.g. `512 MiB`.
        #[arg(long, value_name = "SIZE", value_parser = crate::settings::parse_size)]
        max_size: Option<u64>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Remove every entry (and the last run's figures).
    Clear,
}

pub fn run(args: CacheArgs, state_dir: Option<&Path>) -> Result<ExitCode> {
    let root = crate::settings::root_here()?;
    let dir = state::state_dir_for(state_dir, &root)?;
    match args.action {
        CacheAction::Stats(stats) => match crate::daemon::stats(stats.json, state_dir)? {
            Some(code) => Ok(code),
            None => crate::stats::run(stats, state_dir),
        },
        CacheAction::Prune { max_size, json } => {
            let cap = match max_size {
                Some(cap) => cap,
                None => crate::settings::cache_cap(&root)?,
            };
            let Some(open) = state::open_store(&dir)? else {
                bail!(in_use(&dir));
            };
            let pruned = open
                .cache
                .prune(cap)
                .with_context(|| format!("cannot prune the cache in {}", dir.display()))?;
            if json {
                let document = serde_json::json!({
                    "cap": cap,
                    "entries_before": pruned.entries_before,
                    "bytes_before": pruned.bytes_before,
                    "removed": pruned.removed,
                    "bytes_removed": pruned.bytes_removed,
                });
                outln!("{}", serde_json::to_string_pretty(&document)?);
                return Ok(ExitCode::SUCCESS);
            }
            outln!(
                "removed {} of {} entries ({} of {}); cap {}",
                pruned.removed,
                pruned.entries_before,
                human_bytes(pruned.bytes_removed),
                human_bytes(pruned.bytes_before),
                human_bytes(cap)
            );
            Ok(ExitCode::SUCCESS)
        }
        CacheAction::Clear => {
            let Some(_lock) = state::lock(&dir)? else {
                bail!(in_use(&dir));
            };
            let store = state::store_dir(&dir);
            let size = dir_size(&store);
            if store.exists() {
                std::fs::remove_dir_all(&store)
                    .with_context(|| format!("cannot remove {}", store.display()))?;
            }
            let _ = std::fs::remove_file(dir.join("last-run.json"));
            outln!(
                "cleared the cache in {} ({})",
                dir.display(),
                human_bytes(size)
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn in_use(dir: &Path) -> Unavailable {
    Unavailable(format!(
        "the cache in {} is in use by a daemon or another memreuse (stop the daemon with \
         `memreuse daemon stop`, or wait, and retry)",
        dir.display()
    ))
}

/// Bytes of the files below `dir`.
fn dir_size(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|entry| match entry.metadata() {
            Ok(meta) if meta.is_dir() => dir_size(&entry.path()),
            Ok(meta) => meta.len(),
            Err(_) => 0,
        })
        .sum()
}
