//! The on-disk [`CacheStore`]: one sled database, which heals itself.
//!
//! The store is only a cache: losing it costs time, never a result. So a store that fails is
//! never the user's problem. Every sled call runs behind `catch_unwind` (sled 0.34 panics on
//! some damaged files), and its error is classified:
//!
//! - damage (a panic, sled's corruption or bug reports, unreadable data): the store is moved
//!   aside to `cache.bad-<unix time>` (the newest [`KEEP_QUARANTINED`] kept for a look, older
//!   ones removed), a new empty one is opened in its place, and the call is retried there;
//! - the environment (permissions, a read-only or full disk): nothing is moved; the store is
//!   switched off for the rest of the process, which goes on without a cache.
//!
//! Either way the [`Reporter`] is told once, in words for a warning, and the caller's call
//! succeeds (a lookup misses, a write is dropped). Counting entries (for `stats`) runs on a
//! helper thread with a deadline: on a damaged tree sled can loop forever.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Once, RwLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rustc_hash::FxHashSet;

use super::background_sync::BackgroundSync;
use super::entry::{Bytes, BytesInner, CacheStore, Key, Kind, LastUses, StoreError, StoreStats};
use super::uses::{self, RECENT_RECORDS_KEPT, UsesKey};

/// What a store did about a failure, for the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreEvent {
    /// The store was damaged: moved to `aside`, and a new one started.
    MovedAside { aside: PathBuf, reason: String },
    /// sled's snapshot (an index it can rebuild from its log) was unreadable: it was removed
    /// and the store reopened from the log, entries kept.
    Repaired { reason: String },
    /// The store cannot be used (permissions, disk full, or a rebuild that failed too); it
    /// was left as it is and the process goes on without it.
    Disabled { reason: String },
}

impl std::fmt::Display for StoreEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreEvent::MovedAside { aside, reason } => write!(
                f,
                "the cache was damaged ({reason}); moved it to {} and started a new one",
                aside.display()
            ),
            StoreEvent::Repaired { reason } => write!(
                f,
                "the cache's index was unreadable ({reason}); rebuilt it from the cache's log"
            ),
            StoreEvent::Disabled { reason } => {
                write!(f, "cannot use the cache ({reason}); going on without it")
            }
        }
    }
}

/// Told of every [`StoreEvent`] as it happens.
pub type Reporter = Arc<dyn Fn(&StoreEvent) + Send + Sync>;

/// Damaged stores kept beside the store for a look.
pub const KEEP_QUARANTINED: usize = 2;

pub struct SledStore {
    path: PathBuf,
    report: Reporter,
    state: RwLock<State>,
    /// Held while records of uses are appended, merged or removed: their numbering is dense
    /// only if one caller at a time changes them.
    marking: Mutex<()>,
    /// Syncs sled's log after every batch written, so that closing has little left to sync.
    syncing: Mutex<BackgroundSync>,
}

/// The file sled keeps its log in, inside the store's directory.
const LOG_FILE: &str = "db";

enum State {
    Open { trees: Trees, generation: u64 },
    Off,
}

/// An open database and its trees (one per [`Kind`], and the entries' recency).
#[derive(Clone)]
struct Trees {
    db: sled::Db,
    plans: sled::Tree,
    files: sled::Tree,
    stamps: sled::Tree,
    details: sled::Tree,
    json: sled::Tree,
    /// The generation counter and the records of uses ([`uses`]).
    uses: sled::Tree,
}

/// The tree that held one recency mark per entry before [`uses`]: dropped on open.
const LEGACY_RECENCY_TREE: &str = "recency";

impl Trees {
    fn tree(&self, kind: Kind) -> &sled::Tree {
        match kind {
            Kind::Plan => &self.plans,
            Kind::File => &self.files,
            Kind::Stamp => &self.stamps,
            Kind::Detail => &self.details,
            Kind::Json => &self.json,
        }
    }
}

/// Why a sled call failed.
#[derive(Debug)]
enum Failure {
    /// The store's files are bad: rebuild.
    Damage(String),
    /// The machine refuses (permissions, space): leave the store alone.
    Environment(std::io::Error),
    /// Another process holds the store.
    Locked(String),
}

impl Failure {
    fn from_sled(err: sled::Error) -> Failure {
        use std::io::ErrorKind as K;
        match err {
            sled::Error::Io(io) if io.to_string().contains("could not acquire lock") => {
                Failure::Locked(io.to_string())
            }
            sled::Error::Io(io)
                if matches!(
                    io.kind(),
                    K::PermissionDenied
                        | K::ReadOnlyFilesystem
                        | K::StorageFull
                        | K::QuotaExceeded
                        | K::FileTooLarge
                        | K::OutOfMemory
                ) =>
            {
                Failure::Environment(io)
            }
            other => Failure::Damage(other.to_string()),
        }
    }

