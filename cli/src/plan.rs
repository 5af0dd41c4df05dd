//! `memreuse plan`: plan (or just re-print) kernel files and report what was decided.

use std::borrow::Cow;
use std::io::{IsTerminal as _, Write as _};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::thread::available_parallelism;
use std::time::Instant;

use anyhow::{Result, bail};
use clap::ValueEnum;
use indicatif::{ProgressBar, ProgressStyle};
use memreuse::backend::Backend;
use memreuse::db::{
    DetailWanted, FailureKind, FileOutcome, FileStatus, FunctionOutcome, Handout, LoadInputs,
    OutcomeDetail, OutcomeText, ShardFile, ShardedWorkspace, Stamps, Texts, UnprintedProgram,
    planned_program,
};
use memreuse::diagnostics::{Diagnostic, Severity};
use memreuse::ir::{LineIndex, ProgramHeader};
use memreuse::json::{
    FileError, FileJson, FileReport, FunctionEntry, entry_head, file_entry, function_entries,
    write_plan_document,
};
use memreuse::plan::{PlanConfig, Planner};
use memreuse::repair::{is_input_hazard, is_repair};
use memreuse::store::Cache;
use memreuse::svg::plan_svg;
use memreuse::system::OsSystem;

use crate::args::{BackendArg, PlannerArg, Toggle};
use crate::exit::UsageError;
use crate::inputs::{InputFile, Inputs, discover, prepare_out_dir, split_inputs, write_atomically};
use crate::sarif::{self, FileFindings};
use crate::state;
use crate::summary::{self, plural};
use crate::target::no_such_function;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Emit {
    /// One row per function and memory space.
    Summary,
    /// The rewritten program in PyPTO's printed form.
    Ir,
    /// The plan as JSON (schema 4; each function's `lifetimes` with `--lifetimes`).
    Json,
    /// One SVG picture per function: tiles over statement time and address, per memory space.
    Svg,
    /// The memory viewer as one self-contained page, `DIR/index.html` (needs `--out DIR`):
    /// every function with its data embedded, openable without a server.
    Html,
    /// The errors, warnings and notes as SARIF 2.1.0, for CI annotations (hints with `-v`).
    Sarif,
}

/// A kind of finding `--only` shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Finding {
    /// Files that cannot be read or do not parse, functions with no plan.
    Errors,
    /// Every warning: repairs, the input's own hazards, capacity, `--exact`'s findings.
    Warnings,
    /// The repairs of PyPTO's plan (warnings MR-R…).
    Repairs,
}

#[derive(clap::Args)]
pub struct PlanArgs {
    /// Kernel files or directories (walked recursively, honouring .gitignore, skipping hidden
    /// files and earlier `--out` directories), or one function of a file, `FILE::FUNCTION`.
    /// Files without a `@pl.program` are skipped.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Target backend: sets capacities and the target-specific rules [default: the
    /// `backend` of memreuse.toml, else none].
    #[arg(long, value_enum)]
    pub backend: Option<BackendArg>,
    /// Override a memory space's capacity, e.g. `--capacity Vec=131072` (repeatable; also
    /// `[capacity]` in memreuse.toml).
    #[arg(long, value_name = "SPACE=BYTES", value_parser = crate::settings::parse_capacity)]
    pub capacity: Vec<(memreuse::ir::MemSpace, i64)>,
    #[arg(long, value_enum, default_value = "pypto")]
    pub planner: PlannerArg,
    #[arg(long, value_enum, default_value = "summary")]
    pub emit: Emit,
    /// Same as `--emit json`, as `query`, `explain`, `verify` and `stats` take it.
    #[arg(long, conflicts_with = "emit")]
    pub json: bool,
    /// With `--emit ir`: write one file per input under DIR, mirroring the inputs relative to
    /// their common directory (refused when two would land on one path or on an input).
    /// With `--emit svg`: write `DIR/<file>.<function>.svg` per function with tiles. Files are written
    /// atomically; DIR is marked so that later runs do not plan it.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Run MaterializeSemanticAliases (loop-carry retargeting) first. `auto` runs it for
    /// dumps taken straight after InitMemRef (`*_after_InitMemRef.py`), as PyPTO's pipeline
    /// would, and not for later dumps.
    #[arg(long, value_enum, default_value = "auto", num_args = 0..=1, default_missing_value = "on")]
    pub materialize_aliases: Toggle,
    /// With `--emit ir`: print addressed MemRefs, as AllocateMemoryAddr leaves them (InCore,
    /// AIC and AIV functions).
    #[arg(long)]
    pub addresses: bool,
    /// Print PyPTO's decision unchanged, even where it is unsafe: Step 0 retargets by PyPTO's
    /// rule alone, no repair is made, and the checker's findings are printed as warnings
    /// (`V003` …) with `file:line:col`. For comparison with PyPTO and bug reports. The exit
    /// code is 0 when the plan was printed, unsafe or not; 1 only when PyPTO's pass itself
    /// fails. Without it, unsafe decisions are repaired (warnings `MR-R…`; `memreuse codes`
    /// lists them).
    #[arg(long)]
    pub exact: bool,
    /// Which MemoryReuse rules to follow: `seed`, the newer pass (rules §S), or `snapshot`,
    /// the upstream snapshot e2d0f78ae without the seed rules S1–S6; with `--exact`, the
    /// snapshot's output byte for byte [default: `rules` of memreuse.toml, else seed].
    #[arg(long, value_enum)]
    pub rules: Option<crate::args::RulesArg>,
    /// Plan everything afresh: neither read nor write the cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Plan on N threads [default: the number of cores].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(usize))]
    pub jobs: Option<usize>,
    /// With `--emit json`: add each function's `lifetimes` (left out by default: half the
    /// document on large trees, and a parse of every cached file to place them, once).
    #[arg(long)]
    pub lifetimes: bool,
    /// Removed (lifetimes are left out by default): refused with a hint, not as unknown.
    #[arg(long, hide = true)]
    pub no_lifetimes: bool,
    /// With the summary: only the functions (and files) with findings of these kinds, and
    /// only those findings under them, e.g. `--only repairs` or `--only errors,warnings`; the
    /// totals still count everything.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "KIND")]
    pub only: Vec<Finding>,
    /// Accept a PATH that holds no `@pl.program` (otherwise an error: a typo in CI should
    /// not pass).
    #[arg(long)]
    pub allow_empty: bool,
}

/// One input file with a program, or one that failed to give one.
struct PlannedFile<'a> {
    display: String,
    relative: &'a Path,
    /// Read lazily: a stamped file's text is only needed to locate diagnostics.
    text: LazyText<'a>,
    body: FileBody<'a>,
}

enum FileBody<'a> {
    Unreadable(String),
    ParseFailed(&'a [Diagnostic]),
    /// Every function in order, planned or failed.
    Program {
        header: &'a ProgramHeader,
        file: ShardFile,
        outcome: &'a FileOutcome,
        /// The index of `functions[0]` in the file (one function for `FILE::FUNCTION`).
        first: usize,
        functions: &'a [FunctionOutcome],
    },
}

impl PlannedFile<'_> {
    fn functions(&self) -> &[FunctionOutcome] {
        match &self.body {
            FileBody::Program { functions, .. } => functions,
            _ => &[],
        }
    }

    fn failed(&self) -> bool {
        match &self.body {
            FileBody::Program { functions, .. } => functions.iter().any(|f| f.result.is_err()),
            _ => true,
        }
    }
}

