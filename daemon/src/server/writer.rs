//! The writer thread: the only owner of the salsa database. It loads the tree, applies the
//! watcher's change batches (re-hashing every file before believing an event) and publishes
//! a snapshot per revision. A planner thread then plans what changed on a snapshot of that
//! revision and writes the results through the store; the next change cancels it, so the
//! writer is always free to apply the next batch (and acknowledge its cookies) at once.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use memreuse::db::{FileStatus, Snapshot, Workspace};
use memreuse::plan::PlanConfig;

use super::read::{Read, read_kernel};
use super::shared::{Files, Shared};
use memreuse_daemon_client::protocol::Rescan;

/// What the watcher saw between two batches.
#[derive(Debug, Default)]
pub struct Batch {
    /// Paths named by events (files or directories, existing or not).
    pub paths: BTreeSet<PathBuf>,
    /// Set when events cannot be trusted to name every change: re-read everything.
    pub rescan: Option<String>,
    /// Freshness cookies seen, acknowledged once everything before them is applied.
    pub cookies: Vec<u64>,
    /// The root's `memreuse.toml` changed: read it again (before anything else).
    pub settings: bool,
}

pub enum Work {
    Changes(Batch),
    /// A planner planned everything pending, computing this many files (the others came
    /// from the store): the database may be rebuilt lean.
    Planned(usize),
    /// A planner computed [`PAUSE_AFTER`] files (this many) and stopped with work pending:
    /// the writer rebuilds the database lean and plans the rest, so that planning a large
    /// tree keeps at most that many files' memos, not the whole tree's.
    Paused(usize),
    Shutdown,
}

pub struct Writer {
    shared: Arc<Shared>,
    workspace: Workspace,
    /// The digest of every file's text, to tell real changes from events.
    tracked: BTreeMap<PathBuf, [u8; 32]>,
    published: Files,
    revision: u64,
    jobs: usize,
    /// Changed files not planned yet.
    pending: Arc<Mutex<BTreeSet<PathBuf>>>,
    /// The planners started, the current one last. Stopped ones may still be flushing what
    /// they planned; they are reaped when done, and all joined at shutdown.
    planners: Vec<Planner>,
    /// For planners to report [`Work::Planned`].
    work: Sender<Work>,
    /// Files computed (not served by the store) since the database was last rebuilt.
    computed: usize,
    /// A compaction freed memory that is returned once the writer is idle.
    trim_when_idle: bool,
}

impl Writer {
    pub fn new(
        shared: Arc<Shared>,
        workspace: Workspace,
        jobs: usize,
        work: Sender<Work>,
    ) -> Writer {
        Writer {
            pending: shared.pending.clone(),
            shared,
            workspace,
            tracked: BTreeMap::new(),
            published: Files::default(),
            revision: 0,
            jobs,
            planners: Vec::new(),
            work,
            computed: 0,
            trim_when_idle: false,
        }
    }