    fn into_error(self) -> StoreError {
        match self {
            Failure::Damage(text) | Failure::Locked(text) => StoreError::Backend(text),
            Failure::Environment(io) => StoreError::Io(io),
        }
    }
}

/// Runs a sled call, turning a panic into damage.
fn guarded<T>(call: impl FnOnce() -> sled::Result<T>) -> Result<T, Failure> {
    silence_sled_panics();
    match catch_unwind(AssertUnwindSafe(call)) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(err)) => Err(Failure::from_sled(err)),
        Err(panic) => {
            let text = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            Err(Failure::Damage(format!("sled panicked: {text}")))
        }
    }
}

/// sled's panics are caught and reported as damage: the default hook must not print them
/// as if the program had crashed. Other panics are printed as before.
fn silence_sled_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let in_sled = info
                .location()
                .is_some_and(|l| l.file().contains("/sled-") || l.file().contains("\\sled-"));
            if !in_sled {
                previous(info);
            }
        }));
    });
}

/// How long `open` waits for a lock that a store dropped a moment ago may still hold: sled
/// releases its file lock from a background thread after the database is dropped, so an
/// immediate reopen (a daemon restart, a CLI run just after one) can find it still taken.
const LOCK_RELEASE_WAIT: Duration = Duration::from_secs(2);

/// Counting entries gives up after this long without progress (a damaged tree can make
/// sled loop without yielding), or after [`COUNT_LIMIT`] in all.
const COUNT_STALL: Duration = Duration::from_secs(2);
const COUNT_LIMIT: Duration = Duration::from_secs(10);

impl SledStore {
    /// Opens the store at `path` as it is, without healing: any failure is an error. Waits
    /// up to `LOCK_RELEASE_WAIT` for a lock held by a store that is shutting down.
    pub fn open(path: &Path) -> Result<SledStore, StoreError> {
        let trees = open_waiting(path).map_err(Failure::into_error)?;
        Ok(SledStore::with(path, trees, Arc::new(|_: &StoreEvent| {})))
    }

    /// Opens the store at `path`, healing it: a damaged store is moved aside and rebuilt, one
    /// the machine refuses is switched off (both told to `report`). Only another process
    /// holding the store is an error, never a reason to move it.
    pub fn open_or_rebuild(path: &Path, report: Reporter) -> Result<SledStore, StoreError> {
        let failure = match open_waiting(path) {
            Ok(trees) => return Ok(SledStore::with(path, trees, report)),
            Err(Failure::Locked(text)) => return Err(StoreError::Backend(text)),
            Err(failure) => failure,
        };
        // A snapshot is only an index of the log (a kill while sled writes one can leave it
        // bad): without it, sled replays the whole log and loses nothing.
        let failure = match failure {
            Failure::Damage(reason) if matches!(remove_snapshots(path), Ok(true)) => {
                match open_waiting(path) {
                    Ok(trees) => {
                        report(&StoreEvent::Repaired { reason });
                        return Ok(SledStore::with(path, trees, report));
                    }
                    Err(Failure::Locked(text)) => return Err(StoreError::Backend(text)),
                    Err(failure) => failure,
                }
            }
            other => other,
        };
        let store = SledStore {
            path: path.to_path_buf(),
            report,
            state: RwLock::new(State::Off),
            marking: Mutex::new(()),
            syncing: Mutex::new(BackgroundSync::new(path.join(LOG_FILE))),
        };
        let mut state = State::Off;
        store.heal_state(&mut state, failure);
        *store.state.write().unwrap_or_else(|p| p.into_inner()) = state;
        Ok(store)
    }

    fn with(path: &Path, trees: Trees, report: Reporter) -> SledStore {
        SledStore {
            path: path.to_path_buf(),
            report,
            state: RwLock::new(State::Open {
                trees,
                generation: 0,
            }),
            marking: Mutex::new(()),
            syncing: Mutex::new(BackgroundSync::new(path.join(LOG_FILE))),
        }
    }

