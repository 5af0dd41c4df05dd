//! The incremental database (ARCHITECTURE.md, The pipeline): salsa inputs for files and
//! settings, and queries memoized per file, per function and per planning stage, so an edit
//! inside one function re-plans that function only and a configuration change re-runs only
//! the stages that read what changed.
//!
//! # Contents
//!
//! Inputs: [`SourceFile`] (a file's path, digest, text and whether Step 0 materializes its
//! aliases) and [`Settings`] (the configuration, one field per aspect). Keys:
//! [`FunctionItem`] (a function of a file, tracked: name, canonical digest, span table),
//! [`Space`] and [`FunctionSpace`] (interned).
//!
//! Per file:
//! - [`manifest`]: the store's manifest of this text, if any (a warm run stops here);
//! - [`parse_file`]: the parse, each function with its span table (`no_eq`, bounded);
//! - [`file_items`]: the functions as [`FunctionItem`]s, from the manifest or the parse;
//! - [`file_diagnostics`]: why the file did not parse;
//! - [`file_result`]: every function's plan with its report located (`no_eq`).
//!
//! Per function, the plan:
//! - [`plan`]: from the store, else [`checked_plan`], queued for the store (`no_eq`);
//! - [`checked_plan`]: PyPTO's plan (or the offset planner's) checked by both checkers,
//!   repaired where they reject it, printed, anchored (`no_eq`; a one-shot run plans in one
//!   go here instead of through the stages).
//!
//! Per function, the stages (`plan::pipeline`'s, over `Stages`); each is `Option<T>` (`None`:
//! a stale manifest named a function the text lacks) or, where a stage can refuse the
//! function, [`Staged<T>`]:
//! - `parsed_function` (the function in the file's parse, compared by IR: the firewall),
//!   [`source`] (the function the stages plan), [`prepared`] (Step 0), [`lifetimes`],
//!   [`sharing_rules`], [`packing`] and [`fitted`] per space, [`fixed`], [`layout`],
//!   [`overflow`] per space, [`addressed`];
//! - the offset planner's (`--planner dsa`): [`offset_input`], per space [`offset_pairs`],
//!   [`offset_solution`], [`offset_layout`] and [`offset_layout_unbounded`], [`offset_plan`].
//!
//! Of the configuration: [`space_capacity`], [`capacity_known`], [`capacity_aware`].
//!
//! Not queries: [`add_report_detail`], [`explain`], [`planned_texts`], [`function_status`]
//! read the queries above for the CLI's and the daemon's questions; [`Workspace`] and
//! [`ShardedWorkspace`] drive them.
//!
//! ```text
//! SourceFile ─► parse_file ─► file_items ─► FunctionItem { name | digest | spans }
//!      └─► manifest ─┘ (or from it)                  │ per function
//!   file_result (+ capacities, spans) ◄─ plan (store) ◄─ checked_plan ◄─ the stages:
//!   parsed_function ─► source ─► prepared ─► lifetimes ─► sharing_rules ─► packing(fn, space)
//!   (compared by IR) (the parse)  (Step 0)                 (backend)       (capacity known?)
//!      ─► fitted(fn, space) ─► fixed ─► layout ─► overflow(fn, space) ─► addressed
//!         (the capacity)       (backend)          (the capacity)         (--addresses)
//!      ─► checked_plan (checkers, repairs, print)
//!   --planner dsa: prepared ─► offset_input ─► offset_pairs ─► offset_solution ─►
//!                              (post-steps)    (the capacity)     (the solver)
//!      offset_layout(fn, space) ─► offset_plan (+ PyPTO's plan, addressed) ─► checked_plan
//!      (the capacity)
//! ```
//!
//! # Recomputation
//!
//! Each stage query runs its stage of `plan::pipeline` (which composes them, for the plain
//! planner too) over `Stages`, the memoized results of the stages before it. Each stage reads
//! only the aspects of [`Settings`] it needs, and every stage result compares
//! by value (with the span table of its parse, see [`Located`]), so salsa backdates what comes
//! out the same: a capacity change re-runs that space's capacity checks (`fitted`, `overflow`)
//! and, where they come out the same, nothing after them but `plan` (which looks the plan up
//! for these capacities) and `file_result` (which fills them into the report); a backend
//! change keeps the parse and the lifetimes; `--addresses` re-runs addressing and the
//! checkers.
//!
//! The firewall: `file_items` creates one tracked [`FunctionItem`] per function, identified
//! by its name, whose `digest` field is the function's canonical digest, and
//! `parsed_function` compares the function by its IR. Whitespace, comments or reordering
//! re-run the parse, `file_items` and `parsed_function`, and nothing after them: no `plan`
//! re-executes; an edit inside a function changes only its own digest and stages. Where a
//! function sits is its item's `spans` field, which only `file_result` reads (and only for
//! plans that carry a span); everything else location-dependent (`parse_file`,
//! `file_diagnostics`, `file_result`) is `no_eq` and sits outside the plan chain: plans carry
//! [`Anchor`]s, not spans.
//!
//! # Memory
//!
//! The queries that hold whole functions are bounded (`lru`): each stage keeps 64 functions'
//! results and the parse 8 files', or, in a one-shot run ([`StageRetention::OneShot`]),
//! only the function and the file being planned; `Workspace::plan` enforces the bounds
//! after every batch of files. A one-shot run keeps the plans (`plan`, `checked_plan`) and
//! outcomes (`file_result`) only while their file is planned too; the daemon keeps them all.
//! The capacity checks' inputs (`packing`, `layout`) are small and not bounded.
//!
//! # The cache
//!
//! The cache ([`Cache`]) is the one thing the queries read that salsa does not track:
//! `plan` and `manifest` consult it before computing (`plan` before `checked_plan`). That is
//! sound because a cached value is exactly what the computation would return for the same
//! key: a plan stored for any capacities (`checked_plan` says for which, `stage_capacities`)
//! is found only where its condition holds, which is where the stages would make it again.
//! Whether a plan came from it is recorded ([`PlanOutcome::computed`]), nothing else of it.
//!
//! This module knows salsa but not files: text arrives through [`Workspace`] (from a
//! [`System`](crate::system::System)).

mod outcome;
mod sharded;
mod source_file;
pub mod spans;
mod workspace;

use std::borrow::Cow;
use std::sync::Arc;

use crate::analysis::lifetimes::Lifetimes;
use crate::backend::Backend;
use crate::diagnostics::Diagnostic;
use crate::ir::MemSpace;
use crate::ir::{
    self, Function, Name, ProgramHeader, Span, canonical_function_bytes, print_function,
};
use crate::plan::Rules as RuleSet;
use crate::plan::address::Footprints;
use crate::plan::layout::Reserved;
use crate::plan::offsets::{self, Bound, DisjointPairs, OffsetInput, Placement, SpaceLayout};
use crate::plan::pipeline::{self, PackingRules};
use crate::plan::{
    FunctionPlan, LayoutSearch, MemberRows, PlanConfig, PlanError, PlanOptions, PlanReport,
    Planner, Planning, Prepared, SpaceCapacity, SpacePacking,
};
use crate::repair::{Checked, SafePlanError};
use crate::store::{
    Anchor, Cache, CachedPlan, Capacities, FileDetail, FileManifest, FunctionDetail, ManifestEntry,
    located_spans, report_spans_mut,
};
use crate::verify::{PlanInput, VerifyOptions, check_plan};
use spans::SpanTable;

pub use outcome::{
    FailureKind, FileOutcome, FileStatus, FunctionOutcome, OutcomeText, Planned, Report,
    UnprintedProgram, planned_program,
};
pub use sharded::{DetailWanted, Handout, ShardFile, ShardedWorkspace};
pub use source_file::SourceFile;
pub use workspace::{
    Cancelled, LoadInputs, OutcomeDetail, Snapshot, StageRetention, Stamps, Texts, Workspace,
    parallel_map,
};

