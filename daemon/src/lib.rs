//! memreused, the memreuse daemon: [`server`] watches a tree, keeps its plans
//! current and serves them (and the viewer's HTTP side, `server::view`). What its clients
//! need to talk to it is `memreuse-daemon-client`, which it uses as they do.
//!
//! This crate and its client are the only ones that know sockets; only this one knows tokio
//! and notify.

pub mod server;
