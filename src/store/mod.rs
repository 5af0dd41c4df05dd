//! The persistent result cache (ARCHITECTURE.md, The pipeline): content-addressed values behind the
//! [`CacheStore`] trait, with a sled implementation for disk and an in-memory one for tests.
//!
//! Keys are `blake3::derive_key` hashes, one context per result kind, over the planner
//! version, the configuration digest and the content (a function's canonical IR, or a file's
//! text). Nothing location-dependent goes into a plan key, so identical functions in two
//! files share one entry. A plan (and a manifest of such plans) that holds for other
//! capacities than those it was made at ([`Capacities::Fitting`]) is keyed by the
//! configuration without its capacities, in a context of its own, and found only where its
//! condition holds ([`Cache::get_plan_for`]); every other one by the whole configuration.
//! Values carry a header and a checksum (`codec`); a value that fails either, or does not
//! decode, is a miss and never an answer.
//!
//! This is the only module that knows sled.

mod background_sync;
mod codec;
mod entry;
mod memory;
mod sled_store;
mod uses;

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::plan::PlanConfig;

pub use codec::{DecodeError, SCHEMA_VERSION, check};
pub use entry::*;
pub use memory::MemoryStore;
pub use sled_store::{Reporter, SledStore, StoreEvent};

/// Queued values are handed to the store in batches of this many while a run goes on, so the
/// operating system writes them out while planning continues and the final flush has little
/// left to wait for.
const WRITE_AHEAD: usize = 1024;

/// Configurations whose digests a [`Cache`] keeps: a run has one or two (with Step 0 and
/// without), a daemon's capacity changes a few more.
const KNOWN_CONFIGS: usize = 8;

/// A file manifest served by a [`Cache`]: its file's text and configuration.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct KeptManifest {
    text: [u8; 32],
    digests: ConfigDigests,
}

/// What names the key of a plan served through a manifest.
struct KeptPlan {
    canonical: [u8; 32],
    key: PlanKeyKind,
}

/// The typed cache over a [`CacheStore`]: decodes and checks values, counts hits and misses,
/// and queues writes, which are durable after [`Cache::flush`].
pub struct Cache {
    store: Option<Box<dyn CacheStore>>,
    /// This cache's generation ([`CacheStore::next_generation`]).
    generation: u64,
    /// Entries this cache read or wrote: recorded as used at the next flush, never pruned.
    used: Mutex<rustc_hash::FxHashSet<(Kind, Key)>>,
    /// Of `used`, those not yet recorded.
    unrecorded: Mutex<Vec<(Kind, Key)>>,
    /// The plans served through file manifests, also in use: kept per manifest (by its
    /// file's text and configuration) and turned into keys only when pruning asks, because
    /// a warm run serves every function so and deriving each one's key took a tenth of it.
    kept: Mutex<rustc_hash::FxHashMap<KeptManifest, Vec<KeptPlan>>>,
    pending: Mutex<Vec<(Kind, Key, Vec<u8>)>>,
    /// The digests of the configurations asked about lately ([`KNOWN_CONFIGS`]), so that a
    /// lookup or write does not format and hash its configuration again.
    digests: Mutex<Vec<(PlanConfig, ConfigDigests)>>,
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
        // Without a generation, recency still orders by store order; never worth failing for.
        let generation = store
            .as_ref()
            .and_then(|s| s.next_generation().ok())
            .unwrap_or(0);
        Cache {
            store,
            generation,
            used: Mutex::default(),
            unrecorded: Mutex::default(),
            kept: Mutex::default(),
            pending: Mutex::default(),
            digests: Mutex::default(),
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

    /// This cache's generation: what recency marks carry for the entries it uses (and for
    /// those the commands it serves use, [`CacheStore::mark_used`]).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    pub fn store(&self) -> Option<&dyn CacheStore> {
        self.store.as_deref()
    }

    pub fn get_plan(&self, key: &Key) -> Option<CachedPlan> {
        let found = self.lookup(Kind::Plan, key, codec::decode_plan, |_| true);
        self.count(&self.plan_hits, &self.plan_misses, found)
    }

    pub fn get_manifest(&self, key: &Key) -> Option<FileManifest> {
        let found = self.lookup(Kind::File, key, codec::decode_manifest, |_| true);
        self.count(&self.file_hits, &self.file_misses, found)
    }

