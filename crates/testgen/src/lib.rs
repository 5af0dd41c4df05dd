//! memreuse-testgen: random PyPTO programs (`synth`) and dump trees (`tree_gen`) for memreuse's
//! property tests, fuzz seeds and benchmarks. A dev-only crate: nothing in the product links it.

pub mod synth;
pub mod tree_gen;
