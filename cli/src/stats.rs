//! `memreuse stats`: the cache's size and what the last run did with it.

use std::process::ExitCode;

use anyhow::Result;
use serde_json::json;

use crate::state::{LastRun, open_store, state_dir};

#[derive(clap::Args)]
pub struct StatsArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: StatsArgs, state_dir_flag: Option<&std::path::Path>) -> Result<ExitCode> {
    let dir = state_dir(state_dir_flag)?;
    let Some(open) = open_store(&dir)? else {
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
    if args.json {
        let document = json!({
            "state_dir": dir.display().to_string(),
            "entries": stats.entries,
            "bytes_on_disk": stats.bytes_on_disk,
            "last_run": last,
        });
        println!("{}", serde_json::to_string_pretty(&document)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!("state dir:     {}", dir.display());
    println!("entries:       {}", stats.entries);
    println!("bytes on disk: {}", stats.bytes_on_disk);
    match last {
        None => println!("last run:      none recorded"),
        Some(last) => {
            let lookups = last.plan_hits + last.plan_misses;
            let rate = if lookups == 0 {
                0.0
            } else {
                100.0 * last.plan_hits as f64 / lookups as f64
            };
            println!(
                "last run:      {} files, {} functions in {:.3} s",
                last.files, last.functions, last.seconds
            );
            println!(
                "  plans:       {} hits, {} misses ({rate:.1} % hits)",
                last.plan_hits, last.plan_misses
            );
            println!(
                "  files:       {} hits, {} misses; {} values rejected, {} written",
                last.file_hits, last.file_misses, last.rejected, last.written
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