    /// `config`'s digests ([`ConfigDigests::of`]), computed once per configuration.
    pub fn digests(&self, config: &PlanConfig) -> ConfigDigests {
        let mut known = self
            .digests
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((_, digests)) = known.iter().find(|(c, _)| c == config) {
            return *digests;
        }
        let digests = ConfigDigests::of(config);
        // A daemon reconfigured again and again keeps only the latest few.
        if known.len() == KNOWN_CONFIGS {
            known.remove(0);
        }
        known.push((*config, digests));
        digests
    }

    /// The plan of the function whose canonical IR has the digest `canonical` under
    /// `config`: the one stored for any capacities ([`fitting_plan_key`]) where its fits
    /// hold at `config`'s, else the one stored for exactly `config`. One hit or one miss.
    pub fn get_plan_for(&self, config: &PlanConfig, canonical: &[u8; 32]) -> Option<CachedPlan> {
        let digests = self.digests(config);
        let fitting = fitting_plan_key(&digests.any_capacity, canonical);
        let holds = |plan: &CachedPlan| plan.capacities.hold(|s| config.planning_capacity(s));
        let configured = || plan_key(&digests.exact, canonical);
        let found =
            self.lookup_fitting(Kind::Plan, &fitting, configured, codec::decode_plan, holds);
        self.count(&self.plan_hits, &self.plan_misses, found)
    }

    /// The manifest of the file whose text has the digest `text` under `config`, as
    /// [`Cache::get_plan_for`] finds plans: one stored for any capacities where each of its
    /// plans' fits hold, else one stored for exactly `config`.
    pub fn get_manifest_for(&self, config: &PlanConfig, text: &[u8; 32]) -> Option<FileManifest> {
        let digests = self.digests(config);
        let fitting = fitting_file_key(&digests.any_capacity, text);
        let holds = |manifest: &FileManifest| {
            let planning = |s| config.planning_capacity(s);
            manifest
                .functions
                .iter()
                .all(|f| f.capacities.hold(planning))
        };
        let configured = || file_key(&digests.exact, text);
        let found = self.lookup_fitting(
            Kind::File,
            &fitting,
            configured,
            codec::decode_manifest,
            holds,
        );
        self.count(&self.file_hits, &self.file_misses, found)
    }

    /// Queues a function's plan made under `config`, under the key its capacities say.
    pub fn put_plan_for(&self, config: &PlanConfig, canonical: &[u8; 32], plan: &CachedPlan) {
        let key = self
            .digests(config)
            .plan_key(canonical, plan.capacities.key_kind());
        self.put_plan(key, plan);
    }

    /// Queues a file's manifest made under `config`: for any capacities where every plan in
    /// it holds for other capacities, else for exactly `config`'s.
    pub fn put_manifest_for(&self, config: &PlanConfig, text: &[u8; 32], manifest: &FileManifest) {
        let digests = self.digests(config);
        let key = match manifest.functions.iter().all(|f| f.capacities.is_fitting()) {
            true => fitting_file_key(&digests.any_capacity, text),
            false => file_key(&digests.exact, text),
        };
        self.put_manifest(key, manifest);
    }

