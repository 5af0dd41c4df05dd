//! memreuse: plans on-chip memory reuse for PyPTO tile kernels (see ARCHITECTURE.md).

pub mod analysis;
pub mod backend;
pub mod diagnostics;
pub mod ir;
pub mod json;
pub mod plan;
pub mod svg;
pub mod synth;
pub mod verify;
