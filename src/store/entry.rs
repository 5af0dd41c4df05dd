//! What the store holds, and the trait a backing store implements: keys and kinds and how
//! keys are derived, the values (cached plans with their anchors, file manifests, report
//! detail, stamps), the store's errors and figures.

use crate::ir::{MemSpace, Name, ProgramHeader, Span};
use crate::plan::{
    BufferReport, LifetimeReport, LiveStep, PLANNER_VERSION, PlanConfig, PlanReport, SpaceFit,
};

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
    /// The report detail of one planned file ([`FileDetail`]), keyed by its text: lets a
    /// warm run that shows the detail skip parsing the file for statement places.
    Detail = 4,
    /// One planned file's entry of the `--emit json` document without its path (bytes the
    /// `json` module prints), keyed by its text and what else the entry's bytes depend on:
    /// lets a warm run copy the entry instead of reading the detail and printing it.
    Json = 5,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Plan,
        Kind::File,
        Kind::Stamp,
        Kind::Detail,
        Kind::Json,
    ];

    fn context(self) -> &'static str {
        match self {
            Kind::Plan => "memreuse plan v1",
            Kind::File => "memreuse file v1",
            Kind::Stamp => "memreuse stamp v1",
            Kind::Detail => "memreuse detail v1",
            Kind::Json => "memreuse json v1",
        }
    }
}

/// The digest of everything in a configuration that can change a plan. `Debug` lists every
/// field, so a field added to `PlanConfig` changes the digest without anyone remembering to.
pub fn config_digest(config: &PlanConfig) -> [u8; 32] {
    *blake3::hash(format!("{config:?}").as_bytes()).as_bytes()
}

/// The digest of a configuration without its capacity overrides: what the keys of values
/// that hold for any capacities their [`Capacities::Fitting`] admit are derived from.
pub fn config_digest_any_capacity(config: &PlanConfig) -> [u8; 32] {
    config_digest(&PlanConfig {
        capacity_overrides: Default::default(),
        ..*config
    })
}

fn derive(context: &str, config: &[u8; 32], content: &[u8]) -> Key {
    let mut hasher = blake3::Hasher::new_derive_key(context);
    hasher.update(PLANNER_VERSION.as_bytes());
    hasher.update(config);
    hasher.update(content);
    Key(*hasher.finalize().as_bytes())
}

/// The key of a function's plan: `canonical` is the blake3 hash of its canonical IR bytes.
pub fn plan_key(config: &[u8; 32], canonical: &[u8; 32]) -> Key {
    derive(Kind::Plan.context(), config, canonical)
}

/// The key of a function's plan that holds for other capacities than the configured ones
/// ([`Capacities::Fitting`]), over [`config_digest_any_capacity`]: a key of its own context,
/// so that it never meets a [`plan_key`] of a configuration without overrides.
pub fn fitting_plan_key(config_any_capacity: &[u8; 32], canonical: &[u8; 32]) -> Key {
    derive("memreuse plan fitting v1", config_any_capacity, canonical)
}

/// The key of a whole file's result, over the blake3 digest of its exact text.
pub fn file_key(config: &[u8; 32], text_digest: &[u8; 32]) -> Key {
    derive(Kind::File.context(), config, text_digest)
}

/// The key of a whole file's result whose every plan holds for other capacities
/// ([`fitting_plan_key`]).
pub fn fitting_file_key(config_any_capacity: &[u8; 32], text_digest: &[u8; 32]) -> Key {
    derive("memreuse file fitting v1", config_any_capacity, text_digest)
}

/// The key of a file's report detail, over the whole configuration's digest and the blake3
/// digest of the file's exact text.
pub fn detail_key(config: &[u8; 32], text_digest: &[u8; 32]) -> Key {
    derive(Kind::Detail.context(), config, text_digest)
}

/// The key of a file's JSON entry, over the whole configuration's digest, the blake3 digest
/// of the file's exact text and `variant`, what else the entry's bytes depend on (the
/// document's layout and options).
pub fn json_key(config: &[u8; 32], text_digest: &[u8; 32], variant: &[u8]) -> Key {
    let mut content = Vec::with_capacity(32 + variant.len());
    content.extend_from_slice(text_digest);
    content.extend_from_slice(variant);
    derive(Kind::Json.context(), config, &content)
}

/// A configuration's two digests: of all of it, and without its capacities.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConfigDigests {
    pub exact: [u8; 32],
    pub any_capacity: [u8; 32],
}

impl ConfigDigests {
    pub fn of(config: &PlanConfig) -> ConfigDigests {
        ConfigDigests {
            exact: config_digest(config),
            any_capacity: config_digest_any_capacity(config),
        }
    }