    /// Rewrites the database with its live entries only, into a fresh one beside it that then
    /// takes its place: sled keeps the space of removed entries in its log until it rewrites
    /// their segments, so a pruned store grew on disk instead of shrinking. A crash midway
    /// leaves the old database or the new one in place, or none (a cold cache, never a wrong
    /// entry). The store is off when this fails.
    pub fn compact(&self) -> Result<(), StoreError> {
        let mut state = self.state.write().unwrap_or_else(|p| p.into_inner());
        let State::Open { trees, generation } = &*state else {
            return Ok(());
        };
        let generation = *generation;
        let fresh = self.path.with_extension("compacting");
        let aside = self.path.with_extension("compacted");
        for stale in [&fresh, &aside] {
            if stale.exists() {
                std::fs::remove_dir_all(stale)?;
            }
        }
        let copy = |from: &Trees| -> sled::Result<()> {
            let to = open_once(&fresh)?;
            let values = Kind::ALL.map(|kind| (from.tree(kind), to.tree(kind)));
            for (source, target) in values.into_iter().chain([(&from.uses, &to.uses)]) {
                let mut batch = sled::Batch::default();
                for entry in source.iter() {
                    let (key, value) = entry?;
                    batch.insert(key, value);
                }
                target.apply_batch(batch)?;
            }
            to.db.flush()?;
            Ok(())
        };
        guarded(|| copy(trees)).map_err(Failure::into_error)?;
        self.syncing
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .stop();
        // The old database closes here (the only handle a one-shot command holds).
        *state = State::Off;
        std::fs::rename(&self.path, &aside)?;
        std::fs::rename(&fresh, &self.path)?;
        std::fs::remove_dir_all(&aside)?;
        let trees = open_waiting(&self.path).map_err(Failure::into_error)?;
        *state = State::Open {
            trees,
            generation: generation + 1,
        };
        Ok(())
    }

    /// Closes the database (releasing its file lock once sled's threads let go); the store
    /// is off from now on. Call after the last flush.
    pub fn close(&self) {
        self.syncing
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .stop();
        let state = std::mem::replace(
            &mut *self.state.write().unwrap_or_else(|p| p.into_inner()),
            State::Off,
        );
        drop(state);
    }

    /// The open trees and their generation; `None` when the store is off.
    fn current(&self) -> Option<(Trees, u64)> {
        match &*self.state.read().unwrap_or_else(|p| p.into_inner()) {
            State::Open { trees, generation } => Some((trees.clone(), *generation)),
            State::Off => None,
        }
    }

    /// Runs `call` on the open store; when it fails, heals and (with `retry`) runs it once
    /// more on the rebuilt store. `None` when the store is off or the call failed.
    fn run<T>(&self, retry: bool, call: impl Fn(&Trees) -> sled::Result<T>) -> Option<T> {
        for attempt in 0..2 {
            let (trees, generation) = self.current()?;
            match guarded(|| call(&trees)) {
                Ok(value) => return Some(value),
                Err(failure) => self.heal(generation, failure),
            }
            if !retry || attempt == 1 {
                break;
            }
        }
        None
    }

    /// Deals with `failure` of the store of `generation` (unless another thread already
    /// did).
    fn heal(&self, generation: u64, failure: Failure) {
        let mut state = self.state.write().unwrap_or_else(|p| p.into_inner());
        if !matches!(&*state, State::Open { generation: g, .. } if *g == generation) {
            return;
        }
        self.heal_state(&mut state, failure);
    }

    fn heal_state(&self, state: &mut State, failure: Failure) {
        let generation = match std::mem::replace(state, State::Off) {
            State::Open { trees, generation } => {
                // Dropping a damaged database can panic or flush into the damage: leak it
                // (once per rebuild) instead.
                std::mem::forget(trees);
                generation
            }
            State::Off => 0,
        };
        let reason = match failure {
            Failure::Damage(reason) => reason,
            Failure::Environment(err) => {
                (self.report)(&StoreEvent::Disabled {
                    reason: format!("{}: {err}", self.path.display()),
                });
                return;
            }
            Failure::Locked(text) => {
                (self.report)(&StoreEvent::Disabled { reason: text });
                return;
            }
        };
        let aside = match quarantine(&self.path) {
            Ok(aside) => aside,
            Err(err) => {
                (self.report)(&StoreEvent::Disabled {
                    reason: format!("it is damaged ({reason}) and cannot be moved aside: {err}"),
                });
                return;
            }
        };
        match open_waiting(&self.path) {
            Ok(trees) => {
                *state = State::Open {
                    trees,
                    generation: generation + 1,
                };
                (self.report)(&StoreEvent::MovedAside { aside, reason });
            }
            Err(failure) => (self.report)(&StoreEvent::Disabled {
                reason: format!(
                    "it was damaged ({reason}), moved to {}, and a new one would not open: {}",
                    aside.display(),
                    failure.into_error()
                ),
            }),
        }
    }

