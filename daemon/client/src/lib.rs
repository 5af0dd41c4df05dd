//! What talks to memreused without being it: the wire protocol, the state dir's layout, the
//! client that finds, starts and asks a daemon, the cache a command serves to the commands
//! beside it, and the answers the CLI also computes in-process. No tokio and no notify: the
//! CLI links this crate, not the daemon's server (`memreuse-daemon`).
//!
//! - [`protocol`]: the wire types (plain data, shared with the CLI).
//! - [`state_dir`]: the daemon's files in the state dir, `daemon.json`, the build id.
//! - [`client`]: finding, starting, stopping and asking a daemon.
//! - [`cache_server`]: a command's store, served to the commands beside it while it holds it.
//! - [`answer`]: query and explain answers, shared with the CLI's in-process fallback.

pub mod answer;
pub mod cache_server;
pub mod client;
pub mod protocol;
pub mod state_dir;