/// A file's text: loaded by the workspace, or read on first use (for output only).
struct LazyText<'a> {
    source: TextSource<'a>,
    read: std::cell::OnceCell<String>,
}

impl<'a> LazyText<'a> {
    fn new(source: TextSource<'a>) -> LazyText<'a> {
        LazyText {
            source,
            read: std::cell::OnceCell::new(),
        }
    }

    fn get(&self) -> &str {
        match self.source {
            TextSource::Held(text) => text,
            TextSource::InFile { path, planned } => {
                self.read.get_or_init(|| read_again(path, planned))
            }
        }
    }
}

/// Where a file's text is: held, or in the file, which must still be what was planned.
#[derive(Clone, Copy)]
enum TextSource<'a> {
    Held(&'a str),
    InFile {
        path: &'a Path,
        /// The digest of the text planned where the workspace let it go; `None` where it
        /// held none (a stamp vouched for the file, as it does for the text read again).
        planned: Option<&'a [u8; 32]>,
    },
}

impl<'a> TextSource<'a> {
    fn of(outcome: &'a FileOutcome) -> TextSource<'a> {
        let path = &outcome.path;
        match &outcome.text {
            OutcomeText::Held(text) => TextSource::Held(text),
            OutcomeText::Released(digest) => TextSource::InFile {
                path,
                planned: Some(digest),
            },
            OutcomeText::Unread => TextSource::InFile {
                path,
                planned: None,
            },
        }
    }

    /// The text, read again if it is not held (a caller on any thread holds it only while
    /// it shows the file: a run does not keep every input).
    fn text(self) -> Cow<'a, str> {
        match self {
            TextSource::Held(text) => Cow::Borrowed(text),
            TextSource::InFile { path, planned } => Cow::Owned(read_again(path, planned)),
        }
    }
}

/// A file's text read again, with a warning where it cannot be read or is not the text
/// planned (the places shown in it would be wrong).
fn read_again(path: &Path, planned: Option<&[u8; 32]>) -> String {
    let (text, warning) = read_checked(path, planned);
    if let Some(warning) = warning {
        eprintln!("warning: {warning}");
    }
    text
}

fn read_checked(path: &Path, planned: Option<&[u8; 32]>) -> (String, Option<String>) {
    let shown = path.display();
    match std::fs::read_to_string(path) {
        Ok(text) => {
            let changed = planned.is_some_and(|d| blake3::hash(text.as_bytes()).as_bytes() != d);
            let warning = changed.then(|| {
                format!(
                    "{shown} changed while it was planned: the places shown in it may be wrong \
                     (run again)"
                )
            });
            (text, warning)
        }
        Err(err) => (
            String::new(),
            Some(format!(
                "cannot read {shown} again to show its places: {err}"
            )),
        ),
    }
}

/// Counts for the footer and the exit code.
#[derive(Default)]
struct Totals {
    files: usize,
    functions: usize,
    unreadable_files: usize,
    unparsed_files: usize,
    failed_functions: usize,
}

impl Totals {
    fn failed(&self) -> bool {
        self.unreadable_files + self.unparsed_files + self.failed_functions > 0
    }
}

/// How much the summary says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// `-q`: only the functions with a problem (no plan, repairs, warnings) and the totals.
    Problems,
    /// Every function's rows, its warnings and notes, a count of its hints.
    Rows,
    /// `-v`: also each buffer's tiles and every hint.
    Members,
}

/// Whether the file is one of PyPTO's per-pass dumps (`NN_after_<Pass>.py`) of a program
/// compiled for a device: its functions carry their device level (`pl.Level.…`), which
/// PyPTO's compile for a backend adds. Only the file's start is read: the first function's
/// decorator says it, and real dumps run to megabytes.
fn is_compiled_dump(path: &Path) -> bool {
    use std::io::Read as _;
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let named = name.split_once("_after_").is_some_and(|(number, rest)| {
        !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) && rest.ends_with(".py")
    });
    let mut start = Vec::new();
    named
        && std::fs::File::open(path)
            .and_then(|file| file.take(64 * 1024).read_to_end(&mut start))
            .is_ok()
        && start.windows(15).any(|w| w == b"level=pl.Level.")
}

/// `detail`: how much the summary says (`-q`, default, `-v`).
pub fn run(mut args: PlanArgs, state_dir: Option<&Path>, detail: Detail) -> Result<ExitCode> {
    let verbose = detail == Detail::Members;
    if args.json {
        args.emit = Emit::Json;
    }
    let started = Instant::now();
    refuse_unused_options(&args)?;
    let named = split_inputs(&args.paths)?;
    if args.emit == Emit::Ir && named.functions.iter().any(Option::is_some) {
        bail!(UsageError(IR_OF_A_FUNCTION.into()));
    }
    let root = crate::settings::root_of(&named.paths)?;
    let state = match args.no_cache {
        true => None,
        false => Some(state::state_dir_for(state_dir, &root)?),
    };
    let (files, opened) = discover_and_open(&args, &named.paths, state.as_deref());
    let (lock, store, server) = (opened.held, opened.store, opened.server);
    let files = match files {
        Ok(files) => files,
        Err(err) => {
            state::InProcessCache::close(server, store);
            drop(lock);
            return Err(err);
        }
    };
    tracing::info!(elapsed = ?started.elapsed(), files = files.len(), "found files, opened the cache");
    let config = plan_config(&args, &root, &files)?;
    let jobs = args
        .jobs
        .unwrap_or_else(|| available_parallelism().map_or(1, NonZeroUsize::get));
    // One shard a thread: each plans its files on its own, as one thread does.
    let shards = jobs.min(files.len());
    let mut workspace = ShardedWorkspace::new(
        Arc::new(opened.cache),
        config,
        shards,
        handout(&args, verbose),
    );
    let (sources, unreadable) = load(&mut workspace, &args, &files, jobs);
    tracing::info!(elapsed = ?started.elapsed(), "read files");
    let outcomes = plan_all(&mut workspace, &sources, args.emit, verbose);
    tracing::info!(elapsed = ?started.elapsed(), "planned");

    // Every input in order; a failed function fails only itself.
    let InOrder {
        planned,
        has_program,
        missing_function,
    } = in_order(&files, &named, &sources, &outcomes, unreadable)?;
    let totals = report_failures(&planned);
    let empty = !args.allow_empty && refuse_empty(&named.paths, &has_program);

    // Standard output is written only once the cache is flushed and closed and its lock
    // released: a slow reader of the output must not keep a daemon from starting.
    let mut stdout: Vec<u8> = Vec::new();
    let mut json_spool = None;
    match args.emit {
        Emit::Ir => write_programs(&args, &files, &planned, &workspace, &mut stdout)?,
        Emit::Svg => write_svgs(&args, &files, &planned, &mut stdout)?,
        Emit::Html => {
            if let Some(dir) = &args.out {
                let aliases = args.materialize_aliases;
                let page = html_page(&planned, &config, aliases, workspace.cache());
                let target = PathBuf::from("index.html");
                prepare_out_dir(dir, &files, std::slice::from_ref(&target))?;
                write_atomically(&dir.join(&target), &page)?;
            }
        }
        Emit::Summary => {
            let shown = Shown {
                detail,
                only: &args.only,
            };
            print_summary(&mut stdout, &planned, &totals, shown, config.planner)?
        }
        Emit::Json => {
            let held = lock.as_ref().map(|(dir, _)| dir.as_path());
            json_spool = emit_json(&args, held, &mut workspace, &planned, &config)?;
        }
        Emit::Sarif => {
            let files: Vec<FileFindings> = planned.iter().map(file_findings).collect();
            serde_json::to_writer_pretty(&mut stdout, &sarif::log(&files, verbose))?;
            writeln!(stdout)?;
        }
    }
    tracing::info!(elapsed = ?started.elapsed(), "printed");
    let functions: Vec<&FunctionOutcome> = planned.iter().flat_map(|p| p.functions()).collect();
    let fresh = functions.iter().filter(|f| workspace.is_fresh(f)).count();
    workspace.record_stamps(&sources, &outcomes);
    let written = flush_or_warn(&workspace);
    tracing::info!(elapsed = ?started.elapsed(), written, "flushed the cache");
    if let Some((dir, _lock)) = &lock {
        let last = state::LastRun {
            files: sources.len(),
            functions: functions.len(),
            cached: functions.len() - fresh,
            planned: fresh,
            lookups: workspace.cache().counters(),
            written,
            seconds: started.elapsed().as_secs_f64(),
        };
        if let Err(err) = last.save(dir) {
            eprintln!("warning: {err:#}");
        }
        prune_to_cap(workspace.cache(), &root);
    }
    state::InProcessCache::close(server, store);
    drop(lock);
    if let Some(spool) = json_spool {
        spool.copy_to_stdout()?;
    }
    std::io::stdout().lock().write_all(&stdout)?;
    let failed = empty || missing_function || totals.failed();
    Ok(if failed {
        ExitCode::from(crate::exit::ERRORS)
    } else {
        ExitCode::SUCCESS
    })
}

