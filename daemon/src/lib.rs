//! memreused, the memreuse daemon (DESIGN §6), and what its clients need to talk to it.
//!
//! - [`protocol`]: the wire types (plain data, shared with the CLI).
//! - [`layout`]: the daemon's files in the state dir, `daemon.json`, the build id.
//! - [`client`]: finding, starting, stopping and asking a daemon.
//! - [`answer`]: query and explain answers, shared with the CLI's in-process fallback.
//! - [`server`]: the daemon itself (and the viewer's HTTP side, `server::view`).
//! - [`viewer`]: the memory viewer's page and data, shared with `plan --emit html`.
//!
//! This crate is the only one that knows sockets and notify.

pub mod answer;
pub mod client;
pub mod layout;
pub mod protocol;
pub mod server;
pub mod viewer;
