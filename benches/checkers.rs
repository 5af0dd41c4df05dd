//! Planning plus both checkers over a corpus (issue 14: ≤ 2.75 µs per tile over the 354
//! programs of `../shared/conformance/generated` that upstream accepts, 16,737 tiles). With
//! that corpus beside the clone it runs there, each program with its MANIFEST backend;
//! otherwise over the bundled `examples/kernels`. Parsing is outside the measurement; each
//! iteration plans and checks every function of every program once. Divide a figure by the
//! tile count printed first to get the time per tile.
//!
//! `plan_checked` is the user's default path (`repair::plan_checked`): plan, check with both
//! checkers, and where they reject the plan repair it and check again, every function once.

use std::fs;
use std::path::{Path, PathBuf};

use criterion::{Criterion, criterion_group, criterion_main};
use memreuse::backend::Backend;
use memreuse::ir::{Function, parse_program};
use memreuse::plan::{PlanConfig, PlanOptions, plan_function};
use memreuse::repair::plan_checked;
use memreuse::verify::{VerifyOptions, check_liveness, check_values};

struct Case {
    functions: Vec<Function>,
    config: PlanConfig,
}

fn shared_corpus() -> Option<(Vec<Case>, usize)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/generated");
    let manifest = fs::read_to_string(dir.join("MANIFEST.tsv")).ok()?;
    let mut cases = Vec::new();
    let mut tiles = 0;
    for row in manifest.lines().skip(1) {
        let cols: Vec<&str> = row.split('\t').collect();
        let [name, backend, _pre, outcome, _error, n_tiles, ..] = cols[..] else {
            continue;
        };
        if outcome != "ok" {
            continue;
        }
        let backend = match backend {
            "950" => Backend::Ascend950,
            "910b" => Backend::Ascend910B,
            _ => Backend::None,
        };
        let text = fs::read_to_string(dir.join(format!("{name}.input.py"))).ok()?;
        let program = parse_program(&text).ok()?;
        tiles += n_tiles.parse::<usize>().unwrap_or(0);
        cases.push(Case {
            functions: program.functions,
            config: PlanConfig {
                backend,
                ..PlanConfig::default()
            },
        });
    }
    Some((cases, tiles))
}

fn bundled_kernels() -> (Vec<Case>, usize) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/kernels");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .expect("examples/kernels exists")
        .filter_map(|e| {
            let dir = e.ok()?.path();
            fs::read_dir(dir).ok()?.find_map(|f| {
                let path = f.ok()?.path();
                path.to_string_lossy()
                    .ends_with("_after_InitMemRef.py")
                    .then_some(path)
            })
        })
        .collect();
    files.sort();
    let mut cases = Vec::new();
    let mut tiles = 0;
    for file in files {
        let text = fs::read_to_string(&file).expect("readable kernel");
        let program = parse_program(&text).expect("bundled kernels parse");
        tiles += program
            .functions
            .iter()
            .map(|f| {
                f.vars
                    .iter()
                    .filter(|(_, v)| v.ty.as_ref().is_some_and(|t| t.as_tile().is_some()))
                    .count()
            })
            .sum::<usize>();
        cases.push(Case {
            functions: program.functions,
            config: PlanConfig::default(),
        });
    }
    (cases, tiles)
}

/// Plans every function and runs the given checkers on each plan; returns the finding count
/// so nothing is optimised away.
fn run(cases: &[Case], liveness: bool, values: bool) -> usize {
    let mut findings = 0;
    for case in cases {
        let options = VerifyOptions {
            backend: case.config.backend,
            ..VerifyOptions::default()
        };
        for f in &case.functions {
            let Ok(planned) = plan_function(f, &case.config, &PlanOptions::default()) else {
                continue;
            };
            if liveness {
                findings += check_liveness(&planned.function, &options).len();
            }
            if values {
                findings += check_values(&planned.function, &options).len();
            }
        }
    }
    findings
}

/// The default path over every function; returns how many got a plan.
fn run_default(cases: &[Case]) -> usize {
    let mut planned = 0;
    for case in cases {
        let options = VerifyOptions {
            backend: case.config.backend,
            ..VerifyOptions::default()
        };
        for f in &case.functions {
            planned += usize::from(plan_checked(f, &case.config, &options).is_ok());
        }
    }
    planned
}

fn bench_checkers(c: &mut Criterion) {
    let (corpus, (cases, tiles)) = match shared_corpus() {
        Some(found) => ("conformance/generated", found),
        None => ("examples/kernels", bundled_kernels()),
    };
    eprintln!(
        "checkers bench: {} programs of {corpus}, {tiles} tiles",
        cases.len()
    );
    let mut group = c.benchmark_group(format!("corpus_{tiles}_tiles"));
    group.sample_size(20);
    group.bench_function("plan", |b| b.iter(|| run(&cases, false, false)));
    group.bench_function("plan_liveness", |b| b.iter(|| run(&cases, true, false)));
    group.bench_function("plan_values", |b| b.iter(|| run(&cases, false, true)));
    group.bench_function("plan_both_checkers", |b| b.iter(|| run(&cases, true, true)));
    group.bench_function("plan_checked", |b| b.iter(|| run_default(&cases)));
    group.finish();
}

criterion_group!(benches, bench_checkers);
criterion_main!(benches);
