//! The driver: owns the database, loads files through a `System`, plans them on N threads
//! and flushes the cache.
//!
//! Stamps: a file whose metadata matches the stamp recorded when its text was last read is
//! not read again; its digest comes from the stamp and, when the file's manifest is in the
//! cache, its text is never needed. A stamp is only recorded for a file last modified at
//! least [`STAMP_MIN_AGE_NS`] before it was read, so a write within the file system's time
//! granularity cannot hide behind an unchanged stamp (git's "racily clean" rule).
//!
//! Parallelism: salsa database handles are `Send` but not `Sync`, so each worker thread gets
//! its own clone of the database and pulls whole files from a shared counter; salsa
//! memoizes across the clones and blocks a thread that asks for a query another thread is
//! computing. Inputs are only set between runs, when no clone is alive.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};

use salsa::{Durability, Setter as _};

use super::outcome::{FileOutcome, FileStatus, FunctionOutcome, OutcomeText};
use super::source_file::SourceFile;
use super::{Db, FileItems, Settings, file_items, file_result};
use crate::ir::MemSpace;
use crate::plan::PlanConfig;
use crate::store::{self, Cache, Stamp, StoreError};
use crate::system::{FileMeta, System};

/// How long before its reading a file must have been modified for its stamp to be trusted.
pub const STAMP_MIN_AGE_NS: i128 = 1_000_000_000;

#[salsa::db]
#[derive(Clone)]
pub struct PlanDatabase {
    storage: salsa::Storage<Self>,
    cache: Arc<Cache>,
    /// How long stage results are kept (set through [`Workspace::set_stage_retention`]).
    retention: StageRetention,
}

#[salsa::db]
impl salsa::Database for PlanDatabase {}

#[salsa::db]
impl Db for PlanDatabase {
    fn cache(&self) -> &Cache {
        &self.cache
    }
    fn keeps_stages(&self) -> bool {
        self.retention == StageRetention::Recent
    }
}

/// The executed queries, for firewall tests: `query(argument)` in execution order.
pub type ExecutionLog = Arc<Mutex<Vec<salsa::DatabaseKeyIndex>>>;

/// How long a workspace keeps each function's stage results (Step 0, lifetimes, sharing
/// rules, fixed and addressed plans) and each file's parse, and whether it keeps the plans.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StageRetention {
    /// The 64 functions planned last (and 8 files' parses), evicted after every batch of 8
    /// files a thread: an edit or a configuration change re-plans them from their stages
    /// (the daemon).
    Recent,
    /// For a one-shot run, which never asks for a stage again: each stage keeps one
    /// function's results, the parse one file's. On one thread they are evicted after every
    /// function, while still in the processor's caches: freed 64 functions later, the same
    /// frees missed the caches and a cold `memreuse plan --jobs 1` took about a fifth longer
    /// (BENCHMARKS.md, issue 16). On several, after every batch of 8 files a thread, as for
    /// `Recent`: eviction waits for every thread, and smaller batches made two-thread runs
    /// slower.
    ///
    /// On one thread the plans, and each file's outcome and manifest, are kept only while
    /// their file is planned: the run holds no more than the outcomes it was handed, with
    /// the detail it asked for ([`OutcomeDetail`]); a cold summary of a 20,000-function tree
    /// kept 150 MB of plans and planned texts to the end. A plan asked for later is made again.
    OneShot,
}

/// How complete the reports of the outcomes [`Workspace::plan`] hands out are. A one-shot
/// run keeps no plan past its file ([`StageRetention::OneShot`]), so what it will show of a
/// plan made in it is made while the plan is at hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutcomeDetail {
    /// What a summary prints; the rest on request ([`Workspace::add_report_detail`]).
    Summary,
    /// The complete reports of the files with a plan made by this run (lifetimes and
    /// statement places only when `lifetimes`); a file served from the store is completed on
    /// request, from the detail stored with it.
    Detailed { lifetimes: bool },
}

/// Whether [`Workspace::load`] may leave unread a file whose metadata matches its recorded
/// stamp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stamps {
    Trusted,
    Ignored,
}

