//! A driver for profiling `parse_program` (callgrind, perf) and for min-of-n timings on a busy
//! machine, over the same synthetic program family as `benches/parse.rs`.
//!
//! `cargo run --release --example profile_parse -- [KERNELS=4] [REPS=1]`; instruction counts:
//! `valgrind --tool=callgrind --toggle-collect='memreuse::ir::parse::parse_program*'
//! target/release/examples/profile_parse 4`

use std::time::{Duration, Instant};

use memreuse::ir::parse_program;
use memreuse_testgen::synth::{SynthConfig, program_text};

fn main() {
    let mut args = std::env::args().skip(1);
    let kernels: usize = args.next().map_or(4, |s| s.parse().expect("KERNELS"));
    let reps: usize = args.next().map_or(1, |s| s.parse().expect("REPS"));
    let text = program_text(
        "ParseBench",
        &SynthConfig {
            functions: kernels,
            tiles_per_function: 1200,
            ..SynthConfig::default()
        },
    );
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps.max(1) {
        let start = Instant::now();
        std::hint::black_box(parse_program(&text).expect("the generated program parses"));
        times.push(start.elapsed());
    }
    times.sort();
    let rate = |d: Duration| text.len() as f64 / d.as_secs_f64() / 1e6;
    let (min, median) = (times[0], times[times.len() / 2]);
    eprintln!(
        "{} bytes: min {min:?} ({:.1} MB/s), median {median:?} ({:.1} MB/s)",
        text.len(),
        rate(min),
        rate(median)
    );
}
