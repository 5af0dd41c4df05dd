//! `memreuse stats`: the cache's size and what the last run did with it.

use std::io::Write as _;
use std::process::ExitCode;

use anyhow::Result;
use serde_json::json;

use crate::state::{LastRun, open_store, state_dir_for};

#[derive(clap::Args)]
pub struct StatsArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: StatsArgs, state_dir_flag: Option<&std::path::Path>) -> Result<ExitCode> {
    let dir = state_dir_for(state_dir_flag, &crate::settings::root_here()?)?;
    let opened = open_store(&dir).map_err(|err| crate::exit::Unavailable(format!("{err:#}")))?;
    let Some(open) = opened else {
        eprintln!(
            "error: the cache in {} is in use by another memreuse process",
            dir.display()
        );
        return Ok(ExitCode::from(3));
    };
    let stats = match open.cache.store() {
        Some(store) => store.stats()?,
        None => Default::default(),
    };
    let last = LastRun::load(&dir);
    let mut out = std::io::stdout().lock();
    if args.json {
        let document = json!({
            "state_dir": dir.display().to_string(),
            "entries": stats.entries,
            "bytes_on_disk": stats.bytes_on_disk,
            "last_run": last,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&document)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(out, "state dir:     {}", dir.display())?;
    writeln!(out, "entries:       {}", stats.entries)?;
    writeln!(
        out,
        "on disk:       {}",
        crate::summary::human_bytes(stats.bytes_on_disk)
    )?;
    match last {
        None => writeln!(out, "last run:      none recorded")?,
        Some(last) => {
            let rate = if last.functions == 0 {
                0.0
            } else {
                100.0 * last.cached as f64 / last.functions as f64
            };
            writeln!(
                out,
                "last run:      {} files, {} functions in {:.3} s",
                last.files, last.functions, last.seconds
            )?;
            writeln!(
                out,
                "  functions:   {} hits (from the cache), {} misses (planned); {rate:.1} % hits",
                last.cached, last.planned
            )?;
            let l = &last.lookups;
            writeln!(
                out,
                "  lookups:     files {} hit / {} missed, plans {} hit / {} missed; {} values \
                 rejected, {} written",
                l.file_hits, l.file_misses, l.plan_hits, l.plan_misses, l.rejected, last.written
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
