//! The writer thread: the only owner of the salsa database. It loads the tree, applies the
//! watcher's change batches (re-hashing every file before believing an event), publishes a
//! snapshot per revision, plans what changed and writes the results through the store.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::Receiver;

use memreuse::db::{FileStatus, SourceFile, Workspace};

use super::shared::{Files, Shared};
use crate::protocol::Rescan;

/// What the watcher saw between two batches.
#[derive(Debug, Default)]
pub struct Batch {
    /// Paths named by events (files or directories, existing or not).
    pub paths: BTreeSet<PathBuf>,
    /// Set when events cannot be trusted to name every change: re-read everything.
    pub rescan: Option<String>,
    /// Freshness cookies seen, acknowledged once everything before them is applied.
    pub cookies: Vec<u64>,
}

pub enum Work {
    Changes(Batch),
    Shutdown,
}

struct Tracked {
    digest: [u8; 32],
    functions: usize,
}

pub struct Writer {
    shared: Arc<Shared>,
    workspace: Workspace,
    tracked: BTreeMap<PathBuf, Tracked>,
    published: Files,
    revision: u64,
    jobs: usize,
}

impl Writer {
    pub fn new(shared: Arc<Shared>, workspace: Workspace, jobs: usize) -> Writer {
        Writer {
            shared,
            workspace,
            tracked: BTreeMap::new(),
            published: Files::default(),
            revision: 0,
            jobs,
        }
    }

    /// Loads and plans the whole tree, then applies batches until told to stop; flushes
    /// and closes the view on the way out.
    pub fn run(mut self, work: Receiver<Work>) {
        self.scan(None);
        while let Ok(Work::Changes(mut batch)) = work.recv() {
            // Batches that queued up while the last one was planned become one revision.
            let mut stop = false;
            while let Ok(next) = work.try_recv() {
                match next {
                    Work::Changes(next) => merge(&mut batch, next),
                    Work::Shutdown => stop = true,
                }
            }
            self.apply(batch);
            if stop {
                break;
            }
        }
        self.flush();
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
        if initial {
            self.shared.figures().scan_finished = true;
            tracing::info!(
                files = self.tracked.len(),
                elapsed = ?self.shared.started.elapsed(),
                "initial scan done"
            );
        }
    }

    fn apply(&mut self, batch: Batch) {
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
    /// revision, plans the changed files and flushes the store. `cookies` are acknowledged as
    /// soon as the revision is visible to readers.
    fn update(
        &mut self,
        candidates: Vec<PathBuf>,
        gone: Vec<PathBuf>,
        cookies: &[u64],
        initial: bool,
    ) {
        let texts = read_all(&candidates, self.jobs);
        let mut changed = Vec::new();
        let mut gone: BTreeSet<PathBuf> = gone.into_iter().collect();
        for (path, read) in candidates.into_iter().zip(texts) {
            match read {
                Ok(text) => {
                    let digest = *blake3::hash(text.as_bytes()).as_bytes();
                    if self.tracked.get(&path).is_none_or(|t| t.digest != digest) {
                        changed.push((path, text, digest));
                    }
                }
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                    gone.insert(path);
                }
                Err(err) => self
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
        // Readers' snapshots must be gone before salsa lets an input change.
        self.shared.withdraw();
        let published = Arc::make_mut(&mut self.published);
        let mut to_plan = Vec::with_capacity(changed.len());
        for (path, text, digest) in changed {
            let file = self
                .workspace
                .set_file(&path, &text, materialize_aliases(&path));
            let functions = self.tracked.get(&path).map_or(0, |t| t.functions);
            self.tracked
                .insert(path.clone(), Tracked { digest, functions });
            published.insert(path, file);
            to_plan.push(file);
        }
        for path in &gone {
            // A salsa input cannot be deleted: emptied, it is no program and costs nothing.
            self.workspace.set_file(path, "", false);
            self.tracked.remove(path);
            published.remove(path);
        }
        self.revision += 1;
        self.shared.publish(
            self.workspace.snapshot(),
            self.published.clone(),
            self.revision,
        );
        self.shared.ack_cookies(cookies);
        self.plan(&to_plan, initial);
    }

    /// Plans `files` (so queries find them memoized) and writes the results to the store.
    fn plan(&mut self, files: &[SourceFile], initial: bool) {
        let shared = &self.shared;
        let progress = || {
            if initial {
                shared.figures().scan_done += 1;
            }
        };
        let outcomes = self.workspace.plan(files, self.jobs, &progress);
        let counts: HashMap<&Path, usize> = outcomes
            .iter()
            .map(|o| {
                let n = match &o.status {
                    FileStatus::Planned { functions, .. } => functions.len(),
                    _ => 0,
                };
                (o.path.as_path(), n)
            })
            .collect();
        for (path, tracked) in self.tracked.iter_mut() {
            if let Some(&n) = counts.get(path.as_path()) {
                tracked.functions = n;
            }
        }
        {
            let mut figures = self.shared.figures();
            figures.files = self.tracked.len();
            figures.functions = self.tracked.values().map(|t| t.functions).sum();
        }
        self.flush();
    }

    fn flush(&self) {
        match self.workspace.flush() {
            Ok(0) => {}
            Ok(written) => tracing::debug!(written, "flushed the store"),
            Err(err) => self
                .shared
                .record_error(format!("cannot write the cache: {err}")),
        }
    }
}

fn merge(into: &mut Batch, next: Batch) {
    into.paths.extend(next.paths);
    into.cookies.extend(next.cookies);
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

/// Reads `paths` on up to `jobs` threads. Text that is not UTF-8 is read lossily: the parser
/// then reports it like any other bad input.
fn read_all(paths: &[PathBuf], jobs: usize) -> Vec<std::io::Result<String>> {
    let read = |path: &PathBuf| {
        std::fs::read(path).map(|bytes| match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(err) => String::from_utf8_lossy(err.as_bytes()).into_owned(),
        })
    };
    if jobs <= 1 || paths.len() < 64 {
        return paths.iter().map(read).collect();
    }
    let chunk = paths.len().div_ceil(jobs);
    std::thread::scope(|scope| {
        let handles: Vec<_> = paths
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(read).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}