/// What [`Workspace::load`] reads.
#[derive(Clone, Copy, Debug)]
pub struct LoadInputs<'a> {
    /// Each path, with whether Step 0 materializes its aliases.
    pub paths: &'a [(PathBuf, bool)],
    /// Threads to read on.
    pub jobs: usize,
    pub stamps: Stamps,
}

/// What the outcomes [`Workspace::plan`] hands out keep of the texts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Texts {
    /// The input text and each function's planned text (what `--emit ir` prints).
    Kept,
    /// Neither, for a one-shot caller that prints no program: a file's planned texts are
    /// freed as its outcome is made, and its input text too once that outcome is complete
    /// (no detail is left to make from it). A caller that needs the input text reads the
    /// file again, which must still have the digest of [`OutcomeText::Released`]. Held to the end of a cold
    /// run, the two were two fifths of its peak memory.
    Released,
}

impl StageRetention {
    /// Functions whose results each stage keeps.
    fn functions(self) -> usize {
        match self {
            StageRetention::Recent => 64,
            StageRetention::OneShot => 1,
        }
    }

    /// Files whose parse is kept ([`super::parse_file`]): those being planned.
    fn files(self) -> usize {
        match self {
            StageRetention::Recent => 8,
            StageRetention::OneShot => 1,
        }
    }

    /// Files per planning thread between two evictions: few enough that a batch's stage
    /// results stay small, enough that the threads seldom wait for each other at the end of
    /// a batch.
    fn files_per_batch(self, jobs: usize) -> usize {
        match self {
            StageRetention::OneShot if jobs <= 1 => 1,
            _ => 8,
        }
    }
}

/// One batch for a planning thread: its own database clone, the files and the counter the
/// threads take them from.
struct BatchJob<'a> {
    db: PlanDatabase,
    files: &'a [SourceFile],
    next: Arc<AtomicUsize>,
}

/// Tells the caller a planning thread finished its batch, when dropped.
struct Finished<'a>(&'a mpsc::Sender<()>);

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        // The caller is gone only when the scope is unwinding already.
        let _ = self.0.send(());
    }
}

pub struct Workspace {
    db: PlanDatabase,
    settings: Settings,
    files: std::collections::HashMap<PathBuf, SourceFile>,
    /// Files read by `load` whose stamps may be recorded: metadata and when it was taken.
    read: std::collections::HashMap<SourceFile, (FileMeta, i128)>,
    log: Option<ExecutionLog>,
    detail: OutcomeDetail,
    texts: Texts,
}

impl Workspace {
    pub fn new(cache: Arc<Cache>, config: PlanConfig) -> Workspace {
        Workspace::build(cache, config, None)
    }

    /// A workspace that records every query execution (see [`Workspace::executed`]).
    pub fn with_log(cache: Arc<Cache>, config: PlanConfig) -> Workspace {
        Workspace::build(cache, config, Some(ExecutionLog::default()))
    }

    fn build(cache: Arc<Cache>, config: PlanConfig, log: Option<ExecutionLog>) -> Workspace {
        let callback = log.clone().map(|log| {
            Box::new(move |event: salsa::Event| {
                if let salsa::EventKind::WillExecute { database_key } = event.kind {
                    log.lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push(database_key);
                }
            }) as Box<dyn Fn(salsa::Event) + Send + Sync>
        });
        let db = PlanDatabase {
            storage: salsa::Storage::new(callback),
            cache,
            retention: StageRetention::Recent,
        };
        let settings = Settings::builder(
            config.backend,
            config.planner,
            config.capacity_overrides,
            config.assign_addresses,
            config.exact,
            config.rules,
        )
        .durability(Durability::HIGH)
        .new(&db);
        Workspace {
            db,
            settings,
            files: Default::default(),
            read: Default::default(),
            log,
            detail: OutcomeDetail::Summary,
            texts: Texts::Kept,
        }
    }

    /// Sets how complete the reports of the outcomes [`Workspace::plan`] hands out are
    /// ([`OutcomeDetail::Summary`] in a new workspace).
    pub fn set_outcome_detail(&mut self, detail: OutcomeDetail) {
        self.detail = detail;
    }