    /// Counts the entries on a helper thread, checking that keys come in order; a tree that
    /// stalls or repeats itself is damage. `None` when the store is off or was rebuilt.
    fn count(&self) -> Option<u64> {
        let (trees, generation) = self.current()?;
        let progress = Arc::new(AtomicU64::new(0));
        let (tx, rx) = std::sync::mpsc::channel();
        let counted = progress.clone();
        let spawned = std::thread::Builder::new()
            .name("store-count".into())
            .spawn(move || {
                let result = guarded(|| {
                    for kind in Kind::ALL {
                        let mut last: Option<sled::IVec> = None;
                        for key in trees.tree(kind).iter().keys() {
                            let key = key?;
                            if last.as_ref().is_some_and(|l| *l >= key) {
                                return Err(sled::Error::ReportableBug(
                                    "the tree's keys are out of order".into(),
                                ));
                            }
                            last = Some(key);
                            counted.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    Ok(())
                });
                let _ = tx.send(result);
            });
        if spawned.is_err() {
            return Some(0);
        }
        let started = Instant::now();
        let (mut seen, mut moved) = (0, Instant::now());
        loop {
            match rx.recv_timeout(Duration::from_millis(50)) {
                Ok(Ok(())) => return Some(progress.load(Ordering::Relaxed)),
                Ok(Err(failure)) => {
                    self.heal(generation, failure);
                    return None;
                }
                Err(_) => {}
            }
            let now = progress.load(Ordering::Relaxed);
            if now != seen {
                (seen, moved) = (now, Instant::now());
            } else if moved.elapsed() > COUNT_STALL {
                // The thread spins on inside sled; the database it holds is leaked anyway.
                self.heal(
                    generation,
                    Failure::Damage(format!(
                        "counting its entries stalled after {now} for {COUNT_STALL:?}"
                    )),
                );
                return None;
            }
            if started.elapsed() > COUNT_LIMIT {
                // Slow but healthy: a lower bound beats waiting.
                return Some(now);
            }
        }
    }
}

/// Every record of uses merged, and the keys of the records read.
fn read_uses(t: &Trees) -> sled::Result<(LastUses, Vec<sled::IVec>)> {
    let mut last_uses = LastUses::default();
    let mut records = Vec::new();
    for entry in t.uses.iter() {
        let (key, record) = entry?;
        if matches!(
            UsesKey::parse(&key),
            Some(UsesKey::Compacted(_) | UsesKey::Recent(_))
        ) {
            uses::merge_record(&mut last_uses, &record);
            records.push(key);
        }
    }
    Ok((last_uses, records))
}

/// Replaces every record of uses by compacted ones, without the `removed` entries' uses;
/// atomically, so a crash keeps either the old records or the new.
fn compact_uses(t: &Trees, removed: &FxHashSet<(Kind, Key)>) -> sled::Result<()> {
    let (mut last_uses, old) = read_uses(t)?;
    last_uses.retain(|entry, _| !removed.contains(entry));
    let mut batch = sled::Batch::default();
    for key in old {
        batch.remove(key);
    }
    for (n, record) in (0..).zip(uses::records_of(&last_uses)) {
        batch.insert(UsesKey::Compacted(n).bytes(), record);
    }
    t.uses.apply_batch(batch)
}

/// Opens (or creates) the database at `path`, waiting for a lock being released.
fn open_waiting(path: &Path) -> Result<Trees, Failure> {
    let deadline = Instant::now() + LOCK_RELEASE_WAIT;
    let mut pause = Duration::from_millis(5);
    loop {
        match guarded(|| open_once(path)) {
            Err(Failure::Locked(_)) if Instant::now() + pause < deadline => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(200));
            }
            result => return result,
        }
    }
}

fn open_once(path: &Path) -> sled::Result<Trees> {
    // Writes are flushed explicitly after each batch; a background flusher would only add
    // I/O between batches. Values are read once per run, so a small page cache does; the
    // default (1 GB) mostly costs fresh, zeroed memory on large cold runs. 16 MB kept about
    // 20 MB less resident in the daemon after a 20,000-function scan, but made the scan
    // about 1.5 times slower (its writes page leaves in again).
    let db = sled::Config::new()
        .path(path)
        .flush_every_ms(None)
        .cache_capacity(64 << 20)
        .open()?;
    restrict_modes(path);
    let trees = Trees {
        plans: db.open_tree(tree_name(Kind::Plan))?,
        files: db.open_tree(tree_name(Kind::File))?,
        stamps: db.open_tree(tree_name(Kind::Stamp))?,
        details: db.open_tree(tree_name(Kind::Detail))?,
        json: db.open_tree(tree_name(Kind::Json))?,
        uses: db.open_tree("uses")?,
        db,
    };
    if trees
        .db
        .tree_names()
        .iter()
        .any(|name| name == LEGACY_RECENCY_TREE.as_bytes())
    {
        trees.db.drop_tree(LEGACY_RECENCY_TREE)?;
    }
    // Stores written before the per-kind trees kept every value in the default tree.
    if !trees.db.is_empty() {
        trees.db.clear()?;
    }
    Ok(trees)
}

/// Removes sled's snapshot files from the store at `path`; whether there were any.
fn remove_snapshots(path: &Path) -> std::io::Result<bool> {
    let mut removed = false;
    for entry in std::fs::read_dir(path)?.flatten() {
        if entry.file_name().to_string_lossy().starts_with("snap.") {
            std::fs::remove_file(entry.path())?;
            removed = true;
        }
    }
    Ok(removed)
}

