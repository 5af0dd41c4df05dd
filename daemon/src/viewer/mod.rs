//! The memory viewer (`memreuse view`, `plan --emit html`): the page, its data, and the
//! page's static files, embedded in the binary.
//!
//! - [`data`]: one JSON document per function, and the list of files and functions.
//! - [`page`]: the HTML page, served by the daemon or written with its data embedded.

pub mod data;
pub mod page;