use crate::ir::codes;

#[salsa::db]
pub trait Db: salsa::Database {
    fn cache(&self) -> &Cache;
    /// Whether stage results are kept for later questions: `false` in a one-shot run, which
    /// plans each function in one go ([`checked_plan`]) and asks for its stages only to
    /// repair it or explain it. The plans are the same either way.
    fn keeps_stages(&self) -> bool;
}

/// The planner configuration, one field per aspect so that each stage depends only on the
/// aspects it reads (a capacity change leaves lifetimes alone). Set once per run, so it is
/// stored with high durability.
#[salsa::input(singleton)]
pub struct Settings {
    #[returns(copy)]
    pub backend: Backend,
    #[returns(copy)]
    pub planner: Planner,
    #[returns(copy)]
    pub capacity_overrides: [Option<i64>; MemSpace::ALL.len()],
    #[returns(copy)]
    pub assign_addresses: bool,
    #[returns(copy)]
    pub exact: bool,
    #[returns(copy)]
    pub rules: RuleSet,
}

impl Settings {
    /// The whole configuration (for files with Step 0 off); reads every aspect.
    pub fn config(self, db: &dyn Db) -> PlanConfig {
        PlanConfig {
            backend: self.backend(db),
            planner: self.planner(db),
            materialize_aliases: false,
            capacity_overrides: self.capacity_overrides(db),
            assign_addresses: self.assign_addresses(db),
            exact: self.exact(db),
            rules: self.rules(db),
        }
    }
}

/// One `@pl.function` of a file. Identified by its name; `digest` is its canonical IR's,
/// which is what makes it location-independent, and `spans` says where the function sits.
#[salsa::tracked]
pub struct FunctionItem<'db> {
    pub file: SourceFile,
    #[returns(ref)]
    pub name: Name,
    /// blake3 of the function's canonical bytes.
    #[tracked]
    #[returns(copy)]
    pub digest: [u8; 32],
    /// The function's span table in the current text, which anchors resolve against; empty
    /// when the file's manifest came from the cache (its reports are located already).
    #[tracked]
    #[returns(ref)]
    pub spans: Arc<SpanTable>,
}

/// A file parsed, spans and all.
#[derive(Debug)]
pub enum Parsed {
    /// The text was not loaded.
    NeedsText,
    /// No `@pl.program`: skipped silently.
    NotAProgram,
    Failed(Vec<Diagnostic>),
    Program {
        header: ProgramHeader,
        /// Each function with the span table of this parse.
        functions: Vec<Source>,
    },
}

/// The parse of a file: what `file_items` makes the items of (their digests and spans),
/// where [`parsed_function`] finds each function, and its diagnostics. Not compared (every
/// edit moves something). Bounded to the files being planned ([`StageRetention`]): it holds
/// whole functions, and keeping every parsed function of a large tree cost more than a
/// gigabyte; a function asked for after its file's parse was evicted parses the file again.
#[salsa::tracked(returns(ref), no_eq, lru = 8)]
pub fn parse_file(db: &dyn Db, file: SourceFile) -> Parsed {
    let Some(text) = file.text(db).as_deref() else {
        return Parsed::NeedsText;
    };
    if !ir::has_program(text) {
        return Parsed::NotAProgram;
    }
    match ir::parse_program(text) {
        Err(err) => Parsed::Failed(err.diagnostics),
        Ok(program) => Parsed::Program {
            header: ProgramHeader::of(&program),
            functions: program
                .functions
                .into_iter()
                .map(|function| Source {
                    table: Arc::new(spans::span_table(&function)),
                    function: Arc::new(function),
                })
                .collect(),
        },
    }
}

/// The function named `name` in the parse of `file`.
fn parsed<'db>(db: &'db dyn Db, file: SourceFile, name: &Name) -> Option<&'db Source> {
    match parse_file(db, file) {
        Parsed::Program { functions, .. } => functions.iter().find(|f| f.function.name == *name),
        _ => None,
    }
}

/// The effective configuration of a file's functions.
fn file_config(db: &dyn Db, file: SourceFile) -> PlanConfig {
    PlanConfig {
        materialize_aliases: file.materialize_aliases(db),
        ..Settings::get(db).config(db)
    }
}

/// The cached result of this exact file text, if any: lets a warm run skip parsing and
/// planning.
///
/// Compared by value, so that a configuration change with no manifest before or after (a
/// capacity change of a planned tree) does not make `file_items` parse the file again. Kept
/// as long as the file's outcome is ([`set_plan_capacity`]): a one-shot run frees each file's
/// manifest after its outcome is made, not 20,000 functions' reports at its end.
#[salsa::tracked(returns(ref), lru = 0)]
pub fn manifest(db: &dyn Db, file: SourceFile) -> Option<Arc<FileManifest>> {
    if !db.cache().is_enabled()
        || file
            .text(db)
            .as_deref()
            .is_some_and(|t| !ir::has_program(t))
    {
        return None;
    }
    let config = file_config(db, file);
    let text = file.digest(db);
    let manifest = db.cache().get_manifest_for(&config, &text)?;
    // Its plans are served through it without being looked up: they are in use too.
    db.cache().keep_plans_of(&config, &text, &manifest);
    Some(Arc::new(manifest))
}

/// The functions of a file, location-independent.
#[derive(PartialEq, salsa::SalsaValue)]
pub enum FileItems<'db> {
    NeedsText,
    NotAProgram,
    /// Did not parse; `file_diagnostics` says why.
    Failed,
    Program {
        header: ProgramHeader,
        items: Vec<FunctionItem<'db>>,
    },
}

#[salsa::tracked(returns(ref))]
pub fn file_items<'db>(db: &'db dyn Db, file: SourceFile) -> FileItems<'db> {
    if let Some(manifest) = manifest(db, file) {
        let items = manifest
            .functions
            .iter()
            .map(|f| FunctionItem::new(db, file, f.name.clone(), f.digest, no_spans()))
            .collect();
        return FileItems::Program {
            header: manifest.header.clone(),
            items,
        };
    }
    match parse_file(db, file) {
        Parsed::NeedsText => FileItems::NeedsText,
        Parsed::NotAProgram => FileItems::NotAProgram,
        Parsed::Failed(_) => FileItems::Failed,
        Parsed::Program { header, functions } => {
            let mut items = Vec::with_capacity(functions.len());
            for Source { function, table } in functions {
                db.unwind_if_revision_cancelled();
                let digest = *blake3::hash(&canonical_function_bytes(function)).as_bytes();
                let name = function.name.clone();
                items.push(FunctionItem::new(db, file, name, digest, table.clone()));
            }
            FileItems::Program {
                header: header.clone(),
                items,
            }
        }
    }
}

/// The span table of an item whose file's manifest came from the cache: one for all, so that
/// a warm run of 20,000 functions neither allocates nor frees one per function.
fn no_spans() -> Arc<SpanTable> {
    static EMPTY: std::sync::LazyLock<Arc<SpanTable>> = std::sync::LazyLock::new(Arc::default);
    EMPTY.clone()
}

/// A plan that could not be made or did not verify, with anchored diagnostics.
#[derive(Clone, Debug)]
pub struct Failure {
    pub kind: FailureKind,
    /// Spans left default; `anchors` holds them: each diagnostic's, then its related places'.
    pub diagnostics: Vec<Diagnostic>,
    pub anchors: Vec<Anchor>,
}

#[derive(Clone, Debug)]
pub struct PlanOutcome {
    /// The plan; a plan computed in this process reports no space capacities (see
    /// `fill_in_capacities`), one from the store does.
    pub result: Result<Arc<CachedPlan>, Arc<Failure>>,
    /// Whether this database computed the plan (`false`: it came from the store).
    pub computed: bool,
}

/// A function as parsed, with the span table of that parse. Equal only at the same place:
/// see [`source`] and `parsed_function` for where that matters and where it is relaxed.
#[derive(Clone, Debug)]
pub struct Source {
    pub function: Arc<Function>,
    pub table: Arc<SpanTable>,
}

