//! `memreuse plan`: plan (or just re-print) kernel files and report what was decided.

use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Result, bail};
use clap::ValueEnum;
use indicatif::{ProgressBar, ProgressStyle};
use memreuse::backend::Backend;
use memreuse::db::{self, FailureKind, FileStatus, FunctionOutcome, Workspace};
use memreuse::diagnostics::Severity;
use memreuse::ir::LineIndex;
use memreuse::json::{FileReport, FunctionReport, plan_document};
use memreuse::plan::PlanConfig;
use memreuse::repair::is_repair;
use memreuse::store::Cache;
use memreuse::svg::plan_svg;
use memreuse::system::OsSystem;

use crate::inputs::{discover, write_atomically};
use crate::state;
use crate::summary;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Planner {
    /// PyPTO's MemoryReuse decision, reproduced exactly.
    Pypto,
    /// Near-optimal offsets: every group keeps its allocation and gets an address (the IR is
    /// printed addressed); the summary compares with PyPTO's footprint.
    Dsa,
    /// No planning: parse and print back in canonical form.
    None,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Emit {
    /// One row per function and memory space.
    Summary,
    /// The rewritten program in PyPTO's printed form.
    Ir,
    /// The plan as JSON (schema 2).
    Json,
    /// One SVG picture per function: tiles over statement time and address, per memory space.
    Svg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    /// Capacity unknown; target-specific rules off.
    None,
    /// Ascend910B (A2/A3).
    #[value(name = "910b")]
    Ascend910B,
    /// Ascend950 (A5).
    #[value(name = "950")]
    Ascend950,
}

impl From<BackendArg> for Backend {
    fn from(arg: BackendArg) -> Backend {
        match arg {
            BackendArg::None => Backend::None,
            BackendArg::Ascend910B => Backend::Ascend910B,
            BackendArg::Ascend950 => Backend::Ascend950,
        }
    }
}

#[derive(clap::Args)]
pub struct PlanArgs {
    /// Kernel files or directories (walked recursively, honouring .gitignore). Files without
    /// a `@pl.program` are skipped.
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
    pub planner: Planner,
    #[arg(long, value_enum, default_value = "summary")]
    pub emit: Emit,
    /// With `--emit ir`: write one file per input under DIR, mirroring the input tree. With
    /// `--emit svg`: write `DIR/<file>.<function>.svg` per function.
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
    /// fails. Without it, unsafe decisions are repaired (warnings `MR-R001`–`MR-R005`).
    #[arg(long)]
    pub exact: bool,
    /// Plan everything afresh: neither read nor write the cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Plan on N threads [default: the number of cores].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(usize))]
    pub jobs: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Toggle {
    Auto,
    On,
    Off,
}

impl Toggle {
    pub fn applies_to(self, path: &std::path::Path) -> bool {
        match self {
            Toggle::On => true,
            Toggle::Off => false,
            Toggle::Auto => path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().contains("_after_InitMemRef")),
        }
    }
}

struct PlannedFile<'a> {
    display: String,
    /// Read lazily: a stamped file's text is only needed to locate diagnostics.
    text: LazyText<'a>,
    functions: Vec<(&'a FunctionOutcome, &'a db::Planned)>,
}

/// A file's text: loaded by the workspace, or read on first use (for output only).
struct LazyText<'a> {
    loaded: Option<&'a str>,
    path: &'a Path,
    read: std::cell::OnceCell<String>,
}

impl LazyText<'_> {
    fn get(&self) -> &str {
        match self.loaded {
            Some(text) => text,
            None => self
                .read
                .get_or_init(|| std::fs::read_to_string(self.path).unwrap_or_default()),
        }
    }
}

