//! memreuse-ir: the typed model of PyPTO's printed tile IR, its lexer, parser and printer,
//! source spans and located diagnostics, the op table (every fact the planner and the checkers
//! know about an op) and the per-backend target rows. Pure: no files, no salsa, no threads.
//! Every other memreuse crate builds on this one.
//!
//! The parser is hand-written (recursive descent over our own lexer): the IR is a small,
//! regular subset of Python that PyPTO prints itself, and this way every node has a span for
//! located diagnostics, names resolve while parsing (the model is lexical SSA), PyPTO's quirks
//! (free symbolic dimensions, `pl.Mem`/`pl.MemorySpace` spellings) are accepted, error codes
//! stay stable, and no general AST has to be converted.

pub mod backend;
pub mod codes;
pub mod diagnostics;
mod lexer;
pub mod model;
mod named;
pub mod ops;
pub mod parse;
pub mod print;
pub mod span;
pub mod walk;

pub use model::*;
pub use named::{BinOp, DType, MemSpace};
pub use parse::{ParseError, has_program, parse_program};
pub use print::{
    ProgramHeader, canonical_function_bytes, print_function, print_program, printed_size_hint,
};
pub use span::{LineCol, LineIndex, Span};