impl PartialEq for Source {
    fn eq(&self, other: &Source) -> bool {
        *self.function == *other.function && *self.table == *other.table
    }
}

/// Sets how many functions' results each stage that holds whole functions keeps, and how
/// many files' parses are kept (each at least one: salsa reads 0 as unbounded). The
/// attributes (`lru = 64`, `lru = 8`) are the defaults ([`StageRetention::Recent`]).
fn set_stage_capacity(db: &mut dyn Db, functions: usize, files: usize) {
    let functions = functions.max(1);
    parse_file::set_lru_capacity(db, files.max(1));
    parsed_function::set_lru_capacity(db, functions);
    source::set_lru_capacity(db, functions);
    prepared::set_lru_capacity(db, functions);
    lifetimes::set_lru_capacity(db, functions);
    sharing_rules::set_lru_capacity(db, functions);
    fixed::set_lru_capacity(db, functions);
    addressed::set_lru_capacity(db, functions);
    offset_input::set_lru_capacity(db, functions);
    offset_plan::set_lru_capacity(db, functions);
}

/// Sets how many functions' plans (`plan`, `checked_plan`) and how many files' outcomes
/// (`file_result`) and manifests are kept; `None` keeps them all. Eviction drops only the
/// memo: an outcome handed out keeps what it holds.
fn set_plan_capacity(db: &mut dyn Db, kept: Option<(usize, usize)>) {
    let (functions, files) = kept.map_or((0, 0), |(functions, files)| {
        (functions.max(1), files.max(1))
    });
    plan::set_lru_capacity(db, functions);
    checked_plan::set_lru_capacity(db, functions);
    file_result::set_lru_capacity(db, files);
    manifest::set_lru_capacity(db, files);
}

/// A function's stage results as the planner's stages read them ([`pipeline::StageResults`]):
/// the memoized queries, and the aspects of [`Settings`] one by one, so each query depends
/// only on what its stage reads.
#[derive(Clone, Copy)]
struct Stages<'db> {
    db: &'db dyn Db,
    item: FunctionItem<'db>,
    addresses: Addresses,
}

/// Whether a plan gets addresses.
#[derive(Clone, Copy)]
enum Addresses {
    /// As `--addresses` says.
    Configured,
    /// Always: the offset planner's fallback.
    Always,
}

impl<'db> Stages<'db> {
    fn of(db: &'db dyn Db, item: FunctionItem<'db>) -> Stages<'db> {
        Stages {
            db,
            item,
            addresses: Addresses::Configured,
        }
    }

    fn space(&self, space: MemSpace) -> FunctionSpace<'db> {
        FunctionSpace::new(self.db, self.item, space)
    }
}

impl pipeline::StageResults for Stages<'_> {
    fn materialize_aliases(&self) -> bool {
        self.item.file(self.db).materialize_aliases(self.db)
    }

    fn backend(&self) -> Backend {
        Settings::get(self.db).backend(self.db)
    }

    fn rules(&self) -> RuleSet {
        Settings::get(self.db).rules(self.db)
    }

    fn exact(&self) -> bool {
        Settings::get(self.db).exact(self.db)
    }

    fn planning_capacity(&self, space: MemSpace) -> Option<i64> {
        space_capacity(self.db, Space::new(self.db, space)).planning
    }

    fn capacity_known(&self, space: MemSpace) -> bool {
        capacity_known(self.db, Space::new(self.db, space))
    }

    fn capacity_aware(&self) -> bool {
        capacity_aware(self.db, Settings::get(self.db))
    }

    fn assign_addresses(&self) -> bool {
        match self.addresses {
            Addresses::Configured => Settings::get(self.db).assign_addresses(self.db),
            Addresses::Always => true,
        }
    }

    fn prepared_function(&self) -> Option<Arc<Function>> {
        Some(
            prepared(self.db, self.item)
                .as_ref()?
                .value
                .function
                .clone(),
        )
    }

    fn prepared_to_finish(&self) -> Option<Prepared> {
        Some(prepared(self.db, self.item).as_ref()?.value.clone())
    }

    fn lifetimes(&self) -> Option<&Lifetimes> {
        lifetimes(self.db, self.item).as_deref()
    }

    fn sharing_rules(&self) -> Option<Result<&PackingRules, PlanError>> {
        match sharing_rules(self.db, self.item) {
            Ok(rules) => Some(Ok(rules)),
            Err(Stop::Gone) => None,
            Err(Stop::Refused(err)) => Some(Err(err.clone())),
        }
    }

    fn member_rows(&self) -> Option<Cow<'_, MemberRows>> {
        pipeline::member_rows(self).map(Cow::Owned)
    }

    fn packing(&self, space: MemSpace) -> Option<&Arc<SpacePacking>> {
        Some(&packing(self.db, self.space(space)).as_ref()?.value)
    }

    fn fitted(&self, space: MemSpace) -> Option<&Arc<SpacePacking>> {
        Some(&fitted(self.db, self.space(space)).as_ref()?.value)
    }

    /// The function's memoized layout, which is that of `planned` (its fixed plan).
    fn layout(&self, _planned: &Function, _reserved: &Reserved) -> Option<Cow<'_, Footprints>> {
        match layout(self.db, self.item) {
            Ok(Some(layout)) => Some(Cow::Borrowed(&**layout)),
            _ => None,
        }
    }

    /// The memoized overflow of `space` in the function's layout.
    fn overflow(&self, space: MemSpace, _layout: &Footprints) -> Option<PlanError> {
        overflow(self.db, self.space(space)).clone()
    }
}

/// A function in the current parse of its file, equal to another with the same IR wherever
/// it sits: the firewall between the parse, which every edit of the file replaces, and
/// [`source`]. A comment above the function re-runs this query and nothing after it.
#[salsa::tracked(returns(ref), lru = 64)]
fn parsed_function<'db>(db: &'db dyn Db, item: FunctionItem<'db>) -> Option<SameIr> {
    parsed(db, *item.file(db), item.name(db))
        .cloned()
        .map(SameIr)
}

/// A [`Source`] compared by its function alone (`Function` ignores spans).
#[derive(Clone, Debug)]
struct SameIr(Source);

impl PartialEq for SameIr {
    fn eq(&self, other: &SameIr) -> bool {
        *self.0.function == *other.0.function
    }
}

/// Stage 0: the function the stages plan, with the span table of its parse. `None` when the
/// file's cached manifest names a function its text does not define.
///
/// It re-runs only when [`parsed_function`] changes, so it keeps the parse that every stage
/// after it was made from (their spans belong to its table) until the function's IR changes.
/// Every stage keeps the results of 64 functions (`lru`, enforced after each batch of files
/// `Workspace::plan` plans): the stages hold whole functions, and an unbounded memo would keep
/// every function of a large tree (see BENCHMARKS.md for the daemon's memory).
#[salsa::tracked(returns(ref), lru = 64)]
pub fn source<'db>(db: &'db dyn Db, item: FunctionItem<'db>) -> Option<Source> {
    parsed_function(db, item)
        .as_ref()
        .map(|parsed| parsed.0.clone())
}

/// Why a fallible stage has no result: the function is gone from its file's text (its
/// file's cached manifest names a function the text does not define), or a stage refused it.
#[derive(Clone, Debug, PartialEq)]
pub enum Stop {
    Gone,
    Refused(PlanError),
}

impl From<PlanError> for Stop {
    fn from(err: PlanError) -> Stop {
        Stop::Refused(err)
    }
}

/// The result of a stage that can refuse a function.
pub type Staged<T> = Result<T, Stop>;

/// A stage of `plan::pipeline`'s answer (`None`: a stage before it has none, its function is
/// gone) as a [`Staged`].
fn staged<T>(answer: Option<Result<T, PlanError>>) -> Staged<T> {
    Ok(answer.ok_or(Stop::Gone)??)
}

