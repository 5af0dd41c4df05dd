//! What the daemon's engine does when the configuration changes under a planned tree: a cold
//! plan of a generated tree (20,000 functions by default) on a sled store, then the same tree
//! re-planned after one space's capacity changes, in one process, as the daemon's writer holds
//! its one `Workspace`. Prints both times, their ratio and the resident memory after each.
//!
//! `cargo run --release --example bench_reconfigure -- [FILES] [FUNCTIONS]`; `BENCH_NO_STORE=1`
//! plans without a store, `BENCH_PLANNER=dsa` with the offset planner.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use memreuse::backend::Backend;
use memreuse::db::{FileStatus, Workspace};
use memreuse::ir::MemSpace;
use memreuse::plan::{PlanConfig, Planner};
use memreuse::store::{Cache, SledStore};
use memreuse::system::MemorySystem;
use memreuse_testgen::tree_gen::{TreeConfig, generate};

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>());
    let files = args.next().and_then(Result::ok).unwrap_or(1000);
    let functions = args.next().and_then(Result::ok).unwrap_or(20);
    let tree: Vec<_> = generate(&TreeConfig {
        files,
        functions,
        ..TreeConfig::default()
    })
    .collect();
    let state = tempfile::tempdir().expect("a temporary directory");
    let store = SledStore::open(&state.path().join("cache")).expect("a fresh sled store");
    let planner = match std::env::var("BENCH_PLANNER").as_deref() {
        Ok("dsa") => Planner::Dsa,
        _ => Planner::Pypto,
    };
    let config = PlanConfig {
        backend: Backend::Ascend910B,
        planner,
        ..PlanConfig::default()
    };
    let cache = match std::env::var_os("BENCH_NO_STORE") {
        Some(_) => Cache::disabled(),
        None => Cache::new(Box::new(store)),
    };
    let mut ws = Workspace::with_log(Arc::new(cache), config);
    let sources: Vec<_> = tree
        .iter()
        .map(|(path, text)| ws.set_file(path, text, false))
        .collect();

    let start = Instant::now();
    let planned = plan(&mut ws, &sources);
    let cold = start.elapsed();
    let cold_rss = rss_mb();
    let cold_queries = ws.executed_counts();

    // A capacity change that still fits every plan: the packings of that space run again,
    // everything whose result is unchanged stays memoized.
    let vec = Backend::Ascend910B.capacity(MemSpace::Vec);
    let mut smaller = config;
    smaller.capacity_overrides[MemSpace::Vec as usize] = vec.map(|bytes| bytes - 1024);
    ws.set_settings(smaller);
    let start = Instant::now();
    let replanned = plan(&mut ws, &sources);
    let after_change = start.elapsed();
    let change_queries = ws.executed_counts();

    println!(
        "{files} files, {planned} functions: cold {:.3} s, after a Vec capacity change {:.3} s \
         ({replanned} functions): {:.1}x faster; RSS {cold_rss:.0} MB after the cold plan, {:.0} MB after the change",
        cold.as_secs_f64(),
        after_change.as_secs_f64(),
        cold.as_secs_f64() / after_change.as_secs_f64(),
        rss_mb(),
    );
    println!("queries executed (cold / after the change):");
    for (query, cold) in &cold_queries {
        let after = change_queries
            .iter()
            .find(|(q, _)| q == query)
            .map_or(0, |&(_, n)| n);
        println!("  {query:<16} {cold:>7} {after:>7}");
    }
}

/// Plans every file on one thread (as the daemon's writer does), flushes, and counts the
/// planned functions; any failure stops the benchmark.
fn plan(ws: &mut Workspace, sources: &[memreuse::db::SourceFile]) -> usize {
    let start = Instant::now();
    let outcomes = ws.plan(&MemorySystem::default(), sources, 1, &|| {});
    let planned = start.elapsed();
    ws.flush().expect("the store takes the batch");
    println!(
        "  planned in {:.3} s, flushed in {:.3} s",
        planned.as_secs_f64(),
        (start.elapsed() - planned).as_secs_f64()
    );
    let mut functions = 0;
    for outcome in &outcomes {
        match &*outcome.status {
            FileStatus::Planned { functions: f, .. } => functions += f.len(),
            other => panic!("{}: {other:?}", outcome.path.display()),
        }
    }
    functions
}

/// The process's resident set from `/proc/self/status` (0 where there is none).
fn rss_mb() -> f64 {
    let status = std::fs::read_to_string(Path::new("/proc/self/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}