    /// The key a function's plan made under this configuration is stored under, by which
    /// capacities it holds for ([`Capacities::key_kind`]).
    pub fn plan_key(&self, canonical: &[u8; 32], kind: PlanKeyKind) -> Key {
        match kind {
            PlanKeyKind::Fitting => fitting_plan_key(&self.any_capacity, canonical),
            PlanKeyKind::Configured => plan_key(&self.exact, canonical),
        }
    }
}

/// Which key a plan is stored under: for any capacities where its fits hold
/// ([`fitting_plan_key`]), or for exactly the configured ones ([`plan_key`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanKeyKind {
    Fitting,
    Configured,
}

/// For which capacities a stored plan (or a manifest's entry) answers.
#[derive(Clone, Debug, PartialEq)]
pub enum Capacities {
    /// Only for those of the configuration its key names ([`plan_key`]): planning read them
    /// in ways no other capacity is known to repeat (a space packed under its capacity, an
    /// overflow, a repair, the offset planner).
    Configured,
    /// For every capacity at which each space's fit holds (its key, [`fitting_plan_key`],
    /// names none): planning again there makes the same bytes.
    Fitting(Vec<SpaceFit>),
}

impl Capacities {
    /// Whether the value answers under these planning capacities
    /// ([`SpaceCapacity::planning`](crate::plan::SpaceCapacity)); a `Configured` one always
    /// does, under the key that found it.
    pub fn hold(&self, planning: impl Fn(MemSpace) -> Option<i64>) -> bool {
        match self {
            Capacities::Configured => true,
            Capacities::Fitting(fits) => fits.iter().all(|fit| fit.holds(planning(fit.space))),
        }
    }

    pub fn is_fitting(&self) -> bool {
        matches!(self, Capacities::Fitting(_))
    }

    pub fn key_kind(&self) -> PlanKeyKind {
        match self {
            Capacities::Fitting(_) => PlanKeyKind::Fitting,
            Capacities::Configured => PlanKeyKind::Configured,
        }
    }
}

/// The key of a path's stamp: of its absolute form, so that a file named relatively from one
/// directory and absolutely (or from another directory) has one stamp. Stamps do not depend
/// on the configuration.
pub fn stamp_key(path: &std::path::Path) -> Key {
    let absolute = std::path::absolute(path);
    let path = absolute.as_deref().unwrap_or(path);
    derive(
        Kind::Stamp.context(),
        &[0; 32],
        path.as_os_str().as_encoded_bytes(),
    )
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
/// file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    /// No place (a span of nothing).
    Nowhere,
    /// The `node`-th span of the input function in `db`'s structural walk order, plus the
    /// offset and length within it.
    At { node: u32, offset: u32, len: u32 },
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
    /// The capacities it holds for; its report's capacities are those of the run that
    /// stored it, which readers replace by the current ones.
    pub capacities: Capacities,
}

/// The report's spans in their fixed order: inserted moves, then each diagnostic's and its
/// related places' ([`located_spans`] of them), then the statements'.
pub fn report_spans_mut(report: &mut PlanReport) -> impl Iterator<Item = &mut Span> {
    let moves = report.inserted_moves.iter_mut().map(|m| &mut m.span);
    let diagnostics = report.diagnostics.iter_mut().flat_map(|d| {
        let related = d.related.iter_mut().map(|r| &mut r.span);
        std::iter::once(&mut d.span).chain(related)
    });
    moves
        .chain(diagnostics)
        .chain(report.statement_spans.iter_mut())
}

/// How many of [`report_spans_mut`]'s spans come before the statements'.
pub fn located_spans(report: &PlanReport) -> usize {
    let diagnostics: usize = report.diagnostics.iter().map(|d| 1 + d.related.len()).sum();
    report.inserted_moves.len() + diagnostics
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
    /// The capacities its plan holds for (which key the plan entry has).
    pub capacities: Capacities,
}

/// What a shown report has beyond a manifest's, for every planned function of one file, with
/// its spans located in the file's exact text (the key's): written where a run computed it,
/// so that the next one that shows it (`--emit json`, pictures, `-v`) reads it instead of
/// parsing the file again to locate statement places.
#[derive(Clone, Debug, PartialEq)]
pub struct FileDetail {
    pub functions: Vec<FunctionDetail>,
}

/// One function's part of a [`FileDetail`]: the report fields a manifest leaves empty.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDetail {
    pub name: Name,
    /// In the order of the report's spaces.
    pub spaces: Vec<SpaceDetail>,
    pub removed_allocs: Vec<Name>,
    /// `None` when the run that made the detail left lifetimes out (`--emit json` without
    /// `--lifetimes`: their statement places would have cost a parse).
    pub timeline: Option<Timeline>,
}