    /// Loads and plans the whole tree, then applies batches until told to stop; flushes
    /// and closes the view on the way out.
    pub fn run(mut self, work: Receiver<Work>) {
        self.scan(None);
        loop {
            let first = match work.recv_timeout(IDLE_TRIM) {
                Ok(first) => first,
                Err(RecvTimeoutError::Timeout) => {
                    if std::mem::take(&mut self.trim_when_idle) {
                        return_free_memory();
                        // The initial scan ends lean.
                        finish_scan(&self.shared);
                    }
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => break,
            };
            // What queued up meanwhile: batches become one revision.
            let (mut batch, mut planned, mut paused, mut stop) =
                (None::<Batch>, false, false, false);
            for item in std::iter::once(first).chain(work.try_iter()) {
                match item {
                    Work::Changes(next) => match &mut batch {
                        Some(batch) => merge(batch, next),
                        None => batch = Some(next),
                    },
                    Work::Planned(computed) => {
                        self.computed += computed;
                        planned = true;
                    }
                    Work::Paused(computed) => {
                        self.computed += computed;
                        paused = true;
                    }
                    Work::Shutdown => stop = true,
                }
            }
            match batch {
                // Applying restarts planning, of what was pending too.
                Some(batch) => self.apply(batch),
                None if paused => {
                    // The freed memory serves the next files: no trim, no flush (the store's
                    // writes wait in the cache, which the new database shares).
                    self.rebuild(self.shared.config());
                    let work = self.pending_work();
                    self.start_planning(work);
                }
                // A change restarts planning, so compacting waits for the next quiet end.
                None if planned => {
                    // After a compaction the initial scan ends once the writer is idle and
                    // has returned the freed memory (lean); otherwise now.
                    let compacted = self.computed >= COMPACT_AFTER && self.compact();
                    if !compacted {
                        finish_scan(&self.shared);
                    }
                }
                None => {}
            }
            if stop {
                break;
            }
        }
        self.reap_planners(true);
        flush(&self.shared);
        self.shared.close();
        tracing::info!("writer stopped");
    }

    /// Reads every kernel file of the tree (the initial scan, or a rescan for `reason`).
    fn scan(&mut self, reason: Option<String>) {
        let files = self.shared.tree.walk(self.shared.tree.root()).files;
        let initial = reason.is_none();
        if initial {
            let mut figures = self.shared.figures();
            figures.scan_total = files.len();
        }
        let gone: Vec<PathBuf> = match &reason {
            None => Vec::new(),
            Some(_) => {
                let found: BTreeSet<&PathBuf> = files.iter().collect();
                self.tracked
                    .keys()
                    .filter(|p| !found.contains(p))
                    .cloned()
                    .collect()
            }
        };
        if let Some(reason) = reason {
            tracing::info!(%reason, files = files.len(), "rescanning");
            let at_seconds = self.shared.started.elapsed().as_secs_f64();
            self.shared
                .figures()
                .rescans
                .push(Rescan { at_seconds, reason });
        }
        self.update(files, gone, &[], initial);
    }

    fn apply(&mut self, batch: Batch) {
        if batch.settings && self.reload_settings() {
            // A new file size limit admits or refuses files: read them all again.
            self.scan(Some("max_file_bytes in memreuse.toml changed".into()));
            self.shared.ack_cookies(&batch.cookies);
            return;
        }
        if let Some(reason) = batch.rescan {
            self.scan(Some(reason));
            self.shared.ack_cookies(&batch.cookies);
            return;
        }
        let mut candidates = BTreeSet::new();
        let mut gone = Vec::new();
        for path in batch.paths {
            match std::fs::symlink_metadata(&path) {
                // A directory created or moved in: its files may predate its watch.
                Ok(meta) if meta.is_dir() => {
                    candidates.extend(self.shared.tree.walk(&path).files);
                }
                Ok(_) => {
                    if self.shared.tree.admits(&path, false) {
                        candidates.insert(path);
                    }
                }
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                    // The path itself, or a directory holding tracked files, went away.
                    gone.extend(
                        self.tracked
                            .range(path.clone()..)
                            .take_while(|(p, _)| p.starts_with(&path))
                            .map(|(p, _)| p.clone()),
                    );
                }
                Err(err) => self
                    .shared
                    .record_error(format!("cannot read {}: {err}", path.display())),
            }
        }
        self.update(
            candidates.into_iter().collect(),
            gone,
            &batch.cookies,
            false,
        );
    }

