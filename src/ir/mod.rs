//! The IR front end: the typed model of PyPTO's printed tile IR, its parser and printer.

mod known_ops;
mod lexer;
pub mod model;
pub mod parse;
pub mod print;
pub mod span;

pub use model::*;
pub use parse::{ParseError, has_program, parse_program};
pub use print::{ProgramHeader, canonical_function_bytes, print_function, print_program};
pub use span::{LineCol, LineIndex, Span};