/// Moves the store at `path` to `<path>.bad-<unix time>` and removes all but the newest
/// [`KEEP_QUARANTINED`] such stores; returns where it went.
fn quarantine(path: &Path) -> std::io::Result<PathBuf> {
    let stamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let name = |suffix: String| {
        let mut aside = path.as_os_str().to_owned();
        aside.push(format!(".bad-{stamp}{suffix}"));
        PathBuf::from(aside)
    };
    let mut aside = name(String::new());
    for n in 1.. {
        if !aside.exists() {
            break;
        }
        aside = name(format!("-{n}"));
    }
    std::fs::rename(path, &aside)?;
    if let (Some(dir), Some(base)) = (path.parent(), path.file_name()) {
        let prefix = format!("{}.bad-", base.to_string_lossy());
        let mut bad: Vec<PathBuf> = std::fs::read_dir(dir)?
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
            .map(|e| e.path())
            .collect();
        bad.sort_by_key(|b| std::cmp::Reverse(quarantine_order(b)));
        for old in bad.into_iter().skip(KEEP_QUARANTINED) {
            let _ = std::fs::remove_dir_all(&old);
        }
    }
    Ok(aside)
}

/// The `(unix time, n)` in a name `….bad-<time>[-<n>]`.
fn quarantine_order(path: &Path) -> (u64, u64) {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let Some(tail) = name
        .as_deref()
        .and_then(|n| n.rsplit_once(".bad-"))
        .map(|(_, t)| t)
    else {
        return (0, 0);
    };
    let (time, n) = tail.split_once('-').unwrap_or((tail, "0"));
    (time.parse().unwrap_or(0), n.parse().unwrap_or(0))
}

/// The size of the files below `dir` (what the store takes on disk), without asking sled.
fn size_on_disk(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.metadata() {
            Ok(meta) if meta.is_dir() => size_on_disk(&e.path()),
            Ok(meta) => meta.len(),
            Err(_) => 0,
        })
        .sum()
}

/// Makes the store's files 0600 and its directories 0700, whatever the umask they were
/// created under (sled creates them with the process's). Best effort: a file that cannot be
/// changed stays as it is, inside the private state dir.
fn restrict_modes(dir: &Path) {
    use std::os::unix::fs::PermissionsExt as _;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let tighten = |path: &Path, meta: &std::fs::Metadata, mode: u32| {
        if meta.permissions().mode() & 0o077 != 0 {
            let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode));
        }
    };
    if let Ok(meta) = std::fs::symlink_metadata(dir) {
        tighten(dir, &meta, 0o700);
    }
    for entry in entries.flatten() {
        let Ok(meta) = entry.metadata() else { continue };
        if meta.is_dir() {
            restrict_modes(&entry.path());
        } else if meta.is_file() {
            tighten(&entry.path(), &meta, 0o600);
        }
    }
}

/// A store shared with whoever may close it ([`SledStore::close`]).
impl CacheStore for Arc<SledStore> {
    fn get(&self, kind: Kind, key: &Key) -> Result<Option<Bytes>, StoreError> {
        (**self).get(kind, key)
    }
    fn write_batch(&self, entries: &[(Kind, Key, Vec<u8>)]) -> Result<(), StoreError> {
        (**self).write_batch(entries)
    }
    fn sync(&self) -> Result<(), StoreError> {
        (**self).sync()
    }
    fn stats(&self) -> Result<StoreStats, StoreError> {
        (**self).stats()
    }
    fn bytes_on_disk(&self) -> Result<u64, StoreError> {
        (**self).bytes_on_disk()
    }
    fn for_each(&self, visit: &mut dyn FnMut(Kind, &Key, &[u8])) -> Result<(), StoreError> {
        (**self).for_each(visit)
    }
    fn next_generation(&self) -> Result<u64, StoreError> {
        (**self).next_generation()
    }
    fn mark_used(&self, entries: &[(Kind, Key)], generation: u64) -> Result<(), StoreError> {
        (**self).mark_used(entries, generation)
    }
    fn last_uses(&self) -> Result<LastUses, StoreError> {
        (**self).last_uses()
    }
    fn remove_batch(&self, entries: &[(Kind, Key)]) -> Result<(), StoreError> {
        (**self).remove_batch(entries)
    }
    fn compact(&self) -> Result<(), StoreError> {
        (**self).compact()
    }
}

fn tree_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Plan => "plans",
        Kind::File => "files",
        Kind::Stamp => "stamps",
        Kind::Detail => "details",
        Kind::Json => "json",
    }
}

impl CacheStore for SledStore {
    fn get(&self, kind: Kind, key: &Key) -> Result<Option<Bytes>, StoreError> {
        let value = self.run(false, |t| t.tree(kind).get(key.0)).flatten();
        Ok(value.map(|v| Bytes(BytesInner::Sled(v))))
    }

