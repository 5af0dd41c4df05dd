//! Memory planners: where each allocation root lives in on-chip memory.

pub mod dsa;
