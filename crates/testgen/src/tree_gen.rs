//! Large kernel trees for benchmarks and tests: many files, each one `@pl.program` from
//! [`crate::synth`], with sizes and shapes varied per file. Pure and seeded: the same
//! [`TreeConfig`] always gives the same paths and bytes.

use std::path::PathBuf;

use crate::synth::{SynthConfig, program_text};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeConfig {
    pub files: usize,
    /// Functions per file: `functions - 1` InCore kernels plus an Orchestration `main`
    /// (a single kernel when 1).
    pub functions: usize,
    /// Tile definitions per kernel are drawn uniformly from this range, per file.
    pub tiles: std::ops::RangeInclusive<usize>,
    pub seed: u64,
}

impl Default for TreeConfig {
    /// The default mix: kernels of 4–32 tiles (the bundled real kernels have 5–31), a bound
    /// of 4–10 live tiles, control flow in nine files of ten.
    fn default() -> TreeConfig {
        TreeConfig {
            files: 1000,
            functions: 20,
            tiles: 4..=32,
            seed: 0,
        }
    }
}

/// One generated file: its path relative to the tree root, and its text.
pub fn generate(cfg: &TreeConfig) -> impl Iterator<Item = (PathBuf, String)> + '_ {
    (0..cfg.files).map(move |index| {
        let mut rng = cfg.seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut draw = |n: usize| {
            rng = splitmix(rng);
            (rng % n.max(1) as u64) as usize
        };
        let span = cfg.tiles.end().saturating_sub(*cfg.tiles.start()) + 1;
        let synth = SynthConfig {
            functions: if cfg.functions <= 1 {
                1
            } else {
                cfg.functions - 1
            },
            tiles_per_function: cfg.tiles.start() + draw(span),
            max_live: Some(4 + draw(7)),
            seed: cfg.seed.wrapping_add(index as u64),
            control_flow: draw(10) != 0,
        };
        let name = format!("Kernel{index:04}");
        // Dumps sit one kernel per directory, as PyPTO writes them, 100 kernels per group.
        let path = PathBuf::from(format!(
            "g{:02}/k{index:04}/31_after_InitMemRef.py",
            index / 100
        ));
        (path, program_text(&name, &synth))
    })
}

fn splitmix(state: u64) -> u64 {
    let mut z = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
