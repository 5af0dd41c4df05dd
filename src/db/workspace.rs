//! The driver: owns the database, loads files through a `System`, plans them on N threads
//! and flushes the cache.
//!
//! Parallelism: salsa database handles are `Send` but not `Sync`, so each worker thread gets
//! its own clone of the database and pulls whole files from a shared counter; salsa
//! memoizes across the clones and blocks a thread that asks for a query another thread is
//! computing. Inputs are only set between runs, when no clone is alive.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use salsa::{Durability, Setter as _};

use super::{Db, FailureKind, Planner, Settings, SourceFile, file_result};
use crate::diagnostics::Diagnostic;
use crate::ir::Name;
use crate::plan::{PlanConfig, PlanReport};
use crate::store::{Cache, CachedPlan, StoreError};
use crate::system::System;

#[salsa::db]
#[derive(Clone)]
pub struct PlanDatabase {
    storage: salsa::Storage<Self>,
    cache: Arc<Cache>,
    run: Arc<AtomicU64>,
}

#[salsa::db]
impl salsa::Database for PlanDatabase {}

#[salsa::db]
impl Db for PlanDatabase {
    fn cache(&self) -> &Cache {
        &self.cache
    }
    fn run(&self) -> u64 {
        self.run.load(Ordering::Relaxed)
    }
}

/// The outcome of one file.
#[derive(Clone, Debug)]
pub struct FileOutcome {
    pub path: PathBuf,
    pub text: Arc<str>,
    pub status: FileStatus,
}

#[derive(Clone, Debug)]
pub enum FileStatus {
    NotAProgram,
    ParseFailed(Vec<Diagnostic>),
    Planned {
        header: Arc<str>,
        functions: Vec<FunctionOutcome>,
    },
}

#[derive(Clone, Debug)]
pub struct FunctionOutcome {
    pub name: Name,
    /// The plan with its report located in this file, or the located failure.
    pub result: Result<(Arc<CachedPlan>, PlanReport), (FailureKind, Vec<Diagnostic>)>,
    pub computed_in: Option<u64>,
}

/// The executed queries, for firewall tests: `query(argument)` in execution order.
pub type ExecutionLog = Arc<Mutex<Vec<salsa::DatabaseKeyIndex>>>;

pub struct Workspace {
    db: PlanDatabase,
    settings: Settings,
    files: std::collections::HashMap<PathBuf, SourceFile>,
    log: Option<ExecutionLog>,
}

impl Workspace {
    pub fn new(cache: Arc<Cache>, config: PlanConfig, planner: Planner) -> Workspace {
        Workspace::build(cache, config, planner, None)
    }

    /// A workspace that records every query execution (see [`Workspace::executed`]).
    pub fn with_log(cache: Arc<Cache>, config: PlanConfig, planner: Planner) -> Workspace {
        Workspace::build(cache, config, planner, Some(ExecutionLog::default()))
    }

