//! The persistent result cache (DESIGN §5): content-addressed values behind the
//! [`CacheStore`] trait, with a sled implementation for disk and an in-memory one for tests.
//!
//! Keys are `blake3::derive_key` hashes, one context per result kind, over the planner
//! version, the configuration digest and the content (a function's canonical IR, or a file's
//! text). Nothing location-dependent goes into a plan key, so identical functions in two
//! files share one entry. Values carry a header and a checksum ([`codec`]); a value that
//! fails either, or does not decode, is a miss and never an answer.
//!
//! This is the only module that knows sled.

mod codec;
mod memory;
mod sled_store;

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::ir::{Name, ProgramHeader, Span};
use crate::plan::{PLANNER_VERSION, PlanConfig, PlanReport};

pub use codec::{DecodeError, SCHEMA_VERSION, check};
pub use memory::MemoryStore;
pub use sled_store::{Reporter, SledStore, StoreEvent};

/// A cache key: 32 bytes derived per result kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key(pub [u8; 32]);

/// What a stored value holds. Each kind lives in its own keyspace, so a warm run that reads
/// only stamps and manifests never pages in the (much larger) plan entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Kind {
    /// One planned function ([`CachedPlan`]), keyed by its canonical input IR.
    Plan = 1,
    /// One planned file ([`FileManifest`]), keyed by its text: lets a warm run skip parsing
    /// and planning.
    File = 2,
    /// What a path looked like when its text was last read ([`Stamp`]), keyed by path: lets
    /// a warm run skip reading unchanged files.
    Stamp = 3,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Plan, Kind::File, Kind::Stamp];

    fn context(self) -> &'static str {
        match self {
            Kind::Plan => "memreuse plan v1",
            Kind::File => "memreuse file v1",
            Kind::Stamp => "memreuse stamp v1",
        }
    }
}

/// The digest of everything in a configuration that can change a plan. `Debug` lists every
/// field, so a field added to `PlanConfig` changes the digest without anyone remembering to.
pub fn config_digest(planner: &str, config: &PlanConfig) -> [u8; 32] {
    *blake3::hash(format!("{planner} {config:?}").as_bytes()).as_bytes()
}

fn derive(kind: Kind, config: &[u8; 32], content: &[u8]) -> Key {
    let mut hasher = blake3::Hasher::new_derive_key(kind.context());
    hasher.update(&PLANNER_VERSION.to_le_bytes());
    hasher.update(config);
    hasher.update(content);
    Key(*hasher.finalize().as_bytes())
}

/// The key of a function's plan: `canonical` is the blake3 hash of its canonical IR bytes.
pub fn plan_key(config: &[u8; 32], canonical: &[u8; 32]) -> Key {
    derive(Kind::Plan, config, canonical)
}

/// The key of a whole file's result, over the blake3 digest of its exact text.
pub fn file_key(config: &[u8; 32], text_digest: &[u8; 32]) -> Key {
    derive(Kind::File, config, text_digest)
}

/// The key of a path's stamp. Stamps do not depend on the configuration.
pub fn stamp_key(path: &std::path::Path) -> Key {
    derive(Kind::Stamp, &[0; 32], path.as_os_str().as_encoded_bytes())
}

/// File metadata that changes whenever the file's text does (modification and change
/// times in nanoseconds, size, inode), plus the digest of the text read under it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub len: u64,
    pub modified_ns: i128,
    pub changed_ns: i128,
    pub inode: u64,
    pub digest: [u8; 32],
}

/// Where a span of a plan's report points, independently of where the function sits in its
/// file: the `node`-th span of the input function in `db`'s structural walk order, plus the
/// offset and length within it. `node == u32::MAX` means no place (a span of nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Anchor {
    pub node: u32,
    pub offset: u32,
    pub len: u32,
}

impl Anchor {
    pub const NOWHERE: Anchor = Anchor {
        node: u32::MAX,
        offset: 0,
        len: 0,
    };
}

