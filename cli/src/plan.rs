//! `memreuse plan`: plan (or just re-print) kernel files and report what was decided.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::ValueEnum;
use memreuse::backend::Backend;
use memreuse::ir::{self, LineIndex, Program};
use memreuse::json::{FileReport, plan_document};
use memreuse::plan::{PlanConfig, PlanReport, plan_program};
use memreuse::svg::plan_svg;
use memreuse::verify::{VerifyOptions, verify_program};

use crate::inputs::{discover, write_atomically};

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
    /// The plan as JSON (schema 1).
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

struct Planned {
    display: String,
    text: String,
    program: Program,
    reports: Vec<PlanReport>,
}

pub fn run(args: PlanArgs) -> Result<ExitCode> {
    let files = discover(&args.paths)?;
    if args.emit == Emit::Ir && args.out.is_none() && files.len() > 1 {
        bail!("--emit ir over several files needs --out DIR");
    }
    if args.emit == Emit::Svg && args.out.is_none() && files.len() > 1 {
        return Ok(svg_usage_error());
    }
    let base_config = crate::settings::plan_config(args.backend, &args.capacity)?;
    let backend = base_config.backend;
    let mut failed = false;
    let mut planned = Vec::new();
    // (path under --out, document); written once the function count is known.
    let mut svgs: Vec<(PathBuf, String)> = Vec::new();
    let stdout = std::io::stdout();
    for file in &files {
        let display = file.path.display().to_string();
        let text = match std::fs::read_to_string(&file.path) {
            Ok(text) => text,
            Err(err) => {
                eprintln!("error: cannot read {display}: {err}");
                failed = true;
                continue;
            }
        };
        if !ir::has_program(&text) {
            tracing::debug!(file = %file.path.display(), "skipping: no @pl.program");
            continue;
        }
        let program = match ir::parse_program(&text) {
            Ok(program) => program,
            Err(err) => {
                for d in &err.diagnostics {
                    eprint!("{}", d.render(&display, &text));
                }
                failed = true;
                continue;
            }
        };
        let config = PlanConfig {
            materialize_aliases: args.materialize_aliases.applies_to(&file.path),
            assign_addresses: args.addresses,
            planner: match args.planner {
                Planner::Dsa => memreuse::plan::Planner::Dsa,
                Planner::Pypto | Planner::None => memreuse::plan::Planner::Pypto,
            },
            ..base_config
        };
        let (output, reports) = if args.planner == Planner::None {
            let reports = vec![PlanReport::default(); program.functions.len()];
            (program, reports)
        } else {
            match plan_program(&program, &config) {
                Ok(result) if !verified(&result.0, &config, &display, &text) => {
                    failed = true;
                    continue;
                }
                Ok(result) => result,
                Err((index, err)) => {
                    let function = &program.functions[index].name;
                    eprint!("{}", err.0.render(&display, &text));
                    eprintln!("  in function '{function}'");
                    failed = true;
                    continue;
                }
            }
        };
        if args.emit == Emit::Ir {
            let printed = ir::print_program(&output);
            match &args.out {
                Some(dir) => write_atomically(&dir.join(&file.relative), &printed)?,
                None => stdout.lock().write_all(printed.as_bytes())?,
            }
        }
        if args.emit == Emit::Svg {
            for (function, report) in output.functions.iter().zip(&reports) {
                let mut name = file.relative.clone().into_os_string();
                name.push(format!(".{}.svg", function.name));
                svgs.push((PathBuf::from(name), plan_svg(&function.name, report)));
            }
        }
        planned.push(Planned {
            display,
            text,
            program: output,
            reports,
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
                    text: &p.text,
                    program: &p.program,
                    reports: &p.reports,
                    cached: &[],
                })
                .collect();
            let planner = match args.planner {
                Planner::Pypto => "pypto",
                Planner::Dsa => "dsa",
                Planner::None => "none",
            };
            let document = plan_document(backend.name(), planner, &reports);
            let mut out = stdout.lock();
            serde_json::to_writer_pretty(&mut out, &document)?;
            writeln!(out)?;
        }
    }
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

/// The planned program passes the independent verifier; otherwise says why, located in the
/// input (the plan is not emitted).
fn verified(planned: &Program, config: &PlanConfig, display: &str, text: &str) -> bool {
    let options = VerifyOptions {
        backend: config.backend,
        addressed: config.assign_addresses || config.planner == memreuse::plan::Planner::Dsa,
        every_function_addressed: config.planner == memreuse::plan::Planner::Dsa,
    };
    let violations = verify_program(planned, &options);
    if violations.is_empty() {
        return true;
    }
    eprintln!(
        "error: the plan for {display} fails verification (it would let one tile overwrite \
         another that is still needed); nothing was emitted"
    );
    const SHOWN: usize = 5;
    for (index, d) in violations.iter().take(SHOWN) {
        eprint!("{}", d.render(display, text));
        eprintln!("  in function '{}'", planned.functions[*index].name);
    }
    if violations.len() > SHOWN {
        eprintln!("... and {} more violations", violations.len() - SHOWN);
    }
    false
}

fn print_summary(planned: &[Planned]) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let width = planned
        .iter()
        .flat_map(|p| {
            p.program
                .functions
                .iter()
                .map(move |f| p.display.len() + 2 + f.name.len())
        })
        .max()
        .unwrap_or(0)
        .max("FUNCTION".len());
    writeln!(
        out,
        "{:<width$} {:<6} {:>6} {:>15} {:>21} {:>11} {:>11} {:>9}",
        "FUNCTION", "SPACE", "TILES", "BUFFERS", "BYTES", "LOWER BOUND", "FOOTPRINT", "CAPACITY"
    )?;
    let mut functions = 0;
    for p in planned {
        let lines = LineIndex::new(&p.text);
        for (function, report) in p.program.functions.iter().zip(&p.reports) {
            functions += 1;
            let name = format!("{}::{}", p.display, function.name);
            for s in &report.spaces {
                let capacity = if s.capacity == 0 {
                    "unknown".to_string()
                } else {
                    s.capacity.to_string()
                };
                writeln!(
                    out,
                    "{:<width$} {:<6} {:>6} {:>15} {:>21} {:>11} {:>11} {:>9}",
                    name,
                    s.space.name(),
                    s.tiles,
                    format!("{} -> {}", s.buffers_before, s.buffers_after),
                    format!("{} -> {}", s.bytes_before, s.bytes_after),
                    s.lower_bound,
                    s.footprint,
                    capacity
                )?;
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
            for d in &report.diagnostics {
                writeln!(out, "  {}", d.one_line(&p.display, &p.text, &lines))?;
            }
        }
    }
    writeln!(out, "{} files, {} functions", planned.len(), functions)?;
    Ok(())
}