    /// Sets what outcomes keep of the texts ([`Texts::Kept`] in a new workspace).
    pub fn set_texts(&mut self, texts: Texts) {
        self.texts = texts;
    }

    /// Sets how long each function's stage results are kept ([`StageRetention::Recent`] in a
    /// new workspace).
    pub fn set_stage_retention(&mut self, retention: StageRetention) {
        if retention != self.db.retention {
            super::set_stage_capacity(&mut self.db, retention.functions(), retention.files());
            let plans = (retention == StageRetention::OneShot).then_some((1, 1));
            super::set_plan_capacity(&mut self.db, plans);
            self.db.retention = retention;
        }
    }

    pub fn cache(&self) -> &Arc<Cache> {
        &self.db.cache
    }

    /// Sets each aspect of the configuration that changed; an unchanged aspect is not a change,
    /// so the stages that read only unchanged aspects stay memoized.
    pub fn set_settings(&mut self, config: PlanConfig) {
        let settings = self.settings;
        let db = &mut self.db;
        macro_rules! set_if_changed {
            ($get:ident, $set:ident, $value:expr) => {
                if settings.$get(db) != $value {
                    settings
                        .$set(db)
                        .with_durability(Durability::HIGH)
                        .to($value);
                }
            };
        }
        set_if_changed!(backend, set_backend, config.backend);
        set_if_changed!(planner, set_planner, config.planner);
        set_if_changed!(
            capacity_overrides,
            set_capacity_overrides,
            config.capacity_overrides
        );
        set_if_changed!(
            assign_addresses,
            set_assign_addresses,
            config.assign_addresses
        );
        set_if_changed!(exact, set_exact, config.exact);
        set_if_changed!(rules, set_rules, config.rules);
    }

    /// Creates or updates the file at `path`; unchanged text is not a change.
    pub fn set_file(&mut self, path: &Path, text: &str, materialize_aliases: bool) -> SourceFile {
        let digest = *blake3::hash(text.as_bytes()).as_bytes();
        self.set_content(path, digest, Some(text.into()), materialize_aliases)
    }

    fn set_content(
        &mut self,
        path: &Path,
        digest: [u8; 32],
        text: Option<Arc<str>>,
        materialize_aliases: bool,
    ) -> SourceFile {
        let Some(&file) = self.files.get(path) else {
            let file = SourceFile::new(
                &self.db,
                path.to_path_buf(),
                digest,
                text,
                materialize_aliases,
            );
            self.files.insert(path.to_path_buf(), file);
            return file;
        };
        if file.digest(&self.db) != digest {
            file.set_digest(&mut self.db).to(digest);
            file.set_text(&mut self.db).to(text);
        } else if text.is_some() && file.text(&self.db).is_none() {
            file.set_text(&mut self.db).to(text);
        }
        if file.materialize_aliases(&self.db) != materialize_aliases {
            file.set_materialize_aliases(&mut self.db)
                .to(materialize_aliases);
        }
        file
    }