    fn write_batch(&self, entries: &[(Kind, Key, Vec<u8>)]) -> Result<(), StoreError> {
        let mut batches = Vec::new();
        for kind in Kind::ALL {
            // In key order, each of sled's leaf pages fills once instead of being rewritten
            // for every random insert that lands in it: several times less written for a
            // cold run.
            let mut sorted: Vec<&(Kind, Key, Vec<u8>)> =
                entries.iter().filter(|(k, _, _)| *k == kind).collect();
            if sorted.is_empty() {
                continue;
            }
            sorted.sort_unstable_by_key(|(_, key, _)| *key);
            let mut batch = sled::Batch::default();
            for (_, key, value) in sorted {
                batch.insert(&key.0, value.as_slice());
            }
            batches.push((kind, batch));
        }
        // A store rebuilt on the way gets the whole batch again (rewriting is harmless).
        let written = self.run(true, |t| {
            for (kind, batch) in &batches {
                t.tree(*kind).apply_batch(batch.clone())?;
            }
            Ok(())
        });
        if written.is_some() {
            self.syncing
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .request();
        }
        Ok(())
    }

    fn sync(&self) -> Result<(), StoreError> {
        self.run(false, |t| t.db.flush());
        // sled may have added a snapshot file since the last time.
        restrict_modes(&self.path);
        Ok(())
    }

    fn next_generation(&self) -> Result<u64, StoreError> {
        let counter = UsesKey::Generation.bytes();
        let previous = self.run(true, |t| {
            t.uses.fetch_and_update(&counter, |old| {
                let next = old.and_then(uses::generation_of).unwrap_or(0) + 1;
                Some(next.to_be_bytes().to_vec())
            })
        });
        Ok(previous
            .flatten()
            .as_deref()
            .and_then(uses::generation_of)
            .unwrap_or(0)
            + 1)
    }

    fn mark_used(&self, entries: &[(Kind, Key)], generation: u64) -> Result<(), StoreError> {
        let _marking = self.marking.lock().unwrap_or_else(|p| p.into_inner());
        let records: Vec<Vec<u8>> = uses::records(entries, generation).collect();
        self.run(true, |t| {
            let mut recent = t.uses.range(UsesKey::recent_range()).keys();
            let number = |key: Option<sled::Result<sled::IVec>>| -> sled::Result<Option<u64>> {
                Ok(match key.transpose()?.as_deref().and_then(UsesKey::parse) {
                    Some(UsesKey::Recent(n)) => Some(n),
                    _ => None,
                })
            };
            let first = number(recent.next())?;
            let last = number(recent.next_back())?.or(first);
            let next = last.map_or(0, |n| n + 1);
            let mut batch = sled::Batch::default();
            for (n, record) in (next..).zip(&records) {
                batch.insert(UsesKey::Recent(n).bytes(), record.as_slice());
            }
            t.uses.apply_batch(batch)?;
            let kept = next + records.len() as u64 - first.unwrap_or(next);
            if kept > RECENT_RECORDS_KEPT {
                compact_uses(t, &FxHashSet::default())?;
            }
            Ok(())
        });
        Ok(())
    }

    fn last_uses(&self) -> Result<LastUses, StoreError> {
        Ok(self
            .run(false, |t| read_uses(t).map(|(uses, _)| uses))
            .unwrap_or_default())
    }

    fn remove_batch(&self, entries: &[(Kind, Key)]) -> Result<(), StoreError> {
        let _marking = self.marking.lock().unwrap_or_else(|p| p.into_inner());
        let removed: FxHashSet<(Kind, Key)> = entries.iter().copied().collect();
        self.run(true, |t| {
            for kind in Kind::ALL {
                let mut batch = sled::Batch::default();
                for (_, key) in entries.iter().filter(|(k, _)| *k == kind) {
                    batch.remove(&key.0);
                }
                t.tree(kind).apply_batch(batch)?;
            }
            compact_uses(t, &removed)
        });
        Ok(())
    }

    fn stats(&self) -> Result<StoreStats, StoreError> {
        let entries = self.count().unwrap_or(0);
        Ok(StoreStats {
            entries,
            bytes_on_disk: size_on_disk(&self.path),
        })
    }

    fn bytes_on_disk(&self) -> Result<u64, StoreError> {
        Ok(size_on_disk(&self.path))
    }

    fn for_each(&self, visit: &mut dyn FnMut(Kind, &Key, &[u8])) -> Result<(), StoreError> {
        let Some((trees, _)) = self.current() else {
            return Ok(());
        };
        for kind in Kind::ALL {
            for entry in trees.tree(kind).iter() {
                let (key, value) = entry.map_err(|e| Failure::from_sled(e).into_error())?;
                let Ok(key) = <[u8; 32]>::try_from(key.as_ref()) else {
                    continue;
                };
                visit(kind, &Key(key), &value);
            }
        }
        Ok(())
    }

