//! The memory viewer (`memreuse view`, `plan --emit html`): the page, its data, and the
//! page's static files, embedded in the binary.
//!
//! - [`data`]: one JSON document per function, and the list of files and functions, built
//!   from what the other outputs use: the file's outcomes (the reports `--emit json`
//!   prints), `svg::tiles` (the SVG's tiles), the report's live bytes (the planner's one
//!   definition, whose peak is the lower bound),
//!   `json::diagnostic_json`, and `analysis::lifetimes::statement_map` (the lifetimes' own
//!   numbering, run with a recorder: each statement's span, the loops and the `if` arms),
//!   which puts source lines on the x axis. A repaired plan's lifetimes number the input as
//!   the repairs left it (a `tile.alloc` per new buffer, the moves feeding it), so its map is
//!   taken of `repair::repaired_input`. The exact and offset plans are planned on request
//!   (`data::plan_variants`, through the store); the daemon's own plan comes first.
//! - [`page`]: the HTML page (`viewer/web/`: plain JavaScript and SVG, no build step, nothing
//!   loaded from elsewhere), served by the daemon or written with its data embedded.
//!
//! The HTTP side is the daemon's `server::view`: a token- and Host-checked, read-only HTTP/1.1 server on
//! 127.0.0.1 on the daemon's runtime, reading through `Shared::read` on the blocking pool
//! like queries; each published revision becomes a server-sent event, and the page asks
//! again for what it shows, keeping its selection by name. Routes and documents:
//! `docs/viewer.md`.

pub mod data;
pub mod page;