pub fn run(args: PlanArgs, state_dir: Option<&Path>) -> Result<ExitCode> {
    let started = Instant::now();
    let files = discover(&args.paths)?;
    tracing::info!(elapsed = ?started.elapsed(), files = files.len(), "found files");
    if args.emit == Emit::Ir && args.out.is_none() && files.len() > 1 {
        bail!("--emit ir over several files needs --out DIR");
    }
    if args.emit == Emit::Svg && args.out.is_none() && files.len() > 1 {
        return Ok(svg_usage_error());
    }
    let config = PlanConfig {
        assign_addresses: args.addresses,
        exact: args.exact,
        planner: match args.planner {
            Planner::Dsa => memreuse::plan::Planner::Dsa,
            Planner::Pypto | Planner::None => memreuse::plan::Planner::Pypto,
        },
        ..crate::settings::plan_config(args.backend, &args.capacity)?
    };
    let planner = match args.planner {
        Planner::Pypto | Planner::Dsa => db::Planner::Pypto,
        Planner::None => db::Planner::None,
    };
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let state = if args.no_cache {
        None
    } else {
        let dir = state::state_dir(state_dir)?;
        match state::open_store(&dir).map_err(|err| StoreUnavailable(format!("{err:#}")))? {
            Some(open) => Some((dir, open)),
            None => {
                eprintln!(
                    "warning: the cache in {} is in use by another memreuse process; planning \
                     without it",
                    dir.display()
                );
                None
            }
        }
    };
    let (cache, lock) = match state {
        Some((dir, open)) => (open.cache, Some((dir, open.lock))),
        None => (Cache::disabled(), None),
    };
    tracing::info!(elapsed = ?started.elapsed(), "opened the cache");
    let mut workspace = Workspace::new(Arc::new(cache), config, planner);
    let inputs: Vec<(PathBuf, bool)> = files
        .iter()
        .map(|f| (f.path.clone(), args.materialize_aliases.applies_to(&f.path)))
        .collect();
    let mut failed = false;
    let mut sources = Vec::with_capacity(inputs.len());
    let mut relative = Vec::with_capacity(inputs.len());
    // Only the summary can do without input texts (it locates diagnostics lazily).
    let trust_stamps = args.emit == Emit::Summary;
    let loaded = workspace.load(&OsSystem, &inputs, jobs, trust_stamps);
    for (loaded, file) in loaded.into_iter().zip(&files) {
        match loaded {
            Ok(source) => {
                sources.push(source);
                relative.push(&file.relative);
            }
            Err(err) => {
                eprintln!("error: cannot read {}: {err}", file.path.display());
                failed = true;
            }
        }
    }
    tracing::info!(elapsed = ?started.elapsed(), "read files");
    let bar = progress_bar(sources.len());
    let mut outcomes = workspace.plan(&OsSystem, &sources, jobs, &|| bar.inc(1));
    bar.finish_and_clear();
    if matches!(args.emit, Emit::Json | Emit::Svg) {
        for outcome in &mut outcomes {
            workspace.add_report_detail(outcome);
        }
    }
    tracing::info!(elapsed = ?started.elapsed(), "planned");

    let stdout = std::io::stdout();
    let mut planned = Vec::new();
    // (path under --out, document); written once the function count is known.
    let mut svgs: Vec<(PathBuf, String)> = Vec::new();
    for (outcome, relative) in outcomes.iter().zip(relative) {
        let display = outcome.path.display().to_string();
        let text = LazyText {
            loaded: outcome.text.as_deref(),
            path: &outcome.path,
            read: std::cell::OnceCell::new(),
        };
        let (header, functions) = match &outcome.status {
            FileStatus::NeedsText => continue,
            FileStatus::Unreadable(err) => {
                eprintln!("error: cannot read {display}: {err}");
                failed = true;
                continue;
            }
            FileStatus::NotAProgram => {
                tracing::debug!(file = %outcome.path.display(), "skipping: no @pl.program");
                continue;
            }
            FileStatus::ParseFailed(diagnostics) => {
                for d in diagnostics {
                    eprint!("{}", d.render(&display, text.get()));
                }
                failed = true;
                continue;
            }
            FileStatus::Planned { header, functions } => (header, functions),
        };
        let mut ok = Vec::with_capacity(functions.len());
        for function in functions {
            match &function.result {
                Ok(planned) => ok.push((function, planned)),
                Err((kind, diagnostics)) => {
                    report_failure(*kind, &display, text.get(), &function.name, diagnostics);
                    failed = true;
                }
            }
        }
        if ok.len() != functions.len() {
            continue;
        }
        if args.emit == Emit::Ir {
            let stored = if ok.iter().any(|(_, p)| p.planned_text.is_none()) {
                workspace.planned_texts(outcome.file)
            } else {
                Vec::new()
            };
            let mut texts = Vec::with_capacity(ok.len());
            for (i, (_, planned)) in ok.iter().enumerate() {
                let Some(function) = planned
                    .planned_text
                    .as_ref()
                    .or(stored.get(i).and_then(Option::as_ref))
                else {
                    bail!("the cache lost the planned text of {display}; run with --no-cache");
                };
                texts.push(&**function);
            }
            let printed = header.assemble(texts);
            match &args.out {
                Some(dir) => write_atomically(&dir.join(relative), &printed)?,
                None => stdout.lock().write_all(printed.as_bytes())?,
            }
            // The repairs (and, with --exact, the checker's findings) go with the program.
            let warnings = ok.iter().flat_map(|(_, p)| &p.report.diagnostics);
            let mut lines = None;
            for d in warnings.filter(|d| d.severity == Severity::Warning) {
                let lines = lines.get_or_insert_with(|| LineIndex::new(text.get()));
                eprintln!("{}", d.one_line(&display, text.get(), lines));
            }
        }
        if args.emit == Emit::Svg {
            for (function, p) in &ok {
                debug_assert!(p.detailed, "an SVG needs the complete report");
                let mut name = relative.clone().into_os_string();
                name.push(format!(".{}.svg", function.name));
                svgs.push((PathBuf::from(name), plan_svg(&function.name, &p.report)));
            }
        }
        planned.push(PlannedFile {
            display,
            text,
            functions: ok,
        });
    }
    match args.emit {
        Emit::Ir => {}
        Emit::Svg => match (&args.out, svgs.as_slice()) {
            (Some(dir), _) => {
                for (relative, svg) in &svgs {
                    write_atomically(&dir.join(relative), svg)?;
                }
            }
            (None, [(_, svg)]) => stdout.lock().write_all(svg.as_bytes())?,
            (None, []) => {}
            (None, _) => return Ok(svg_usage_error()),
        },
        Emit::Summary => print_summary(&planned)?,
        Emit::Json => {
            let reports: Vec<FileReport> = planned
                .iter()
                .map(|p| FileReport {
                    path: &p.display,
                    text: p.text.get(),
                    functions: p
                        .functions
                        .iter()
                        .map(|(f, planned)| {
                            debug_assert!(planned.detailed, "JSON needs complete reports");
                            FunctionReport {
                                name: &f.name,
                                digest: planned.planned_digest,
                                report: &planned.report,
                                cached: !workspace.is_fresh(f),
                            }
                        })
                        .collect(),
                })
                .collect();
            let planner = match args.planner {
                Planner::Pypto => "pypto",
                Planner::Dsa => "dsa",
                Planner::None => "none",
            };
            let document = plan_document(config.backend.name(), planner, &reports);
            let mut out = std::io::BufWriter::new(stdout.lock());
            serde_json::to_writer_pretty(&mut out, &document)?;
            writeln!(out)?;
            out.flush()?;
        }
    }
    tracing::info!(elapsed = ?started.elapsed(), "printed");
    let functions: Vec<&FunctionOutcome> = outcomes
        .iter()
        .flat_map(|o| match &o.status {
            FileStatus::Planned { functions, .. } => functions.iter().collect(),
            _ => Vec::new(),
        })
        .collect();
    let fresh = functions.iter().filter(|f| workspace.is_fresh(f)).count();
    workspace.record_stamps(&outcomes);
    // Results are durable before success is reported.
    let written = workspace
        .flush()
        .map_err(|err| StoreUnavailable(format!("cannot write the cache: {err}")))?;
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
        last.save(dir)?;
    }
    // Everything is printed and durable. Freeing the memo tables one node at a time takes
    // longer than the OS takes to reclaim them (0.7 s after a 20,000-function run), and the
    // store's flusher thread would make its drop wait for its next tick.
    std::mem::forget(workspace);
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// One SVG per function goes to stdout only when there is exactly one function.
fn svg_usage_error() -> ExitCode {
    eprintln!(
        "error: --emit svg over more than one function needs --out DIR (one \
         <file>.<function>.svg per function)"
    );
    ExitCode::from(2)
}