    fn compact(&self) -> Result<(), StoreError> {
        SledStore::compact(self)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    /// A reporter that keeps what it was told.
    fn recorder() -> (Reporter, Arc<Mutex<Vec<StoreEvent>>>) {
        let events = Arc::new(Mutex::new(Vec::new()));
        let kept = events.clone();
        let report: Reporter = Arc::new(move |e: &StoreEvent| {
            kept.lock().expect("events").push(e.clone());
        });
        (report, events)
    }

    fn entry(n: u8) -> (Kind, Key) {
        (Kind::Plan, Key([n; 32]))
    }

    /// The keys of the `uses` tree, parsed.
    fn uses_keys(store: &SledStore) -> Vec<UsesKey> {
        let (trees, _) = store.current().expect("open");
        trees
            .uses
            .iter()
            .keys()
            .map(|k| UsesKey::parse(&k.expect("key")).expect("a key of the uses tree"))
            .collect()
    }

    /// A compacted store keeps every live entry and its recency, and gives the space of the
    /// removed ones back: on disk it shrinks, where removing alone made it grow.
    #[test]
    fn compacting_a_pruned_store_returns_its_space_and_keeps_its_entries() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("cache");
        let store = SledStore::open(&path).expect("opens");
        let value = |n: u32| vec![(n % 251) as u8; 4096];
        let key = |n: u32| {
            let mut key = [0u8; 32];
            key[..4].copy_from_slice(&n.to_be_bytes());
            Key(key)
        };
        // Every kind: compacting copies each one's tree.
        let kind = |n: u32| Kind::ALL[n as usize % Kind::ALL.len()];
        let entries: Vec<(Kind, Key, Vec<u8>)> =
            (0..4000).map(|n| (kind(n), key(n), value(n))).collect();
        store.write_batch(&entries).expect("writes");
        let generation = store.next_generation().expect("a generation");
        store
            .mark_used(&[(kind(3999), key(3999))], generation)
            .expect("marks");
        store.sync().expect("sync");
        let removed: Vec<(Kind, Key)> = (0..3900).map(|n| (kind(n), key(n))).collect();
        store.remove_batch(&removed).expect("removes");
        store.sync().expect("sync");
        let before = store.bytes_on_disk().expect("size");
        store.compact().expect("compacts");
        let after = store.bytes_on_disk().expect("size");
        assert!(
            after * 4 < before,
            "{before} B on disk before, {after} B after"
        );
        assert_eq!(store.stats().expect("stats").entries, 100);
        for n in 3900..4000 {
            let got = store.get(kind(n), &key(n)).expect("reads").expect("kept");
            assert_eq!(&*got, &value(n)[..], "entry {n}");
            assert!(store.get(kind(n + 1), &key(n)).expect("reads").is_none());
        }
        assert!(store.get(kind(0), &key(0)).expect("reads").is_none());
        let uses = store.last_uses().expect("reads");
        assert_eq!(uses.get(&(kind(3999), key(3999))), Some(&generation));
        assert!(store.next_generation().expect("a generation") > generation);
        assert!(!path.with_extension("compacting").exists());
        assert!(!path.with_extension("compacted").exists());
    }

    /// Recency is records of uses: they survive a reopen, later generations win, the records
    /// are merged once enough have piled up, and removed entries lose their uses.
    #[test]
    fn recency_records_merge_survive_and_forget_removed_entries() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("cache");
        let store = SledStore::open(&path).expect("opens");
        let first = store.next_generation().expect("a generation");
        store
            .mark_used(&[entry(1), entry(2)], first)
            .expect("marks");
        let second = store.next_generation().expect("a generation");
        assert!(second > first);
        store.mark_used(&[entry(2)], second).expect("marks");
        store.sync().expect("sync");
        store.close();

        let store = SledStore::open(&path).expect("reopens");
        assert!(store.next_generation().expect("a generation") > second);
        let expected: LastUses = [(entry(1), first), (entry(2), second)]
            .into_iter()
            .collect();
        assert_eq!(store.last_uses().expect("reads"), expected);
        assert_eq!(
            uses_keys(&store),
            [UsesKey::Generation, UsesKey::Recent(0), UsesKey::Recent(1)]
        );

        for _ in 2..=RECENT_RECORDS_KEPT {
            store.mark_used(&[entry(1)], first).expect("marks");
        }
        assert_eq!(
            uses_keys(&store),
            [UsesKey::Generation, UsesKey::Compacted(0)],
            "merged once more than {RECENT_RECORDS_KEPT} records were kept"
        );
        assert_eq!(store.last_uses().expect("reads"), expected);
        store.mark_used(&[entry(3)], second).expect("marks");
        assert_eq!(
            uses_keys(&store),
            [
                UsesKey::Generation,
                UsesKey::Compacted(0),
                UsesKey::Recent(0)
            ]
        );