const IR_OF_A_FUNCTION: &str = "--emit ir prints whole programs: name the file without ::FUNCTION";

/// `--emit json`. A file's detail is read from the store as its turn comes, so that no more
/// than one file's is in memory; while this run holds the store (in `held`), the document
/// goes to a spool file, handed back to be copied to stdout once the store is closed, unless
/// no reader can hold the output up.
fn emit_json(
    args: &PlanArgs,
    held: Option<&Path>,
    workspace: &mut ShardedWorkspace,
    planned: &[PlannedFile],
    config: &PlanConfig,
) -> Result<Option<Spool>> {
    let spool = match held {
        Some(dir) if !stdout_never_waits() => Some(Spool::create(dir)?),
        _ => None,
    };
    let lifetimes = args.lifetimes;
    match &spool {
        Some(spool) => write_json(&spool.file, workspace, planned, config, lifetimes)?,
        None => write_json(
            std::io::stdout().lock(),
            workspace,
            planned,
            config,
            lifetimes,
        )?,
    }
    Ok(spool)
}

/// Writes the cache's queued results and makes them durable, before success is reported: a
/// cache that cannot be written costs the next run its hits, not this run its answer. How
/// many values were written.
fn flush_or_warn(workspace: &ShardedWorkspace) -> usize {
    workspace.flush().unwrap_or_else(|err| {
        eprintln!("warning: cannot write the cache: {err}");
        0
    })
}

/// The input files below `paths`, walked while the store opens (a warm run's largest step),
/// and the store with its lock (or none: `state` is `None` without the cache). The files are
/// an error when the output they ask for needs `--out`.
fn discover_and_open(
    args: &PlanArgs,
    paths: &[PathBuf],
    state: Option<&Path>,
) -> (Result<Vec<InputFile>>, state::InProcessCache) {
    let (files, opened) = std::thread::scope(|scope| {
        let opening = state.map(|dir| scope.spawn(move || state::open_or_degrade(dir)));
        let files = discover(paths);
        let opened = opening.map_or_else(state::InProcessCache::without, |opening| {
            opening
                .join()
                .unwrap_or_else(|_| state::InProcessCache::without())
        });
        (files, opened)
    });
    let usage = match &files {
        Err(_) => None,
        Ok(files) if args.emit == Emit::Ir && args.out.is_none() && files.len() > 1 => {
            Some(UsageError(
                "--emit ir over several files needs --out DIR (the outputs mirror the inputs \
                 below DIR)"
                    .into(),
            ))
        }
        Ok(files) if args.emit == Emit::Svg && args.out.is_none() && files.len() > 1 => {
            Some(svg_usage_error())
        }
        Ok(_) => None,
    };
    let files = match (files, usage) {
        (Ok(files), None) => Ok(files),
        (Err(err), _) => Err(err),
        (Ok(_), Some(usage)) => Err(usage.into()),
    };
    (files, opened)
}

/// The configuration from memreuse.toml at `root` and the options; a hint on stderr when
/// PyPTO's dumps are planned without a backend.
fn plan_config(args: &PlanArgs, root: &Path, files: &[InputFile]) -> Result<PlanConfig> {
    let config = crate::settings::plan_config(root, args.backend, &args.capacity)?;
    let config = PlanConfig {
        assign_addresses: args.addresses,
        exact: args.exact,
        planner: args.planner.into(),
        rules: args.rules.map_or(config.rules, Into::into),
        ..config
    };
    if config.backend == Backend::None && files.iter().any(|f| is_compiled_dump(&f.path)) {
        eprintln!(
            "hint: planning PyPTO's dumps without a backend: PyPTO plans with its backend's \
             capacities and rules, so the plans can differ from PyPTO's; pass --backend \
             910b|950, or put `backend = \"910b\"` in memreuse.toml at the tree's root"
        );
    }
    Ok(config)
}

/// What the outcomes keep of each report and of the texts. Pictures, JSON and `-v`'s buffer
/// members show the reports' detail: made while each plan is at hand (a one-shot run keeps
/// none), or for a plan from the store read from its detail entry (JSON reads it file by file
/// as it is written).
fn handout(args: &PlanArgs, verbose: bool) -> Handout {
    let detail = match args.emit {
        Emit::Json => OutcomeDetail::Detailed {
            lifetimes: args.lifetimes,
        },
        Emit::Svg => OutcomeDetail::Detailed { lifetimes: true },
        Emit::Summary if verbose => OutcomeDetail::Detailed { lifetimes: true },
        _ => OutcomeDetail::Summary,
    };
    // Only `--emit ir` prints planned programs; the others free the texts file by file and
    // read an input again where they show its places.
    let texts = match args.emit {
        Emit::Ir => Texts::Kept,
        _ => Texts::Released,
    };
    Handout { detail, texts }
}

/// Reads `files` into `workspace` on `jobs` threads: the files read, and the index and error
/// of each that could not be.
fn load(
    workspace: &mut ShardedWorkspace,
    args: &PlanArgs,
    files: &[InputFile],
    jobs: usize,
) -> (Vec<ShardFile>, Vec<(usize, String)>) {
    let inputs: Vec<(PathBuf, bool)> = files
        .iter()
        .map(|f| (f.path.clone(), args.materialize_aliases.applies_to(&f.path)))
        .collect();
    // The summary, SARIF and JSON can do without input texts (they locate diagnostics
    // lazily; JSON reads a file whose entry and detail the store does not hold).
    let stamps = match args.emit {
        Emit::Summary | Emit::Sarif | Emit::Json => Stamps::Trusted,
        _ => Stamps::Ignored,
    };
    let loaded = workspace.load(
        &OsSystem,
        LoadInputs {
            paths: &inputs,
            jobs,
            stamps,
        },
    );
    let mut sources = Vec::with_capacity(inputs.len());
    let mut unreadable = Vec::new();
    for (index, loaded) in loaded.into_iter().enumerate() {
        match loaded {
            Ok(source) => sources.push(source),
            Err(err) => unreadable.push((index, err.to_string())),
        }
    }
    (sources, unreadable)
}

