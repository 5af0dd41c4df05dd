//! memreuse: plans on-chip memory reuse for PyPTO tile kernels (see ARCHITECTURE.md).

pub mod analysis;
pub mod backend;
pub mod db;
pub mod diagnostics;
pub mod ir;
pub mod json;
pub mod plan;
pub mod repair;
pub mod store;
pub mod svg;
pub mod synth;
pub mod system;
pub mod tree_gen;
pub mod verify;
