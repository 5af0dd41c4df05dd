//! The watcher: one non-recursive notify watch per admitted directory (ignored directories and
//! the state dir are never watched), and a batcher thread that debounces raw events into
//! [`Batch`]es for the writer.
//!
//! Debouncing: a batch is sent once no event has arrived for [`QUIET`], or [`MAX_DELAY`] after
//! its first event, whichever comes first. A freshness cookie sends the batch at once: every
//! event queued before the cookie's (inotify keeps one queue per watcher) is in it already.
//! The batch carries paths, not event kinds: the writer re-reads every path anyway, which
//! makes editors' atomic saves (write a temporary file, rename it over) and checkout storms
//! end in the state on disk. A queue overflow, an event without paths, or more than
//! [`STORM`] events (by default) in one batch make the batch a full rescan.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode, ModifyKind};
use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher as _};

use super::shared::Shared;
use super::writer::{Batch, Work};

pub const QUIET: Duration = Duration::from_millis(20);
pub const MAX_DELAY: Duration = Duration::from_secs(1);
/// More events than this in one batch make it a rescan (the default of `--storm-events`).
pub const STORM: usize = 10_000;
/// How often an idle batcher looks at the stop flag.
const IDLE_POLL: Duration = Duration::from_millis(200);

/// The name of notify's backend on this system (`inotify`, `kqueue`, ...).
pub fn backend_name() -> String {
    format!("{:?}", <RecommendedWatcher as notify::Watcher>::kind()).to_ascii_lowercase()
}

pub struct Watch {
    shared: Arc<Shared>,
    watcher: RecommendedWatcher,
    events: Receiver<notify::Result<Event>>,
    /// Directories watched now.
    watched: BTreeSet<PathBuf>,
    storm: usize,
}

impl Watch {
    /// Watches every admitted directory of the tree. Call before the initial scan, so no
    /// change made during the scan goes unseen.
    pub fn start(shared: Arc<Shared>, storm: usize) -> notify::Result<Watch> {
        let (tx, events) = mpsc::channel();
        let watcher = notify::recommended_watcher(tx)?;
        let mut watch = Watch {
            shared,
            watcher,
            events,
            watched: BTreeSet::new(),
            storm,
        };
        let root = watch.shared.root.clone();
        watch.add(&root);
        Ok(watch)
    }

    /// Watches `dir` and the admitted directories below it.
    fn add(&mut self, dir: &Path) {
        for dir in self.shared.tree.walk(dir).dirs {
            if self.watched.contains(&dir) {
                continue;
            }
            match self.watcher.watch(&dir, RecursiveMode::NonRecursive) {
                Ok(()) => {
                    self.watched.insert(dir);
                }
                Err(err) => self
                    .shared
                    .record_error(format!("cannot watch {}: {err}", dir.display())),
            }
        }
        self.count();
    }

    /// Forgets the watches at and below `path`, which went away or moved out.
    fn remove(&mut self, path: &Path) {
        let below: Vec<PathBuf> = self
            .watched
            .range(path.to_path_buf()..)
            .take_while(|d| d.starts_with(path))
            .cloned()
            .collect();
        for dir in below {
            // The kernel drops the watch of a deleted directory by itself.
            let _ = self.watcher.unwatch(&dir);
            self.watched.remove(&dir);
        }
        self.count();
    }

    fn count(&self) {
        self.shared
            .watches
            .store(self.watched.len(), Ordering::Relaxed);
    }

    /// Re-establishes watches after events were lost.
    fn resync(&mut self) {
        let dirs: BTreeSet<PathBuf> = self
            .shared
            .tree
            .walk(&self.shared.root.clone())
            .dirs
            .into_iter()
            .collect();
        let stale: Vec<PathBuf> = self.watched.difference(&dirs).cloned().collect();
        for dir in stale {
            let _ = self.watcher.unwatch(&dir);
            self.watched.remove(&dir);
        }
        let root = self.shared.root.clone();
        self.add(&root);
    }

    /// Debounces events into batches for `writer` until `stop` is set or the writer is gone.
    pub fn run(mut self, writer: Sender<Work>, stop: Arc<AtomicBool>) {
        let mut batch = Batch::default();
        let mut raw = 0usize;
        let mut first: Option<Instant> = None;
        let mut last = Instant::now();
        while !stop.load(Ordering::Relaxed) {
            let wait = match first {
                None => IDLE_POLL,
                Some(first) => (last + QUIET)
                    .min(first + MAX_DELAY)
                    .saturating_duration_since(Instant::now()),
            };
            let mut send_now = false;
            match self.events.recv_timeout(wait) {
                Ok(Ok(event)) => {
                    let cookie = self.take(event, &mut batch, &mut raw);
                    if raw > 0 {
                        first.get_or_insert_with(Instant::now);
                        last = Instant::now();
                    }
                    send_now = cookie;
                }
                Ok(Err(err)) => {
                    self.shared.record_error(format!("watch error: {err}"));
                    batch.rescan = Some(format!("the watcher reported an error: {err}"));
                    first.get_or_insert_with(Instant::now);
                }
                Err(RecvTimeoutError::Timeout) => send_now = first.is_some(),
                Err(RecvTimeoutError::Disconnected) => break,
            }
            if !send_now {
                continue;
            }
            if batch.rescan.is_some() {
                self.resync();
            }
            let full = std::mem::take(&mut batch);
            raw = 0;
            first = None;
            if writer.send(Work::Changes(full)).is_err() {
                break;
            }
        }
    }

    /// Adds one event to `batch`; returns whether it was a freshness cookie.
    fn take(&mut self, event: Event, batch: &mut Batch, raw: &mut usize) -> bool {
        if event.need_rescan() {
            batch.rescan = Some("the event queue overflowed".into());
            *raw += 1;
            return false;
        }
        match event.kind {
            // Opening and reading (ours included) change nothing.
            EventKind::Access(AccessKind::Close(AccessMode::Write)) => {}
            EventKind::Access(_) => return false,
            _ => {}
        }
        if event.paths.is_empty() {
            batch.rescan = Some("an event without paths".into());
            *raw += 1;
            return false;
        }
        let mut cookie = false;
        for path in &event.paths {
            if let Some(n) = self.shared.tree.cookie(path) {
                batch.cookies.push(n);
                cookie = true;
            }
        }
        if cookie {
            return true;
        }
        *raw += 1;
        for path in &event.paths {
            if *path == self.shared.tree.settings_path() {
                batch.settings = true;
            } else if self.shared.tree.is_gitignore(path) {
                // What is ignored changed: read the rules again, then the whole tree (the
                // resync before the batch goes out re-walks the watches with them).
                self.shared.tree.reload_gitignore();
                batch.rescan = Some(format!("{} changed", path.display()));
                batch.paths.clear();
            }
        }
        // Only these kinds can add or take away a directory.
        let structural = matches!(
            event.kind,
            EventKind::Create(_) | EventKind::Remove(_) | EventKind::Modify(ModifyKind::Name(_))
        );
        for path in event.paths {
            if structural {
                match std::fs::symlink_metadata(&path) {
                    Ok(meta) if meta.is_dir() => {
                        if self.shared.tree.admits(&path, true) {
                            self.add(&path);
                        }
                    }
                    Ok(_) => {}
                    Err(_) => self.remove(&path),
                }
            }
            if batch.rescan.is_none() {
                batch.paths.insert(path);
            }
        }
        if *raw > self.storm && batch.rescan.is_none() {
            batch.rescan = Some(format!("a storm of more than {} events", self.storm));
            batch.paths.clear();
        }
        false
    }
}