/// A memoized stage result that is there, or why not (`None`: its function is gone).
fn there<T>(result: &Option<T>) -> Staged<&T> {
    result.as_ref().ok_or(Stop::Gone)
}

/// A memoized fallible stage result, or why there is none.
fn ok<T>(result: &Staged<T>) -> Staged<&T> {
    result.as_ref().map_err(Clone::clone)
}

/// A stage result with the span table of the parse it came from: the spans inside it (in
/// diagnostics, in the function) belong to that parse, so it equals another only at the same
/// place, and every stage downstream anchors against the right table.
#[derive(Clone, Debug)]
pub struct Located<T> {
    pub value: T,
    pub table: Arc<SpanTable>,
}

impl<T: PartialEq> PartialEq for Located<T> {
    fn eq(&self, other: &Located<T>) -> bool {
        self.value == other.value && *self.table == *other.table
    }
}

/// Stage 1: after Step 0, which reads the backend, `exact` and the rule set only where it runs.
#[salsa::tracked(returns(ref), lru = 64)]
pub fn prepared<'db>(db: &'db dyn Db, item: FunctionItem<'db>) -> Option<Located<Prepared>> {
    let source = source(db, item).as_ref()?;
    let value = pipeline::prepared(&Stages::of(db, item), source.function.clone());
    Some(Located {
        value,
        table: source.table.clone(),
    })
}

/// Stage 2: lifetimes (rules §5), from the prepared function alone.
#[salsa::tracked(returns(ref), lru = 64)]
pub fn lifetimes<'db>(db: &'db dyn Db, item: FunctionItem<'db>) -> Option<Arc<Lifetimes>> {
    Some(Arc::new(pipeline::lifetimes(&Stages::of(db, item))?))
}

/// Stage 3: forbid-alias sets, hazards, declared allocations and reserved windows (rules §6.1,
/// §2.5); reads the backend and the rule set (seed rule S5).
#[salsa::tracked(returns(ref), lru = 64)]
pub fn sharing_rules<'db>(db: &'db dyn Db, item: FunctionItem<'db>) -> Staged<Arc<PackingRules>> {
    staged(pipeline::sharing_rules(&Stages::of(db, item))).map(Arc::new)
}

/// A memory space, as a query argument.
#[salsa::interned(debug)]
pub struct Space<'db> {
    #[returns(copy)]
    pub space: MemSpace,
}

/// A space's capacity as the configuration gives it: what the capacity checks read.
#[salsa::tracked(returns(copy))]
pub fn space_capacity<'db>(db: &'db dyn Db, space: Space<'db>) -> SpaceCapacity {
    let settings = Settings::get(db);
    let config = PlanConfig {
        backend: settings.backend(db),
        capacity_overrides: settings.capacity_overrides(db),
        ..PlanConfig::default()
    };
    config.space_capacity(space.space(db))
}

/// Whether the capacity-driven steps know a space's capacity: all that packing reads of it,
/// so a capacity change leaves every packing memoized and re-runs only the capacity checks.
#[salsa::tracked(returns(copy))]
pub fn capacity_known<'db>(db: &'db dyn Db, space: Space<'db>) -> bool {
    space_capacity(db, space).planning.is_some()
}

/// Whether the capacity-driven steps run at all (`PlanConfig::capacity_aware`).
#[salsa::tracked(returns(copy))]
pub fn capacity_aware(db: &dyn Db, settings: Settings) -> bool {
    PlanConfig {
        backend: settings.backend(db),
        capacity_overrides: settings.capacity_overrides(db),
        ..PlanConfig::default()
    }
    .capacity_aware()
}

/// One memory space of one function, as a query argument.
#[salsa::interned]
pub struct FunctionSpace<'db> {
    #[returns(copy)]
    pub item: FunctionItem<'db>,
    #[returns(copy)]
    pub space: MemSpace,
}

/// Stage 4a: one memory space of a function packed as if its capacity were unlimited (or
/// unknown, when it is) (rules §6.2–§6.6). Not bounded: a packing is small beside the
/// function, and [`fitted`] needs it after every capacity change.
#[salsa::tracked(returns(ref))]
pub fn packing<'db>(
    db: &'db dyn Db,
    key: FunctionSpace<'db>,
) -> Option<Located<Arc<SpacePacking>>> {
    let item = key.item(db);
    let packing = pipeline::packing(&Stages::of(db, item), key.space(db))?;
    Some(Located {
        value: Arc::new(packing),
        table: prepared(db, item).as_ref()?.table.clone(),
    })
}

/// Stage 4b, the capacity check (rules §6.7–§6.8): the unlimited packing where it fits the
/// space's capacity at every requested pipeline depth (then this re-runs, cheaply, and
/// backdates), else the space packed again under the capacity. Not bounded, like `packing`.
#[salsa::tracked(returns(ref))]
pub fn fitted<'db>(db: &'db dyn Db, key: FunctionSpace<'db>) -> Option<Located<Arc<SpacePacking>>> {
    let packing = pipeline::fitted(&Stages::of(db, key.item(db)), key.space(db))?;
    Some(Located {
        value: packing,
        table: self::packing(db, key).as_ref()?.table.clone(),
    })
}

/// Stage 5: the packings applied (rules §7); reads the backend and `exact` (the safe fixups).
#[salsa::tracked(returns(ref), lru = 64)]
pub fn fixed<'db>(db: &'db dyn Db, item: FunctionItem<'db>) -> Staged<Located<Arc<FunctionPlan>>> {
    let table = there(prepared(db, item))?.table.clone();
    let (plan, _) = staged(pipeline::fixed(
        &Stages::of(db, item),
        &PlanOptions::default(),
        false,
    ))?;
    Ok(Located {
        value: Arc::new(plan),
        table,
    })
}

/// Stage 6a: where AllocateMemoryAddr puts every base (rules §8) and each space's footprint,
/// which reads no capacity; `Ok(None)` for a function that gets no addresses. Not bounded: it
/// is small, and the overflow checks read it after every capacity change.
#[salsa::tracked(returns(ref))]
pub fn layout<'db>(db: &'db dyn Db, item: FunctionItem<'db>) -> Staged<Option<Arc<Footprints>>> {
    let f = &ok(fixed(db, item))?.value.function;
    let stages = Stages::of(db, item);
    let reserved = staged(pipeline::layout_reserved(&stages, f))?;
    Ok(reserved.map(|reserved| Arc::new(pipeline::layout(f, &reserved))))
}

/// Stage 6b, the overflow check of one space (rules §8): re-runs when that space's capacity
/// changes and, while the verdict stays, backdates.
#[salsa::tracked(returns(ref))]
pub fn overflow<'db>(db: &'db dyn Db, key: FunctionSpace<'db>) -> Option<PlanError> {
    let Ok(Some(layout)) = layout(db, key.item(db)) else {
        return None;
    };
    pipeline::overflow(&Stages::of(db, key.item(db)), key.space(db), layout)
}

/// Stage 6: PyPTO's plan with AllocateMemoryAddr's part (rules §8); reads `--addresses` and
/// the overflow checks. An orchestration function is left as it is.
#[salsa::tracked(returns(ref), lru = 64)]
pub fn addressed<'db>(
    db: &'db dyn Db,
    item: FunctionItem<'db>,
) -> Staged<Located<Arc<FunctionPlan>>> {
    addressed_as(db, item, Addresses::Configured)
}

