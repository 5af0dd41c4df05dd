pub mod ir;
pub mod plan;