    fn build(
        cache: Arc<Cache>,
        config: PlanConfig,
        planner: Planner,
        log: Option<ExecutionLog>,
    ) -> Workspace {
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
            run: Arc::default(),
        };
        let settings = Settings::builder(config, planner)
            .durability(Durability::HIGH)
            .new(&db);
        Workspace {
            db,
            settings,
            files: Default::default(),
            log,
        }
    }

    pub fn cache(&self) -> &Cache {
        &self.db.cache
    }

    pub fn set_settings(&mut self, config: PlanConfig, planner: Planner) {
        if self.settings.config(&self.db) != config {
            self.settings
                .set_config(&mut self.db)
                .with_durability(Durability::HIGH)
                .to(config);
        }
        if self.settings.planner(&self.db) != planner {
            self.settings
                .set_planner(&mut self.db)
                .with_durability(Durability::HIGH)
                .to(planner);
        }
    }

    /// Creates or updates the file at `path`; unchanged text is not a change.
    pub fn set_file(&mut self, path: &Path, text: &str, materialize_aliases: bool) -> SourceFile {
        if let Some(&file) = self.files.get(path) {
            if &**file.text(&self.db) != text {
                file.set_text(&mut self.db).to(text.into());
            }
            if file.materialize_aliases(&self.db) != materialize_aliases {
                file.set_materialize_aliases(&mut self.db)
                    .to(materialize_aliases);
            }
            return file;
        }
        let file = SourceFile::new(&self.db, path.to_path_buf(), text.into(), materialize_aliases);
        self.files.insert(path.to_path_buf(), file);
        file
    }

    /// The current text of the file at `path`, if it is in the workspace.
    pub fn text_of(&self, path: &Path) -> Option<String> {
        let file = self.files.get(path)?;
        Some(file.text(&self.db).to_string())
    }

    /// Reads `paths` through `system` on `jobs` threads and sets them as files; a file that
    /// cannot be read is returned as its error instead.
    pub fn load(
        &mut self,
        system: &dyn System,
        paths: &[(PathBuf, bool)],
        jobs: usize,
    ) -> Vec<Result<SourceFile, std::io::Error>> {
        let texts = parallel_map(paths, jobs, |(path, _)| system.read_to_string(path));
        paths
            .iter()
            .zip(texts)
            .map(|((path, materialize), text)| Ok(self.set_file(path, &text?, *materialize)))
            .collect()
    }

    /// Plans `files` on `jobs` threads (`progress` is called once per finished file) and
    /// returns their outcomes in order. Cached results are queued for [`Workspace::flush`].
    pub fn plan(
        &self,
        files: &[SourceFile],
        jobs: usize,
        progress: &(dyn Fn() + Sync),
    ) -> Vec<FileOutcome> {
        self.db.run.fetch_add(1, Ordering::Relaxed);
        if jobs > 1 && files.len() > 1 {
            let next = AtomicUsize::new(0);
            std::thread::scope(|scope| {
                for _ in 0..jobs.min(files.len()) {
                    let db = self.db.clone();
                    let next = &next;
                    scope.spawn(move || {
                        while let Some(&file) = files.get(next.fetch_add(1, Ordering::Relaxed)) {
                            file_result(&db, file);
                            progress();
                        }
                    });
                }
            });
        }
        files
            .iter()
            .map(|&file| {
                let status = file_result(&self.db, file).clone();
                if jobs <= 1 || files.len() <= 1 {
                    progress();
                }
                FileOutcome {
                    path: file.path(&self.db).clone(),
                    text: file.text(&self.db).clone(),
                    status,
                }
            })
            .collect()
    }

    /// Whether a function's plan was computed by the last [`Workspace::plan`] (not taken
    /// from the store or memoized by an earlier run).
    pub fn is_fresh(&self, function: &FunctionOutcome) -> bool {
        function.computed_in == Some(self.db.run())
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

    fn describe(&self, key: salsa::DatabaseKeyIndex) -> String {
        use salsa::Database as _;
        use salsa::plumbing::AsId as _;
        let query = self.db.ingredient_debug_name(key.ingredient_index());
        let id = key.key_index();
        let mut argument = format!("{id:?}");
        for (path, file) in &self.files {
            let name = path.display().to_string();
            if file.as_id() == id {
                argument = name;
                break;
            }
            if let super::FileItems::Program { items, .. } = super::file_items(&self.db, *file) {
                if let Some(item) = items.iter().find(|i| i.as_id() == id) {
                    argument = format!("{name}::{}", item.name(&self.db));
                    break;
                }
            }
        }
        format!("{query}({argument})")
    }
}

/// `f` over `items` on up to `jobs` threads, results in order.
fn parallel_map<T: Sync, R: Send>(items: &[T], jobs: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    if jobs <= 1 || items.len() <= 1 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(jobs);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(|| part.iter().map(&f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            .collect()
    })
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
    pub fn outcome(&self, file: SourceFile) -> Result<FileOutcome, Cancelled> {
        salsa::Cancelled::catch(std::panic::AssertUnwindSafe(|| FileOutcome {
            path: file.path(&self.db).clone(),
            text: file.text(&self.db).clone(),
            status: file_result(&self.db, file).clone(),
        }))
        .map_err(|_| Cancelled)
    }
}

/// A read on a [`Snapshot`] gave way to a change of inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cancelled by a newer revision")]
pub struct Cancelled;
