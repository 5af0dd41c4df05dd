//! A one-shot run's files split between several workspaces, each planned on a thread of its
//! own: the CLI's `plan` on several threads.
//!
//! Two threads planning through one database ran 1.35x faster than one (`a79a7e7`, where
//! issue 16 started: 1.9x) and spent 28 % more CPU, while two processes planning a half each
//! ran as fast as one alone: the loss is in what threads share in one database (suspects:
//! the bounded stages' LRU lists, interned keys, memo tables, an eviction that waits for
//! every thread). Shards share nothing but the cache; each plans and evicts as one thread does (after
//! every function), so a run on N threads is N one-thread runs side by side: a cold run on
//! two threads 0.75x the time (BENCHMARKS.md, issue 16).

use std::path::PathBuf;
use std::sync::Arc;

use super::outcome::{FileOutcome, FileStatus, FunctionOutcome};
use super::source_file::SourceFile;
use super::workspace::{LoadInputs, OutcomeDetail, StageRetention, Texts, Workspace};
use crate::plan::PlanConfig;
use crate::store::{Cache, StoreError};
use crate::system::System;

/// A file of a [`ShardedWorkspace`]: the shard that holds it and its input there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShardFile {
    shard: usize,
    file: SourceFile,
}

/// What the outcomes of a [`ShardedWorkspace`] carry.
#[derive(Clone, Copy, Debug)]
pub struct Handout {
    pub detail: OutcomeDetail,
    pub texts: Texts,
}

/// The outcomes whose detail [`ShardedWorkspace::detailed_in_order`] makes.
#[derive(Clone, Copy)]
pub struct DetailWanted<'a> {
    /// Each with the file it is the outcome of.
    pub outcomes: &'a [(ShardFile, &'a FileOutcome)],
    /// With lifetimes and statement places, or without.
    pub lifetimes: bool,
    /// What reads a file a stamp vouched for, where its detail needs its text.
    pub system: &'a dyn System,
}

/// Workspaces over one cache, each holding some of a one-shot run's files
/// ([`StageRetention::OneShot`]).
pub struct ShardedWorkspace {
    shards: Vec<Workspace>,
}

impl ShardedWorkspace {
    /// `shards` workspaces (at least one) of `config` over `cache`, handing out outcomes as
    /// `handout` says.
    pub fn new(
        cache: Arc<Cache>,
        config: PlanConfig,
        shards: usize,
        handout: Handout,
    ) -> ShardedWorkspace {
        let shards = (0..shards.max(1))
            .map(|_| {
                let mut workspace = Workspace::new(cache.clone(), config);
                workspace.set_stage_retention(StageRetention::OneShot);
                workspace.set_outcome_detail(handout.detail);
                workspace.set_texts(handout.texts);
                workspace
            })
            .collect();
        ShardedWorkspace { shards }
    }

    /// The shared cache.
    pub fn cache(&self) -> &Arc<Cache> {
        self.shards[0].cache()
    }

    /// [`Workspace::load`], the files dealt to the shards in turn, each shard loading its
    /// own on a thread of its own (reading on its share of `jobs` threads): hashing the texts
    /// and setting the inputs is the shard's work, so one shard after the other left a core
    /// idle for half the reading.
    pub fn load(
        &mut self,
        system: &dyn System,
        inputs: LoadInputs,
    ) -> Vec<Result<ShardFile, std::io::Error>> {
        let count = self.shards.len();
        let load = |shard: usize, workspace: &mut Workspace| {
            let mine: Vec<(PathBuf, bool)> = inputs
                .paths
                .iter()
                .skip(shard)
                .step_by(count)
                .cloned()
                .collect();
            let share = LoadInputs {
                paths: &mine,
                jobs: (inputs.jobs / count).max(1),
                stamps: inputs.stamps,
            };
            workspace
                .load(system, share)
                .into_iter()
                .map(move |file| file.map(|file| ShardFile { shard, file }))
        };
        let mut loaded: Vec<_> = match self.shards.as_mut_slice() {
            [only] => vec![load(0, only)],
            shards => std::thread::scope(|scope| {
                let threads: Vec<_> = shards
                    .iter_mut()
                    .enumerate()
                    .map(|(shard, workspace)| scope.spawn(move || load(shard, workspace)))
                    .collect();
                threads
                    .into_iter()
                    .map(|thread| match thread.join() {
                        Ok(files) => files,
                        Err(panic) => std::panic::resume_unwind(panic),
                    })
                    .collect()
            }),
        };
        (0..inputs.paths.len())
            .filter_map(|index| loaded[index % count].next())
            .collect()
    }

