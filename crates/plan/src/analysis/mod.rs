//! Per-function analyses over the IR: lifetimes, forbid-alias sets and hazards (rules §5, §6.1,
//! §13). Pure: no files, no salsa, no threads.

pub mod body;
pub mod forbid_alias;
pub mod lifetimes;
