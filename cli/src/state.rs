//! The state directory (docs/cli.md): where the cache store and the last run's figures live.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use memreuse::store::{Cache, CacheStore, Counters, Reporter, SledStore, StoreEvent};
use memreuse_daemon_client::cache_server::CacheServer;
use memreuse_daemon_client::client::DaemonStore;
use memreuse_daemon_client::protocol::PROTOCOL_VERSION;
use serde::{Deserialize, Serialize};

/// The state dir of the project at `root` (canonical): `--state-dir`, else
/// `MEMREUSE_STATE_DIR`, else `$XDG_STATE_HOME/memreuse/<blake3(root)[..16]>`
/// (`~/.local/state` without XDG).
pub fn state_dir_for(flag: Option<&Path>, root: &Path) -> Result<PathBuf> {
    if let Some(dir) = flag {
        return Ok(dir.to_path_buf());
    }
    if let Some(dir) = std::env::var_os("MEMREUSE_STATE_DIR").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    let base = match std::env::var_os("XDG_STATE_HOME").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => {
            let home = std::env::var_os("HOME")
                .filter(|d| !d.is_empty())
                .context("no state directory: set --state-dir, MEMREUSE_STATE_DIR or HOME")?;
            PathBuf::from(home).join(".local/state")
        }
    };
    let digest = blake3::hash(root.as_os_str().as_encoded_bytes()).to_hex();
    Ok(base.join("memreuse").join(&digest[..16]))
}

/// The store of a state dir, opened under the workspace lock (sled allows one process).
pub struct OpenStore {
    pub cache: Cache,
    /// Held while the store is open.
    pub lock: File,
    /// The store itself, to close before the lock goes (`None` when it would not open).
    pub store: Option<Arc<SledStore>>,
}

/// Opens the cache in `dir`. `Ok(None)` when another process holds it (the caller runs
/// without it); a damaged store is moved aside and rebuilt, one that cannot be used is left
/// alone, each with a warning.
pub fn open_store(dir: &Path) -> Result<Option<OpenStore>> {
    let Some(lock) = lock(dir)? else {
        return Ok(None);
    };
    // The store heals itself (moves a damaged one aside, switches off one the machine
    // refuses) and says so here; the command goes on either way.
    let report: Reporter = Arc::new(|event: &StoreEvent| eprintln!("warning: {event}"));
    let (cache, store) = match SledStore::open_or_rebuild(&store_dir(dir), report) {
        Ok(store) => {
            let store = Arc::new(store);
            (Cache::new(Box::new(store.clone())), Some(store))
        }
        Err(err) => {
            eprintln!(
                "warning: cannot open the cache in {}: {err}; going on without it",
                dir.display()
            );
            (Cache::disabled(), None)
        }
    };
    Ok(Some(OpenStore { cache, lock, store }))
}

/// Takes the state dir's `daemon.lock` (creating the dir); `None` when another process
/// holds it (a daemon, or a CLI working in-process).
pub fn lock(dir: &Path) -> Result<Option<File>> {
    // Private to this user whatever the umask: it holds the daemon's socket and lock.
    memreuse_daemon_client::state_dir::prepare_private_dir(dir)?;
    let lock_path = dir.join("daemon.lock");
    let lock = memreuse_daemon_client::state_dir::open_lock(&lock_path)
        .with_context(|| format!("cannot open {}", lock_path.display()))?;
    match lock.try_lock() {
        Ok(()) => Ok(Some(lock)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(err)) => {
            Err(err).with_context(|| format!("cannot lock {}", lock_path.display()))
        }
    }
}

/// The store's directory in a state dir.
pub fn store_dir(dir: &Path) -> PathBuf {
    dir.join("cache")
}

/// The cache a command working in-process uses: the state dir's store (served to the
/// commands that run beside it while this one holds it), the store of the process that holds
/// it (a daemon, or another command), or none when the state dir cannot be used (a warning
/// says so; the command then plans without the cache, as with `--no-cache`).
pub struct InProcessCache {
    pub cache: Cache,
    /// The state dir and its lock, while the store is open.
    pub held: Option<(PathBuf, File)>,
    /// The store, to close before the lock is released.
    pub store: Option<Arc<SledStore>>,
    /// The store served to other commands; finish it before closing the store.
    pub server: Option<CacheServer>,
}

impl InProcessCache {
    pub fn without() -> InProcessCache {
        InProcessCache {
            cache: Cache::disabled(),
            held: None,
            store: None,
            server: None,
        }
    }

    /// Stops serving the store (once the commands reading through it are done), then closes
    /// it; the lock in `held` is the caller's to drop after.
    pub fn close(server: Option<CacheServer>, store: Option<Arc<SledStore>>) {
        if let Some(server) = server {
            let served = server.finish(SERVE_WAIT);
            tracing::info!(served, "stopped serving the cache");
        }
        if let Some(store) = store {
            store.close();
        }
    }
}