/// One space's part of a [`FunctionDetail`].
#[derive(Clone, Debug, PartialEq)]
pub struct SpaceDetail {
    pub buffers: Vec<BufferReport>,
    pub live: Vec<LiveStep>,
}

/// A report's lifetimes and the places of the statements they number.
#[derive(Clone, Debug, PartialEq)]
pub struct Timeline {
    pub lifetimes: Vec<LifetimeReport>,
    pub statement_spans: Vec<Span>,
}

impl FunctionDetail {
    /// The detail of a complete report, with its lifetimes when `lifetimes`.
    pub fn of(name: Name, report: &PlanReport, lifetimes: bool) -> FunctionDetail {
        FunctionDetail {
            name,
            spaces: report
                .spaces
                .iter()
                .map(|s| SpaceDetail {
                    buffers: s.buffers.clone(),
                    live: s.live.clone(),
                })
                .collect(),
            removed_allocs: report.removed_allocs.clone(),
            timeline: lifetimes.then(|| Timeline {
                lifetimes: report.lifetimes.clone(),
                statement_spans: report.statement_spans.clone(),
            }),
        }
    }

    /// Whether it completes a manifest's report of `spaces` spaces, with lifetimes when
    /// `lifetimes`.
    pub fn completes(&self, spaces: usize, lifetimes: bool) -> bool {
        self.spaces.len() == spaces && (!lifetimes || self.timeline.is_some())
    }

    /// Completes `report`, a manifest's report of the same plan (with lifetimes where the
    /// detail has them).
    pub fn complete(&self, report: &mut PlanReport) {
        for (space, detail) in report.spaces.iter_mut().zip(&self.spaces) {
            space.buffers = detail.buffers.clone();
            space.live = detail.live.clone();
        }
        report.removed_allocs = self.removed_allocs.clone();
        if let Some(timeline) = &self.timeline {
            report.lifetimes = timeline.lifetimes.clone();
            report.statement_spans = timeline.statement_spans.clone();
        }
    }
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
pub struct Bytes(pub(super) BytesInner);

pub(super) enum BytesInner {
    Sled(sled::IVec),
    Shared(std::sync::Arc<[u8]>),
}

impl From<Vec<u8>> for Bytes {
    fn from(bytes: Vec<u8>) -> Bytes {
        Bytes(BytesInner::Shared(bytes.into()))
    }
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
/// checksum are checked above this trait, by [`Cache`](super::Cache).
pub trait CacheStore: Send + Sync {
    fn get(&self, kind: Kind, key: &Key) -> Result<Option<Bytes>, StoreError>;
    /// Writes the entries, plans first, then manifests, then stamps, so that within a batch
    /// nothing is vouched for before it is written. They are durable once
    /// [`CacheStore::sync`] returns.
    fn write_batch(&self, entries: &[(Kind, Key, Vec<u8>)]) -> Result<(), StoreError>;
    /// Makes every write so far durable.
    fn sync(&self) -> Result<(), StoreError>;
    fn stats(&self) -> Result<StoreStats, StoreError>;
    /// Bytes on disk alone, which a store may know without counting its entries (a count
    /// reads every page: a third of a warm run wanted only the size, to test the cap).
    fn bytes_on_disk(&self) -> Result<u64, StoreError> {
        self.stats().map(|s| s.bytes_on_disk)
    }
    /// Every stored value (for integrity checks).
    fn for_each(&self, visit: &mut dyn FnMut(Kind, &Key, &[u8])) -> Result<(), StoreError>;
    /// A new generation: one per [`Cache`](super::Cache) over the store, so that recency orders runs.
    fn next_generation(&self) -> Result<u64, StoreError>;
    /// Records that `generation` used these entries.
    fn mark_used(&self, entries: &[(Kind, Key)], generation: u64) -> Result<(), StoreError>;
    /// The generation that last used each entry ever marked (and not removed since).
    fn last_uses(&self) -> Result<LastUses, StoreError>;
    /// Removes the entries and their recency.
    fn remove_batch(&self, entries: &[(Kind, Key)]) -> Result<(), StoreError>;
    /// Gives the space of removed entries back to the file system, where the store keeps it
    /// until then (after a prune). Nothing to do for a store without files of its own.
    fn compact(&self) -> Result<(), StoreError> {
        Ok(())
    }
}

/// The latest generation that used each marked entry ([`CacheStore::last_uses`]).
pub type LastUses = rustc_hash::FxHashMap<(Kind, Key), u64>;

/// What [`Cache::prune`](super::Cache::prune) did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pruned {
    pub entries_before: u64,
    pub bytes_before: u64,
    pub removed: u64,
    pub bytes_removed: u64,
}

/// Lookups that found a value or not, since the cache was created. (Plans served from a
/// file manifest never look up their own entry.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
