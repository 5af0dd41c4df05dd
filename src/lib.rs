//! memreuse: plans on-chip memory reuse for PyPTO tile kernels (see ARCHITECTURE.md).

pub mod diagnostics;
pub mod analysis;
pub mod ir;
pub mod verify;