    /// Re-reads `candidates`, drops `gone`, and when anything really changed publishes a new
    /// revision and plans the changed files in the background. `cookies` are acknowledged as
    /// soon as the revision is visible to readers.
    fn update(
        &mut self,
        candidates: Vec<PathBuf>,
        gone: Vec<PathBuf>,
        cookies: &[u64],
        initial: bool,
    ) {
        let texts = read_all(&self.shared, &candidates, self.jobs);
        let mut changed = Vec::new();
        let mut gone: BTreeSet<PathBuf> = gone.into_iter().collect();
        {
            let mut refused = self.shared.refused();
            for path in &gone {
                refused.remove(path);
            }
        }
        for (path, read) in candidates.into_iter().zip(texts) {
            match read {
                Read::Text(text) => {
                    self.shared.refused().remove(&path);
                    let digest = *blake3::hash(text.as_bytes()).as_bytes();
                    if self.tracked.get(&path) != Some(&digest) {
                        changed.push((path, text, digest));
                    }
                }
                Read::Gone => {
                    self.shared.refused().remove(&path);
                    gone.insert(path);
                }
                Read::Refused(why) => {
                    tracing::info!(path = %path.display(), "{why}");
                    self.shared.refused().insert(path.clone(), why);
                    gone.insert(path);
                }
                Read::Failed(err) => self
                    .shared
                    .record_error(format!("cannot read {}: {err}", path.display())),
            }
        }
        gone.retain(|p| self.tracked.contains_key(p));
        if changed.is_empty() && gone.is_empty() && !initial {
            self.shared.ack_cookies(cookies);
            return;
        }
        tracing::debug!(
            changed = changed.len(),
            gone = gone.len(),
            "applying changes"
        );
        // Every snapshot (readers' and the planner's) must be gone before salsa lets an
        // input change; the planner stops at its next file, readers are cancelled (but those
        // cancelled before may finish first).
        self.shared.let_starving_reads_finish();
        for planner in &self.planners {
            planner.stop.store(true, Ordering::Relaxed);
        }
        self.shared.withdraw();
        let published = Arc::make_mut(&mut self.published);
        let mut planned = Vec::with_capacity(changed.len());
        // No lock may be held across `set_file`: it waits for every snapshot to be dropped,
        // and a planner holding one may be waiting for that lock.
        for (path, text, digest) in changed {
            let file = self
                .workspace
                .set_file(&path, &text, materialize_aliases(&path));
            self.tracked.insert(path.clone(), digest);
            published.insert(path.clone(), file);
            planned.push(path);
        }
        for path in &gone {
            // A salsa input cannot be deleted: emptied, it is no program and costs nothing.
            self.workspace.set_file(path, "", false);
            self.tracked.remove(path);
            published.remove(path);
        }
        let work: Vec<(PathBuf, [u8; 32])> = {
            let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
            pending.extend(planned);
            for path in &gone {
                pending.remove(path);
            }
            pending
                .iter()
                .filter_map(|p| Some((p.clone(), *self.tracked.get(p)?)))
                .collect()
        };
        {
            let mut figures = self.shared.figures();
            for path in &gone {
                figures.set_functions(path, 0);
            }
        }
        self.revision += 1;
        self.shared.figures().files = self.tracked.len();
        self.shared.publish(
            self.workspace.snapshot(),
            self.published.clone(),
            self.revision,
        );
        self.shared.ack_cookies(cookies);
        self.start_planning(work);
    }

    /// Reads `memreuse.toml` again. A new planner configuration is set on the database, which
    /// plans every file again; of the stages still memoized (a compaction drops them), it
    /// re-runs only those that read what changed (a capacity change: that space's capacity
    /// checks). The store answers for the new configuration with every plan stored for any
    /// capacities whose condition holds there (a capacity change that keeps a file's plans
    /// plans nothing), and keeps the plans made for exact capacities apart.
    /// Returns whether the file size limit changed, which needs a rescan.
    fn reload_settings(&mut self) -> bool {
        let Ok((before, after)) = self.shared.reload_settings() else {
            return false;
        };
        if before.config != after.config {
            tracing::info!(
                backend = after.config.backend.name(),
                "memreuse.toml changed: planning everything again"
            );
            for planner in &self.planners {
                planner.stop.store(true, Ordering::Relaxed);
            }
            let all: Vec<PathBuf> = self.published.keys().cloned().collect();
            self.pending
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .extend(all);
            self.reconfigure(after.config);
            let work = self.pending_work();
            self.start_planning(work);
        } else {
            tracing::info!("memreuse.toml changed; the planner configuration did not");
        }
        before.max_file_bytes != after.max_file_bytes
    }

    /// The files waiting to be planned, with their text digests.
    fn pending_work(&self) -> Vec<(PathBuf, [u8; 32])> {
        self.pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .filter_map(|p| Some((p.clone(), *self.tracked.get(p)?)))
            .collect()
    }

    /// Sets `config` on the database and publishes the new revision.
    fn reconfigure(&mut self, config: PlanConfig) {
        // As for an input change in `update`: every snapshot must be gone first.
        self.shared.let_starving_reads_finish();
        self.shared.withdraw();
        self.workspace.set_settings(config);
        self.revision += 1;
        self.shared.publish(
            self.workspace.snapshot(),
            self.published.clone(),
            self.revision,
        );
    }

    /// Replaces the database with a fresh one holding the same texts. Planning memoizes every
    /// function's parse and plan; once all is planned and stored, queries are as well served
    /// from the store, so this returns that memory (a cold scan of 20,000 functions would
    /// otherwise keep well over a gigabyte). Returns whether it did: not while changes wait
    /// to be planned.
    fn compact(&mut self) -> bool {
        if !self
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_empty()
        {
            // Changes came meanwhile; their planner asks again when it is done.
            return false;
        }
        self.rebuild(self.shared.config());
        return_free_memory();
        // What the old database's last readers, the planner's threads and the store's
        // writes still held is freed a little later: trim again once the writer is idle.
        self.trim_when_idle = true;
        self.computed = 0;
        tracing::info!(revision = self.revision, "compacted the database");
        true
    }

