//! Planning speed (issue "The PYPTO planner"): one generated function of n tiles, for a family
//! whose max-live tile count stays bounded (n = 1,000 … 64,000) and a dense family whose
//! max-live grows with n. Parsing is outside the measurement. `plan_bounded_max_live` goes
//! through `plan_function(&Function)`, so it includes cloning the input and dropping the plan;
//! `plan_owned_bounded_max_live` times `Planning::once` on an owned input alone (clone and drop untimed).

use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use memreuse::ir::parse_program;
use memreuse::plan::{PlanConfig, PlanOptions, Planning, plan_function};
use memreuse_testgen::synth::{SynthConfig, program_text};
use std::sync::Arc;

fn function_of(tiles: usize, max_live: Option<usize>) -> memreuse::ir::Function {
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
    let program = parse_program(&text).expect("generated programs parse");
    program
        .functions
        .into_iter()
        .find(|f| f.name != "main")
        .expect("one kernel")
}

fn bench_plan(c: &mut Criterion) {
    let config = PlanConfig::default();
    let mut bounded = c.benchmark_group("plan_bounded_max_live");
    bounded.sample_size(10);
    for tiles in [1_000, 4_000, 16_000, 64_000] {
        let f = function_of(tiles, Some(8));
        bounded.bench_with_input(BenchmarkId::from_parameter(tiles), &f, |b, f| {
            b.iter(|| plan_function(f, &config, &PlanOptions::default()).expect("plans"))
        });
    }
    bounded.finish();
    let mut owned = c.benchmark_group("plan_owned_bounded_max_live");
    owned.sample_size(10);
    for tiles in [1_000, 4_000, 16_000, 64_000] {
        let f = function_of(tiles, Some(8));
        owned.bench_with_input(BenchmarkId::from_parameter(tiles), &f, |b, f| {
            b.iter_batched(
                || f.clone(),
                |f| {
                    Planning::once(Arc::new(f), &config)
                        .plan(&PlanOptions::default())
                        .expect("plans")
                },
                BatchSize::PerIteration,
            )
        });
    }
    owned.finish();
    let mut dense = c.benchmark_group("plan_dense");
    dense.sample_size(10);
    for tiles in [1_000, 4_000, 16_000, 64_000] {
        let f = function_of(tiles, None);
        dense.bench_with_input(BenchmarkId::from_parameter(tiles), &f, |b, f| {
            b.iter(|| plan_function(f, &config, &PlanOptions::default()).expect("plans"))
        });
    }
    dense.finish();
}

criterion_group!(benches, bench_plan);
criterion_main!(benches);