/// Plans the files read, with a progress bar; the outcomes keep what `emit` shows.
fn plan_all(
    workspace: &mut ShardedWorkspace,
    sources: &[ShardFile],
    emit: Emit,
    verbose: bool,
) -> Vec<FileOutcome> {
    let bar = progress_bar(sources.len());
    let mut outcomes = workspace.plan(&OsSystem, sources, &|| bar.inc(1));
    bar.finish_and_clear();
    // The plans served from the store get their detail from its detail entries.
    if emit == Emit::Svg || (verbose && emit == Emit::Summary) {
        for (&source, outcome) in sources.iter().zip(&mut outcomes) {
            workspace.add_report_detail(source, outcome);
        }
    }
    outcomes
}

/// Says which of `paths` hold no program (`has_program`, in order); whether any.
fn refuse_empty(paths: &[PathBuf], has_program: &[bool]) -> bool {
    let mut empty = false;
    for (path, found) in paths.iter().zip(has_program) {
        if !found {
            eprintln!(
                "error: {} holds no @pl.program (pass --allow-empty to accept that)",
                path.display()
            );
            empty = true;
        }
    }
    empty
}

/// `--emit ir`: each program whose every function has a plan, printed under `--out` (mirroring
/// the inputs) or to `stdout`; each with its warnings on stderr.
fn write_programs(
    args: &PlanArgs,
    files: &[InputFile],
    planned: &[PlannedFile],
    workspace: &ShardedWorkspace,
    stdout: &mut Vec<u8>,
) -> Result<()> {
    let mut written = Vec::new();
    for p in planned {
        let FileBody::Program {
            header,
            file,
            functions,
            ..
        } = &p.body
        else {
            continue;
        };
        if p.failed() {
            eprintln!(
                "note: {} was not printed: some of its functions have no plan",
                p.display
            );
            continue;
        }
        let text = printed_program(workspace, &p.display, header, *file, functions)?;
        written.push((p.relative.to_path_buf(), text));
        // The repairs (and, with --exact, the checkers' findings) go with the program.
        let warnings = functions
            .iter()
            .filter_map(|f| f.result.as_ref().ok())
            .flat_map(|planned| &planned.report.summary().diagnostics)
            .filter(|d| d.severity == Severity::Warning);
        let mut lines = None;
        for d in warnings {
            let lines = lines.get_or_insert_with(|| LineIndex::new(p.text.get()));
            eprintln!("{}", d.one_line(&p.display, p.text.get(), lines));
        }
    }
    match &args.out {
        Some(dir) => {
            let targets: Vec<PathBuf> = written.iter().map(|(t, _)| t.clone()).collect();
            prepare_out_dir(dir, files, &targets)?;
            for (target, text) in &written {
                write_atomically(&dir.join(target), text)?;
            }
        }
        None => {
            for (_, text) in &written {
                stdout.extend_from_slice(text.as_bytes());
            }
        }
    }
    Ok(())
}

/// `--emit svg`: a picture per function with tiles, under `--out`, or to `stdout` when there
/// is one.
fn write_svgs(
    args: &PlanArgs,
    files: &[InputFile],
    planned: &[PlannedFile],
    stdout: &mut Vec<u8>,
) -> Result<()> {
    // (path under --out, document)
    let mut svgs: Vec<(PathBuf, String)> = Vec::new();
    for p in planned {
        // Real programs have functions without tiles (orchestration, `_spmd`
        // wrappers): nothing to draw, so they neither get a picture nor count.
        let mut tileless = Vec::new();
        for function in p.functions() {
            let Ok(planned) = &function.result else {
                continue;
            };
            if planned.report.summary().spaces.iter().all(|s| s.tiles == 0) {
                tileless.push(function.name.as_str());
                continue;
            }
            let Some(report) = planned.report.detailed() else {
                bail!(
                    "internal error: the report of '{}' lacks its detail",
                    function.name
                );
            };
            let mut name = p.relative.as_os_str().to_owned();
            name.push(format!(".{}.svg", function.name));
            svgs.push((
                PathBuf::from(name),
                plan_svg(&function.name, report, p.text.get()),
            ));
        }
        if !tileless.is_empty() {
            eprintln!(
                "note: {}: {} without tiles not drawn: {}",
                p.display,
                plural(tileless.len(), "function"),
                crate::target::some_of(tileless)
            );
        }
    }
    match (&args.out, svgs.as_slice()) {
        (Some(dir), _) => {
            let targets: Vec<PathBuf> = svgs.iter().map(|(t, _)| t.clone()).collect();
            prepare_out_dir(dir, files, &targets)?;
            for (target, svg) in &svgs {
                write_atomically(&dir.join(target), svg)?;
            }
        }
        (None, [(_, svg)]) => stdout.extend_from_slice(svg.as_bytes()),
        (None, []) => {}
        (None, _) => bail!(svg_usage_error()),
    }
    Ok(())
}

/// Refuses options the chosen output does not use, and the removed `--no-lifetimes`.
fn refuse_unused_options(args: &PlanArgs) -> Result<(), UsageError> {
    if args.emit == Emit::Html && args.out.is_none() {
        return Err(UsageError(
            "--emit html needs --out DIR (it writes DIR/index.html)".into(),
        ));
    }
    if args.no_lifetimes {
        return Err(UsageError(
            "--no-lifetimes is gone: lifetimes are left out by default now; pass --lifetimes \
             to include them"
                .into(),
        ));
    }
    if args.lifetimes && args.emit != Emit::Json {
        return Err(UsageError("--lifetimes applies to --emit json only".into()));
    }
    if !args.only.is_empty() && args.emit != Emit::Summary {
        return Err(UsageError(
            "--only filters the summary; it does not apply to --emit json, ir, svg, html or \
             sarif"
                .into(),
        ));
    }
    Ok(())
}

/// Every input in order with what became of it, for the outputs to show.
struct InOrder<'a> {
    planned: Vec<PlannedFile<'a>>,
    /// Per argument, whether it held a program (or an unreadable file).
    has_program: Vec<bool>,
    /// A `FILE::FUNCTION` named a function its file does not define (said on stderr).
    missing_function: bool,
}