        store.remove_batch(&[entry(2)]).expect("removes");
        let left: LastUses = [(entry(1), first), (entry(3), second)]
            .into_iter()
            .collect();
        assert_eq!(store.last_uses().expect("reads"), left);
        assert_eq!(
            uses_keys(&store),
            [UsesKey::Generation, UsesKey::Compacted(0)]
        );
    }

    /// A store from before the records kept one mark per entry in a tree of its own: it is
    /// dropped, the values kept.
    #[test]
    fn the_old_tree_of_marks_is_dropped_and_the_values_kept() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("cache");
        {
            let db = sled::open(&path).expect("opens");
            db.open_tree(LEGACY_RECENCY_TREE)
                .expect("tree")
                .insert([1; 33], &7u64.to_be_bytes())
                .expect("mark");
            db.open_tree(tree_name(Kind::Plan))
                .expect("tree")
                .insert([1; 32], b"value")
                .expect("value");
            db.flush().expect("flush");
        }
        let store = SledStore::open(&path).expect("opens");
        let (trees, _) = store.current().expect("open");
        assert!(
            !trees
                .db
                .tree_names()
                .iter()
                .any(|n| n == LEGACY_RECENCY_TREE.as_bytes())
        );
        assert!(
            store
                .get(Kind::Plan, &Key([1; 32]))
                .expect("reads")
                .is_some()
        );
        assert!(store.last_uses().expect("reads").is_empty());
    }

    /// A store released while another open waits for it opens (as after a restart, when
    /// sled lets go of its lock a moment after the old database was dropped).
    #[test]
    fn a_store_released_while_waiting_opens() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("cache");
        let held = SledStore::open(&path).expect("opens");
        let releaser = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            drop(held);
        });
        let reopened = SledStore::open(&path);
        releaser.join().expect("the releasing thread ends");
        assert!(
            reopened.is_ok(),
            "waits for the lock instead of failing at once"
        );
    }

    #[test]
    fn a_store_held_open_is_still_an_error() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("cache");
        let _held = SledStore::open(&path).expect("opens");
        let (report, events) = recorder();
        let second = SledStore::open_or_rebuild(&path, report);
        assert!(
            matches!(&second, Err(StoreError::Backend(text)) if text.contains("lock")),
            "a held store must not open twice, nor be moved aside"
        );
        assert!(events.lock().expect("events").is_empty());
        assert!(!dir.path().read_dir().expect("dir").any(|e| {
            e.expect("entry")
                .file_name()
                .to_string_lossy()
                .contains(".bad-")
        }));
    }

    #[test]
    fn only_the_newest_damaged_stores_are_kept() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("cache");
        for old in ["cache.bad-100", "cache.bad-200", "cache.bad-200-1"] {
            std::fs::create_dir(dir.path().join(old)).expect("dir");
        }
        std::fs::create_dir(&path).expect("dir");
        let aside = quarantine(&path).expect("moved");
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .expect("dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let newest = aside
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let mut expected = vec!["cache.bad-200-1".to_string(), newest];
        expected.sort();
        assert_eq!(left, expected);
    }

    #[test]
    fn a_panic_inside_sled_is_damage_not_a_crash() {
        let failure = guarded(|| -> sled::Result<()> { panic!("index out of bounds") });
        assert!(matches!(failure, Err(Failure::Damage(text)) if text.contains("panicked")));
    }

    #[test]
    fn permission_errors_are_the_environment_not_damage() {
        let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        assert!(matches!(
            Failure::from_sled(sled::Error::Io(denied)),
            Failure::Environment(_)
        ));
        let corrupt = sled::Error::Corruption { at: None, bt: () };
        assert!(matches!(Failure::from_sled(corrupt), Failure::Damage(_)));
    }

    #[test]
    fn a_garbage_store_is_moved_aside_told_and_rebuilt() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("cache");
        std::fs::create_dir_all(&path).expect("dir");
        std::fs::write(path.join("conf"), b"not a sled configuration").expect("write");
        std::fs::write(path.join("db"), vec![0xab; 4096]).expect("write");
        let (report, events) = recorder();
        let store = SledStore::open_or_rebuild(&path, report).expect("rebuilds");
        let events = events.lock().expect("events").clone();
        let [StoreEvent::MovedAside { aside, .. }] = events.as_slice() else {
            panic!("told once that it moved: {events:?}");
        };
        assert!(aside.join("db").exists());
        assert_eq!(store.stats().expect("stats").entries, 0);
        store
            .write_batch(&[(Kind::Plan, Key([1; 32]), b"value".to_vec())])
            .expect("writes");
        assert!(
            store
                .get(Kind::Plan, &Key([1; 32]))
                .expect("reads")
                .is_some()
        );
        assert_eq!(events.len(), 1, "{events:?}");
        assert_eq!(store.stats().expect("stats").entries, 1);
    }
}
