//! The bundled example kernels and generated programs parse, and print back byte for byte.

use std::path::{Path, PathBuf};

use memreuse::ir::{parse_program, print_program};
use memreuse_testgen::synth::{SynthConfig, program_text};

fn kernel_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/kernels");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("examples/kernels exists")
        .map(|entry| entry.expect("readable entry").path())
        .filter(|dir| dir.is_dir())
        .map(|dir| dir.join("31_after_InitMemRef.py"))
        .collect();
    files.sort();
    files
}

fn assert_round_trips(text: &str, what: &str) {
    let program = parse_program(text).unwrap_or_else(|e| panic!("{what} does not parse: {e:?}"));
    let printed = print_program(&program);
    if printed != text {
        let line = printed
            .lines()
            .zip(text.lines())
            .position(|(a, b)| a != b)
            .map_or(0, |i| i + 1);
        panic!("{what} does not print back unchanged (first difference on line {line})");
    }
}

#[test]
fn example_kernels_round_trip() {
    let files = kernel_files();
    assert!(files.len() >= 15, "only {} example kernels", files.len());
    for path in files {
        let text = std::fs::read_to_string(&path).expect("readable kernel");
        assert_round_trips(&text, &path.display().to_string());
    }
}

#[test]
fn generated_programs_round_trip() {
    for seed in 0..8 {
        for (max_live, control_flow) in [(Some(6), true), (None, true), (Some(4), false)] {
            let cfg = SynthConfig {
                functions: 2,
                tiles_per_function: 300,
                max_live,
                seed,
                control_flow,
            };
            let what = format!("generated program {cfg:?}");
            assert_round_trips(&program_text("Synth", &cfg), &what);
        }
    }
}