    fn count<T>(&self, hits: &AtomicU64, misses: &AtomicU64, found: Option<T>) -> Option<T> {
        let counter = if found.is_some() { hits } else { misses };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// The value stored under `key`, if it decodes and is `accept`ed (then it is in use).
    /// The value stored under `fitting` (for any capacities) where it `holds` at this
    /// configuration's, else the one stored under the `configured` key (for exactly it).
    fn lookup_fitting<T>(
        &self,
        kind: Kind,
        fitting: &Key,
        configured: impl FnOnce() -> Key,
        decode: fn(&[u8]) -> Result<T, DecodeError>,
        holds: impl FnOnce(&T) -> bool,
    ) -> Option<T> {
        self.lookup(kind, fitting, decode, holds)
            .or_else(|| self.lookup(kind, &configured(), decode, |_| true))
    }

    fn lookup<T>(
        &self,
        kind: Kind,
        key: &Key,
        decode: impl FnOnce(&[u8]) -> Result<T, DecodeError>,
        accept: impl FnOnce(&T) -> bool,
    ) -> Option<T> {
        let store = self.store.as_ref()?;
        match store.get(kind, key) {
            Ok(Some(bytes)) => match decode(&bytes) {
                Ok(value) if !accept(&value) => None,
                Ok(value) => {
                    self.touch(kind, *key);
                    Some(value)
                }
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

    /// The report detail of the file whose text has the digest `text`, stored under exactly
    /// `config`. Detail is not a result of its own (the manifest's plans are): it counts as
    /// neither hit nor miss.
    pub fn get_detail_for(&self, config: &PlanConfig, text: &[u8; 32]) -> Option<FileDetail> {
        let key = detail_key(&self.digests(config).exact, text);
        self.lookup(Kind::Detail, &key, codec::decode_detail, |_| true)
    }

    /// Queues a file's report detail made under `config`.
    pub fn put_detail_for(&self, config: &PlanConfig, text: &[u8; 32], detail: &FileDetail) {
        let key = detail_key(&self.digests(config).exact, text);
        self.queue(Kind::Detail, key, || codec::encode_detail(detail));
    }

    /// Appends to `out` the JSON entry of the file whose text has the digest `text`, stored
    /// under exactly `config` and `variant` ([`json_key`]); whether there was one (if not,
    /// `out` is as it was). Like detail, it counts as neither hit nor miss.
    pub fn get_json_for(
        &self,
        config: &PlanConfig,
        text: &[u8; 32],
        variant: &[u8],
        out: &mut Vec<u8>,
    ) -> bool {
        let key = json_key(&self.digests(config).exact, text, variant);
        let decode = |bytes: &[u8]| codec::decode_json_into(bytes, out);
        self.lookup(Kind::Json, &key, decode, |_| true).is_some()
    }

    /// Queues a file's JSON entry made under `config` and `variant`.
    pub fn put_json_for(&self, config: &PlanConfig, text: &[u8; 32], variant: &[u8], entry: &[u8]) {
        let key = json_key(&self.digests(config).exact, text, variant);
        self.queue(Kind::Json, key, || codec::encode_json(entry));
    }

    /// A stamp is bookkeeping, not a result: it counts as neither hit nor miss.
    pub fn get_stamp(&self, key: &Key) -> Option<Stamp> {
        self.lookup(Kind::Stamp, key, codec::decode_stamp, |_| true)
    }

    pub fn put_stamp(&self, key: Key, stamp: &Stamp) {
        self.queue(Kind::Stamp, key, || codec::encode_stamp(stamp));
    }

    /// Notes that this run uses an entry, so that pruning keeps it and its recency is
    /// recorded at the next flush.
    fn touch(&self, kind: Kind, key: Key) {
        if self.store.is_none() {
            return;
        }
        let new = self
            .used
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .insert((kind, key));
        if new {
            self.unrecorded
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .push((kind, key));
        }
    }

    /// Notes that this run uses the plans of `manifest` (of the file whose text has the
    /// digest `text`, under `config`), served through it without being looked up, so that
    /// pruning keeps them. Their recency is not rewritten: a warm run would otherwise record
    /// one use per function.
    pub fn keep_plans_of(&self, config: &PlanConfig, text: &[u8; 32], manifest: &FileManifest) {
        if self.store.is_none() {
            return;
        }
        let plans = manifest
            .functions
            .iter()
            .map(|f| KeptPlan {
                canonical: f.digest,
                key: f.capacities.key_kind(),
            })
            .collect();
        let manifest = KeptManifest {
            text: *text,
            digests: self.digests(config),
        };
        self.kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .insert(manifest, plans);
    }

    /// Every entry this cache used: those it read or wrote, and the plans of the manifests
    /// it served ([`Cache::keep_plans_of`]).
    fn in_use(&self) -> rustc_hash::FxHashSet<(Kind, Key)> {
        let mut used = self
            .used
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone();
        let kept = self
            .kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        for (manifest, plans) in kept.iter() {
            for plan in plans {
                let key = manifest.digests.plan_key(&plan.canonical, plan.key);
                used.insert((Kind::Plan, key));
            }
        }
        used
    }

    fn queue(&self, kind: Kind, key: Key, encode: impl FnOnce() -> Vec<u8>) {
        let Some(store) = &self.store else {
            return;
        };
        self.touch(kind, key);
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
        let written = ahead + batch.len();
        if written == 0 {
            // Recency alone is not worth a sync: a warm run that writes nothing would spend
            // most of its time waiting for the disk. Its marks wait for a flush that writes.
            return Ok(0);
        }
        let used = std::mem::take(
            &mut *self
                .unrecorded
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        );
        if !used.is_empty() {
            store.mark_used(&used, self.generation)?;
        }
        store.sync()?;
        Ok(written)
    }

    /// Evicts least-recently-used entries until the values take at most `max_bytes`, never
    /// one this cache used. A file manifest is only worth its plans, so evicting any plan
    /// evicts every manifest not in use too (a manifest whose plan is gone would be served
    /// without its planned text).
    pub fn prune(&self, max_bytes: u64) -> Result<Pruned, StoreError> {
        let Some(store) = &self.store else {
            return Ok(Pruned::default());
        };
        self.flush()?;
        let mut entries: Vec<(Kind, Key, u64)> = Vec::new();
        store.for_each(&mut |kind, key, value| {
            entries.push((kind, *key, (value.len() + key.0.len()) as u64));
        })?;
        let total: u64 = entries.iter().map(|(_, _, size)| size).sum();
        let mut pruned = Pruned {
            entries_before: entries.len() as u64,
            bytes_before: total,
            ..Pruned::default()
        };
        if total <= max_bytes {
            return Ok(pruned);
        }
        let used = self.in_use();
        let last_uses = store.last_uses()?;
        let mut candidates = Vec::with_capacity(entries.len());
        for (kind, key, size) in entries {
            if !used.contains(&(kind, key)) {
                // Never marked: written before recency was kept, so the oldest.
                let last = last_uses.get(&(kind, key)).copied().unwrap_or(0);
                candidates.push((last, kind, key, size));
            }
        }
        // Oldest first; within a generation, JSON entries and detail (remade from the plans),
        // stamps (cheapest to remake), then manifests.
        candidates
            .sort_unstable_by_key(|&(last, kind, key, _)| (last, std::cmp::Reverse(kind), key));
        let mut remaining = total;
        let mut removed: Vec<(Kind, Key)> = Vec::new();
        let mut removed_a_plan = false;
        for &(_, kind, key, size) in &candidates {
            if remaining <= max_bytes {
                break;
            }
            removed.push((kind, key));
            remaining -= size;
            pruned.bytes_removed += size;
            removed_a_plan |= kind == Kind::Plan;
        }
        if removed_a_plan {
            for &(_, kind, key, size) in &candidates {
                if kind == Kind::File && !removed.contains(&(kind, key)) {
                    removed.push((kind, key));
                    pruned.bytes_removed += size;
                }
            }
        }
        pruned.removed = removed.len() as u64;
        store.remove_batch(&removed)?;
        store.sync()?;
        if !removed.is_empty() {
            store.compact()?;
        }
        Ok(pruned)
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

#[cfg(test)]
mod prune_tests {
    use super::*;
    use crate::ir::ProgramHeader;
    use crate::plan::PlanReport;

    fn plan(text: &str) -> CachedPlan {
        CachedPlan {
            planned_text: text.into(),
            planned_digest: [0; 32],
            report: PlanReport::default(),
            anchors: Vec::new(),
            capacities: Capacities::Configured,
        }
    }

    /// A cache over `store` that wrote (or read) the plans `keys`, flushed.
    fn run(store: &MemoryStore, write: &[u8], read: &[u8]) -> Cache {
        let cache = Cache::new(Box::new(store.clone()));
        for &k in write {
            cache.put_plan(Key([k; 32]), &plan(&"x".repeat(100)));
        }
        for &k in read {
            assert!(cache.get_plan(&Key([k; 32])).is_some());
        }
        cache.flush().expect("flush");
        cache
    }

    #[test]
    fn pruning_evicts_the_least_recently_used_and_never_what_is_in_use() {
        let store = MemoryStore::default();
        run(&store, &[1, 2], &[]);
        run(&store, &[3], &[]);
        // Used again later than 3 (by a run that writes, so its marks are recorded): 2
        // outlives 1 and 3.
        run(&store, &[5], &[2]);
        // A run that writes nothing records no recency: 1 stays the oldest.
        run(&store, &[], &[1]);
        let current = run(&store, &[4], &[]);
        assert_eq!(store.keys().len(), 5);
        // Room for three entries: 4 (in use) and the two most recent others, 2 and 5.
        let one = current.prune(u64::MAX).expect("prune").bytes_before / 5;
        let pruned = current.prune(3 * one).expect("prune");
        assert_eq!(pruned.removed, 2);
        let left: Vec<u8> = store.keys().iter().map(|(_, k)| k.0[0]).collect();
        assert_eq!(left, vec![2, 4, 5]);
        // Everything not in use can go; what is in use stays whatever the cap.
        current.prune(0).expect("prune");
        let left: Vec<u8> = store.keys().iter().map(|(_, k)| k.0[0]).collect();
        assert_eq!(left, vec![4]);
    }

    #[test]
    fn plans_served_through_a_manifest_are_in_use() {
        let store = MemoryStore::default();
        let config = PlanConfig::default();
        let digests = ConfigDigests::of(&config);
        let entry = |digest: u8, capacities: Capacities| ManifestEntry {
            name: "kernel".into(),
            digest: [digest; 32],
            planned_digest: [0; 32],
            report: PlanReport::default(),
            capacities,
        };
        let manifest = FileManifest {
            header: ProgramHeader {
                text: "".into(),
                spacing: crate::ir::FunctionSpacing::BlankLine,
            },
            functions: vec![
                entry(1, Capacities::Fitting(Vec::new())),
                entry(2, Capacities::Configured),
            ],
        };
        let served = [
            digests.plan_key(&[1; 32], PlanKeyKind::Fitting),
            digests.plan_key(&[2; 32], PlanKeyKind::Configured),
        ];
        let old = Cache::new(Box::new(store.clone()));
        for key in served {
            old.put_plan(key, &plan("served"));
        }
        // Another function's plan, and the served ones under their other keys.
        let others = [
            Key([7; 32]),
            digests.plan_key(&[1; 32], PlanKeyKind::Configured),
            digests.plan_key(&[2; 32], PlanKeyKind::Fitting),
        ];
        for key in others {
            old.put_plan(key, &plan("other"));
        }
        old.flush().expect("flush");
        let current = Cache::new(Box::new(store.clone()));
        current.keep_plans_of(&config, &[5; 32], &manifest);
        current.prune(0).expect("prune");
        let mut left: Vec<Key> = store.keys().into_iter().map(|(_, key)| key).collect();
        left.sort();
        let mut expected = served.to_vec();
        expected.sort();
        assert_eq!(left, expected);
    }

    /// JSON entries are pruned as other entries are: an old one goes before anything more
    /// recent, and the one this run read stays whatever the cap.
    #[test]
    fn json_entries_are_pruned_by_recency_and_kept_in_use() {
        let store = MemoryStore::default();
        let config = PlanConfig::default();
        let entry = "x".repeat(500);
        let old = Cache::new(Box::new(store.clone()));
        old.put_json_for(&config, &[1; 32], b"v", entry.as_bytes());
        old.put_json_for(&config, &[2; 32], b"v", entry.as_bytes());
        old.flush().expect("flush");
        let current = run(&store, &[9], &[]);
        let mut read = Vec::new();
        assert!(current.get_json_for(&config, &[2; 32], b"v", &mut read));
        assert_eq!(read, entry.as_bytes());
        assert!(!current.get_json_for(&config, &[2; 32], b"w", &mut read));
        assert_eq!(read, entry.as_bytes());
        current.prune(0).expect("prune");
        let digests = ConfigDigests::of(&config);
        let mut left = store.keys();
        left.sort();
        assert_eq!(
            left,
            vec![
                (Kind::Plan, Key([9; 32])),
                (Kind::Json, json_key(&digests.exact, &[2; 32], b"v")),
            ]
        );
    }

    #[test]
    fn evicting_a_plan_evicts_the_manifests_that_could_need_it() {
        let store = MemoryStore::default();
        let old = Cache::new(Box::new(store.clone()));
        old.put_plan(Key([1; 32]), &plan("p"));
        old.put_manifest(
            Key([9; 32]),
            &FileManifest {
                header: ProgramHeader {
                    text: "".into(),
                    spacing: crate::ir::FunctionSpacing::BlankLine,
                },
                functions: Vec::new(),
            },
        );
        old.flush().expect("flush");
        let current = run(&store, &[2], &[]);
        current.prune(1).expect("prune");
        assert_eq!(store.keys(), vec![(Kind::Plan, Key([2; 32]))]);
    }
}

#[cfg(test)]
mod digest_tests {
    use super::*;

    /// The remembered digests are the configuration's, also after older ones were dropped
    /// and asked for again.
    #[test]
    fn remembered_digests_are_the_configurations() {
        let cache = Cache::disabled();
        let configs: Vec<PlanConfig> = (0..2 * KNOWN_CONFIGS as i64)
            .map(|vec| {
                let mut config = PlanConfig::default();
                config.capacity_overrides[crate::ir::MemSpace::Vec as usize] = Some(1024 + vec);
                config
            })
            .collect();
        for round in 0..2 {
            for config in &configs {
                let (remembered, fresh) = (cache.digests(config), ConfigDigests::of(config));
                assert_eq!(remembered.exact, fresh.exact, "round {round}");
                assert_eq!(remembered.any_capacity, fresh.any_capacity, "round {round}");
            }
        }
        // Capacities apart, the configurations are one.
        assert_eq!(
            cache.digests(&configs[0]).any_capacity,
            cache.digests(&configs[1]).any_capacity
        );
        assert_ne!(
            cache.digests(&configs[0]).exact,
            cache.digests(&configs[1]).exact
        );
        assert!(cache.digests.lock().expect("not poisoned").len() <= KNOWN_CONFIGS);
    }
}
