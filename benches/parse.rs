//! Front-end throughput: `parse_program` and `print_program` over a generated ~10 MB program.
//!
//! `cargo bench --bench parse`

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use memreuse::ir::{parse_program, print_program};
use memreuse_testgen::synth::{SynthConfig, program_text};

/// 32 kernels of 1,200 tiles with every statement form: about 10 MB of text.
fn large_program() -> String {
    program_text(
        "ParseBench",
        &SynthConfig {
            functions: 32,
            tiles_per_function: 1200,
            ..SynthConfig::default()
        },
    )
}

fn front_end(c: &mut Criterion) {
    let text = large_program();
    let program = parse_program(&text).expect("the generated program parses");
    let mut group = c.benchmark_group("front_end");
    group.sample_size(20);
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("parse_program", |b| {
        b.iter(|| parse_program(black_box(&text)))
    });
    group.bench_function("print_program", |b| {
        b.iter(|| print_program(black_box(&program)))
    });
    group.finish();
}

criterion_group!(benches, front_end);
criterion_main!(benches);
