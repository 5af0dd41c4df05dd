//! A driver for profiling planning (callgrind, perf) and for min-of-n timings on a busy machine,
//! over the same generated functions as `benches/plan.rs`.
//!
//! `cargo run --release --example profile_plan -- [TILES=1000] [bounded|dense] [REPS=1] [ref|owned]`
//!
//! `ref` times `plan_function(&f)` (clone and drop of the plan included), `owned` times
//! `plan_function_owned` alone. Instruction counts: `valgrind --tool=callgrind
//! --toggle-collect='profile_plan::plan_by_ref'` (or `'profile_plan::plan_owned'`).

use std::time::Instant;

use memreuse::ir::{Function, parse_program};
use memreuse::plan::{FunctionPlan, PlanConfig, plan_function, plan_function_owned};
use memreuse::synth::{SynthConfig, program_text};

fn main() {
    let mut args = std::env::args().skip(1);
    let tiles: usize = args.next().map_or(1000, |s| s.parse().expect("TILES"));
    let dense = args.next().is_some_and(|s| s == "dense");
    let reps: usize = args.next().map_or(1, |s| s.parse().expect("REPS"));
    let owned = args.next().is_some_and(|s| s == "owned");
    let text = program_text(
        "Bench",
        &SynthConfig {
            functions: 1,
            tiles_per_function: tiles,
            max_live: if dense { None } else { Some(8) },
            seed: 7,
            control_flow: false,
        },
    );
    let f = parse_program(&text)
        .expect("generated programs parse")
        .functions
        .into_iter()
        .find(|f| f.name != "main")
        .expect("one kernel");
    let config = PlanConfig::default();
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps.max(1) {
        let input = owned.then(|| f.clone());
        let start = Instant::now();
        match input {
            // The owned path's plan is dropped outside the timing, as in the criterion bench.
            Some(input) => {
                let plan = plan_owned(input, &config);
                times.push(start.elapsed());
                drop(plan);
            }
            None => {
                drop(plan_by_ref(&f, &config));
                times.push(start.elapsed());
            }
        }
    }
    times.sort();
    eprintln!("min {:?}, median {:?}", times[0], times[times.len() / 2]);
}

#[inline(never)]
fn plan_by_ref(f: &Function, config: &PlanConfig) -> FunctionPlan {
    plan_function(f, config).expect("plans")
}

#[inline(never)]
fn plan_owned(f: Function, config: &PlanConfig) -> FunctionPlan {
    plan_function_owned(f, config).expect("plans")
}
