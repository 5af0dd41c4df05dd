//! `memreuse daemon start|stop|status|run`, and finding (or starting) the daemon for the
//! other commands.

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use memreuse_daemon_client::client::{self, Connection};
use memreuse_daemon_client::protocol::{Body, Request, Status};

use crate::exit::Unavailable;
use crate::summary::human_bytes;
use crate::target::{Target, WAIT};

#[derive(clap::Args)]
pub struct DaemonArgs {
    #[command(subcommand)]
    pub action: Action,
    /// The project root the daemon watches [default: the nearest directory up from here
    /// holding memreuse.toml or .git, else the current directory].
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Option<PathBuf>,
}

#[derive(clap::Subcommand)]
pub enum Action {
    /// Start the daemon in the background (a progress bar shows the initial scan on a
    /// terminal).
    Start {
        /// Stop after this many seconds without a request (0: never).
        #[arg(long, value_name = "SECONDS")]
        idle_timeout: Option<u64>,
    },
    /// Stop the daemon: it finishes the requests in progress, writes and flushes its results.
    Stop,
    /// Uptime, revision, files, functions, watches, rescans, cache figures, last error.
    Status {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run the daemon in the foreground, logging to standard error.
    Run {
        /// Stop after this many seconds without a request (0: never).
        #[arg(long, value_name = "SECONDS", default_value_t = 0)]
        idle_timeout: u64,
    },
}

pub fn run(args: DaemonArgs, state_dir: Option<&Path>) -> Result<ExitCode> {
    let mut target = Target::new(args.root.as_deref(), state_dir)?;
    match args.action {
        Action::Start { idle_timeout } => {
            if let Some(seconds) = idle_timeout {
                target.launch.args.push("--idle-timeout".into());
                target.launch.args.push(seconds.to_string().into());
            }
            let mut connection = target.ensure()?;
            let hello = connection.hello.clone();
            if std::io::stderr().is_terminal() {
                show_scan(&mut connection)?;
            }
            outln!(
                "memreused is running (pid {}) for {}",
                hello.pid,
                hello.root.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Action::Stop => {
            match client::stop(target.paths(), WAIT).map_err(|e| Unavailable(e.to_string()))? {
                Some(pid) => outln!("stopped memreused (pid {pid})"),
                None => outln!("no daemon runs for {}", target.root.display()),
            }
            Ok(ExitCode::SUCCESS)
        }
        Action::Status { json } => {
            let Some(mut connection) = client::connect(target.paths()) else {
                eprintln!(
                    "no daemon runs for {} (state dir {})",
                    target.root.display(),
                    target.paths().state_dir.display()
                );
                return Ok(ExitCode::from(3));
            };
            let (status, revision) = status(&mut connection)?;
            if json {
                let mut document = serde_json::to_value(&status)?;
                document["revision"] = revision.into();
                outln!("{}", serde_json::to_string_pretty(&document)?);
            } else {
                print_status(&status, revision)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Action::Run { idle_timeout } => {
            use std::os::unix::process::CommandExt as _;
            let err = std::process::Command::new(&target.launch.exe)
                .arg("--root")
                .arg(&target.root)
                .arg("--state-dir")
                .arg(&target.paths().state_dir)
                .args(&target.launch.args)
                .arg("--idle-timeout")
                .arg(idle_timeout.to_string())
                .arg("--log-stderr")
                .exec();
            Err(Unavailable(format!("cannot run {}: {err}", target.launch.exe.display())).into())
        }
    }
}

/// The daemon's status and the revision it answered at.
pub fn status(connection: &mut Connection) -> Result<(Status, u64)> {
    let response = connection
        .client
        .request(&Request::Status)
        .map_err(|e| Unavailable(e.to_string()))?;
    match response.body {
        Body::Status(status) => Ok((*status, response.revision)),
        Body::Error(err) => bail!(Unavailable(err.message)),
        other => bail!(Unavailable(format!("unexpected answer {other:?}"))),
    }
}

/// A progress bar of the initial scan, until it is over.
fn show_scan(connection: &mut Connection) -> Result<()> {
    let bar = ProgressBar::new(0);
    if let Ok(style) = ProgressStyle::with_template("scanning {bar:40} {pos}/{len} files ({eta})") {
        bar.set_style(style);
    }
    loop {
        let (status, _) = status(connection)?;
        bar.set_length(status.scan.total as u64);
        bar.set_position(status.scan.done as u64);
        if status.scan.finished {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    bar.finish_and_clear();
    Ok(())
}

fn print_status(s: &Status, revision: u64) -> Result<()> {
    outln!("pid:          {}", s.pid);
    outln!("root:         {}", s.root.display());
    outln!("state dir:    {}", s.state_dir.display());
    outln!("build:        {}", s.build_id);
    outln!("backend:      {} (planner {})", s.backend, s.planner);
    let settings = &s.settings;
    let capacities: Vec<String> = settings
        .capacities
        .iter()
        .map(|c| format!("{} {}", c.space, human_bytes(c.bytes.max(0) as u64)))
        .collect();
    outln!(
        "settings:     {}, read {:.1} s ago",
        settings.file.as_ref().map_or_else(
            || "defaults (no memreuse.toml)".to_string(),
            |file| file.display().to_string()
        ),
        settings.loaded_seconds_ago
    );
    outln!(
        "capacities:   {}",
        if capacities.is_empty() {
            "unknown (no backend)".to_string()
        } else {
            capacities.join(", ")
        }
    );
    outln!("file limit:   {}", human_bytes(settings.max_file_bytes));
    if let Some(error) = &settings.error {
        outln!("  not taken:  {error}");
    }
    outln!("uptime:       {:.1} s", s.uptime_seconds);
    outln!("revision:     {revision}");
    if s.scan.finished {
        outln!("scan:         done ({} files)", s.scan.total);
    } else {
        outln!("scan:         {}/{} files", s.scan.done, s.scan.total);
    }
    outln!("files:        {}", s.files);
    outln!("functions:    {}", s.functions);
    match s.watch_limit {
        Some(limit) => outln!(
            "watches:      {} directories ({}) of {limit} allowed",
            s.watches,
            s.watch_backend
        ),
        None => outln!(
            "watches:      {} directories ({})",
            s.watches,
            s.watch_backend
        ),
    }
    outln!("rescans:      {}", s.rescans.len());
    for rescan in s.rescans.iter().rev().take(5) {
        outln!("  at {:.1} s: {}", rescan.at_seconds, rescan.reason);
    }
    let c = &s.cache;
    outln!(
        "cache:        plans {} hits, {} misses; files {} hits, {} misses; {} rejected, {} errors",
        c.plan_hits,
        c.plan_misses,
        c.file_hits,
        c.file_misses,
        c.rejected,
        c.errors
    );
    outln!(
        "store:        {} entries, {} on disk",
        s.store_entries,
        human_bytes(s.store_bytes)
    );
    if let Some(rss) = s.rss_bytes {
        let per_function = rss.checked_div(s.functions as u64).unwrap_or(0);
        outln!(
            "memory:       {} resident ({} per function)",
            human_bytes(rss),
            human_bytes(per_function)
        );
    }
    outln!(
        "viewer:       {}",
        s.viewer_url
            .as_deref()
            .unwrap_or("not started (`memreuse view` starts it)")
    );
    outln!(
        "last error:   {}",
        s.last_error.as_deref().unwrap_or("none")
    );
    Ok(())
}

/// `memreuse stats` from a running daemon; `None` when none runs (the caller opens the
/// store itself then).
pub fn stats(json: bool, state_dir: Option<&Path>) -> Result<Option<ExitCode>> {
    let target = Target::new(None, state_dir)?;
    let Some(mut connection) = target.running() else {
        return Ok(None);
    };
    let (s, revision) = status(&mut connection)?;
    if json {
        let document = serde_json::json!({
            "state_dir": s.state_dir.display().to_string(),
            "entries": s.store_entries,
            "bytes_on_disk": s.store_bytes,
            "daemon": { "pid": s.pid, "revision": revision, "files": s.files,
                        "functions": s.functions, "cache": s.cache },
        });
        outln!("{}", serde_json::to_string_pretty(&document)?);
        return Ok(Some(ExitCode::SUCCESS));
    }
    let c = &s.cache;
    outln!("state dir:     {}", s.state_dir.display());
    outln!("entries:       {}", s.store_entries);
    outln!("on disk:       {}", human_bytes(s.store_bytes));
    outln!(
        "daemon:        pid {}, revision {revision}, {} files, {} functions",
        s.pid,
        s.files,
        s.functions
    );
    outln!(
        "  plans:       {} hits, {} misses; files {} hits, {} misses; {} rejected",
        c.plan_hits,
        c.plan_misses,
        c.file_hits,
        c.file_misses,
        c.rejected
    );
    Ok(Some(ExitCode::SUCCESS))
}

/// `memreuse explain` through a running daemon of this build, which answers from the text it
/// watches; `None` when none runs or the file is outside its root.
pub fn explain(
    args: &crate::explain::ExplainArgs,
    state_dir: Option<&Path>,
) -> Result<Option<ExitCode>> {
    // The daemon plans with memreuse.toml's settings; other flags are answered in-process.
    if args.backend.is_some()
        || args.rules.is_some()
        || args.materialize_aliases != crate::args::Toggle::Auto
    {
        return Ok(None);
    }
    let target = Target::new(None, state_dir)?;
    let Some(mut connection) = target.running() else {
        return Ok(None);
    };
    let Ok(named) = crate::target::resolve(&args.target, &target.root) else {
        return Ok(None);
    };
    let Some(function) = named.function else {
        return Ok(None);
    };
    let request = Request::Explain {
        path: named.path,
        function,
        first: args.first.clone(),
        second: args.second.clone(),
        stale_ok: false,
        color: crate::color::enabled(),
    };
    let response = connection
        .client
        .request(&request)
        .map_err(|e| Unavailable(e.to_string()))?;
    match response.body {
        // A failure is answered in-process, so that it exits as the table says.
        Body::Explain(answer) if answer.failed => Ok(None),
        Body::Explain(answer) => {
            let (file, function) = crate::explain::split_target(&args.target)?;
            crate::explain::print_explanation(args, file, function, &answer.text)?;
            Ok(Some(ExitCode::SUCCESS))
        }
        // Not a file the daemon tracks: read it here.
        Body::Error(_) => Ok(None),
        other => bail!(Unavailable(format!("unexpected answer {other:?}"))),
    }
}
