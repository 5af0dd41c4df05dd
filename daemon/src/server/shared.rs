//! The state every daemon thread sees: the published view of the database (a snapshot and
//! the file table of one revision), figures for `status`, and pending freshness cookies.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, RwLock};
use std::time::{Duration, Instant};

use memreuse::db::{Cancelled, Snapshot, SourceFile};
use memreuse::plan::PlanConfig;
use memreuse::plan::Planner;
use memreuse::store::Cache;
use tokio::sync::oneshot;

use super::read::Refusals;
use super::tree::Tree;
use memreuse_daemon_client::protocol::Rescan;

/// The files of one revision, by absolute path.
pub type Files = Arc<BTreeMap<PathBuf, SourceFile>>;

/// What a daemon is started as: what its answers and status name, and what it plans with
/// beside `memreuse.toml`.
pub struct Identity {
    pub instance: String,
    pub build_id: String,
    pub root: PathBuf,
    pub state_dir: PathBuf,
    pub planner: Planner,
    pub overrides: Overrides,
}

pub struct Shared {
    pub instance: String,
    pub build_id: String,
    pub root: PathBuf,
    pub state_dir: PathBuf,
    pub started: Instant,
    pub planner: Planner,
    pub cache: Arc<Cache>,
    pub tree: Tree,
    /// What the command line set over `memreuse.toml`.
    pub overrides: Overrides,
    /// The settings planning uses now (`memreuse.toml` is read again when it changes).
    settings: RwLock<Active>,
    /// Paths not read (special files, oversized ones) and why: queries report them.
    refused: Mutex<Refusals>,
    view: Mutex<View>,
    view_changed: Condvar,
    pub figures: Mutex<Figures>,
    pub watches: AtomicUsize,
    cookies: Mutex<HashMap<u64, oneshot::Sender<()>>>,
    next_cookie: AtomicU64,
    /// Each published revision, for the viewer's live pages.
    pub revisions: tokio::sync::watch::Sender<u64>,
    /// Reads that were cancelled by a newer revision and are starting over: the writer lets
    /// them finish before it changes inputs again, so a storm of changes cannot starve them.
    starving: AtomicUsize,
    /// Files whose plan is not computed or stored yet for the current revision (the writer
    /// adds them, its planners remove them); `status` counts them.
    pub pending: Arc<Mutex<std::collections::BTreeSet<PathBuf>>>,
}

/// What the daemon's command line sets; it wins over `memreuse.toml`, on every reload too.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub backend: Option<memreuse::backend::Backend>,
    pub capacities: Vec<(memreuse::ir::MemSpace, i64)>,
    pub max_file_bytes: Option<u64>,
}

impl Overrides {
    /// The configuration and file size limit from the `memreuse.toml` at `root` and these.
    pub fn resolve(
        &self,
        root: &Path,
    ) -> Result<(PlanConfig, u64), memreuse_project::ProjectSettingsError> {
        let settings = memreuse_project::load(root)?;
        let mut config = settings.config;
        if let Some(backend) = self.backend {
            config.backend = backend;
        }
        for &(space, bytes) in &self.capacities {
            config.capacity_overrides[space as usize] = Some(bytes);
        }
        let max_file_bytes = self
            .max_file_bytes
            .or(settings.max_file_bytes)
            .unwrap_or(super::read::MAX_FILE_BYTES);
        Ok((config, max_file_bytes))
    }
}

/// The settings in force, and how the last attempt to read `memreuse.toml` went.
#[derive(Clone, Debug)]
pub struct Active {
    pub config: PlanConfig,
    /// Files larger than this are not read.
    pub max_file_bytes: u64,
    /// When the settings in force were read.
    pub loaded: Instant,
    /// Why the last change of `memreuse.toml` was not taken (the previous settings stay).
    pub error: Option<String>,
}

/// What readers may use: `snapshot` is `None` while the writer changes inputs.
struct View {
    snapshot: Option<Snapshot>,
    files: Files,
    revision: u64,
    closed: bool,
}

