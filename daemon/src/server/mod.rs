//! The daemon: one per workspace root.
//!
//! Threads: the tokio runtime (one thread) serves the socket and nothing else; the writer
//! thread owns the salsa database and applies change batches; the batcher thread turns
//! notify's events into batches; reads run on tokio's blocking pool, each on a snapshot.
//!
//! Life: take `daemon.lock` (held until exit: that is the liveness test), open the store,
//! listen on the socket (mode 0600), watch the tree, start the initial scan, write
//! `daemon.json`. Stop on SIGTERM, SIGINT, a `shutdown` request or the idle timeout: stop
//! accepting, let the requests being answered finish, write pending results and flush,
//! remove the socket and `daemon.json`, and release the lock last.
//!
//! - Freshness: a query writes a cookie file in the root and waits until the writer has applied
//!   the batch that holds the cookie's event (inotify keeps one ordered queue, so every change
//!   made before the query is in that batch or an earlier one). The batcher sends a batch at
//!   once when it sees a cookie; otherwise after 20 ms of quiet or 1 s after its first event.
//! - Every event path is re-read and re-hashed; only a changed digest becomes an input change.
//!   A queue overflow, an event without paths, or more than 10,000 events in a batch make a full
//!   rescan (walk, re-read, drop what vanished); the reason is kept for `status`.
//! - Revisions: the writer withdraws the published snapshot, changes inputs (salsa waits for
//!   every clone to drop and cancels their queries), publishes the new snapshot, acknowledges the
//!   batch's cookies, then starts a planner on the changed files. Readers cancelled by a newer
//!   revision start over on it until a 120 s deadline; once cancelled, they count as
//!   *starving*, and the writer holds its next change back (up to 2 s) until they finish, so a
//!   storm of writes delays a read but cannot fail it. Results are written through the store by the planner; a stopped
//!   planner's partial results are flushed too (they are content-keyed).
//! - Trust (`state_dir`): the socket lives in a directory only its user can enter: the state dir
//!   (0700) when `<state dir>/daemon.sock` fits a `sockaddr_un`, else
//!   `$XDG_RUNTIME_DIR/memreuse/` or `<temp dir>/memreuse-<uid>/` (created 0700; a symlink, another
//!   owner or a group/other bit is refused). Before it sends anything, the client checks that
//!   directory and the peer's uid (`SO_PEERCRED`, `getpeereid` elsewhere); a mismatch is an
//!   error that says so, never a daemon to trust or to replace. The daemon runs under umask
//!   077; the CLI creates lock and state files 0600 and the store makes sled's files 0600
//!   after each open and sync.
//! - Connections: at most 512 open; beyond, the connection that has waited longest without
//!   sending a request is closed to make room (if all are being answered, accepting waits). A
//!   connection without a complete request line 10 s after connecting, or 300 s after an
//!   answer, is closed.
//!   The client waits 20 s for the handshake, then reports a daemon that took the connection but
//!   did not answer. The daemon raises its descriptor soft limit to the hard one. The viewer's
//!   port follows the same rule (256 connections, 5 s for a complete request head;
//!   `server/view.rs`).
//! - Reading the tree (`server/read.rs`): only regular files, up to `max_file_bytes` (64 MiB,
//!   `memreuse.toml`), opened `O_NONBLOCK | O_NOFOLLOW` and re-checked on the open descriptor,
//!   so a FIFO, a device, a socket or a symlink swapped in cannot block or flood the writer.
//!   Symlinks are followed only when their target stays inside the root. What is refused (or is
//!   not UTF-8) is kept per path, and a query of it answers that diagnostic (`error: cannot read
//!   PATH: it is a FIFO, not a regular file`), exactly as `memreuse plan` words it.
//! - The build id is a digest of the daemon executable's identity (device, inode, size,
//!   mtime): the client compares it with the binary it would start, and replaces a daemon of
//!   another build or protocol (SIGTERM, then SIGKILL).

mod read;
mod serve;
mod shared;
mod state;
mod tree;
mod view;
mod watch;
mod writer;

use std::fs::File;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use memreuse::db::Workspace;
use memreuse::plan::Planner;
use memreuse::store::{Cache, Reporter, SledStore, StoreEvent};

use memreuse_daemon_client::protocol::PROTOCOL_VERSION;
use memreuse_daemon_client::state_dir::{DaemonInfo, StatePaths, open_lock, write_atomically};

pub use read::MAX_FILE_BYTES;
pub use shared::Overrides;
pub use watch::STORM;