/// How long a command that holds the store keeps serving it to the commands still reading
/// through it, once it is done itself.
const SERVE_WAIT: std::time::Duration = std::time::Duration::from_secs(600);

pub fn open_or_degrade(dir: &Path) -> InProcessCache {
    let started = std::time::Instant::now();
    let deadline = started + QUEUE_WAIT;
    let mut waiting = false;
    loop {
        match open_store(dir) {
            Ok(Some(open)) => {
                let paths = memreuse_daemon_client::state_dir::StatePaths::new(dir);
                let server = open.store.as_ref().and_then(|store| {
                    let shared: Arc<dyn CacheStore + Send + Sync> = Arc::new(store.clone());
                    let generation = open.cache.generation();
                    memreuse_daemon_client::cache_server::serve(&paths, shared, generation)
                        .map_err(|err| {
                            tracing::info!("cannot serve the cache to other commands: {err}")
                        })
                        .ok()
                });
                return InProcessCache {
                    cache: open.cache,
                    held: Some((dir.to_path_buf(), open.lock)),
                    store: open.store,
                    server,
                };
            }
            Ok(None) => {
                if let Some(connection) = daemon_of(dir) {
                    return through_daemon(dir, connection);
                }
                let paths = memreuse_daemon_client::state_dir::StatePaths::new(dir);
                if let Some(connection) =
                    memreuse_daemon_client::client::connect_shared_cache(&paths)
                {
                    // Another command holds the store: read (and write) through it rather
                    // than wait for it to finish.
                    tracing::info!("using the cache through the command that holds it");
                    return InProcessCache {
                        cache: Cache::new(Box::new(DaemonStore::shared(connection))),
                        ..InProcessCache::without()
                    };
                }
                if std::time::Instant::now() >= deadline {
                    eprintln!(
                        "warning: the cache in {} stayed in use by another memreuse for {} s; \
                         planning without it",
                        dir.display(),
                        QUEUE_WAIT.as_secs()
                    );
                    return InProcessCache::without();
                }
                // Another command holds the store and does not serve it: it is opening it
                // (it serves it once open), or cannot. Queue behind it, as cargo does for
                // its build directory; say so only when that takes a while.
                if !waiting && started.elapsed() >= QUIET_WAIT {
                    eprintln!(
                        "note: waiting for another memreuse to finish with the cache in {}",
                        dir.display()
                    );
                    waiting = true;
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(err) => {
                eprintln!("warning: {err:#}; planning without the cache");
                return InProcessCache::without();
            }
        }
    }
}

/// How long a command waits for the holder of the store to serve it before saying so.
const QUIET_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// How long a command waits for another one working in-process to release the cache.
const QUEUE_WAIT: std::time::Duration = std::time::Duration::from_secs(300);

/// The cache of a running daemon, read through its socket.
fn through_daemon(
    dir: &Path,
    connection: memreuse_daemon_client::client::Connection,
) -> InProcessCache {
    if connection.hello.protocol == PROTOCOL_VERSION {
        tracing::info!("reading the cache through the daemon");
        return InProcessCache {
            cache: Cache::new(Box::new(DaemonStore::new(connection))),
            ..InProcessCache::without()
        };
    }
    eprintln!(
        "warning: the cache in {} is held by a daemon of another version (`memreuse daemon \
         stop` releases it); planning without it",
        dir.display()
    );
    InProcessCache::without()
}

/// The daemon of the state dir, if one answers (it holds the cache for its life).
fn daemon_of(dir: &Path) -> Option<memreuse_daemon_client::client::Connection> {
    memreuse_daemon_client::client::connect(&memreuse_daemon_client::state_dir::StatePaths::new(
        dir,
    ))
}

/// What the last `memreuse plan` did with the cache.
#[derive(Serialize, Deserialize)]
pub struct LastRun {
    pub files: usize,
    pub functions: usize,
    /// Functions whose plan came from the cache (hits).
    pub cached: usize,
    /// Functions planned by the run (misses).
    pub planned: usize,
    /// Raw store lookups.
    #[serde(with = "CountersDef")]
    pub lookups: Counters,
    /// Values written at the end of the run.
    pub written: usize,
    pub seconds: f64,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Counters")]
struct CountersDef {
    plan_hits: u64,
    plan_misses: u64,
    file_hits: u64,
    file_misses: u64,
    rejected: u64,
    errors: u64,
}

impl LastRun {
    pub fn save(&self, dir: &Path) -> Result<()> {
        let path = dir.join("last-run.json");
        memreuse_daemon_client::state_dir::write_atomically(
            &path,
            &serde_json::to_vec_pretty(self)?,
        )
        .with_context(|| format!("cannot write {}", path.display()))
    }

    pub fn load(dir: &Path) -> Option<LastRun> {
        serde_json::from_slice(&std::fs::read(dir.join("last-run.json")).ok()?).ok()
    }
}