/// Figures for `status`, kept by the writer and the watcher.
#[derive(Default)]
pub struct Figures {
    pub scan_done: usize,
    pub scan_total: usize,
    pub scan_finished: bool,
    pub files: usize,
    pub functions: usize,
    /// Functions per planned file, whose sum is `functions`.
    per_file: HashMap<PathBuf, usize>,
    pub rescans: Vec<Rescan>,
    pub last_error: Option<String>,
}

impl Figures {
    pub fn set_functions(&mut self, path: &Path, functions: usize) {
        let old = if functions == 0 {
            self.per_file.remove(path)
        } else {
            self.per_file.insert(path.to_path_buf(), functions)
        };
        self.functions = self.functions + functions - old.unwrap_or(0);
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("the daemon is shutting down")]
    Closed,
    #[error("the read was cancelled by newer revisions for {0:?}; the tree keeps changing")]
    Cancelled(Duration),
    #[error("no revision was published within {0:?}")]
    TimedOut(Duration),
}

/// How long a read waits for the writer to publish a revision (the initial load of a large
/// tree takes a while).
const PUBLISH_WAIT: Duration = Duration::from_secs(300);

/// How long the writer holds a change back for reads that are starting over.
const STARVING_WAIT: Duration = Duration::from_secs(2);

/// Counts a read as starting over while it lives.
struct Starving<'a>(&'a AtomicUsize);

impl<'a> Starving<'a> {
    fn new(count: &'a AtomicUsize) -> Starving<'a> {
        count.fetch_add(1, Ordering::SeqCst);
        Starving(count)
    }
}

impl Drop for Starving<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// How long a read keeps starting over on newer revisions (each start waits for the writer
/// to publish, so a storm of changes delays it; it does not fail it).
const READ_DEADLINE: Duration = Duration::from_secs(120);

impl Shared {
    /// The state of the daemon `identity` names, planning with `config` (files up to
    /// `max_file_bytes`).
    pub fn new(
        identity: Identity,
        cache: Arc<Cache>,
        tree: Tree,
        (config, max_file_bytes): (PlanConfig, u64),
    ) -> Shared {
        let Identity {
            instance,
            build_id,
            root,
            state_dir,
            planner,
            overrides,
        } = identity;
        Shared {
            instance,
            build_id,
            root,
            state_dir,
            started: Instant::now(),
            planner,
            cache,
            tree,
            overrides,
            settings: RwLock::new(Active {
                config,
                max_file_bytes,
                loaded: Instant::now(),
                error: None,
            }),
            refused: Mutex::default(),
            view: Mutex::new(View {
                snapshot: None,
                files: Files::default(),
                revision: 0,
                closed: false,
            }),
            view_changed: Condvar::new(),
            figures: Mutex::default(),
            watches: AtomicUsize::new(0),
            cookies: Mutex::default(),
            next_cookie: AtomicU64::new(0),
            starving: AtomicUsize::new(0),
            pending: Arc::default(),
            revisions: tokio::sync::watch::Sender::new(0),
        }
    }

