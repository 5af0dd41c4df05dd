//! The state directory (DESIGN §3): where the cache store and the last run's figures live.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use memreuse::store::{Cache, Counters, Reporter, SledStore, StoreEvent};
use serde::{Deserialize, Serialize};

/// `--state-dir`, else `MEMREUSE_STATE_DIR`, else
/// `$XDG_STATE_HOME/memreuse/<blake3(canonical cwd)[..16]>` (`~/.local/state` without XDG).
pub fn state_dir(flag: Option<&Path>) -> Result<PathBuf> {
    let root = std::env::current_dir()
        .and_then(|d| d.canonicalize())
        .context("cannot read the current directory")?;
    state_dir_for(flag, &root)
}

/// [`state_dir`] for the workspace at `root` (canonical) rather than the current directory.
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
    // Private to this user whatever the umask: it holds the daemon's socket and lock.
    memreuse_daemon::layout::prepare_private_dir(dir)?;
    let lock_path = dir.join("daemon.lock");
    let lock = memreuse_daemon::layout::open_lock(&lock_path)
        .with_context(|| format!("cannot open {}", lock_path.display()))?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
        Err(std::fs::TryLockError::Error(err)) => {
            return Err(err).with_context(|| format!("cannot lock {}", lock_path.display()));
        }
    }
    // The store heals itself (moves a damaged one aside, switches off one the machine
    // refuses) and says so here; the command goes on either way.
    let report: Reporter = Arc::new(|event: &StoreEvent| eprintln!("warning: {event}"));
    let (cache, store) = match SledStore::open_or_rebuild(&dir.join("cache"), report) {
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
        memreuse_daemon::layout::write_atomically(&path, &serde_json::to_vec_pretty(self)?)
            .with_context(|| format!("cannot write {}", path.display()))
    }

    pub fn load(dir: &Path) -> Option<LastRun> {
        serde_json::from_slice(&std::fs::read(dir.join("last-run.json")).ok()?).ok()
    }
}