/// [`addressed`] with `--addresses` as given rather than as configured (the offset
/// planner's fallback is always addressed).
fn addressed_as<'db>(
    db: &'db dyn Db,
    item: FunctionItem<'db>,
    addresses: Addresses,
) -> Staged<Located<Arc<FunctionPlan>>> {
    let source = there(source(db, item))?;
    if !crate::plan::is_planned(&source.function) {
        let plan = FunctionPlan {
            function: (*source.function).clone(),
            report: PlanReport::default(),
        };
        return Ok(Located {
            value: Arc::new(plan),
            table: source.table.clone(),
        });
    }
    let fixed = ok(fixed(db, item))?;
    let stages = Stages {
        addresses,
        ..Stages::of(db, item)
    };
    let addressed = staged(pipeline::addressed(&stages, Cow::Borrowed(&*fixed.value)))?;
    Ok(Located {
        value: match addressed.plan {
            Cow::Borrowed(_) => fixed.value.clone(),
            Cow::Owned(plan) => Arc::new(plan),
        },
        table: fixed.table.clone(),
    })
}

/// The offset planner's stage 1: the prepared function after its post-steps, with its
/// lifetimes and sharing rules (`plan::offsets::OffsetInput`); reads the backend and `exact`.
#[salsa::tracked(returns(ref), lru = 64)]
pub fn offset_input<'db>(
    db: &'db dyn Db,
    item: FunctionItem<'db>,
) -> Staged<Located<Arc<OffsetInput>>> {
    let prepared = there(prepared(db, item))?;
    let settings = Settings::get(db);
    let config = PlanConfig {
        backend: settings.backend(db),
        exact: settings.exact(db),
        rules: settings.rules(db),
        ..PlanConfig::default()
    };
    let input = OffsetInput::of((*prepared.value.function).clone(), &config)?;
    Ok(Located {
        value: Arc::new(input),
        table: prepared.table.clone(),
    })
}

/// The offset planner's stage 2a, which pairs of one space's buffers must not share bytes:
/// they depend on the space's capacity (how deep its pipeline groups go), so this re-runs
/// when it changes and, where the pairs stay, backdates. Not bounded: it is small.
#[salsa::tracked(returns(ref))]
pub fn offset_pairs<'db>(db: &'db dyn Db, key: FunctionSpace<'db>) -> Staged<Arc<DisjointPairs>> {
    let input = ok(offset_input(db, key.item(db)))?;
    let space = key.space(db);
    let capacity = space_capacity(db, Space::new(db, space)).planning;
    let keep_none = rustc_hash::FxHashSet::default();
    let pairs = input.value.disjoint_pairs(space, capacity, &keep_none);
    Ok(Arc::new(pairs))
}

/// Stage 2b, the solver's layout of the space (with its search), which reads no capacity.
/// Not bounded: a layout is small.
#[salsa::tracked(returns(ref))]
pub fn offset_solution<'db>(db: &'db dyn Db, key: FunctionSpace<'db>) -> Staged<Arc<SpaceLayout>> {
    let pairs = ok(offset_pairs(db, key))?;
    let input = ok(offset_input(db, key.item(db)))?;
    let layout = input.value.solve(key.space(db), pairs, LayoutSearch::Full);
    Ok(Arc::new(layout))
}

/// Stage 2c, the layout held to the space's planning capacity: re-runs, cheaply, when it
/// changes; `Ok(None)` where nothing fits it.
#[salsa::tracked(returns(ref))]
pub fn offset_layout<'db>(db: &'db dyn Db, key: FunctionSpace<'db>) -> Staged<Option<Placement>> {
    let layout = ok(offset_solution(db, key))?;
    let input = ok(offset_input(db, key.item(db)))?;
    let space = key.space(db);
    let capacity = space_capacity(db, Space::new(db, space)).planning;
    Ok(input.value.check_capacity(space, layout, capacity)?)
}

/// One space laid out by the solver with no capacity: the layout where nothing fits it.
/// Reads no capacity.
#[salsa::tracked(returns(ref))]
pub fn offset_layout_unbounded<'db>(
    db: &'db dyn Db,
    key: FunctionSpace<'db>,
) -> Staged<Option<Placement>> {
    let input = ok(offset_input(db, key.item(db)))?;
    let keep_none = rustc_hash::FxHashSet::default();
    let placed = input
        .value
        .place(key.space(db), None, &keep_none, LayoutSearch::Full)?;
    Ok(placed)
}

/// The offset planner's plan (`--planner dsa`) from the memoized stages: PyPTO's addressed
/// plan as the fallback, the offset input and each space's layout. Reads a capacity and
/// `--addresses` only where nothing fits a space; backdates where the plan comes out the
/// same.
#[salsa::tracked(returns(ref), lru = 64)]
pub fn offset_plan<'db>(
    db: &'db dyn Db,
    item: FunctionItem<'db>,
) -> Staged<Located<Arc<FunctionPlan>>> {
    let source = there(source(db, item))?;
    let pypto = match addressed_as(db, item, Addresses::Always) {
        Ok(plan) => Ok((*plan.value).clone()),
        Err(Stop::Refused(err)) => Err(err),
        Err(Stop::Gone) => return Err(Stop::Gone),
    };
    // Where a stage has no function (a stale manifest), the plan has none either; the error
    // handed to `plan_offsets` then is never seen.
    let gone = std::cell::Cell::new(false);
    let refused = |stop: &Stop| match stop {
        Stop::Refused(err) => err.clone(),
        Stop::Gone => {
            gone.set(true);
            PlanError::new(codes::STALE_MANIFEST, String::new(), Span::default())
        }
    };
    let offset_input = || match offset_input(db, item) {
        Ok(input) => Ok(Cow::Borrowed(&*input.value)),
        Err(stop) => Err(refused(stop)),
    };
    let place = |_: &OffsetInput, space, bound| {
        let key = FunctionSpace::new(db, item, space);
        let placed = match bound {
            Bound::Capacity => offset_layout(db, key),
            Bound::Unbounded => offset_layout_unbounded(db, key),
        };
        placed.clone().map_err(|stop| refused(&stop))
    };
    let capacities = offsets::Capacities {
        planning: &|space| space_capacity(db, Space::new(db, space)).planning,
        assign_addresses: &|| Settings::get(db).assign_addresses(db),
    };
    let plan = offsets::plan_offsets(&source.function, pypto, offset_input, place, capacities);
    if gone.get() {
        return Err(Stop::Gone);
    }
    // As the PyPTO stages' plans, it leaves the report's capacities to `fill_in_capacities`.
    Ok(Located {
        value: Arc::new(plan?),
        table: source.table.clone(),
    })
}

/// Plans one function: from the store when its key is there, else by planning and verifying
/// it (and queueing the verified result for the store).
#[salsa::tracked(returns(ref), no_eq, lru = 0)]
pub fn plan<'db>(db: &'db dyn Db, item: FunctionItem<'db>) -> PlanOutcome {
    let file = *item.file(db);
    let config = file_config(db, file);
    let digest = item.digest(db);
    if let Some(cached) = db.cache().get_plan_for(&config, &digest) {
        return PlanOutcome {
            result: Ok(Arc::new(cached)),
            computed: false,
        };
    }
    let result = match checked_plan(db, item) {
        // Packed under a capacity, or overflowing one, here: it holds for these alone.
        Ok(plan)
            if !plan
                .capacities
                .hold(|space| config.planning_capacity(space)) =>
        {
            Ok(Arc::new(CachedPlan {
                capacities: Capacities::Configured,
                ..CachedPlan::clone(plan)
            }))
        }
        other => other.clone(),
    };
    if let Ok(plan) = &result
        && db.cache().is_enabled()
    {
        let mut stored = CachedPlan::clone(plan);
        fill_in_capacities(db, &mut stored.report);
        db.cache().put_plan_for(&config, &digest, &stored);
    }
    PlanOutcome {
        result,
        computed: true,
    }
}

/// Each space's configured capacity in a plan's report. The stages leave it out (and
/// `plan` memoizes their plan as it is), so that a capacity change that changes no plan
/// re-runs no stage after the capacity checks; the store and `file_result` fill it in (a
/// plan or manifest stored for any capacities holds those of the run that stored it).
fn fill_in_capacities(db: &dyn Db, report: &mut PlanReport) {
    for space in &mut report.spaces {
        space.capacity = space_capacity(db, Space::new(db, space.space)).usable;
    }
}

