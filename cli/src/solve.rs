//! `memreuse solve`: plan offline allocation problems read from CSV and compare the peak with
//! the lower bound.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use memreuse::solve::{self as dsa, Method, SolveOptions};
use serde_json::json;

#[derive(clap::Args)]
pub struct SolveArgs {
    /// Allocation-problem CSV files (`id,lower,upper,size`, lifetimes `[lower, upper)`).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Which planner to run.
    #[arg(long, value_enum, default_value_t = MethodArg::Dsa)]
    pub planner: MethodArg,
    /// Time limit per file for the DSA planner's search, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    pub deadline_ms: u64,
    /// Search node budget per file: with it (and a deadline that does not trigger first) the
    /// plan is reproducible on any machine.
    #[arg(long)]
    pub node_limit: Option<u64>,
    /// Print one JSON object per file and line, with the offsets.
    #[arg(long)]
    pub json: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum MethodArg {
    /// Greedy portfolio, then exact anytime search.
    Dsa,
    /// First-fit decreasing by size.
    Ffd,
    /// Best-fit, largest first.
    Bestfit,
}

impl From<MethodArg> for Method {
    fn from(arg: MethodArg) -> Method {
        match arg {
            MethodArg::Dsa => Method::Dsa,
            MethodArg::Ffd => Method::FirstFitDecreasing,
            MethodArg::Bestfit => Method::BestFit,
        }
    }
}

/// One solved file, for the table.
struct Row {
    file: String,
    buffers: usize,
    lower_bound: u64,
    peak: u64,
    elapsed: Duration,
}

pub fn run(args: SolveArgs) -> anyhow::Result<ExitCode> {
    let options = SolveOptions {
        method: args.planner.into(),
        time_limit: Some(Duration::from_millis(args.deadline_ms)),
        node_limit: args.node_limit,
    };
    for path in &args.files {
        if !path.is_file() {
            anyhow::bail!(crate::exit::UsageError(format!(
                "{} is not a file",
                path.display()
            )));
        }
    }
    let mut rows = Vec::new();
    let mut any_invalid = false;
    let stdout = std::io::stdout();
    for path in &args.files {
        match solve_file(path, &options) {
            Ok((row, offsets)) => {
                if args.json {
                    let line = json!({
                        "file": row.file,
                        "buffers": row.buffers,
                        "lower_bound": row.lower_bound,
                        "peak": row.peak,
                        "time_ms": (row.elapsed.as_secs_f64() * 1e6).round() / 1e3,
                        "offsets": offsets,
                    });
                    writeln!(stdout.lock(), "{line}")?;
                } else {
                    rows.push(row);
                }
            }
            Err(message) => {
                eprintln!("error: {message:#}");
                any_invalid = true;
            }
        }
    }
    if !args.json {
        print_table(&rows, &mut stdout.lock())?;
    }
    Ok(if any_invalid {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Reads, parses and solves one file; errors are located as `file:line: message`.
fn solve_file(
    path: &Path,
    options: &SolveOptions,
) -> anyhow::Result<(Row, serde_json::Map<String, serde_json::Value>)> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).with_context(|| format!("{file}: cannot read"))?;
    let parsed = dsa::parse_csv(&text)
        .map_err(|err| anyhow::anyhow!("{file}:{}: {}", err.line, err.kind))?;
    let started = Instant::now();
    let solution = dsa::solve(&parsed.problem, options).with_context(|| file.clone())?;
    let elapsed = started.elapsed();
    let offsets = parsed
        .ids
        .into_iter()
        .zip(&solution.offsets)
        .map(|(id, &offset)| (id, serde_json::Value::from(offset)))
        .collect();
    let row = Row {
        file,
        buffers: parsed.problem.buffers.len(),
        lower_bound: solution.lower_bound,
        peak: solution.peak,
        elapsed,
    };
    Ok((row, offsets))
}

fn print_table(rows: &[Row], out: &mut impl Write) -> std::io::Result<()> {
    let header = [
        "file",
        "buffers",
        "lower bound",
        "peak",
        "peak/bound",
        "time",
    ];
    let cells: Vec<[String; 6]> = rows
        .iter()
        .map(|row| {
            let ratio = if row.lower_bound == 0 {
                "-".to_string()
            } else {
                format!("{:.4}", row.peak as f64 / row.lower_bound as f64)
            };
            [
                row.file.clone(),
                row.buffers.to_string(),
                row.lower_bound.to_string(),
                row.peak.to_string(),
                ratio,
                format!("{:.1} ms", row.elapsed.as_secs_f64() * 1e3),
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for row in &cells {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.len());
        }
    }
    let header = header.map(String::from);
    for row in std::iter::once(&header).chain(&cells) {
        // The file name is left-aligned, the numbers right-aligned.
        let mut line = format!("{:<w$}", row[0], w = widths[0]);
        for (cell, width) in row.iter().zip(widths).skip(1) {
            line.push_str(&format!("  {cell:>width$}"));
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}