    /// A fresh database of `config` over the same cache, holding these files as this one
    /// does (their digests and shared texts: nothing is copied or hashed again). What the
    /// daemon keeps when it drops the memos.
    pub fn rebuilt<'a>(
        &self,
        config: PlanConfig,
        paths: impl IntoIterator<Item = &'a Path>,
    ) -> (Workspace, Vec<(PathBuf, SourceFile)>) {
        let mut fresh = Workspace::new(self.db.cache.clone(), config);
        fresh.set_stage_retention(self.db.retention);
        let mut kept = Vec::new();
        for path in paths {
            let Some(&file) = self.files.get(path) else {
                continue;
            };
            let Some(text) = file.text(&self.db).clone() else {
                continue;
            };
            let moved = fresh.set_content(
                path,
                file.digest(&self.db),
                Some(text),
                file.materialize_aliases(&self.db),
            );
            kept.push((path.to_path_buf(), moved));
        }
        (fresh, kept)
    }

    /// The current text of the file at `path`, if it is in the workspace and loaded.
    pub fn text_of(&self, path: &Path) -> Option<String> {
        let file = self.files.get(path)?;
        file.text(&self.db).as_deref().map(str::to_string)
    }

    /// Loads `inputs` through `system`. Where stamps are trusted, a file whose metadata
    /// matches its recorded stamp is not read (its text stays unloaded until something needs
    /// it). A file that cannot be read is returned as its error.
    pub fn load(
        &mut self,
        system: &dyn System,
        inputs: LoadInputs,
    ) -> Vec<Result<SourceFile, std::io::Error>> {
        let LoadInputs {
            paths,
            jobs,
            stamps,
        } = inputs;
        let trust_stamps = stamps == Stamps::Trusted;
        let cache = &*self.db.cache;
        let contents = parallel_map(paths, jobs, |(path, _)| -> std::io::Result<Content> {
            let meta = system.metadata(path)?;
            if let Some(meta) = meta.filter(|_| trust_stamps && cache.is_enabled())
                && let Some(stamp) = cache.get_stamp(&store::stamp_key(path))
                && stamp_matches(&stamp, &meta)
            {
                return Ok(Content::Stamped(stamp.digest));
            }
            let now = system.now_ns();
            Ok(Content::Read(
                system.read_to_string(path)?,
                meta.map(|m| (m, now)),
            ))
        });
        paths
            .iter()
            .zip(contents)
            .map(|((path, materialize), content)| {
                Ok(match content? {
                    Content::Stamped(digest) => self.set_content(path, digest, None, *materialize),
                    Content::Read(text, meta) => {
                        let file = self.set_file(path, &text, *materialize);
                        match meta {
                            Some(meta) => self.read.insert(file, meta),
                            None => self.read.remove(&file),
                        };
                        file
                    }
                })
            })
            .collect()
    }

    /// Records a stamp for every file read by `load` that planned completely, was not
    /// modified too recently to trust, and whose stamp changed.
    pub fn record_stamps<'a>(&mut self, outcomes: impl IntoIterator<Item = &'a FileOutcome>) {
        for outcome in outcomes {
            let Some((meta, read_at)) = self.read.remove(&outcome.file) else {
                continue;
            };
            let complete = match &*outcome.status {
                FileStatus::Planned { functions, .. } => functions.iter().all(|f| f.result.is_ok()),
                FileStatus::NotAProgram => true,
                _ => false,
            };
            if !complete || meta.modified_ns > read_at - STAMP_MIN_AGE_NS {
                continue;
            }
            let stamp = Stamp {
                len: meta.len,
                modified_ns: meta.modified_ns,
                changed_ns: meta.changed_ns,
                inode: meta.inode,
                digest: outcome.file.digest(&self.db),
            };
            let key = store::stamp_key(&outcome.path);
            if self.db.cache.get_stamp(&key) != Some(stamp) {
                self.db.cache.put_stamp(key, &stamp);
            }
        }
    }

    /// Plans `files` on `jobs` threads (`progress` is called once per finished file) and
    /// returns their outcomes in order. Cached results are queued for [`Workspace::flush`].
    /// Files loaded without text whose manifest turned out missing are read through
    /// `system` and planned in a second pass.
    pub fn plan(
        &mut self,
        system: &dyn System,
        files: &[SourceFile],
        jobs: usize,
        progress: &(dyn Fn() + Sync),
    ) -> Vec<FileOutcome> {
        let mut outcomes = self.plan_in_batches(files, jobs, progress);
        let missing: Vec<usize> = (0..outcomes.len())
            .filter(|&i| matches!(*outcomes[i].status, FileStatus::NeedsText))
            .collect();
        if missing.is_empty() {
            return outcomes;
        }
        let mut reloaded = Vec::new();
        for &i in &missing {
            let file = outcomes[i].file;
            let path = outcomes[i].path.clone();
            match system.read_to_string(&path) {
                Ok(text) => {
                    let materialize = file.materialize_aliases(&self.db);
                    reloaded.push((i, self.set_file(&path, &text, materialize)));
                }
                Err(err) => outcomes[i].status = Arc::new(FileStatus::Unreadable(err.to_string())),
            }
        }
        let again: Vec<SourceFile> = reloaded.iter().map(|&(_, f)| f).collect();
        for ((i, _), outcome) in
            reloaded
                .into_iter()
                .zip(self.plan_in_batches(&again, jobs, &|| {}))
        {
            outcomes[i] = outcome;
        }
        outcomes
    }

    /// The outcome of `file`'s function named `name` alone, planned as [`Workspace::plan`]
    /// plans it but without the file's other functions ([`super::function_status`]); `None`
    /// when the file has no such function.
    pub fn plan_function(&mut self, file: SourceFile, name: &str) -> Option<FileOutcome> {
        let status = super::function_status(&self.db, file, name)?;
        Some(FileOutcome {
            file,
            path: file.path(&self.db).clone(),
            text: OutcomeText::of(file.text(&self.db)),
            status: Arc::new(status),
        })
    }

    /// Plans `files` in batches, enforcing the stages' memo bounds after each: salsa evicts
    /// only when asked (or at a new revision), so without this a cold run would keep every
    /// function's stage results until it ends.
    ///
    /// On several threads the planning threads live for the whole call, each handed a clone
    /// of the database per batch (eviction needs every clone dropped). Started per batch,
    /// the threads began every batch with empty allocator caches: a cold two-thread run took
    /// about 1.2x the time and the CPU.
    fn plan_in_batches(
        &mut self,
        files: &[SourceFile],
        jobs: usize,
        progress: &(dyn Fn() + Sync),
    ) -> Vec<FileOutcome> {
        use salsa::Database as _;
        let batch_len = self.db.retention.files_per_batch(jobs) * jobs.max(1);
        let threads = jobs.min(files.len());
        let mut outcomes = Vec::with_capacity(files.len());
        if threads <= 1 {
            for batch in files.chunks(batch_len) {
                if self.db.retention == StageRetention::OneShot {
                    for &file in batch {
                        self.plan_each_function_evicting(file);
                    }
                }
                let collected = self.collect_outcomes(batch, Some(progress));
                outcomes.extend(self.release_texts(collected));
                self.db.trigger_lru_eviction();
            }
            return outcomes;
        }
        std::thread::scope(|scope| {
            let (finished, batch_done) = mpsc::channel::<()>();
            let workers: Vec<mpsc::Sender<BatchJob<'_>>> = (0..threads)
                .map(|_| {
                    let (send, jobs) = mpsc::channel::<BatchJob<'_>>();
                    let finished = finished.clone();
                    scope.spawn(move || {
                        for job in jobs {
                            // Reports the batch done even when planning panics, so that the
                            // caller does not wait forever; the scope re-raises the panic.
                            let _done = Finished(&finished);
                            // Bound after the guard, so dropped (the clone too) before it.
                            let BatchJob { db, files, next } = job;
                            while let Some(&file) = files.get(next.fetch_add(1, Ordering::Relaxed))
                            {
                                file_result(&db, file);
                                progress();
                            }
                        }
                    });
                    send
                })
                .collect();
            drop(finished);
            for batch in files.chunks(batch_len) {
                let next = Arc::new(AtomicUsize::new(0));
                let handed = workers
                    .iter()
                    .filter(|worker| {
                        let job = BatchJob {
                            db: self.db.clone(),
                            files: batch,
                            next: next.clone(),
                        };
                        worker.send(job).is_ok()
                    })
                    .count();
                // A worker's job, and its database clone, is gone before it reports.
                if batch_done.iter().take(handed).count() < handed || handed == 0 {
                    break;
                }
                let collected = self.collect_outcomes(batch, None);
                outcomes.extend(self.release_texts(collected));
                self.db.trigger_lru_eviction();
            }
        });
        outcomes
    }

    /// Plans the functions of `file` one at a time, evicting the stages after each, so that
    /// their results are freed while still in the processor's caches (a file's functions
    /// freed together cost a tenth more CPU in a cold run). A file served by its manifest
    /// is left to `file_result`.
    fn plan_each_function_evicting(&mut self, file: SourceFile) {
        use salsa::Database as _;
        if super::manifest(&self.db, file).is_some() {
            return;
        }
        if self.db.retention == StageRetention::OneShot
            && let FileItems::Program { items, .. } = file_items(&self.db, file)
        {
            // The file's plans stay until its outcome is made, the last file's no longer.
            let functions = items.len();
            super::set_plan_capacity(&mut self.db, Some((functions, 1)));
        }
        // The item is read again for every function: it borrows the database, which
        // eviction takes mutably (`file_items` is not bounded: this reads its memo).
        for index in 0.. {
            let FileItems::Program { items, .. } = file_items(&self.db, file) else {
                return;
            };
            let Some(&item) = items.get(index) else {
                return;
            };
            super::plan(&self.db, item);
            self.db.trigger_lru_eviction();
        }
    }

    /// The outcomes of `files`, planning on this thread whatever is not planned yet;
    /// `progress` is called per file when given.
    fn collect_outcomes(
        &self,
        files: &[SourceFile],
        progress: Option<&(dyn Fn() + Sync)>,
    ) -> Vec<FileOutcome> {
        files
            .iter()
            .map(|&file| {
                let status = file_result(&self.db, file).clone();
                if let Some(progress) = progress {
                    progress();
                }
                let mut outcome = FileOutcome {
                    file,
                    path: file.path(&self.db).clone(),
                    text: OutcomeText::of(file.text(&self.db)),
                    status,
                };
                if let OutcomeDetail::Detailed { lifetimes } = self.detail
                    && made_here(&outcome)
                {
                    super::add_report_detail(&self.db, &mut outcome, None, lifetimes);
                }
                if self.texts == Texts::Released {
                    outcome.drop_planned_texts();
                }
                outcome
            })
            .collect()
    }

    /// `outcomes` without their input texts where [`Texts::Released`] lets them go: those
    /// complete for what was asked ([`OutcomeDetail`]), whose files' texts the database
    /// lets go too.
    fn release_texts(&mut self, mut outcomes: Vec<FileOutcome>) -> Vec<FileOutcome> {
        if self.texts == Texts::Kept {
            return outcomes;
        }
        for outcome in &mut outcomes {
            let complete = match self.detail {
                OutcomeDetail::Summary => true,
                OutcomeDetail::Detailed { .. } => made_here(outcome),
            };
            if complete && let OutcomeText::Held(_) = outcome.text {
                outcome.text = OutcomeText::Released(outcome.file.digest(&self.db));
                outcome.file.set_text(&mut self.db).to(None);
            }
        }
        outcomes
    }

    /// Whether a function's plan was computed by this workspace (not taken from the store).
    pub fn is_fresh(&self, function: &FunctionOutcome) -> bool {
        function.computed
    }

    /// The planned text of each function of `file` (`None` where planning failed), reading
    /// plan entries that a manifest-served run skipped.
    pub fn planned_texts(&self, file: SourceFile) -> Vec<Option<Arc<str>>> {
        super::planned_texts(&self.db, file)
    }

    /// Why two tiles of a function do or do not share a buffer, from the memoized stages
    /// (see [`super::explain`]).
    pub fn explain(
        &self,
        file: SourceFile,
        function: &str,
        pair: (&str, &str),
    ) -> Option<Result<String, crate::plan::explain::ExplainError>> {
        super::explain(&self.db, file, function, pair)
    }

    /// The functions of `file` as parsed (the parse the report detail's places come from);
    /// none when it is not a program that parses.
    pub fn parsed_functions(&self, file: SourceFile) -> Vec<Arc<crate::ir::Function>> {
        match super::parse_file(&self.db, file) {
            super::Parsed::Program { functions, .. } => {
                functions.iter().map(|f| f.function.clone()).collect()
            }
            _ => Vec::new(),
        }
    }

    /// Completes the reports of `outcome` that came without detail from a manifest: of every
    /// function, or of the one named `only`.
    pub fn add_report_detail(&self, outcome: &mut FileOutcome, only: Option<&str>) {
        super::add_report_detail(&self.db, outcome, only, true);
    }

    /// `outcome` with its report detail (without lifetimes and statement places unless
    /// `lifetimes`), leaving `outcome` as it is; the stages this ran (a parse, for statement
    /// places) are evicted, so that a caller asking file by file holds one file's detail at a
    /// time. A file a stamp vouched for, unread so far, is read through `system` where its
    /// detail needs a parse, and let go again.
    pub fn detailed(
        &mut self,
        system: &dyn System,
        outcome: &FileOutcome,
        lifetimes: bool,
    ) -> FileOutcome {
        use salsa::Database as _;
        let mut detailed = outcome.clone();
        let placed = super::add_report_detail(&self.db, &mut detailed, None, lifetimes);
        let file = outcome.file;
        if !placed && file.text(&self.db).is_none() {
            // Only the text planned: another one's places would be wrong.
            let text = system
                .read_to_string(&outcome.path)
                .ok()
                .filter(|text| blake3::hash(text.as_bytes()).as_bytes() == &file.digest(&self.db));
            if let Some(text) = text {
                file.set_text(&mut self.db).to(Some(text.into()));
                detailed = outcome.clone();
                super::add_report_detail(&self.db, &mut detailed, None, lifetimes);
                file.set_text(&mut self.db).to(None);
            }
        }
        self.db.trigger_lru_eviction();
        detailed
    }

    /// The configuration and the text digest that `file`'s results are stored under.
    pub fn stored_under(&self, file: SourceFile) -> (PlanConfig, [u8; 32]) {
        (super::file_config(&self.db, file), file.digest(&self.db))
    }

    /// Writes the queued results in one batch and makes them durable.
    pub fn flush(&self) -> Result<usize, StoreError> {
        self.db.cache.flush()
    }

    /// The queries executed since the last call, as `query(argument)` strings naming
    /// files by path and functions by name. Empty without [`Workspace::with_log`].
    pub fn executed(&self) -> Vec<String> {
        let Some(log) = &self.log else {
            return Vec::new();
        };
        let keys = std::mem::take(&mut *log.lock().unwrap_or_else(|p| p.into_inner()));
        keys.into_iter().map(|key| self.describe(key)).collect()
    }

    /// How many times each query executed since the last call (or [`Workspace::executed`]),
    /// by query name, most first: a profile of what a change re-ran. Empty without
    /// [`Workspace::with_log`].
    pub fn executed_counts(&self) -> Vec<(String, usize)> {
        use salsa::Database as _;
        let Some(log) = &self.log else {
            return Vec::new();
        };
        let keys = std::mem::take(&mut *log.lock().unwrap_or_else(|p| p.into_inner()));
        let mut counts = std::collections::BTreeMap::<String, usize>::new();
        for key in keys {
            let query = self.db.ingredient_debug_name(key.ingredient_index());
            *counts.entry(query.to_string()).or_default() += 1;
        }
        let mut counts: Vec<_> = counts.into_iter().collect();
        counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        counts
    }

    fn describe(&self, key: salsa::DatabaseKeyIndex) -> String {
        use salsa::Database as _;
        use salsa::plumbing::AsId as _;
        let query = self.db.ingredient_debug_name(key.ingredient_index());
        let id = key.key_index();
        let argument = match query.as_ref() {
            "space_capacity" | "capacity_known" => MemSpace::ALL
                .iter()
                .find(|&&space| super::Space::new(&self.db, space).as_id() == id)
                .map(|space| format!("{space:?}")),
            "packing"
            | "fitted"
            | "overflow"
            | "offset_pairs"
            | "offset_solution"
            | "offset_layout"
            | "offset_layout_unbounded" => self.function_spaces().find_map(|(name, key)| {
                (key.as_id() == id).then(|| format!("{name}, {:?}", key.space(&self.db)))
            }),
            "capacity_aware" => Some(String::new()),
            _ => self.files.iter().find_map(|(path, file)| {
                let name = path.display().to_string();
                if file.as_id() == id {
                    return Some(name);
                }
                let super::FileItems::Program { items, .. } = super::file_items(&self.db, *file)
                else {
                    return None;
                };
                let item = items.iter().find(|i| i.as_id() == id)?;
                Some(format!("{name}::{}", item.name(&self.db)))
            }),
        };
        format!("{query}({})", argument.unwrap_or_else(|| format!("{id:?}")))
    }

    /// Every (function, space) stage key, with the function's `path::name`.
    fn function_spaces(&self) -> impl Iterator<Item = (String, super::FunctionSpace<'_>)> + '_ {
        self.files.iter().flat_map(move |(path, file)| {
            let items = match super::file_items(&self.db, *file) {
                super::FileItems::Program { items, .. } => items.as_slice(),
                _ => &[],
            };
            items.iter().flat_map(move |&item| {
                MemSpace::ALL.iter().map(move |&space| {
                    let name = format!("{}::{}", path.display(), item.name(&self.db));
                    (name, super::FunctionSpace::new(&self.db, item, space))
                })
            })
        })
    }
}

