//! Criterion benchmark of the DSA planner over the public reference instances
//! (`tests/data/benchmarks/reference_bounds.csv`, or `MEMREUSE_BENCHMARKS`). Prints, once, the
//! table for BENCHMARKS.md: peak against the best known peak and the lower bound.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use memreuse::solve::{Problem, SolveOptions, check_solution, parse_csv, solve};

fn benchmarks_dir() -> PathBuf {
    std::env::var_os("MEMREUSE_BENCHMARKS").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/benchmarks"),
        PathBuf::from,
    )
}

/// `(file, best known peak, problem)` for every reference row.
fn instances() -> Vec<(String, u64, Problem)> {
    let dir = benchmarks_dir();
    let text = std::fs::read_to_string(dir.join("reference_bounds.csv"))
        .expect("reference_bounds.csv (set MEMREUSE_BENCHMARKS)");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    let column = |name: &str| header.iter().position(|c| *c == name).expect(name);
    let (file, best) = (column("file"), column("best_known_peak"));
    lines
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            let csv = std::fs::read_to_string(dir.join(fields[file])).expect("instance file");
            let problem = parse_csv(&csv).expect("valid instance").problem;
            (
                fields[file].to_string(),
                fields[best].parse().expect("best known peak"),
                problem,
            )
        })
        .collect()
}

fn print_table(instances: &[(String, u64, Problem)]) {
    println!("| file | buffers | lower bound | best known | our peak | peak / bound | time |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (file, best_known, problem) in instances {
        let started = Instant::now();
        let solution = solve(problem, &SolveOptions::default()).expect("solvable");
        let elapsed = started.elapsed();
        check_solution(problem, &solution.offsets).expect("valid plan");
        println!(
            "| {file} | {} | {} | {best_known} | {} | {:.4} | {:.0} ms |",
            problem.buffers.len(),
            solution.lower_bound,
            solution.peak,
            solution.peak as f64 / solution.lower_bound as f64,
            elapsed.as_secs_f64() * 1e3,
        );
    }
}

fn bench(c: &mut Criterion) {
    let instances = instances();
    print_table(&instances);
    let mut group = c.benchmark_group("dsa");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    for (file, _, problem) in &instances {
        group.bench_function(file.as_str(), |b| {
            b.iter(|| solve(problem, &SolveOptions::default()).expect("solvable"))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