/// The plan that leaves the tool: PyPTO's, from the stages, checked by both checkers and
/// repaired where they reject it (or, `--exact`, reported), printed, with its report's spans
/// anchored. It reads the capacities only when a repair re-plans.
///
/// Kept as long as `plan` is (which holds the same plans, so this memo costs little), which
/// lets a configuration change that alters no plan skip the checkers.
#[salsa::tracked(returns(ref), no_eq, lru = 0)]
pub fn checked_plan<'db>(
    db: &'db dyn Db,
    item: FunctionItem<'db>,
) -> Result<Arc<CachedPlan>, Arc<Failure>> {
    let settings = Settings::get(db);
    let planner = settings.planner(db);
    let options = crate::repair::verify_options(&PlanConfig {
        backend: settings.backend(db),
        planner,
        // The offset planner addresses every function whatever `--addresses` says.
        assign_addresses: planner == Planner::Pypto && settings.assign_addresses(db),
        ..PlanConfig::default()
    });
    if planner == Planner::Pypto && !db.keeps_stages() {
        // Straight from the parse: `source` would only be memoized to be evicted.
        let Some(source) = parsed(db, *item.file(db), item.name(db)) else {
            return Err(stale_manifest(db, item));
        };
        return checked_plan_in_one_go(db, item, source, &options);
    }
    let Some(source) = source(db, item).as_ref() else {
        return Err(stale_manifest(db, item));
    };
    let anchorer = spans::Anchorer::new(&source.table);
    let full_config = || file_config(db, *item.file(db));
    let planned = match planner {
        Planner::None => {
            let plan = FunctionPlan {
                function: (*source.function).clone(),
                report: PlanReport::default(),
            };
            // Reads no capacity at all.
            let any = Capacities::Fitting(Vec::new());
            return Ok(Arc::new(cached_plan(&plan, &anchorer, any)));
        }
        Planner::Pypto | Planner::Dsa => {
            let input = PlanInput::of(&source.function);
            let first = match planner {
                Planner::Dsa => offset_plan(db, item),
                _ => addressed(db, item),
            };
            let first = match first {
                Ok(plan) => {
                    let findings = check_plan(&input, &plan.value.function, &options);
                    if findings.is_empty() {
                        // The offset planner's plan reads every capacity.
                        let capacities = match planner {
                            Planner::Dsa => Capacities::Configured,
                            _ => stage_capacities(db, item, &source.function),
                        };
                        return Ok(Arc::new(cached_plan(&plan.value, &anchorer, capacities)));
                    }
                    Ok(Checked {
                        plan: (*plan.value).clone(),
                        findings,
                    })
                }
                Err(Stop::Refused(err)) => Err(err.clone()),
                Err(Stop::Gone) => return Err(stale_manifest(db, item)),
            };
            // Repair (or, `--exact`, report) with the whole configuration, from the findings
            // just made.
            let (function, config) = (&source.function, full_config());
            crate::repair::plan_checked_from(function, &input, first, &config, &options)
                .map_err(|err| safe_plan_failure(err, &anchorer))?
        }
    };
    // A repair plans with the whole configuration.
    Ok(Arc::new(cached_plan(
        &planned,
        &anchorer,
        Capacities::Configured,
    )))
}

/// PyPTO's plan of a function made in one go ([`Planning::plan_once`]), checked,
/// and repaired (or, `--exact`, reported) from there where the checkers reject it: how a
/// one-shot run plans, since it would only build each stage's memo to drop it (a cold run
/// spent about a sixth of its time so, BENCHMARKS.md, issue 16). The plan is made on a copy
/// of the input, which a repair starts from: without it, the stages parsed the file again
/// and planned and checked the function again (a cold tree of corpus functions, most files
/// with one to repair, spent about a fifth of its time in that second parse, issue 35).
fn checked_plan_in_one_go(
    db: &dyn Db,
    item: FunctionItem<'_>,
    source: &Source,
    options: &VerifyOptions,
) -> Result<Arc<CachedPlan>, Arc<Failure>> {
    let function = &source.function;
    let input = PlanInput::of(function);
    let config = file_config(db, *item.file(db));
    let anchorer = spans::Anchorer::new(&source.table);
    let first = match Planning::once(function.clone(), &config).plan_once() {
        Ok(once) => {
            let findings = check_plan(&input, &once.plan.function, options);
            if findings.is_empty() {
                let capacities = once
                    .fits
                    .map_or(Capacities::Configured, Capacities::Fitting);
                return Ok(Arc::new(cached_plan(&once.plan, &anchorer, capacities)));
            }
            Ok(Checked {
                plan: once.plan,
                findings,
            })
        }
        Err(err) => Err(err),
    };
    // As `checked_plan` repairs the stages' plan (or their error), which is this one.
    crate::repair::plan_checked_from(function, &input, first, &config, options)
        .map(|planned| Arc::new(cached_plan(&planned, &anchorer, Capacities::Configured)))
        .map_err(|err| safe_plan_failure(err, &anchorer))
}

/// For which capacities the stages' plan of a function (PyPTO's, as `addressed` made it)
/// would be the plan: where each space it packs keeps its unlimited packing
/// ([`SpacePacking::fit`]) and each space it lays out passes the overflow check. Reads no
/// capacity (only whether each is known), so that a capacity change re-runs no checker:
/// whether the fits hold at the configured capacities (else the plan was packed under one,
/// or overflowed, and holds for those only) is `plan`'s to check.
fn stage_capacities(db: &dyn Db, item: FunctionItem<'_>, function: &Function) -> Capacities {
    if !crate::plan::is_planned(function) {
        // Left as it is: no capacity is read.
        return Capacities::Fitting(Vec::new());
    }
    let layout = match capacity_aware(db, Settings::get(db)) {
        false => None,
        true => match layout(db, item) {
            Ok(layout) => layout.as_deref(),
            Err(_) => return Capacities::Configured,
        },
    };
    match pipeline::fits(&Stages::of(db, item), layout) {
        Some(fits) => Capacities::Fitting(fits),
        None => Capacities::Configured,
    }
}

fn stale_manifest(db: &dyn Db, item: FunctionItem<'_>) -> Arc<Failure> {
    let message = format!(
        "the cached manifest of this file names a function '{}' it does not define",
        item.name(db)
    );
    Arc::new(Failure {
        kind: FailureKind::Plan,
        diagnostics: vec![Diagnostic::error(
            codes::STALE_MANIFEST,
            message,
            Span::default(),
        )],
        anchors: vec![Anchor::Nowhere],
    })
}

/// A plan printed, digested and with its report's spans anchored (in the table of the parse
/// the function came from, not the item's `spans`: reading that would make every plan depend
/// on where its function sits).
fn cached_plan(
    planned: &FunctionPlan,
    anchorer: &spans::Anchorer<'_>,
    capacities: Capacities,
) -> CachedPlan {
    let mut report = planned.report.clone();
    let anchors = report_spans_mut(&mut report)
        .map(|span| anchorer.anchor(std::mem::take(span)))
        .collect();
    let mut planned_text = String::with_capacity(ir::printed_size_hint(&planned.function));
    print_function(&planned.function, &mut planned_text, 4);
    CachedPlan {
        planned_digest: canonical_digest_of_printed(&planned_text, 4),
        planned_text: planned_text.into(),
        report,
        anchors,
        capacities,
    }
}

/// blake3 of a function's canonical bytes, from its text printed at `indent`: printing
/// indents every line and keeps every literal on one line, so dropping the indent gives the
/// canonical bytes without printing the function a second time.
fn canonical_digest_of_printed(text: &str, indent: usize) -> [u8; 32] {
    let prefix = &"        "[..indent.min(8)];
    // Hashed in one piece: blake3 takes many short updates (one per line) at about twice
    // the cost of their bytes in one.
    let mut canonical = Vec::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        canonical.extend_from_slice(line.strip_prefix(prefix).unwrap_or(line).as_bytes());
    }
    *blake3::hash(&canonical).as_bytes()
}