/// Whether a plan of `outcome` was made by this workspace, not served from the store.
fn made_here(outcome: &FileOutcome) -> bool {
    match &*outcome.status {
        FileStatus::Planned { functions, .. } => functions.iter().any(|f| f.computed),
        _ => false,
    }
}

enum Content {
    Stamped([u8; 32]),
    Read(String, Option<(FileMeta, i128)>),
}

fn stamp_matches(stamp: &Stamp, meta: &FileMeta) -> bool {
    stamp.len == meta.len
        && stamp.modified_ns == meta.modified_ns
        && stamp.changed_ns == meta.changed_ns
        && stamp.inode == meta.inode
}

/// `f` over `items` on up to `jobs` threads, results in order. Each thread takes the next
/// item not yet taken: items differ in size (files by a hundred times), so fixed shares left
/// a core idle.
pub fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    jobs: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    if jobs <= 1 || items.len() <= 1 {
        return items.iter().map(f).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut made: Vec<(usize, R)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs.min(items.len()))
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(item) = items.get(index) else {
                            return mine;
                        };
                        mine.push((index, f(item)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    made.sort_unstable_by_key(|(index, _)| *index);
    made.into_iter().map(|(_, result)| result).collect()
}

/// A read-only view of the database for another thread (salsa handles are `Send`, not
/// `Sync`). While any snapshot lives, the owner's next input change waits; salsa makes the
/// snapshot's running queries unwind with `salsa::Cancelled` so it does not wait long, which
/// [`Snapshot::outcome`] returns as [`Cancelled`] for the reader to retry on a newer snapshot.
#[derive(Clone)]
pub struct Snapshot {
    db: PlanDatabase,
}

impl Workspace {
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            db: self.db.clone(),
        }
    }
}

