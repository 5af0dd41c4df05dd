//! `memreuse query FILE[::FUNCTION]`: the plan of one file or function, from the daemon
//! (started when none runs) or, with `--no-daemon`, planned in-process.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Result, bail};
use memreuse::db::Workspace;
use memreuse::system::OsSystem;
use memreuse_daemon_client::answer::query_answer;
use memreuse_daemon_client::protocol::{Answer, Body, ErrorCode, Request};
use serde_json::Value;

use crate::args::Toggle;
use crate::exit::{Unavailable, UsageError};
use crate::state;
use crate::summary;
use crate::target::{Named, Target, resolve};

#[derive(clap::Args)]
pub struct QueryArgs {
    /// `FILE` or `FILE::FUNCTION`.
    pub target: String,
    /// Print the plan as JSON (the format `plan --emit json --lifetimes` writes: one file, so
    /// each function's `lifetimes` are kept).
    #[arg(long)]
    pub json: bool,
    /// Answer from what the daemon has seen so far, without waiting for it to see changes
    /// made just before.
    #[arg(long)]
    pub stale_ok: bool,
    /// Plan in this process instead of asking (or starting) the daemon.
    #[arg(long)]
    pub no_daemon: bool,
    /// The project root [default: the nearest directory up from here holding memreuse.toml
    /// or .git, else the current directory].
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
}

pub fn run(args: QueryArgs, state_dir: Option<&Path>) -> Result<ExitCode> {
    let target = Target::new(args.root.as_deref(), state_dir)?;
    let named = resolve(&args.target, &target.root)?;
    let answer = if args.no_daemon {
        in_process(&named, &target)?
    } else {
        let request = Request::Query {
            path: named.path.clone(),
            function: named.function.clone(),
            stale_ok: args.stale_ok,
            color: crate::color::enabled(),
        };
        let response = ask(&target, &request)?;
        tracing::debug!(instance = %response.instance, revision = response.revision, "answered");
        match response.body {
            Body::Query(answer) => answer,
            Body::Error(err) if err.code == ErrorCode::Refused => bail!(UsageError(err.message)),
            Body::Error(err) => bail!(Unavailable(err.message)),
            other => bail!(Unavailable(format!("unexpected answer {other:?}"))),
        }
    };
    print_answer(&answer, args.json)
}

/// Asks the daemon (starting one when none runs). A query only reads, so one the daemon
/// dropped because it was stopping is asked again of the daemon that replaces it.
fn ask(target: &Target, request: &Request) -> Result<memreuse_daemon_client::protocol::Response> {
    const ATTEMPTS: u32 = 4;
    let mut attempt = 1;
    loop {
        let mut connection = target.ensure()?;
        match connection.client.request(request) {
            Ok(response) => return Ok(response),
            Err(err) if err.daemon_went_away() && attempt < ATTEMPTS => {
                tracing::debug!(%err, attempt, "the daemon went away; asking again");
                std::thread::sleep(std::time::Duration::from_millis(100 * u64::from(attempt)));
                attempt += 1;
            }
            Err(err) => bail!(Unavailable(err.to_string())),
        }
    }
}

/// Plans the one file here, with the store when no daemon holds it.
fn in_process(named: &Named, target: &Target) -> Result<Answer> {
    let text = std::fs::read_to_string(&named.path)
        .map_err(|err| UsageError(format!("cannot read {}: {err}", named.path.display())))?;
    let opened = state::open_or_degrade(&target.paths().state_dir);
    let _lock = opened.held;
    let config = crate::settings::plan_config(&target.root, None, &[])?;
    let mut workspace = Workspace::new(Arc::new(opened.cache), config);
    let file = workspace.set_file(&named.path, &text, Toggle::Auto.applies_to(&named.path));
    let mut outcomes = workspace.plan(&OsSystem, &[file], 1, &|| {});
    let display = named
        .path
        .strip_prefix(&target.root)
        .unwrap_or(&named.path)
        .display()
        .to_string();
    let Some(outcome) = outcomes.first_mut() else {
        bail!("planning {} gave no result", named.path.display());
    };
    workspace.add_report_detail(outcome, None);
    let answer = query_answer(
        outcome,
        &display,
        named.function.as_deref(),
        (config.backend.name(), config.planner.name()),
        crate::color::enabled(),
    );
    if let Err(err) = workspace.flush() {
        eprintln!("warning: cannot write the cache: {err}");
    }
    state::InProcessCache::close(opened.server, opened.store);
    Ok(answer)
}

pub fn print_answer(answer: &Answer, json: bool) -> Result<ExitCode> {
    eprint!("{}", crate::color::paint_severities(&answer.diagnostics));
    let mut out = std::io::stdout().lock();
    out.write_all(answer.text.as_bytes())?;
    if let Some(document) = &answer.document {
        if json {
            serde_json::to_writer_pretty(&mut out, document)?;
            writeln!(out)?;
        } else {
            print_summary(&mut out, document)?;
        }
    }
    Ok(if answer.failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// One row per function and memory space under its file's line, as `memreuse plan` prints
/// them.
fn print_summary(out: &mut impl std::io::Write, document: &Value) -> Result<()> {
    let empty = Vec::new();
    let files = document["files"].as_array().unwrap_or(&empty);
    let width = summary::name_width(
        files
            .iter()
            .flat_map(|file| file["functions"].as_array().unwrap_or(&empty).iter())
            .map(|f| f["name"].as_str().unwrap_or("?")),
    );
    out.write_all(summary::header(width).as_bytes())?;
    let mut line = String::new();
    for file in files {
        let path = file["path"].as_str().unwrap_or("?");
        writeln!(out, "{path}")?;
        for function in file["functions"].as_array().unwrap_or(&empty) {
            let name = function["name"].as_str().unwrap_or("?");
            if function["status"] == "failed" {
                line.clear();
                summary::name_cell(&mut line, name, width);
                writeln!(
                    out,
                    "{line} error: no plan ({} failed)",
                    function["failure"].as_str().unwrap_or("?"),
                )?;
            }
            for (i, s) in function["spaces"]
                .as_array()
                .unwrap_or(&empty)
                .iter()
                .enumerate()
            {
                let figure = |key: &str| s[key].as_i64().unwrap_or(0);
                let figures = summary::SpaceRow {
                    space: s["space"].as_str().unwrap_or("?"),
                    tiles: figure("tiles"),
                    buffers: (
                        figure("buffers_before"),
                        s["buffers"].as_array().map_or(0, Vec::len) as i64,
                    ),
                    bytes: (figure("bytes_before"), figure("bytes_after")),
                    lower_bound: figure("lower_bound"),
                    footprint: figure("footprint"),
                    capacity: s["capacity"].as_i64(),
                };
                summary::row(
                    &mut line,
                    summary::row_name(name, width, i == 0),
                    width,
                    &figures,
                );
                out.write_all(line.as_bytes())?;
            }
            for d in function["diagnostics"].as_array().unwrap_or(&empty) {
                if function["status"] == "failed" {
                    continue;
                }
                let shown = summary::diagnostic(
                    d["line"].as_u64().unwrap_or(0) as usize,
                    d["col"].as_u64().unwrap_or(0) as usize,
                    d["severity"].as_str().unwrap_or("?"),
                    d["code"].as_str().unwrap_or("?"),
                    d["message"].as_str().unwrap_or(""),
                );
                out.write_all(shown.as_bytes())?;
            }
        }
    }
    Ok(())
}