/// The inputs `files` in order, each with its outcome (of `outcomes`, planned from `sources`)
/// or the error that it could not be read (`unreadable`, by index in `files`).
fn in_order<'a>(
    files: &'a [InputFile],
    named: &Inputs,
    sources: &[ShardFile],
    outcomes: &'a [FileOutcome],
    unreadable: Vec<(usize, String)>,
) -> Result<InOrder<'a>> {
    let mut planned = Vec::new();
    let mut has_program = vec![false; named.paths.len()];
    let mut missing_function = false;
    let mut outcome_iter = sources.iter().zip(outcomes);
    let mut unreadable_iter = unreadable.into_iter().peekable();
    for (index, file) in files.iter().enumerate() {
        let display = file.path.display().to_string();
        if let Some((_, err)) = unreadable_iter.next_if(|(i, _)| *i == index) {
            has_program[file.argument] = true;
            planned.push(PlannedFile {
                display,
                relative: &file.relative,
                text: LazyText::new(TextSource::Held("")),
                body: FileBody::Unreadable(err),
            });
            continue;
        }
        let Some((&source, outcome)) = outcome_iter.next() else {
            bail!("planning {display} gave no result");
        };
        let text = LazyText::new(TextSource::of(outcome));
        let body = match &*outcome.status {
            FileStatus::NeedsText => bail!("the text of {display} was not loaded"),
            FileStatus::Unreadable(err) => FileBody::Unreadable(err.clone()),
            FileStatus::NotAProgram => {
                tracing::debug!(file = %outcome.path.display(), "skipping: no @pl.program");
                continue;
            }
            FileStatus::ParseFailed(diagnostics) => FileBody::ParseFailed(diagnostics),
            FileStatus::Planned { header, functions } => {
                // `FILE::FUNCTION`: that function alone is shown.
                let shown = match &named.functions[file.argument] {
                    None => Some(0..functions.len()),
                    Some(name) => functions
                        .iter()
                        .position(|f| f.name == name.as_str())
                        .map(|i| i..i + 1),
                };
                let Some(shown) = shown else {
                    let name = named.functions[file.argument]
                        .as_deref()
                        .unwrap_or_default();
                    let names = functions.iter().map(|f| f.name.as_str());
                    eprintln!("error: {}", no_such_function(name, &display, names));
                    missing_function = true;
                    has_program[file.argument] = true;
                    continue;
                };
                FileBody::Program {
                    header,
                    file: source,
                    outcome,
                    first: shown.start,
                    functions: &functions[shown],
                }
            }
        };
        has_program[file.argument] = true;
        planned.push(PlannedFile {
            display,
            relative: &file.relative,
            text,
            body,
        });
    }
    Ok(InOrder {
        planned,
        has_program,
        missing_function,
    })
}

/// Keeps the cache within its cap (`[cache] max-size`): when the store has grown past it,
/// evicts the least recently used entries, none this run used.
fn prune_to_cap(cache: &Cache, root: &Path) {
    let cap = match crate::settings::cache_cap(root) {
        Ok(cap) => cap,
        Err(err) => {
            eprintln!("warning: {err:#}; the cache was not pruned");
            return;
        }
    };
    let Some(Ok(bytes)) = cache.store().map(|s| s.bytes_on_disk()) else {
        return;
    };
    if bytes <= cap {
        return;
    }
    match cache.prune(cap) {
        Ok(pruned) => tracing::info!(
            removed = pruned.removed,
            bytes = pruned.bytes_removed,
            "pruned the cache to its cap"
        ),
        Err(err) => eprintln!("warning: cannot prune the cache: {err}"),
    }
}

/// Prints every failure's diagnostics to stderr, in input order, and counts.
fn report_failures(planned: &[PlannedFile]) -> Totals {
    let mut totals = Totals::default();
    for p in planned {
        totals.files += 1;
        totals.functions += p.functions().len();
        match &p.body {
            FileBody::Unreadable(err) => {
                eprintln!("error: cannot read {}: {err}", p.display);
                totals.unreadable_files += 1;
            }
            FileBody::ParseFailed(diagnostics) => {
                for d in *diagnostics {
                    eprint!("{}", crate::color::render(d, &p.display, p.text.get()));
                }
                totals.unparsed_files += 1;
            }
            FileBody::Program { functions, .. } => {
                for function in *functions {
                    if let Err((kind, diagnostics)) = &function.result {
                        report_failure(
                            *kind,
                            &p.display,
                            p.text.get(),
                            &function.name,
                            diagnostics,
                        );
                        totals.failed_functions += 1;
                    }
                }
            }
        }
    }
    totals
}

/// The planned program of one file, every function planned.
fn printed_program(
    workspace: &ShardedWorkspace,
    display: &str,
    header: &ProgramHeader,
    file: ShardFile,
    functions: &[FunctionOutcome],
) -> Result<String> {
    let needs_stored = functions
        .iter()
        .any(|f| f.result.as_ref().is_ok_and(|p| p.planned_text.is_none()));
    let stored = if needs_stored {
        workspace.planned_texts(file)
    } else {
        Vec::new()
    };
    planned_program(header, functions, &stored).map_err(|err| match err {
        UnprintedProgram::Unplanned(name) => anyhow::anyhow!("{display}::{name} has no plan"),
        UnprintedProgram::TextNotAtHand(_) => {
            anyhow::anyhow!("the cache lost the planned text of {display}; run with --no-cache")
        }
    })
}

/// Whether standard output takes bytes without waiting for a reader: a regular file or a
/// device other than a terminal (`> plan.json`, `/dev/null`).
fn stdout_never_waits() -> bool {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd as _;
        use std::os::unix::fs::FileTypeExt as _;
        let stdout = std::io::stdout();
        if stdout.is_terminal() {
            return false;
        }
        let Ok(fd) = stdout.as_fd().try_clone_to_owned() else {
            return false;
        };
        std::fs::File::from(fd).metadata().is_ok_and(|meta| {
            let kind = meta.file_type();
            kind.is_file() || kind.is_char_device()
        })
    }
    #[cfg(not(unix))]
    false
}

/// Where `--emit json` waits while this run holds the store: a slow reader of the output
/// must not keep the store, and a daemon from starting, and the document must not be whole
/// in memory. It lies in the state dir, whose lock keeps other runs from it.
struct Spool {
    file: std::fs::File,
    /// The file's path while it is still linked (where the OS cannot unlink an open file).
    linked: Option<PathBuf>,
}

impl Spool {
    fn create(state_dir: &Path) -> Result<Spool> {
        use anyhow::Context as _;
        let path = state_dir.join("plan-output.json.spool");
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        // Unlinked at once where the OS allows it (Unix): a crash leaves nothing behind.
        let linked = std::fs::remove_file(&path).is_err().then_some(path);
        Ok(Spool { file, linked })
    }

    fn copy_to_stdout(mut self) -> Result<()> {
        use std::io::Seek as _;
        self.file.seek(std::io::SeekFrom::Start(0))?;
        let copied = std::io::copy(&mut self.file, &mut std::io::stdout().lock());
        // A spool left behind is truncated by the next run of this state dir.
        if let Some(path) = &self.linked {
            let _ = std::fs::remove_file(path);
        }
        copied?;
        Ok(())
    }
}