impl Snapshot {
    /// The outcome of `file` at this snapshot's revision (memoized results are reused).
    /// Reports served from a manifest lack their detail (see [`super::Planned::report`]).
    pub fn outcome(&self, file: SourceFile) -> Result<FileOutcome, Cancelled> {
        salsa::Cancelled::catch(std::panic::AssertUnwindSafe(|| FileOutcome {
            file,
            path: file.path(&self.db).clone(),
            text: OutcomeText::of(file.text(&self.db)),
            status: file_result(&self.db, file).clone(),
        }))
        .map_err(|_| Cancelled)
    }

    /// [`Snapshot::outcome`] with complete reports: every function's, or only the one named
    /// `only`.
    pub fn detailed_outcome(
        &self,
        file: SourceFile,
        only: Option<&str>,
    ) -> Result<FileOutcome, Cancelled> {
        let mut outcome = self.outcome(file)?;
        salsa::Cancelled::catch(std::panic::AssertUnwindSafe(|| {
            super::add_report_detail(&self.db, &mut outcome, only, true)
        }))
        .map_err(|_| Cancelled)?;
        Ok(outcome)
    }
}

impl Snapshot {
    /// [`super::explain`] at this snapshot's revision, from the memoized stages.
    pub fn explain(
        &self,
        file: SourceFile,
        function: &str,
        pair: (&str, &str),
    ) -> Result<Option<Result<String, crate::plan::explain::ExplainError>>, Cancelled> {
        salsa::Cancelled::catch(std::panic::AssertUnwindSafe(|| {
            super::explain(&self.db, file, function, pair)
        }))
        .map_err(|_| Cancelled)
    }
}

/// A read on a [`Snapshot`] gave way to a change of inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cancelled by a newer revision")]
pub struct Cancelled;
