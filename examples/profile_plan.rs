//! A driver for profiling planning (callgrind, perf), for min-of-n timings, and for the
//! 64,000/1,000-tile ratio measured with both sizes interleaved, over the same generated
//! functions as `benches/plan.rs`.
//!
//! `cargo run --release --example profile_plan -- [TILES=1000] [bounded|dense] [REPS=1] [ref|owned]`
//! `cargo run --release --example profile_plan -- ratio [ROUNDS=10] [ref|owned]`
//!
//! `ref` times `plan_function(&f)` (clone and drop of the plan included), `owned` times
//! `Planning::once` on an owned input alone. Instruction counts: `valgrind --tool=callgrind
//! --toggle-collect='profile_plan::plan_by_ref'` (or `'profile_plan::plan_owned'`).
//!
//! `ratio` alternates the two sizes in one process (each round: the median of 100 plans of
//! 1,000 tiles, then one plan of 64,000), so both see the same machine: on a shared machine
//! memory-bound work slows down in phases that separate runs would catch in only one size.

use std::sync::Arc;
use std::time::{Duration, Instant};

use memreuse::ir::{Function, parse_program};
use memreuse::plan::{FunctionPlan, PlanConfig, PlanOptions, Planning, plan_function};
use memreuse_testgen::synth::{SynthConfig, program_text};

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    if args.peek().is_some_and(|a| a == "ratio") {
        args.next();
        let rounds: usize = args.next().map_or(10, |s| s.parse().expect("ROUNDS"));
        let owned = args.next().is_some_and(|s| s == "owned");
        return ratio(rounds, owned);
    }
    let tiles: usize = args.next().map_or(1000, |s| s.parse().expect("TILES"));
    let dense = args.next().is_some_and(|s| s == "dense");
    let reps: usize = args.next().map_or(1, |s| s.parse().expect("REPS"));
    let owned = args.next().is_some_and(|s| s == "owned");
    let f = function_of(tiles, if dense { None } else { Some(8) });
    let mut times: Vec<Duration> = (0..reps.max(1)).map(|_| time_plan(&f, owned)).collect();
    times.sort();
    eprintln!("min {:?}, median {:?}", times[0], times[times.len() / 2]);
}

fn ratio(rounds: usize, owned: bool) {
    let (small, large) = (function_of(1_000, Some(8)), function_of(64_000, Some(8)));
    let mut rows = Vec::with_capacity(rounds);
    for _ in 0..rounds.max(1) {
        let mut times: Vec<Duration> = (0..100).map(|_| time_plan(&small, owned)).collect();
        times.sort();
        let small_time = times[times.len() / 2];
        let large_time = time_plan(&large, owned);
        rows.push((
            large_time.as_secs_f64() / small_time.as_secs_f64(),
            small_time,
            large_time,
        ));
    }
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (ratio, small_time, large_time) in &rows {
        eprintln!("{ratio:6.1}x  1k {small_time:?}  64k {large_time:?}");
    }
    let median = rows[rows.len() / 2];
    eprintln!(
        "median ratio {:.1}x (1k {:?}, 64k {:?}), range {:.1}x to {:.1}x",
        median.0,
        median.1,
        median.2,
        rows[0].0,
        rows[rows.len() - 1].0
    );
}

fn function_of(tiles: usize, max_live: Option<usize>) -> Function {
    let text = program_text(
        "Bench",
        &SynthConfig {
            functions: 1,
            tiles_per_function: tiles,
            max_live,
            seed: 7,
            control_flow: false,
        },
    );
    parse_program(&text)
        .expect("generated programs parse")
        .functions
        .into_iter()
        .find(|f| f.name != "main")
        .expect("one kernel")
}

fn time_plan(f: &Function, owned: bool) -> Duration {
    let config = PlanConfig::default();
    if owned {
        let input = f.clone();
        let start = Instant::now();
        let plan = plan_owned(input, &config);
        let elapsed = start.elapsed();
        // The owned path's plan is dropped outside the timing, as in the criterion bench.
        drop(plan);
        elapsed
    } else {
        let start = Instant::now();
        drop(plan_by_ref(f, &config));
        start.elapsed()
    }
}

#[inline(never)]
fn plan_by_ref(f: &Function, config: &PlanConfig) -> FunctionPlan {
    plan_function(f, config, &PlanOptions::default()).expect("plans")
}

#[inline(never)]
fn plan_owned(f: Function, config: &PlanConfig) -> FunctionPlan {
    Planning::once(Arc::new(f), config)
        .plan(&PlanOptions::default())
        .expect("plans")
}