    /// [`Workspace::plan`] of each shard's files, each shard on a thread of its own; the
    /// outcomes in the order of `files`.
    pub fn plan(
        &mut self,
        system: &dyn System,
        files: &[ShardFile],
        progress: &(dyn Fn() + Sync),
    ) -> Vec<FileOutcome> {
        let mut mine: Vec<Vec<SourceFile>> = vec![Vec::new(); self.shards.len()];
        for file in files {
            mine[file.shard].push(file.file);
        }
        let mut planned: Vec<std::vec::IntoIter<FileOutcome>> = match self.shards.as_mut_slice() {
            [only] => vec![only.plan(system, &mine[0], 1, progress).into_iter()],
            shards => std::thread::scope(|scope| {
                let threads: Vec<_> = shards
                    .iter_mut()
                    .zip(&mine)
                    .map(|(workspace, mine)| {
                        scope.spawn(move || workspace.plan(system, mine, 1, progress))
                    })
                    .collect();
                threads
                    .into_iter()
                    .map(|thread| match thread.join() {
                        Ok(outcomes) => outcomes.into_iter(),
                        Err(panic) => std::panic::resume_unwind(panic),
                    })
                    .collect()
            }),
        };
        files
            .iter()
            .filter_map(|file| planned[file.shard].next())
            .collect()
    }

    /// [`Workspace::add_report_detail`] of `outcome`, the outcome of `file`.
    pub fn add_report_detail(&self, file: ShardFile, outcome: &mut FileOutcome) {
        self.shards[file.shard].add_report_detail(outcome, None);
    }

    /// [`Workspace::detailed`] of each of `wanted.outcomes`, every shard's on a thread of its
    /// own, turned by `make` (with its index in `outcomes` and whether each of its functions'
    /// plans was computed by this run, [`ShardedWorkspace::is_fresh`]) into what `consume`
    /// is handed, in the order of `outcomes`; where `ready` (with the index) has it without
    /// the detail, that instead. A shard works a few files ahead of `consume` at most, and
    /// stops when `consume` returns. `ready` and `make` run on the shard's thread: printing
    /// a file's JSON there leaves the consumer only the writing.
    pub fn detailed_in_order<T: Send, R>(
        &mut self,
        wanted: DetailWanted,
        ready: impl Fn(usize) -> Option<T> + Sync,
        make: impl Fn(usize, FileOutcome, Vec<bool>) -> T + Sync,
        consume: impl FnOnce(&mut dyn Iterator<Item = T>) -> R,
    ) -> R {
        const AHEAD: usize = 4;
        let DetailWanted {
            system,
            outcomes,
            lifetimes,
        } = wanted;
        std::thread::scope(|scope| {
            let receivers: Vec<_> = self
                .shards
                .iter_mut()
                .enumerate()
                .map(|(shard, workspace)| {
                    let (send, receive) = std::sync::mpsc::sync_channel(AHEAD);
                    let mine = outcomes
                        .iter()
                        .enumerate()
                        .filter(move |(_, (file, _))| file.shard == shard);
                    let (ready, make) = (&ready, &make);
                    scope.spawn(move || {
                        for (index, (_, outcome)) in mine {
                            let made = ready(index).unwrap_or_else(|| {
                                let detailed = workspace.detailed(system, outcome, lifetimes);
                                let fresh = match &*detailed.status {
                                    FileStatus::Planned { functions, .. } => {
                                        functions.iter().map(|f| workspace.is_fresh(f)).collect()
                                    }
                                    _ => Vec::new(),
                                };
                                make(index, detailed, fresh)
                            });
                            // The consumer is done: nothing more is wanted.
                            if send.send(made).is_err() {
                                return;
                            }
                        }
                    });
                    receive
                })
                .collect();
            // A shard that panicked ends the files; the scope raises its panic.
            let mut in_order = outcomes
                .iter()
                .map_while(|(file, _)| receivers[file.shard].recv().ok());
            let consumed = consume(&mut in_order);
            drop(in_order);
            drop(receivers);
            consumed
        })
    }

    /// [`Workspace::stored_under`] of `file`.
    pub fn stored_under(&self, file: ShardFile) -> (PlanConfig, [u8; 32]) {
        self.shards[file.shard].stored_under(file.file)
    }

    /// [`Workspace::planned_texts`] of `file`.
    pub fn planned_texts(&self, file: ShardFile) -> Vec<Option<Arc<str>>> {
        self.shards[file.shard].planned_texts(file.file)
    }

    /// Whether a function's plan was computed by this workspace (not taken from the store).
    pub fn is_fresh(&self, function: &FunctionOutcome) -> bool {
        function.computed
    }

    /// [`Workspace::record_stamps`] of the outcomes of `files`, in the same order.
    pub fn record_stamps(&mut self, files: &[ShardFile], outcomes: &[FileOutcome]) {
        for (shard, workspace) in self.shards.iter_mut().enumerate() {
            let mine = files
                .iter()
                .zip(outcomes)
                .filter(|(file, _)| file.shard == shard)
                .map(|(_, outcome)| outcome);
            workspace.record_stamps(mine);
        }
    }

    /// Writes the queued results of every shard (they queue in the one cache).
    pub fn flush(&self) -> Result<usize, StoreError> {
        self.shards[0].flush()
    }
}