    fn view(&self) -> MutexGuard<'_, View> {
        self.view.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn refused(&self) -> MutexGuard<'_, Refusals> {
        self.refused.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn figures(&self) -> MutexGuard<'_, Figures> {
        self.figures.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The settings in force.
    pub fn settings(&self) -> Active {
        self.settings
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The configuration planning uses now.
    /// The configuration the daemon plans with: the settings in force, with its planner.
    pub fn config(&self) -> PlanConfig {
        PlanConfig {
            planner: self.planner,
            ..self.settings().config
        }
    }

    /// Reads `memreuse.toml` again: the settings before and after, or (keeping the settings
    /// in force) why it cannot be used.
    pub fn reload_settings(&self) -> Result<(Active, Active), String> {
        let resolved = self.overrides.resolve(&self.root);
        let mut settings = self.settings.write().unwrap_or_else(|p| p.into_inner());
        match resolved {
            Ok((config, max_file_bytes)) => {
                let before = settings.clone();
                *settings = Active {
                    config,
                    max_file_bytes,
                    loaded: Instant::now(),
                    error: None,
                };
                Ok((before, settings.clone()))
            }
            Err(err) => {
                let message = format!("{err}; planning with the settings read before");
                settings.error = Some(message.clone());
                drop(settings);
                self.record_error(message.clone());
                Err(message)
            }
        }
    }

    pub fn revision(&self) -> u64 {
        self.view().revision
    }

    pub fn record_error(&self, error: String) {
        tracing::warn!("{error}");
        self.figures().last_error = Some(error);
    }

    /// Withdraws the snapshot so the writer may change inputs (dropping it here is what lets
    /// salsa's write proceed once readers' clones are gone too).
    pub fn withdraw(&self) {
        let snapshot = self.view().snapshot.take();
        drop(snapshot);
    }

    /// Publishes a new revision for readers.
    pub fn publish(&self, snapshot: Snapshot, files: Files, revision: u64) {
        let mut view = self.view();
        view.snapshot = Some(snapshot);
        view.files = files;
        view.revision = revision;
        drop(view);
        self.view_changed.notify_all();
        self.revisions.send_replace(revision);
    }

    /// No more reads: waiting readers get [`ReadError::Closed`].
    pub fn close(&self) {
        let mut view = self.view();
        view.closed = true;
        let snapshot = view.snapshot.take();
        drop(view);
        drop(snapshot);
        self.view_changed.notify_all();
    }

    /// Runs `read` on the current snapshot; when a newer revision cancels it, runs it again
    /// on that revision, until [`READ_DEADLINE`]. Blocks: call it off the async runtime.
    pub fn read<T>(
        &self,
        read: impl Fn(&Snapshot, &Files) -> Result<T, Cancelled>,
    ) -> Result<(T, u64), ReadError> {
        let deadline = Instant::now() + READ_DEADLINE;
        let mut starving = None;
        loop {
            let (snapshot, files, revision) = self.current()?;
            if let Ok(value) = read(&snapshot, &files) {
                return Ok((value, revision));
            }
            tracing::debug!(revision, "read cancelled by a newer revision");
            drop(snapshot);
            if Instant::now() >= deadline {
                return Err(ReadError::Cancelled(READ_DEADLINE));
            }
            starving.get_or_insert_with(|| Starving::new(&self.starving));
        }
    }

    /// Called by the writer before it changes inputs: waits (up to [`STARVING_WAIT`]) for
    /// reads that are starting over to finish on the current revision.
    pub fn let_starving_reads_finish(&self) {
        let deadline = Instant::now() + STARVING_WAIT;
        while self.starving.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    fn current(&self) -> Result<(Snapshot, Files, u64), ReadError> {
        let view = self.view();
        let (view, timeout) = self
            .view_changed
            .wait_timeout_while(view, PUBLISH_WAIT, |v| v.snapshot.is_none() && !v.closed)
            .unwrap_or_else(|p| p.into_inner());
        if view.closed {
            return Err(ReadError::Closed);
        }
        match &view.snapshot {
            Some(snapshot) => Ok((snapshot.clone(), view.files.clone(), view.revision)),
            None if timeout.timed_out() => Err(ReadError::TimedOut(PUBLISH_WAIT)),
            None => Err(ReadError::Closed),
        }
    }

    /// A new cookie and the receiver told when the writer has applied every change seen
    /// before it.
    pub fn new_cookie(&self) -> (u64, oneshot::Receiver<()>) {
        let n = self.next_cookie.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.cookies
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(n, tx);
        (n, rx)
    }

    pub fn forget_cookie(&self, n: u64) {
        self.cookies
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&n);
    }

    pub fn ack_cookies(&self, cookies: &[u64]) {
        let mut pending = self.cookies.lock().unwrap_or_else(|p| p.into_inner());
        for n in cookies {
            if let Some(tx) = pending.remove(n) {
                // The query may have given up waiting; nothing to tell then.
                let _ = tx.send(());
            }
        }
    }
}