    /// Replaces the database with a fresh one of `config` holding the same texts, and
    /// publishes it.
    fn rebuild(&mut self, config: PlanConfig) {
        let (fresh, kept) = self
            .workspace
            .rebuilt(config, self.published.keys().map(PathBuf::as_path));
        let files: BTreeMap<PathBuf, _> = kept.into_iter().collect();
        self.shared.withdraw();
        let old = std::mem::replace(&mut self.workspace, fresh);
        self.published = Arc::new(files);
        self.revision += 1;
        self.shared.publish(
            self.workspace.snapshot(),
            self.published.clone(),
            self.revision,
        );
        // Readers still on the old database keep it alive until they finish.
        drop(old);
    }

    /// Plans `work` on a snapshot in the background. The planner of the last revision was
    /// stopped by the change of inputs; it is not waited for (it may be writing results).
    fn start_planning(&mut self, work: Vec<(PathBuf, [u8; 32])>) {
        self.reap_planners(false);
        let stop = Arc::new(AtomicBool::new(false));
        let job = Planning {
            shared: self.shared.clone(),
            snapshot: self.workspace.snapshot(),
            files: self.published.clone(),
            work,
            pending: self.pending.clone(),
            stop: stop.clone(),
            jobs: self.jobs,
            done: self.work.clone(),
        };
        match std::thread::Builder::new()
            .name("planner".into())
            .spawn(move || job.run())
        {
            Ok(thread) => self.planners.push(Planner { stop, thread }),
            Err(err) => self
                .shared
                .record_error(format!("cannot start the planner thread: {err}")),
        }
    }

    /// Joins the planners that are done, or (`all`) stops and joins every one.
    fn reap_planners(&mut self, all: bool) {
        for planner in std::mem::take(&mut self.planners) {
            if all {
                planner.stop.store(true, Ordering::Relaxed);
            } else if !planner.thread.is_finished() {
                self.planners.push(planner);
                continue;
            }
            if planner.thread.join().is_err() {
                self.shared
                    .record_error("the planner thread panicked".into());
            }
        }
    }
}

/// Returns the heap's free pages to the system. glibc keeps them in each thread's arena
/// otherwise: after a cold scan of 20,000 functions the planner threads' arenas held over
/// 100 MB that nothing used.
fn return_free_memory() {
    // SAFETY: malloc_trim only returns free heap pages to the system.
    unsafe { libc::malloc_trim(0) };
}

/// How long the writer waits without work before it trims memory freed since a compaction.
const IDLE_TRIM: Duration = Duration::from_millis(300);

/// After planning this many files (not served by the store) the writer rebuilds the
/// database ([`Writer::compact`]); small edits keep their memos.
const COMPACT_AFTER: usize = 64;

/// A planning run pauses after computing this many files ([`Work::Paused`]), which bounds
/// the memos a large tree's planning holds at once; each pause costs a rebuild of the
/// database (its inputs only: texts are shared, not hashed again).
const PAUSE_AFTER: usize = 64;

struct Planner {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<()>,
}

/// One background planning run: plans `work` on `jobs` threads (so queries find the results
/// memoized) and writes them through the store. A newer revision cancels it; what it did
/// not finish stays in `pending` for the next run.
struct Planning {
    shared: Arc<Shared>,
    snapshot: Snapshot,
    files: Files,
    /// Paths and text digests.
    work: Vec<(PathBuf, [u8; 32])>,
    pending: Arc<Mutex<BTreeSet<PathBuf>>>,
    stop: Arc<AtomicBool>,
    jobs: usize,
    /// Told [`Work::Planned`] when nothing is left to plan.
    done: Sender<Work>,
}