/// A verified plan of one function, as stored: everything `memreuse plan` prints, so a warm
/// run never re-plans.
#[derive(Clone, Debug, PartialEq)]
pub struct CachedPlan {
    /// The planned function printed as inside its program (indented by 4).
    pub planned_text: std::sync::Arc<str>,
    /// blake3 of the planned function's canonical bytes (the JSON `digest`).
    pub planned_digest: [u8; 32],
    /// The report with every span left default: `anchors` holds them, in the order of
    /// [`report_spans_mut`].
    pub report: PlanReport,
    pub anchors: Vec<Anchor>,
}

/// The report's spans in their fixed order: inserted moves, then diagnostics.
pub fn report_spans_mut(report: &mut PlanReport) -> impl Iterator<Item = &mut Span> {
    let moves = report.inserted_moves.iter_mut().map(|m| &mut m.span);
    moves.chain(report.diagnostics.iter_mut().map(|d| &mut d.span))
}

/// One fully planned file, keyed by its text: what a warm run needs instead of parsing and
/// planning it (all but the planned text, which stays in the function's plan entry).
#[derive(Clone, Debug, PartialEq)]
pub struct FileManifest {
    /// The printed program up to and including its `class` line, and its function spacing.
    pub header: ProgramHeader,
    pub functions: Vec<ManifestEntry>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ManifestEntry {
    pub name: Name,
    /// blake3 of the input function's canonical bytes (the plan key's content).
    pub digest: [u8; 32],
    pub planned_digest: [u8; 32],
    /// The plan's report with its spans located in this file's text.
    pub report: PlanReport,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cache store I/O: {0}")]
    Io(#[from] std::io::Error),
    #[error("cache store: {0}")]
    Backend(String),
}

/// Size of a store.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StoreStats {
    pub entries: u64,
    pub bytes_on_disk: u64,
}

/// Bytes returned by a store, shared with it where it can.
pub struct Bytes(BytesInner);

enum BytesInner {
    Sled(sled::IVec),
    Shared(std::sync::Arc<[u8]>),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.0 {
            BytesInner::Sled(v) => v,
            BytesInner::Shared(v) => v,
        }
    }
}

/// A key-value store of encoded values. Implementations store bytes as given; the header and
/// checksum are checked above this trait, by [`Cache`].
pub trait CacheStore: Send + Sync {
    fn get(&self, kind: Kind, key: &Key) -> Result<Option<Bytes>, StoreError>;
    /// Writes the entries, plans first, then manifests, then stamps, so that within a batch
    /// nothing is vouched for before it is written. They are durable once
    /// [`CacheStore::sync`] returns.
    fn write_batch(&self, entries: &[(Kind, Key, Vec<u8>)]) -> Result<(), StoreError>;
    /// Makes every write so far durable.
    fn sync(&self) -> Result<(), StoreError>;
    fn stats(&self) -> Result<StoreStats, StoreError>;
    /// Every stored value (for integrity checks).
    fn for_each(&self, visit: &mut dyn FnMut(Kind, &Key, &[u8])) -> Result<(), StoreError>;
}

/// Lookups that found a value or not, since the cache was created. (Plans served from a
/// file manifest never look up their own entry.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub plan_hits: u64,
    pub plan_misses: u64,
    pub file_hits: u64,
    pub file_misses: u64,
    /// Values found but rejected: bad header or checksum, or undecodable.
    pub rejected: u64,
    /// Store read errors (each also counted as a miss).
    pub errors: u64,
}

/// Queued values are handed to the store in batches of this many while a run goes on, so the
/// operating system writes them out while planning continues and the final flush has little
/// left to wait for.
const WRITE_AHEAD: usize = 1024;

/// The typed cache over a [`CacheStore`]: decodes and checks values, counts hits and misses,
/// and queues writes, which are durable after [`Cache::flush`].
pub struct Cache {
    store: Option<Box<dyn CacheStore>>,
    pending: Mutex<Vec<(Kind, Key, Vec<u8>)>>,
    /// Values written ahead since the last flush, and the first error doing so.
    written_ahead: Mutex<(usize, Option<StoreError>)>,
    plan_hits: AtomicU64,
    plan_misses: AtomicU64,
    file_hits: AtomicU64,
    file_misses: AtomicU64,
    rejected: AtomicU64,
    errors: AtomicU64,
}

impl Cache {
    pub fn new(store: Box<dyn CacheStore>) -> Cache {
        Cache::with(Some(store))
    }