pub struct Options {
    /// The workspace root, canonical.
    pub root: PathBuf,
    /// The state dir, canonical.
    pub state_dir: PathBuf,
    /// What the command line sets over the root's `memreuse.toml`.
    pub overrides: Overrides,
    pub planner: Planner,
    /// Stop after this long without a request; `None`: never.
    pub idle_timeout: Option<Duration>,
    /// How long to wait for `daemon.lock` held by a CLI working in-process.
    pub lock_wait: Duration,
    pub build_id: String,
    pub jobs: usize,
    /// More events than this in one batch make a rescan ([`watch::STORM`] by default).
    pub storm_events: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("a daemon already runs for this state dir (pid {0})")]
    AlreadyRunning(u32),
    #[error("{0} is held by another process (a memreuse command working without the daemon?)")]
    LockBusy(PathBuf),
    #[error("{what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
    #[error("cannot open the cache: {0}")]
    Store(#[from] memreuse::store::StoreError),
    #[error("cannot watch the tree: {0}")]
    Watch(#[from] notify::Error),
    #[error("{0}")]
    Untrusted(#[from] memreuse_daemon_client::state_dir::Untrusted),
    #[error("{0}")]
    ProjectSettings(#[from] memreuse_project::ProjectSettingsError),
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> StartError {
    let what = what.into();
    move |source| StartError::Io { what, source }
}

/// Runs the daemon until it is told to stop.
pub fn run(options: Options) -> Result<(), StartError> {
    let paths = StatePaths::new(&options.state_dir);
    let settings = options.overrides.resolve(&options.root)?;
    let lock = acquire(&paths, options.lock_wait)?;

    // What the store does about damage goes to the log and to `status` (once `shared` is
    // there to hold it).
    let told: Arc<OnceLock<Weak<shared::Shared>>> = Arc::default();
    let early: Arc<Mutex<Vec<String>>> = Arc::default();
    let report: Reporter = {
        let (told, early) = (told.clone(), early.clone());
        Arc::new(
            move |event: &StoreEvent| match told.get().and_then(Weak::upgrade) {
                Some(shared) => shared.record_error(event.to_string()),
                None => {
                    tracing::warn!("{event}");
                    early
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push(event.to_string());
                }
            },
        )
    };
    let store = SledStore::open_or_rebuild(&options.state_dir.join("cache"), report)?;
    let cache = Arc::new(Cache::new(Box::new(store)));

    let listener = bind(&paths)?;
    let started_unix = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let instance = {
        let seed = format!("{} {started_unix} {:?}", std::process::id(), Instant::now());
        blake3::hash(seed.as_bytes()).to_hex()[..16].to_string()
    };
    let tree = tree::Tree::new(&options.root, &options.state_dir);
    let identity = shared::Identity {
        instance: instance.clone(),
        build_id: options.build_id.clone(),
        root: options.root.clone(),
        state_dir: options.state_dir.clone(),
        planner: options.planner,
        overrides: options.overrides.clone(),
    };
    let shared = Arc::new(shared::Shared::new(identity, cache.clone(), tree, settings));

    let _ = told.set(Arc::downgrade(&shared));
    for event in std::mem::take(&mut *early.lock().unwrap_or_else(|p| p.into_inner())) {
        shared.figures().last_error = Some(event);
    }

    let watch = watch::Watch::start(shared.clone(), options.storm_events)?;
    let (work_tx, work_rx) = std::sync::mpsc::channel();
    let workspace = Workspace::new(cache, shared.config());
    let writer = writer::Writer::new(shared.clone(), workspace, options.jobs, work_tx.clone());
    let writer = std::thread::Builder::new()
        .name("writer".into())
        .spawn(move || writer.run(work_rx))
        .map_err(io("cannot start the writer thread"))?;
    let stop_watch = Arc::new(AtomicBool::new(false));
    let batcher = {
        let (tx, stop) = (work_tx.clone(), stop_watch.clone());
        std::thread::Builder::new()
            .name("batcher".into())
            .spawn(move || watch.run(tx, stop))
            .map_err(io("cannot start the watcher thread"))?
    };

    let info = DaemonInfo {
        pid: std::process::id(),
        instance,
        socket: paths.socket.clone(),
        root: options.root.clone(),
        protocol: PROTOCOL_VERSION,
        build_id: options.build_id.clone(),
        started: started_unix,
    };
    let info_bytes = serde_json::to_vec_pretty(&info).unwrap_or_default();
    write_atomically(&paths.info, &info_bytes).map_err(io("cannot write daemon.json"))?;
    tracing::info!(root = %options.root.display(), socket = %paths.socket.display(), "listening");

    let server = Arc::new(state::Server {
        shared: shared.clone(),
        stop: tokio::sync::Notify::new(),
        busy: AtomicUsize::new(0),
        last_request_ms: AtomicU64::new(0),
        connections: state::Connections::default(),
        stopping: tokio::sync::watch::channel(false).0,
        view: state::Viewer::default(),
    });
    let served = serve_until_stopped(listener, server.clone(), options.idle_timeout);

    // Shutdown, in order: no new connections and the answers in progress given (done),
    // stop watching, let the writer write and flush, then remove our files.
    stop_watch.store(true, Ordering::Relaxed);
    let _ = work_tx.send(writer::Work::Shutdown);
    drop(work_tx);
    if batcher.join().is_err() {
        tracing::error!("the watcher thread panicked");
    }
    if writer.join().is_err() {
        tracing::error!("the writer thread panicked");
    }
    let _ = std::fs::remove_file(&paths.socket);
    let _ = std::fs::remove_file(&paths.info);
    // The store must be closed before the lock goes, or the next daemon finds sled locked:
    // wait for the last reads (which hold the store through `shared`) to let go.
    drop(server);
    let deadline = Instant::now() + Duration::from_secs(5);
    while Arc::strong_count(&shared) > 1 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    drop(shared);
    tracing::info!("stopped");
    drop(lock);
    served
}

/// Takes `daemon.lock`, waiting up to `wait` for a CLI that works in-process to finish.
fn acquire(paths: &StatePaths, wait: Duration) -> Result<File, StartError> {
    paths.prepare()?;
    let lock =
        open_lock(&paths.lock).map_err(io(format!("cannot open {}", paths.lock.display())))?;
    let deadline = Instant::now() + wait;
    loop {
        match lock.try_lock() {
            Ok(()) => return Ok(lock),
            Err(std::fs::TryLockError::WouldBlock) => {}
            Err(std::fs::TryLockError::Error(err)) => {
                return Err(io(format!("cannot lock {}", paths.lock.display()))(err));
            }
        }
        // A daemon that answers is a daemon: no point waiting for its lock.
        if let Some(info) = paths.read_info()
            && std::os::unix::net::UnixStream::connect(&info.socket).is_ok()
        {
            return Err(StartError::AlreadyRunning(info.pid));
        }
        if Instant::now() >= deadline {
            return Err(StartError::LockBusy(paths.lock.clone()));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Listens on the socket with mode 0600 from the start (the umask covers the window before
/// the chmod). A socket file left by a killed daemon is removed first: holding the lock, we
/// know nobody listens on it.
fn bind(paths: &StatePaths) -> Result<std::os::unix::net::UnixListener, StartError> {
    use std::os::unix::fs::PermissionsExt as _;
    let what = format!("cannot listen on {}", paths.socket.display());
    match std::fs::remove_file(&paths.socket) {
        Ok(()) => tracing::info!("removed a stale socket"),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => return Err(io(what)(err)),
    }
    // SAFETY: umask only swaps the process's file mode mask. The only other thread yet is
    // the log writer, whose file exists already.
    let old = unsafe { libc::umask(0o177) };
    let bound = std::os::unix::net::UnixListener::bind(&paths.socket);
    // SAFETY: as above.
    unsafe { libc::umask(old) };
    let listener = bound.map_err(io(what.clone()))?;
    std::fs::set_permissions(&paths.socket, std::fs::Permissions::from_mode(0o600))
        .map_err(io(what.clone()))?;
    listener.set_nonblocking(true).map_err(io(what))?;
    Ok(listener)
}

/// How long a stopping daemon waits for the answers in progress.
const DRAIN_WAIT: Duration = Duration::from_secs(30);

fn serve_until_stopped(
    listener: std::os::unix::net::UnixListener,
    server: Arc<state::Server>,
    idle_timeout: Option<Duration>,
) -> Result<(), StartError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(io("cannot start the async runtime"))?;
    runtime.block_on(async {
        let listener = tokio::net::UnixListener::from_std(listener).map_err(io("cannot listen"))?;
        let stopping = stop_signal(server.clone(), idle_timeout);
        serve::accept(listener, server.clone(), stopping).await;
        // No new connections; answer the requests in progress (and those sent right after a
        // handshake) before the runtime, and with it every connection, goes.
        server.drain(DRAIN_WAIT).await;
        Ok::<(), StartError>(())
    })?;
    // Connections still open are dropped with the runtime.
    runtime.shutdown_timeout(Duration::from_secs(1));
    Ok(())
}

/// Completes on SIGTERM, SIGINT, a `shutdown` request, or the idle timeout.
async fn stop_signal(server: Arc<state::Server>, idle_timeout: Option<Duration>) {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        server
            .shared
            .record_error("cannot install signal handlers".into());
        server.stop.notified().await;
        return;
    };
    let idle = async {
        let Some(limit) = idle_timeout else {
            return std::future::pending().await;
        };
        loop {
            tokio::time::sleep(Duration::from_secs(1).min(limit)).await;
            if server.busy.load(Ordering::SeqCst) == 0 && server.idle_for() >= limit {
                return;
            }
        }
    };
    tokio::select! {
        _ = term.recv() => tracing::info!("SIGTERM"),
        _ = int.recv() => tracing::info!("SIGINT"),
        () = server.stop.notified() => tracing::info!("shutdown requested"),
        () = idle => tracing::info!("idle timeout"),
    }
}