/// The cache could not be opened or written (exit code 3).
#[derive(Debug)]
pub struct StoreUnavailable(pub String);

impl std::fmt::Display for StoreUnavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StoreUnavailable {}

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
                eprint!("{}", d.render(display, text));
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
                eprint!("{}", d.render(display, text));
                eprintln!("  in function '{function}'");
            }
            if diagnostics.len() > SHOWN {
                eprintln!("... and {} more violations", diagnostics.len() - SHOWN);
            }
        }
    }
}

fn print_summary(planned: &[PlannedFile]) -> Result<()> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let width = planned
        .iter()
        .flat_map(|p| {
            p.functions
                .iter()
                .map(move |(f, _)| p.display.len() + 2 + f.name.len())
        })
        .max()
        .unwrap_or(0)
        .max("FUNCTION".len());
    out.write_all(summary::header(width).as_bytes())?;
    let mut functions = 0;
    let mut repairs = 0;
    let mut row = String::new();
    for p in planned {
        // Only diagnostics need line numbers; most files have none.
        let lines = std::cell::OnceCell::new();
        for (function, planned) in &p.functions {
            let report = &planned.report;
            functions += 1;
            let name = format!("{}::{}", p.display, function.name);
            for s in &report.spaces {
                let figures = summary::SpaceRow {
                    space: s.space.name(),
                    tiles: s.tiles as i64,
                    buffers: (s.buffers_before as i64, s.buffers_after as i64),
                    bytes: (s.bytes_before, s.bytes_after),
                    lower_bound: s.lower_bound,
                    footprint: s.footprint,
                    capacity: s.capacity,
                };
                summary::row(&mut row, &name, width, &figures);
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
            }
            repairs += report.diagnostics.iter().filter(|d| is_repair(d)).count();
            for d in &report.diagnostics {
                let lines = lines.get_or_init(|| LineIndex::new(p.text.get()));
                writeln!(out, "  {}", d.one_line(&p.display, p.text.get(), lines))?;
            }
        }
    }
    match repairs {
        0 => writeln!(out, "{} files, {} functions", planned.len(), functions)?,
        n => writeln!(
            out,
            "{} files, {} functions, {n} repairs of PyPTO's plan (warnings MR-R…)",
            planned.len(),
            functions
        )?,
    }
    out.flush()?;
    Ok(())
}