/// Writes the plan document to `out`, each file's report detailed and printed in its turn
/// (ahead, on the planning threads) and dropped once written. A file whose every plan the
/// store served gets the entry an earlier run stored for its text, or stores the one printed
/// for the next run: a warm run copies its entries instead of printing them.
fn write_json(
    out: impl std::io::Write,
    workspace: &mut ShardedWorkspace,
    planned: &[PlannedFile],
    config: &PlanConfig,
    lifetimes: bool,
) -> Result<()> {
    let out = std::io::BufWriter::with_capacity(1 << 16, out);
    let cache = workspace.cache().clone();
    let mut programs: Vec<(ShardFile, &FileOutcome)> = Vec::new();
    let mut stored_under = Vec::new();
    for p in planned {
        if let FileBody::Program {
            file,
            outcome,
            functions,
            ..
        } = &p.body
        {
            programs.push((*file, *outcome));
            // The document shows the whole file (not one `FILE::FUNCTION`).
            let whole = match &*outcome.status {
                FileStatus::Planned { functions: all, .. } => all.len() == functions.len(),
                _ => false,
            };
            stored_under.push((cache.is_enabled() && whole).then(|| workspace.stored_under(*file)));
        }
    }
    let mut shown: Vec<ShownProgram> = Vec::new();
    let programs_planned = planned
        .iter()
        .filter(|p| matches!(p.body, FileBody::Program { .. }));
    for (p, stored) in programs_planned.zip(&stored_under) {
        if let FileBody::Program {
            first, functions, ..
        } = &p.body
        {
            let mut text = p.text.source;
            // A file a stamp vouched for is read again: it must still be the text planned.
            if let TextSource::InFile {
                planned: None,
                path,
            } = text
            {
                let planned = stored.as_ref().map(|(_, digest)| digest);
                text = TextSource::InFile { path, planned };
            }
            shown.push(ShownProgram {
                display: &p.display,
                text,
                functions: *first..*first + functions.len(),
                stored: stored.as_ref(),
            });
        }
    }
    let variant = memreuse::json::entry_variant(lifetimes);
    let served = |index: usize| {
        let (_, outcome) = programs[index];
        match &*outcome.status {
            FileStatus::Planned { functions, .. } => functions.iter().all(|f| !f.computed),
            _ => false,
        }
    };
    // Only entries read back take from the pool and give back to it: it holds no more
    // buffers than there are entries on their way.
    let pool = std::sync::Mutex::new(Vec::new());
    let printed = |bytes| Entry { bytes, pool: None };
    let copied = std::sync::atomic::AtomicUsize::new(0);
    let ready = |index: usize| {
        let program = &shown[index];
        let (config, digest) = program.stored?;
        if !served(index) {
            return None;
        }
        let head = match entry_head(program.display) {
            Ok(head) => head,
            Err(err) => return Some(Err(err)),
        };
        let bytes = pool.lock().ok()?.pop().unwrap_or_default();
        let mut entry = Entry {
            bytes,
            pool: Some(&pool),
        };
        entry.bytes.extend_from_slice(&head);
        if !cache.get_json_for(config, digest, &variant, &mut entry.bytes) {
            return None;
        }
        copied.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Some(Ok(entry))
    };
    let (backend, planner) = (config.backend.name(), config.planner.name());
    let print = |index: usize, outcome: FileOutcome, fresh: Vec<bool>| {
        let program = &shown[index];
        let store = program.stored.filter(|_| fresh.iter().all(|&fresh| !fresh));
        let body = JsonBody::Program {
            outcome,
            fresh,
            shown: program.functions.clone(),
        };
        let entry = file_entry(&JsonFile {
            display: program.display,
            text: &program.text.text(),
            body,
            lifetimes,
        })?;
        if let Some((config, digest)) = store {
            let head = entry_head(program.display)?;
            if let Some(rest) = entry.strip_prefix(head.as_slice()) {
                cache.put_json_for(config, digest, &variant, rest);
            }
        }
        Ok(printed(entry))
    };
    let detailed = |made: &mut dyn Iterator<Item = Result<Entry, serde_json::Error>>| {
        let mut failure = None;
        let entries = planned.iter().map_while(|p| {
            let entry = match &p.body {
                FileBody::Program { .. } => made.next()?,
                FileBody::Unreadable(err) => file_entry(&JsonFile {
                    display: &p.display,
                    text: "",
                    body: JsonBody::Unreadable(err),
                    lifetimes,
                })
                .map(printed),
                FileBody::ParseFailed(diagnostics) => file_entry(&JsonFile {
                    display: &p.display,
                    text: p.text.get(),
                    body: JsonBody::ParseFailed(diagnostics),
                    lifetimes,
                })
                .map(printed),
            };
            entry.map_err(|err| failure = Some(err)).ok()
        });
        let written = write_plan_document(out, backend, planner, entries);
        (written, failure)
    };
    let wanted = DetailWanted {
        outcomes: &programs,
        lifetimes,
        system: &OsSystem,
    };
    let (written, failure) = workspace.detailed_in_order(wanted, ready, print, detailed);
    let copied = copied.into_inner();
    tracing::info!(
        programs = programs.len(),
        copied,
        "entries copied from the store"
    );
    if let Some(err) = failure {
        bail!("cannot print the plan document: {err}");
    }
    let mut out = written?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

/// A file's entry of the document; one read back from the store gives its memory back to
/// `pool` once written, for the next one to be read into (fresh memory for each one cost a
/// warm run a fifth of its time, in page faults).
struct Entry<'p> {
    bytes: Vec<u8>,
    pool: Option<&'p std::sync::Mutex<Vec<Vec<u8>>>>,
}

impl AsRef<[u8]> for Entry<'_> {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Drop for Entry<'_> {
    fn drop(&mut self) {
        if let Some(Ok(mut pool)) = self.pool.map(|pool| pool.lock()) {
            let mut bytes = std::mem::take(&mut self.bytes);
            bytes.clear();
            pool.push(bytes);
        }
    }
}

/// What the document shows of one program file, for the threads that print it.
struct ShownProgram<'a> {
    display: &'a str,
    text: TextSource<'a>,
    /// The functions shown (one for `FILE::FUNCTION`).
    functions: std::ops::Range<usize>,
    /// The configuration and text digest its entry is stored under; `None` without the
    /// store, or for one function of the file.
    stored: Option<&'a (PlanConfig, [u8; 32])>,
}

/// One file as JSON sees it: every function, planned or failed, or why there are none.
struct JsonFile<'a> {
    display: &'a str,
    text: &'a str,
    body: JsonBody<'a>,
    lifetimes: bool,
}

enum JsonBody<'a> {
    Unreadable(&'a str),
    ParseFailed(&'a [Diagnostic]),
    /// A program's outcome with its reports' detail, which of its functions' plans this run
    /// computed (the rest the cache served), and which functions are shown.
    Program {
        outcome: FileOutcome,
        fresh: Vec<bool>,
        shown: std::ops::Range<usize>,
    },
}

impl serde::Serialize for JsonFile<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (error, functions) = match &self.body {
            JsonBody::Unreadable(err) => (Some(FileError::Unreadable(err)), Vec::new()),
            JsonBody::ParseFailed(diagnostics) => (Some(FileError::Parse(diagnostics)), Vec::new()),
            JsonBody::Program {
                outcome,
                fresh,
                shown,
            } => {
                let functions = match &*outcome.status {
                    FileStatus::Planned { functions, .. } => {
                        functions.get(shown.clone()).unwrap_or_default()
                    }
                    _ => &[],
                };
                let fresh = fresh.get(shown.clone()).unwrap_or_default();
                let mut entries =
                    function_entries(functions, |_| false).map_err(serde::ser::Error::custom)?;
                for (entry, &fresh) in entries.iter_mut().zip(fresh) {
                    if let FunctionEntry::Planned(function) = entry {
                        function.cached = !fresh;
                    }
                }
                (None, entries)
            }
        };
        let report = FileReport {
            path: self.display,
            text: self.text,
            functions,
            error,
        };
        match self.lifetimes {
            true => FileJson::new(&report).serialize(serializer),
            false => FileJson::new(&report)
                .without_lifetimes()
                .serialize(serializer),
        }
    }
}

/// One file's diagnostics for SARIF, each with its function.
fn file_findings<'a>(p: &'a PlannedFile) -> FileFindings<'a> {
    let mut findings = FileFindings {
        path: &p.display,
        text: "",
        unreadable: None,
        diagnostics: Vec::new(),
    };
    match &p.body {
        FileBody::Unreadable(err) => findings.unreadable = Some(err),
        FileBody::ParseFailed(diagnostics) => {
            findings.diagnostics = diagnostics.iter().map(|d| (None, d)).collect();
        }
        FileBody::Program { functions, .. } => {
            for function in *functions {
                let diagnostics = match &function.result {
                    Ok(planned) => &planned.report.summary().diagnostics,
                    Err((_, diagnostics)) => diagnostics,
                };
                let name = Some(function.name.as_str());
                findings
                    .diagnostics
                    .extend(diagnostics.iter().map(|d| (name, d)));
            }
        }
    }
    // Only located findings need the text; most files have none.
    if !findings.diagnostics.is_empty() {
        findings.text = p.text.get();
    }
    findings
}

