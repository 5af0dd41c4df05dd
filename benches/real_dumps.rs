//! The whole pipeline on PyPTO's real kernel dumps: parse, plan (for each dump's MANIFEST
//! backend, as it was compiled), verify the plan and print it, for every input dump of
//! `../shared/conformance/real` (81 programs, 21 MB) when present, else the subset in
//! `tests/data/real`.
//!
//! `cargo bench --bench real_dumps`

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use memreuse::ir::{Program, parse_program, print_program};
use memreuse::plan::{PlanConfig, plan_program};
use memreuse::verify::{PlanInput, VerifyOptions, verify_plan};
use memreuse_test_support::real_dumps as corpus;

/// Every input dump's text, with the configuration it is planned with (its backend).
fn inputs() -> Vec<(String, PlanConfig)> {
    let (root, dumps) = corpus(Path::new(env!("CARGO_MANIFEST_DIR")));
    eprintln!("{} input dumps from {}", dumps.len(), root.display());
    dumps
        .iter()
        .map(|dump| {
            let text = std::fs::read_to_string(&dump.input).expect("readable dump");
            let config = PlanConfig {
                backend: dump.backend,
                materialize_aliases: false,
                ..PlanConfig::default()
            };
            (text, config)
        })
        .collect()
}

/// Plans and checks one program; the number of checker findings (upstream's unsafe plans).
fn plan_and_verify(program: &Program, config: &PlanConfig) -> (Program, usize) {
    let options = VerifyOptions {
        backend: config.backend,
        ..VerifyOptions::default()
    };
    let (planned, _) = plan_program(program, config).expect("every real program plans");
    let findings = program
        .functions
        .iter()
        .zip(&planned.functions)
        .map(|(input, plan)| verify_plan(&PlanInput::of(input), plan, &options).len())
        .sum();
    (planned, findings)
}

fn real_dumps(c: &mut Criterion) {
    let inputs = inputs();
    let bytes: usize = inputs.iter().map(|(text, _)| text.len()).sum();
    let programs: Vec<(Program, &PlanConfig)> = inputs
        .iter()
        .map(|(t, config)| (parse_program(t).expect("every real dump parses"), config))
        .collect();
    let planned: Vec<Program> = programs
        .iter()
        .map(|(p, config)| plan_and_verify(p, config).0)
        .collect();

    let mut group = c.benchmark_group("real_dumps");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("parse_plan_verify_print", |b| {
        b.iter(|| {
            for (text, config) in &inputs {
                let program = parse_program(black_box(text)).expect("parses");
                let (plan, findings) = plan_and_verify(&program, config);
                black_box((print_program(&plan), findings));
            }
        })
    });
    group.bench_function("parse", |b| {
        b.iter(|| {
            for (text, _) in &inputs {
                black_box(parse_program(black_box(text)).expect("parses"));
            }
        })
    });
    group.bench_function("plan_verify", |b| {
        b.iter(|| {
            for (program, config) in &programs {
                black_box(plan_and_verify(black_box(program), config));
            }
        })
    });
    group.bench_function("print", |b| {
        b.iter(|| {
            for plan in &planned {
                black_box(print_program(black_box(plan)));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, real_dumps);
criterion_main!(benches);