/// A function the safe planner leaves without a plan: refused by the planner, or still
/// failing the checkers after repair.
fn safe_plan_failure(err: SafePlanError, anchorer: &spans::Anchorer<'_>) -> Arc<Failure> {
    Arc::new(match err {
        SafePlanError::Plan(err) => failure(FailureKind::Plan, vec![err.0], anchorer),
        SafePlanError::Unrepaired(violations) => failure(FailureKind::Verify, violations, anchorer),
    })
}

fn failure(
    kind: FailureKind,
    mut diagnostics: Vec<Diagnostic>,
    anchorer: &spans::Anchorer<'_>,
) -> Failure {
    let anchors = diagnostics
        .iter_mut()
        .flat_map(|d| {
            let primary = std::mem::take(&mut d.span);
            std::iter::once(primary)
                .chain(d.related.iter_mut().map(|r| std::mem::take(&mut r.span)))
        })
        .map(|span| anchorer.anchor(span))
        .collect();
    Failure {
        kind,
        diagnostics,
        anchors,
    }
}

/// The located diagnostics of a file that did not parse.
#[salsa::tracked(returns(ref), no_eq)]
pub fn file_diagnostics(db: &dyn Db, file: SourceFile) -> Vec<Diagnostic> {
    match parse_file(db, file) {
        Parsed::Failed(diagnostics) => diagnostics.clone(),
        _ => Vec::new(),
    }
}

/// A file's functions with their plans and located reports: from the file's manifest when
/// there is one, else from `plan` per function (then the manifest is queued).
#[salsa::tracked(returns(ref), no_eq, lru = 0)]
pub fn file_result(db: &dyn Db, file: SourceFile) -> Arc<FileStatus> {
    Arc::new(file_status(db, file))
}

fn file_status(db: &dyn Db, file: SourceFile) -> FileStatus {
    file_status_of(db, file, None)
}

/// `file_status`, of the function named `only` alone when given (`None` when the file has
/// no such function): the viewer asks for one function's plans under other configurations,
/// and planning the file's other functions for it took seconds on large real dumps.
pub fn function_status(db: &dyn Db, file: SourceFile, only: &str) -> Option<FileStatus> {
    let status = file_status_of(db, file, Some(only));
    match &status {
        FileStatus::Planned { functions, .. } if functions.is_empty() => None,
        _ => Some(status),
    }
}

fn file_status_of(db: &dyn Db, file: SourceFile, only: Option<&str>) -> FileStatus {
    let (header, items) = match file_items(db, file) {
        FileItems::NeedsText => return FileStatus::NeedsText,
        FileItems::NotAProgram => return FileStatus::NotAProgram,
        FileItems::Failed => return FileStatus::ParseFailed(file_diagnostics(db, file).clone()),
        FileItems::Program { header, items } => (header, items),
    };
    let wanted = |name: &Name| only.is_none_or(|only| name == only);
    if let Some(manifest) = manifest(db, file) {
        let functions = manifest
            .functions
            .iter()
            .filter(|f| wanted(&f.name))
            .map(|f| {
                let mut report = f.report.clone();
                fill_in_capacities(db, &mut report);
                FunctionOutcome {
                    name: f.name.clone(),
                    result: Ok(Planned {
                        report: Report::Summary(report),
                        planned_digest: f.planned_digest,
                        planned_text: None,
                    }),
                    computed: false,
                }
            })
            .collect();
        return FileStatus::Planned {
            header: header.clone(),
            functions,
        };
    }
    let mut functions = Vec::with_capacity(items.len());
    let mut entries = Vec::with_capacity(items.len());
    for &item in items.iter().filter(|item| wanted(item.name(db))) {
        db.unwind_if_revision_cancelled();
        let outcome = plan(db, item);
        // Only a plan with anchors depends on where the function sits in the text.
        let locate = |anchors: &[Anchor]| -> Vec<Span> {
            if anchors.is_empty() {
                return Vec::new();
            }
            let table = item.spans(db);
            anchors.iter().map(|&a| spans::resolve(a, table)).collect()
        };
        let result = match &outcome.result {
            Ok(plan) => {
                // Statement places are detail, located when asked for (`add_report_detail`):
                // so a plan without moves or diagnostics still does not depend on where its
                // function sits. A report that needs them keeps only the summary's figures
                // here: the memo holds the rest, and a copy in every outcome of a
                // 20,000-function run held 100 MB for nothing.
                let detailed = plan.report.statement_spans.is_empty();
                let mut report = match detailed {
                    true => plan.report.clone(),
                    false => without_detail(&plan.report),
                };
                fill_in_capacities(db, &mut report);
                let placed = located_spans(&report);
                let anchors = &plan.anchors[..placed.min(plan.anchors.len())];
                for (span, at) in report_spans_mut(&mut report).zip(locate(anchors)) {
                    *span = at;
                }
                entries.push(ManifestEntry {
                    name: item.name(db).clone(),
                    digest: item.digest(db),
                    planned_digest: plan.planned_digest,
                    report: without_detail(&report),
                    capacities: plan.capacities.clone(),
                });
                Ok(Planned {
                    report: match detailed {
                        true => Report::Detailed(report),
                        false => Report::Summary(report),
                    },
                    planned_digest: plan.planned_digest,
                    planned_text: Some(plan.planned_text.clone()),
                })
            }
            Err(failure) => {
                let mut diagnostics = failure.diagnostics.clone();
                let mut located = locate(&failure.anchors).into_iter();
                for d in &mut diagnostics {
                    let spans = std::iter::once(&mut d.span)
                        .chain(d.related.iter_mut().map(|r| &mut r.span));
                    for (span, at) in spans.zip(located.by_ref()) {
                        *span = at;
                    }
                }
                Err((failure.kind, diagnostics))
            }
        };
        functions.push(FunctionOutcome {
            name: item.name(db).clone(),
            result,
            computed: outcome.computed,
        });
    }
    if entries.len() == items.len() && db.cache().is_enabled() {
        let manifest = FileManifest {
            header: header.clone(),
            functions: entries,
        };
        db.cache()
            .put_manifest_for(&file_config(db, file), &file.digest(db), &manifest);
    }
    FileStatus::Planned {
        header: header.clone(),
        functions,
    }
}

/// A report without what only JSON, SVG and the daemon's answers show: the manifest keeps
/// what a summary prints, so a warm run decodes a few hundred bytes per function instead of
/// every buffer's members and every variable's lifetime.
fn without_detail(report: &PlanReport) -> PlanReport {
    PlanReport {
        spaces: report
            .spaces
            .iter()
            .map(|s| crate::plan::SpaceReport {
                space: s.space,
                capacity: s.capacity,
                tiles: s.tiles,
                buffers_before: s.buffers_before,
                buffers_after: s.buffers_after,
                bytes_before: s.bytes_before,
                bytes_after: s.bytes_after,
                lower_bound: s.lower_bound,
                footprint: s.footprint,
                pypto_footprint: s.pypto_footprint,
                // Not cloned only to be dropped: every buffer's member names, the curve.
                buffers: Vec::new(),
                live: Vec::new(),
            })
            .collect(),
        removed_allocs: Vec::new(),
        inserted_moves: report.inserted_moves.clone(),
        lifetimes: Vec::new(),
        diagnostics: report.diagnostics.clone(),
        statement_spans: Vec::new(),
    }
}

