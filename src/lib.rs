//! memreuse: plans on-chip memory reuse for PyPTO tile kernels (see ARCHITECTURE.md).
//!
//! This crate is the engine: the salsa database (`db`), the plan cache (`store`, the only
//! module that knows sled) and the reports (`json`, `svg`). It re-exports the pipeline
//! crates under their stage names (checked planning with repair is `repair`: every plan that
//! leaves the tool has passed both checkers) so the binaries and tests see one API.

pub mod db;
pub mod json;
pub mod store;
pub mod svg;
pub mod system;

pub use memreuse_ir as ir;
pub use memreuse_ir::{backend, diagnostics};
pub use memreuse_plan as plan;
pub use memreuse_plan::analysis;
pub use memreuse_repair as repair;
pub use memreuse_solve as solve;
pub use memreuse_verify as verify;