/// The viewer page with every file embedded (see `viewer::page::static_page_of`).
fn html_page(
    planned: &[PlannedFile],
    config: &PlanConfig,
    aliases: Toggle,
    cache: &Arc<Cache>,
) -> String {
    use memreuse_viewer::page::{PageFile, static_page_of};
    let files: Vec<PageFile> = planned
        .iter()
        .map(|p| PageFile {
            display: &p.display,
            text: p.text.get(),
            unreadable: match &p.body {
                FileBody::Unreadable(err) => Some(err.as_str()),
                _ => None,
            },
            materialize_aliases: aliases.applies_to(Path::new(&p.display)),
            functions: p.functions().iter().map(|f| f.name.as_str()).collect(),
        })
        .collect();
    static_page_of(&OsSystem, &files, config, cache)
}

/// One SVG per function goes to stdout only when there is exactly one function.
fn svg_usage_error() -> UsageError {
    UsageError(
        "--emit svg over more than one function with tiles needs --out DIR (one \
         <file>.<function>.svg per function), or one named as FILE::FUNCTION"
            .into(),
    )
}

/// A bar on a terminal for runs long enough to want one; hidden otherwise.
fn progress_bar(files: usize) -> ProgressBar {
    const SHOWN_FROM: usize = 50;
    if files < SHOWN_FROM || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(files as u64);
    if let Ok(style) =
        ProgressStyle::with_template("planning {bar:40} {pos}/{len} files ({eta} left)")
    {
        bar.set_style(style);
    }
    bar
}

fn report_failure(
    kind: FailureKind,
    display: &str,
    text: &str,
    function: &str,
    diagnostics: &[memreuse::diagnostics::Diagnostic],
) {
    match kind {
        FailureKind::Plan => {
            for d in diagnostics {
                eprint!("{}", crate::color::render(d, display, text));
                eprintln!("  in function '{function}'");
            }
        }
        FailureKind::Verify => {
            eprintln!(
                "error: internal error: the plan for {display} still fails verification after \
                 repair (it would let one tile overwrite another that is still needed); nothing \
                 was emitted for function '{function}'"
            );
            const SHOWN: usize = 5;
            for d in diagnostics.iter().take(SHOWN) {
                eprint!("{}", crate::color::render(d, display, text));
                eprintln!("  in function '{function}'");
            }
            if diagnostics.len() > SHOWN {
                eprintln!("... and {} more violations", diagnostics.len() - SHOWN);
            }
        }
    }
}

/// What the summary shows: how much (`-q`, `-v`), and of which findings (`--only`).
#[derive(Clone, Copy)]
struct Shown<'a> {
    detail: Detail,
    only: &'a [Finding],
}

impl Shown<'_> {
    /// Whether a function's row is shown: with `--only`, when it has a finding of those
    /// kinds; with `-q`, when it has a problem (no plan, or any warning).
    fn function(&self, function: &FunctionOutcome) -> bool {
        let diagnostics = match &function.result {
            Err(_) => return self.only.is_empty() || self.only.contains(&Finding::Errors),
            Ok(planned) => &planned.report.summary().diagnostics,
        };
        match (self.only, self.detail) {
            ([], Detail::Problems) => diagnostics
                .iter()
                .any(|d| matches!(d.severity, Severity::Error | Severity::Warning)),
            ([], _) => true,
            _ => diagnostics.iter().any(|d| self.finding(d)),
        }
    }

    /// Whether a file's line is shown: one that failed as a whole is an error.
    fn file(&self, p: &PlannedFile) -> bool {
        match p.body {
            FileBody::Program { .. } => {
                (self.only.is_empty() && self.detail != Detail::Problems)
                    || p.functions().iter().any(|f| self.function(f))
            }
            _ => self.only.is_empty() || self.only.contains(&Finding::Errors),
        }
    }

    /// Whether a diagnostic is of `--only`'s kinds.
    fn finding(&self, d: &Diagnostic) -> bool {
        self.only.iter().any(|kind| match kind {
            Finding::Errors => d.severity == Severity::Error,
            Finding::Warnings => d.severity == Severity::Warning,
            Finding::Repairs => is_repair(d),
        })
    }

    /// Whether a shown function's diagnostic is listed under its rows.
    fn diagnostic(&self, d: &Diagnostic) -> bool {
        match self.only {
            [] => d.severity != Severity::Hint || self.detail == Detail::Members,
            _ => self.finding(d),
        }
    }
}

fn print_summary(
    out: &mut Vec<u8>,
    planned: &[PlannedFile],
    totals: &Totals,
    shown: Shown,
    planner: Planner,
) -> Result<()> {
    let detail = shown.detail;
    let width = summary::name_width(
        planned
            .iter()
            .flat_map(|p| p.functions().iter().map(|f| f.name.as_str())),
    );
    let file_shown = |p: &PlannedFile| shown.file(p);
    if planned.iter().any(file_shown) {
        out.write_all(summary::header(width).as_bytes())?;
    }
    let counts = Counts::of(planned);
    let mut rows = Rows {
        out,
        row: String::new(),
        width,
        shown,
    };
    for p in planned {
        if !file_shown(p) {
            continue;
        }
        rows.file(p)?;
    }
    let out = rows.out;
    if detail != Detail::Problems && shown.only.is_empty() {
        out.write_all(summary::legend().as_bytes())?;
    }
    if counts.bytes.0 > 0 {
        writeln!(
            out,
            "in all: {} -> {} of tile buffers",
            summary::human_bytes(counts.bytes.0.max(0) as u64),
            summary::human_bytes(counts.bytes.1.max(0) as u64)
        )?;
    }
    let footer = footer(totals, &counts, planner);
    out.write_all(summary::wrapped("", &footer, 2).as_bytes())?;
    out.flush()?;
    Ok(())
}

/// What the summary's last lines count: every function, shown or not (`-q` shows only
/// problems).
#[derive(Default)]
struct Counts {
    repairs: usize,
    input_hazards: usize,
    overlap_notes: usize,
    hints: usize,
    other_warnings: usize,
    /// Tile buffer bytes before and after.
    bytes: (i64, i64),
}

impl Counts {
    fn of(planned: &[PlannedFile]) -> Counts {
        let mut counts = Counts::default();
        for function in planned.iter().flat_map(|p| p.functions()) {
            let Ok(planned) = &function.result else {
                continue;
            };
            let report = planned.report.summary();
            for s in &report.spaces {
                counts.bytes.0 += s.bytes_before;
                counts.bytes.1 += s.bytes_after;
            }
            for d in &report.diagnostics {
                match d.severity {
                    _ if is_repair(d) => counts.repairs += 1,
                    _ if is_input_hazard(d) => counts.input_hazards += 1,
                    Severity::Note => counts.overlap_notes += 1,
                    Severity::Hint => counts.hints += 1,
                    Severity::Warning => counts.other_warnings += 1,
                    Severity::Error => {}
                }
            }
        }
        counts
    }
}

