//! What the daemon's socket side and its viewer share: the server's state (the open
//! connections, the request clock, the stop signal) and the viewer's endpoint. Below both, so
//! neither uses the other's module for it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::{Notify, OnceCell};

use super::shared::Shared;

/// The open connections, and those among them that have not asked anything yet (oldest
/// first), each with what closes it.
#[derive(Default)]
pub struct Connections {
    pub(super) open: AtomicUsize,
    quiet: std::sync::Mutex<std::collections::VecDeque<(u64, Arc<Notify>)>>,
    next: AtomicU64,
}

impl Connections {
    fn quiet(&self) -> std::sync::MutexGuard<'_, std::collections::VecDeque<(u64, Arc<Notify>)>> {
        self.quiet.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn forget_quiet(&self, id: u64) {
        self.quiet().retain(|(other, _)| *other != id);
    }

    /// Registers a connection the accept loop counted open, as quiet until
    /// [`Registered::asked`]; it is counted closed when the registration drops.
    pub(super) fn register(&self) -> Registered<'_> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let close = Arc::new(Notify::new());
        self.quiet().push_back((id, close.clone()));
        Registered {
            connections: self,
            id,
            close,
        }
    }

    /// Closes the oldest connection that has asked nothing; whether there was one.
    pub(super) fn evict(&self) -> bool {
        match self.quiet().pop_front() {
            Some((_, close)) => {
                close.notify_one();
                true
            }
            None => false,
        }
    }
}

/// One open connection of [`Connections`].
pub(super) struct Registered<'a> {
    connections: &'a Connections,
    id: u64,
    close: Arc<Notify>,
}

impl Registered<'_> {
    /// Completes when the connection is evicted (or the server drains).
    pub(super) async fn closed(&self) {
        self.close.notified().await;
    }

    /// The connection has sent a complete request: it is no longer the first to make room.
    pub(super) fn asked(&self) {
        self.connections.forget_quiet(self.id);
    }
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        self.connections.forget_quiet(self.id);
        self.connections.open.fetch_sub(1, Ordering::SeqCst);
    }
}

/// What the accept loop and the connections share.
pub struct Server {
    pub shared: Arc<Shared>,
    /// Notified when a client asks the daemon to stop.
    pub stop: Notify,
    /// Requests being answered now.
    pub busy: AtomicUsize,
    /// Milliseconds since start of the last request, for the idle timeout.
    pub last_request_ms: AtomicU64,
    pub connections: Connections,
    /// Set once the daemon stops accepting: connections then answer what they are asked
    /// within the stop grace (`serve`) and close.
    pub stopping: tokio::sync::watch::Sender<bool>,
    /// The memory viewer's HTTP server, started by the first `view` request.
    pub view: Viewer,
}

impl Server {
    /// Stops the connections (see [`Server::stopping`]) and waits, up to `wait`, for every
    /// one to end.
    pub async fn drain(&self, wait: Duration) {
        self.stopping.send_replace(true);
        while self.connections.evict() {}
        let deadline = tokio::time::Instant::now() + wait;
        while self.connections.open.load(Ordering::SeqCst) > 0
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    pub(super) fn touch(&self) {
        let now = self.shared.started.elapsed().as_millis() as u64;
        self.last_request_ms.store(now, Ordering::Relaxed);
    }

    pub fn idle_for(&self) -> Duration {
        let last = Duration::from_millis(self.last_request_ms.load(Ordering::Relaxed));
        self.shared.started.elapsed().saturating_sub(last)
    }
}

/// Where the viewer listens, once started.
pub struct Endpoint {
    pub port: u16,
    pub token: String,
}

impl Endpoint {
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/?token={}", self.port, self.token)
    }
}

#[derive(Default)]
pub struct Viewer {
    pub(super) endpoint: OnceCell<Arc<Endpoint>>,
    pub(super) streams: AtomicUsize,
    pub(super) connections: Connections,
}
