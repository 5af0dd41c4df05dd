//! The IR front end: the typed model of PyPTO's printed tile IR, its parser and printer.

pub mod model;
pub mod span;

pub use model::*;
pub use span::{LineCol, LineIndex, Span};