impl Planning {
    fn run(self) {
        let Planning {
            shared,
            snapshot,
            files,
            work,
            pending,
            stop,
            jobs,
            done,
        } = self;
        let computed = AtomicUsize::new(0);
        let paused = AtomicBool::new(false);
        let next = AtomicUsize::new(0);
        let workers: Vec<Snapshot> = (0..jobs.clamp(1, work.len().max(1)))
            .map(|_| snapshot.clone())
            .collect();
        // Only the workers' handles may hold the revision: the writer waits for all of them.
        drop(snapshot);
        std::thread::scope(|scope| {
            for worker in workers {
                let (shared, files, work, pending, stop, next, computed, paused) = (
                    &shared, &files, &work, &pending, &stop, &next, &computed, &paused,
                );
                scope.spawn(move || {
                    while !stop.load(Ordering::Relaxed) && !paused.load(Ordering::Relaxed) {
                        let Some((path, digest)) = work.get(next.fetch_add(1, Ordering::Relaxed))
                        else {
                            break;
                        };
                        let Some(&file) = files.get(path) else {
                            continue;
                        };
                        let functions = match stored_functions(shared, path, digest) {
                            Some(functions) => functions,
                            None => match worker.outcome(file) {
                                Ok(outcome) => {
                                    if computed.fetch_add(1, Ordering::Relaxed) + 1 >= PAUSE_AFTER {
                                        paused.store(true, Ordering::Relaxed);
                                    }
                                    match &*outcome.status {
                                        FileStatus::Planned { functions, .. } => functions.len(),
                                        _ => 0,
                                    }
                                }
                                Err(_) => break,
                            },
                        };
                        pending
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .remove(path);
                        let mut figures = shared.figures();
                        figures.set_functions(path, functions);
                        if !figures.scan_finished {
                            figures.scan_done += 1;
                        }
                    }
                });
            }
        });
        let left = !pending.lock().unwrap_or_else(|p| p.into_inner()).is_empty();
        let paused = paused.load(Ordering::Relaxed) && !stop.load(Ordering::Relaxed);
        if !(left && paused) {
            flush(&shared);
        }
        if left {
            // Stopped by a newer revision (whose planner takes over), or paused: then the
            // writer compacts and plans the rest.
            if paused {
                let _ = done.send(Work::Paused(computed.load(Ordering::Relaxed)));
            }
        } else {
            // The writer decides about compacting, then ends the initial scan, so that its
            // end means lean.
            if done
                .send(Work::Planned(computed.load(Ordering::Relaxed)))
                .is_err()
            {
                finish_scan(&shared);
            }
        }
    }
}

/// Marks the initial scan over (once).
fn finish_scan(shared: &Shared) {
    let mut figures = shared.figures();
    if !figures.scan_finished {
        figures.scan_finished = true;
        tracing::info!(
            files = figures.files,
            functions = figures.functions,
            elapsed = ?shared.started.elapsed(),
            "initial scan done"
        );
    }
}

/// The number of functions of a file whose results the store holds already (its manifest
/// for this exact text and configuration, or one for any capacities that holds at these).
/// Such a file needs no planning, and not planning it keeps its results out of memory until
/// a query asks; a key that does not match the database's (it derives the same one) only
/// means planning it after all.
fn stored_functions(shared: &Shared, path: &Path, digest: &[u8; 32]) -> Option<usize> {
    let config = PlanConfig {
        materialize_aliases: materialize_aliases(path),
        ..shared.config()
    };
    Some(
        shared
            .cache
            .get_manifest_for(&config, digest)?
            .functions
            .len(),
    )
}

/// Writes the results queued since the last flush (they are content-keyed, so a partial
/// run's results are as good as a whole one's).
fn flush(shared: &Shared) {
    match shared.cache.flush() {
        Ok(0) => {}
        Ok(written) => tracing::debug!(written, "flushed the store"),
        Err(err) => shared.record_error(format!("cannot write the cache: {err}")),
    }
}

fn merge(into: &mut Batch, next: Batch) {
    into.paths.extend(next.paths);
    into.cookies.extend(next.cookies);
    into.settings |= next.settings;
    if into.rescan.is_none() {
        into.rescan = next.rescan;
    }
}

/// PyPTO's pipeline runs MaterializeSemanticAliases on dumps taken right after InitMemRef
/// (the `auto` of `memreuse plan --materialize-aliases`).
pub(super) fn materialize_aliases(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n.to_string_lossy().contains("_after_InitMemRef"))
}

/// Reads `paths` on up to `jobs` threads ([`read_kernel`]: regular files inside the root, up
/// to the size limit, never blocking on special files).
fn read_all(shared: &Shared, paths: &[PathBuf], jobs: usize) -> Vec<Read> {
    let max = shared.settings().max_file_bytes;
    let read = |path: &PathBuf| read_kernel(path, &shared.root, max);
    // Threads only pay off for more than a few files.
    let jobs = if paths.len() < 64 { 1 } else { jobs };
    memreuse::db::parallel_map(paths, jobs, read)
}