    /// No store: every lookup misses and nothing is written (`--no-cache`).
    pub fn disabled() -> Cache {
        Cache::with(None)
    }

    fn with(store: Option<Box<dyn CacheStore>>) -> Cache {
        Cache {
            store,
            pending: Mutex::default(),
            written_ahead: Mutex::default(),
            plan_hits: AtomicU64::new(0),
            plan_misses: AtomicU64::new(0),
            file_hits: AtomicU64::new(0),
            file_misses: AtomicU64::new(0),
            rejected: AtomicU64::new(0),
            errors: AtomicU64::new(0),
        }
    }

    pub fn is_enabled(&self) -> bool {
        self.store.is_some()
    }

    pub fn store(&self) -> Option<&dyn CacheStore> {
        self.store.as_deref()
    }

    pub fn get_plan(&self, key: &Key) -> Option<CachedPlan> {
        let found = self.lookup(Kind::Plan, key, codec::decode_plan);
        let counter = if found.is_some() {
            &self.plan_hits
        } else {
            &self.plan_misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    pub fn get_manifest(&self, key: &Key) -> Option<FileManifest> {
        let found = self.lookup(Kind::File, key, codec::decode_manifest);
        let counter = if found.is_some() {
            &self.file_hits
        } else {
            &self.file_misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    fn lookup<T>(
        &self,
        kind: Kind,
        key: &Key,
        decode: fn(&[u8]) -> Result<T, DecodeError>,
    ) -> Option<T> {
        let store = self.store.as_ref()?;
        match store.get(kind, key) {
            Ok(Some(bytes)) => match decode(&bytes) {
                Ok(value) => Some(value),
                Err(_) => {
                    self.rejected.fetch_add(1, Ordering::Relaxed);
                    None
                }
            },
            Ok(None) => None,
            Err(_) => {
                self.errors.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    pub fn put_plan(&self, key: Key, plan: &CachedPlan) {
        self.queue(Kind::Plan, key, || codec::encode_plan(plan));
    }

    pub fn put_manifest(&self, key: Key, manifest: &FileManifest) {
        self.queue(Kind::File, key, || codec::encode_manifest(manifest));
    }

    /// A stamp is bookkeeping, not a result: it counts as neither hit nor miss.
    pub fn get_stamp(&self, key: &Key) -> Option<Stamp> {
        self.lookup(Kind::Stamp, key, codec::decode_stamp)
    }

    pub fn put_stamp(&self, key: Key, stamp: &Stamp) {
        self.queue(Kind::Stamp, key, || codec::encode_stamp(stamp));
    }

    fn queue(&self, kind: Kind, key: Key, encode: impl FnOnce() -> Vec<u8>) {
        let Some(store) = &self.store else {
            return;
        };
        let value = encode();
        let full = {
            let mut pending = self
                .pending
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            pending.push((kind, key, value));
            if pending.len() < WRITE_AHEAD {
                return;
            }
            std::mem::take(&mut *pending)
        };
        // Written by the thread that filled the batch, outside the queue's lock.
        let result = store.write_batch(&full);
        let mut ahead = self
            .written_ahead
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        match result {
            Ok(()) => ahead.0 += full.len(),
            Err(err) => {
                ahead.1.get_or_insert(err);
            }
        }
    }

    /// Writes every queued value and makes everything written since the last flush durable;
    /// returns how many values that was.
    pub fn flush(&self) -> Result<usize, StoreError> {
        let batch = std::mem::take(
            &mut *self
                .pending
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        );
        let (ahead, failed) = std::mem::take(
            &mut *self
                .written_ahead
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        );
        if let Some(err) = failed {
            return Err(err);
        }
        let Some(store) = &self.store else {
            return Ok(0);
        };
        if !batch.is_empty() {
            store.write_batch(&batch)?;
        }
        if ahead + batch.len() > 0 {
            store.sync()?;
        }
        Ok(ahead + batch.len())
    }

    pub fn counters(&self) -> Counters {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        Counters {
            plan_hits: get(&self.plan_hits),
            plan_misses: get(&self.plan_misses),
            file_hits: get(&self.file_hits),
            file_misses: get(&self.file_misses),
            rejected: get(&self.rejected),
            errors: get(&self.errors),
        }
    }
}