/// Completes the reports of `outcome` (of its function named `only`, if given) that came
/// without detail from a manifest, from their plan entries (whose statement spans, the only
/// spans of the detail, are anchors to locate in the current text). Without `lifetimes`
/// the reports get no lifetimes and no statement places, which a served plan would parse its
/// file again for. False where that parse, or planning, needed the file's text and it was
/// not loaded (a stamp vouched for the file): the reports are then incomplete (nothing is
/// stored), and a caller loads the text and asks again.
pub fn add_report_detail(
    db: &dyn Db,
    outcome: &mut FileOutcome,
    only: Option<&str>,
    lifetimes: bool,
) -> bool {
    let FileStatus::Planned { functions, .. } = Arc::make_mut(&mut outcome.status) else {
        return true;
    };
    let wanted = |f: &FunctionOutcome| only.is_none_or(|name| f.name == name);
    let lacks_detail = |f: &FunctionOutcome| {
        f.result
            .as_ref()
            .is_ok_and(|p| p.report.detailed().is_none())
    };
    if !functions.iter().any(|f| wanted(f) && lacks_detail(f)) {
        return true;
    }
    let stored_under = db.cache().is_enabled().then(|| {
        let file = outcome.file;
        (file_config(db, file), file.digest(db))
    });
    if let Some((config, text)) = &stored_under
        && let Some(detail) = db.cache().get_detail_for(config, text)
        && complete_from(functions, &detail, wanted, lifetimes)
    {
        return true;
    }
    let FileItems::Program { items, .. } = file_items(db, outcome.file) else {
        return outcome.file.text(db).is_some();
    };
    let mut placed = true;
    for (function, &item) in functions.iter_mut().zip(items) {
        if !wanted(function) {
            continue;
        }
        let Ok(planned) = &mut function.result else {
            continue;
        };
        let Report::Summary(report) = &mut planned.report else {
            continue;
        };
        // A served plan's entry is read, not memoized by `plan`: the memo would keep every
        // plan of a tree whose detail is asked for file by file (`--emit json`).
        let served = (!function.computed)
            .then(|| {
                let config = file_config(db, outcome.file);
                db.cache().get_plan_for(&config, &item.digest(db))
            })
            .flatten()
            .map(Arc::new);
        let full = match served {
            Some(served) => Ok(served),
            None => plan(db, item).result.clone(),
        };
        if let Ok(full) = &full {
            // A report planned in this run has the rest already; one from a manifest not.
            for (space, detailed) in report.spaces.iter_mut().zip(&full.report.spaces) {
                space.buffers = detailed.buffers.clone();
                space.live = detailed.live.clone();
            }
            report.removed_allocs = full.report.removed_allocs.clone();
            if !lifetimes {
                planned.report = Report::Detailed(std::mem::take(report));
                continue;
            }
            report.lifetimes = full.report.lifetimes.clone();
            // The anchors of moves and diagnostics come first (`report_spans_mut`).
            let located = located_spans(&full.report);
            let statements = &full.anchors[located.min(full.anchors.len())..];
            if !statements.is_empty() {
                // A manifest-served item has no span table: the detail needs a parse.
                let mut table = &**item.spans(db);
                if table.0.is_empty()
                    && let Some(reparsed) = parsed(db, outcome.file, item.name(db))
                {
                    table = &reparsed.table;
                }
                if table.0.is_empty() && outcome.file.text(db).is_none() {
                    placed = false;
                }
                report.statement_spans = statements
                    .iter()
                    .map(|&a| spans::resolve(a, table))
                    .collect();
            }
            planned.report = Report::Detailed(std::mem::take(report));
        }
    }
    // A whole file's detail is stored for the next run that shows it.
    if let Some((config, text)) = &stored_under
        && only.is_none()
        && placed
    {
        let detail: Option<Vec<FunctionDetail>> = functions
            .iter()
            .filter_map(|f| f.result.as_ref().ok().map(|p| (f, p)))
            .map(|(f, p)| {
                let report = p.report.detailed()?;
                Some(FunctionDetail::of(f.name.clone(), report, lifetimes))
            })
            .collect();
        if let Some(functions) = detail {
            db.cache()
                .put_detail_for(config, text, &FileDetail { functions });
        }
    }
    placed
}

/// Completes the reports of `functions` that `wanted` names and that lack detail from a
/// stored [`FileDetail`]; false, with nothing changed, when it does not hold one of them.
fn complete_from(
    functions: &mut [FunctionOutcome],
    detail: &FileDetail,
    wanted: impl Fn(&FunctionOutcome) -> bool,
    lifetimes: bool,
) -> bool {
    let by_name: rustc_hash::FxHashMap<&Name, &FunctionDetail> =
        detail.functions.iter().map(|f| (&f.name, f)).collect();
    let lacking = |f: &FunctionOutcome| match &f.result {
        Ok(Planned {
            report: Report::Summary(report),
            ..
        }) if wanted(f) => Some(report.spaces.len()),
        _ => None,
    };
    let held = functions.iter().all(|f| {
        lacking(f).is_none_or(|spaces| {
            by_name
                .get(&f.name)
                .is_some_and(|d| d.completes(spaces, lifetimes))
        })
    });
    if !held {
        return false;
    }
    for function in functions.iter_mut() {
        if lacking(function).is_none() {
            continue;
        }
        let (Some(stored), Ok(planned)) = (by_name.get(&function.name), &mut function.result)
        else {
            continue;
        };
        let Report::Summary(report) = &mut planned.report else {
            continue;
        };
        stored.complete(report);
        if !lifetimes {
            report.lifetimes = Vec::new();
            report.statement_spans = Vec::new();
        }
        planned.report = Report::Detailed(std::mem::take(report));
    }
    true
}

/// Why tiles `a` and `b` of the function named `function` do or do not share a buffer
/// (`plan::explain`), from the memoized stages; places are lines of the file's text. `None`
/// when the file has no such function (or did not parse): the caller words that; and with
/// another planner than PyPTO's, whose plan the stages do not make.
pub fn explain(
    db: &dyn Db,
    file: SourceFile,
    function: &str,
    (a, b): (&str, &str),
) -> Option<Result<String, crate::plan::explain::ExplainError>> {
    if Settings::get(db).planner(db) != Planner::Pypto {
        return None;
    }
    let FileItems::Program { items, .. } = file_items(db, file) else {
        return None;
    };
    let item = *items.iter().find(|item| item.name(db) == function)?;
    let text = file.text(db).as_deref()?;
    let source = source(db, item).as_ref()?;
    let planned = || match addressed(db, item) {
        Ok(plan) => Ok(Cow::Owned(plan.value.function.clone())),
        Err(Stop::Refused(err)) => Err(err.clone()),
        // A later stage of a function whose earlier stages were made is made too.
        Err(Stop::Gone) => Err(pipeline::missing()),
    };
    let stages = crate::plan::explain::Stages {
        function: &source.function,
        results: &Stages::of(db, item),
        planned: &planned,
    };
    let explained = crate::plan::explain::explain_stages(&stages, text, a, b).map(|mut out| {
        let config = file_config(db, *item.file(db));
        out.extend(crate::repair::emitted_placement(
            &source.function,
            &config,
            (a, b),
        ));
        out
    });
    Some(explained)
}

/// The planned text of every function of a file, in order (`None` for a function whose
/// plan failed). Reads plan entries that a manifest-served run did not need.
pub fn planned_texts(db: &dyn Db, file: SourceFile) -> Vec<Option<Arc<str>>> {
    match file_items(db, file) {
        FileItems::Program { items, .. } => items
            .iter()
            .map(|&item| {
                plan(db, item)
                    .result
                    .as_ref()
                    .ok()
                    .map(|p| p.planned_text.clone())
            })
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digest_of_printed_text_is_the_canonical_digest() {
        let text = memreuse_testgen::synth::program_text(
            "T",
            &memreuse_testgen::synth::SynthConfig {
                functions: 3,
                tiles_per_function: 40,
                ..Default::default()
            },
        );
        let program = ir::parse_program(&text).expect("generated programs parse");
        for function in &program.functions {
            let mut printed = String::new();
            print_function(function, &mut printed, 4);
            assert_eq!(
                canonical_digest_of_printed(&printed, 4),
                *blake3::hash(&canonical_function_bytes(function)).as_bytes()
            );
        }
    }
}
