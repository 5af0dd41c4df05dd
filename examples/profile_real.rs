//! Min-of-n timings of what PyPTO's pass runs, over the real kernel dumps: parse, the safe
//! default (plan, check with both checkers, repair where they reject the plan) and print, for
//! every dump entering MemoryReuse of `../shared/conformance/real` (81 programs), else of the
//! subset in `tests/data/real`, each with its MANIFEST backend. Each round times the three
//! phases of every program back to back; the minimum over rounds of each phase's sum is the
//! figure least disturbed by other load.
//!
//! `cargo run --release --example profile_real -- [ROUNDS=5]`; instruction counts of the safe
//! default, and of its checking (`memreuse_verify::check_plan`) and planning
//! (`memreuse_plan::pipeline::Planning::pypto`) within it:
//! `valgrind --tool=callgrind --toggle-collect='memreuse_repair::plan_program_repairs'
//! target/release/examples/profile_real 1`, then `callgrind_annotate --inclusive=yes`.
//!
//! It allocates with jemalloc, as the `memreuse` binary and the Python extension do.

use std::path::Path;
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

use memreuse::ir::{parse_program, print_program};
use memreuse::plan::PlanConfig;
use memreuse::repair::{plan_program_repairs, verify_options};
use memreuse_test_support::real_dumps;

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .map_or(5, |s| s.parse().expect("ROUNDS"));
    let (root, dumps) = real_dumps(Path::new(env!("CARGO_MANIFEST_DIR")));
    let programs: Vec<(String, PlanConfig)> = dumps
        .iter()
        .map(|dump| {
            let text = std::fs::read_to_string(&dump.input).expect("a readable dump");
            let config = PlanConfig {
                backend: dump.backend,
                ..PlanConfig::default()
            };
            (text, config)
        })
        .collect();
    let bytes: usize = programs.iter().map(|(text, _)| text.len()).sum();
    let mut fastest = [Duration::MAX; 3];
    for _ in 0..rounds {
        let mut phases = [Duration::ZERO; 3];
        for (text, config) in &programs {
            let options = verify_options(config);
            let started = Instant::now();
            let program = parse_program(text).expect("every real dump parses");
            let parsed = Instant::now();
            let planned = plan_program_repairs(&program, config, &options)
                .unwrap_or_else(|(index, err)| panic!("function {index}: {err:?}"));
            let checked = Instant::now();
            std::hint::black_box(print_program(&planned.program));
            phases[0] += parsed - started;
            phases[1] += checked - parsed;
            phases[2] += checked.elapsed();
        }
        for (fastest, phase) in fastest.iter_mut().zip(phases) {
            *fastest = (*fastest).min(phase);
        }
    }
    println!(
        "{} dumps ({:.1} MB) from {}, min of {rounds} rounds: parse {:.2?}, plan and check {:.2?}, print {:.2?}",
        programs.len(),
        bytes as f64 / 1e6,
        root.display(),
        fastest[0],
        fastest[1],
        fastest[2]
    );
}