/// Where a file's diagnostics are, worked out when the first needs it: only diagnostics need
/// line numbers, and most files have none. A text read again goes with its file, not kept
/// to the end of the run.
struct Places<'a> {
    text: LazyText<'a>,
    lines: std::cell::OnceCell<LineIndex>,
}

impl<'a> Places<'a> {
    fn of(source: TextSource<'a>) -> Places<'a> {
        Places {
            text: LazyText::new(source),
            lines: std::cell::OnceCell::new(),
        }
    }

    fn line_col(&self, offset: u32) -> memreuse::ir::LineCol {
        let text = self.text.get();
        let lines = self.lines.get_or_init(|| LineIndex::new(text));
        lines.line_col(text, offset)
    }
}

/// The summary's rows: a line per file, and under it the rows of each function shown.
struct Rows<'o, 's> {
    out: &'o mut Vec<u8>,
    /// One row, reused.
    row: String,
    /// The function column's.
    width: usize,
    shown: Shown<'s>,
}

impl Rows<'_, '_> {
    fn file(&mut self, p: &PlannedFile) -> Result<()> {
        let out = &mut *self.out;
        match &p.body {
            FileBody::Unreadable(_) => writeln!(out, "{}  error: cannot be read", p.display)?,
            FileBody::ParseFailed(diagnostics) => writeln!(
                out,
                "{}  error: does not parse ({}, above)",
                p.display,
                plural(diagnostics.len(), "error")
            )?,
            FileBody::Program { .. } => writeln!(out, "{}", p.display)?,
        }
        let places = Places::of(p.text.source);
        for function in p.functions() {
            if self.shown.function(function) {
                self.function(function, &places)?;
            }
        }
        Ok(())
    }

    /// A function's rows (one per memory space, or its error), then its diagnostics.
    fn function(&mut self, function: &FunctionOutcome, places: &Places) -> Result<()> {
        let (out, row, width, shown) = (&mut *self.out, &mut self.row, self.width, self.shown);
        let members = shown.detail == Detail::Members;
        let planned = match &function.result {
            Ok(planned) => planned,
            Err((kind, diagnostics)) => {
                let what = match kind {
                    FailureKind::Plan => "the planner refused it",
                    FailureKind::Verify => "its plan failed verification",
                };
                row.clear();
                summary::name_cell(row, &function.name, width);
                writeln!(
                    out,
                    "{row} error: no plan, {what} ({}, above)",
                    plural(diagnostics.len(), "error"),
                )?;
                return Ok(());
            }
        };
        let report = planned.report.summary();
        for (i, s) in report.spaces.iter().enumerate() {
            let figures = summary::SpaceRow {
                space: s.space.name(),
                tiles: s.tiles as i64,
                buffers: (s.buffers_before as i64, s.buffers_after as i64),
                bytes: (s.bytes_before, s.bytes_after),
                lower_bound: s.lower_bound,
                footprint: s.footprint,
                capacity: s.capacity,
            };
            let name = summary::row_name(&function.name, width, i == 0);
            summary::row(row, name, width, &figures);
            out.write_all(row.as_bytes())?;
            if let Some(pypto) = s.pypto_footprint {
                let ratio = |x: i64| x as f64 / s.lower_bound.max(1) as f64;
                writeln!(
                    out,
                    "{:<width$}   footprint / lower bound: {:.3} (PyPTO's packing: {pypto} B, {:.3})",
                    "",
                    ratio(s.footprint),
                    ratio(pypto)
                )?;
            }
            if members {
                for buffer in &s.buffers {
                    let names: Vec<&str> = buffer.members.iter().map(|m| m.as_str()).collect();
                    let first = format!(
                        "{0}{0}{0}{1} ({2}):",
                        summary::INDENT,
                        buffer.base.as_str(),
                        summary::human_bytes(buffer.size.max(0) as u64),
                    );
                    let listed =
                        summary::wrapped(&first, &names.join(", "), 4 * summary::INDENT.len());
                    out.write_all(listed.as_bytes())?;
                }
            }
        }
        // Performance hints are many on real kernels: one line a function unless `-v`.
        let function_hints = report
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Hint)
            .count();
        for d in &report.diagnostics {
            if !shown.diagnostic(d) {
                continue;
            }
            let at = places.line_col(d.span.start);
            let shown = summary::diagnostic(
                at.line as usize,
                at.col as usize,
                d.severity.name(),
                d.code,
                &d.message,
            );
            out.write_all(shown.as_bytes())?;
        }
        if function_hints > 0 && !members && shown.only.is_empty() {
            writeln!(
                out,
                "{0}{0}{1} (PH-MR-…; `-v` lists them)",
                summary::INDENT,
                plural(function_hints, "performance hint"),
            )?;
        }
        Ok(())
    }
}

/// The summary's last line: what was planned, what the plans say, and the errors.
fn footer(totals: &Totals, counts: &Counts, planner: Planner) -> String {
    let mut footer = format!(
        "{}, {}",
        plural(totals.files, "file"),
        plural(totals.functions, "function")
    );
    if counts.repairs > 0 {
        footer.push_str(&format!(
            ", {} of {} (warnings MR-R…)",
            plural(counts.repairs, "repair"),
            match planner {
                Planner::Dsa => "the offset planner's plan",
                Planner::Pypto | Planner::None => "PyPTO's plan",
            }
        ));
    }
    let counted = [
        (
            counts.overlap_notes,
            "kept overlap",
            "(notes V008: lifetimes overlap, no value lost)",
        ),
        (
            counts.input_hazards,
            "input hazard",
            "no plan can remove (warnings MR-W004: fix the kernel)",
        ),
        (
            counts.other_warnings,
            "other warning",
            "(capacity, unallocated bases, --exact findings)",
        ),
        (counts.hints, "performance hint", "(PH-MR-…)"),
    ];
    for (count, noun, what) in counted {
        if count > 0 {
            footer.push_str(&format!(", {} {what}", plural(count, noun)));
        }
    }
    if totals.failed() {
        let errors: Vec<String> = [
            (
                totals.unreadable_files,
                "file cannot be read",
                "files cannot be read",
            ),
            (
                totals.unparsed_files,
                "file does not parse",
                "files do not parse",
            ),
            (
                totals.failed_functions,
                "function has no plan",
                "functions have no plan",
            ),
        ]
        .into_iter()
        .filter(|(count, _, _)| *count > 0)
        .map(|(count, one, many)| match count {
            1 => format!("1 {one}"),
            n => format!("{n} {many}"),
        })
        .collect();
        footer.push_str(&format!("; errors: {}", errors.join(", ")));
    }
    footer
}

#[cfg(test)]
mod tests {
    use super::read_checked;

    #[test]
    fn a_text_read_again_is_checked_against_the_text_planned() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("k.py");
        std::fs::write(&path, "planned").expect("written");
        let planned = *blake3::hash(b"planned").as_bytes();
        assert_eq!(
            read_checked(&path, Some(&planned)),
            ("planned".into(), None)
        );
        std::fs::write(&path, "edited").expect("written");
        let (text, warning) = read_checked(&path, Some(&planned));
        assert_eq!(text, "edited");
        assert!(warning.is_some_and(|w| w.contains("changed while it was planned")));
        // A stamp vouched for a file whose text was never held.
        assert_eq!(read_checked(&path, None), ("edited".into(), None));
        std::fs::remove_file(&path).expect("removed");
        let (text, warning) = read_checked(&path, None);
        assert!(text.is_empty() && warning.is_some_and(|w| w.contains("cannot read")));
    }
}
