//! `memreuse daemon start|stop|status|run`, and finding (or starting) the daemon for the
//! other commands.

use std::ffi::OsString;
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use memreuse_daemon::client::{self, Connection, Launch};
use memreuse_daemon::layout::{Layout, build_id};
use memreuse_daemon::protocol::{Body, Request, Status};

use crate::state;

#[derive(clap::Args)]
pub struct DaemonArgs {
    #[command(subcommand)]
    pub action: Action,
    /// The workspace root the daemon watches [default: the current directory].
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

/// The daemon this command talks to: its root, state dir and how to start it.
pub struct Target {
    pub root: PathBuf,
    pub launch: Launch,
}

/// How long to wait for a daemon to answer after starting it, or to stop.
const WAIT: Duration = Duration::from_secs(60);

impl Target {
    pub fn new(root: Option<&Path>, state_dir: Option<&Path>) -> Result<Target> {
        let root = match root {
            Some(root) => root.to_path_buf(),
            None => std::env::current_dir().context("cannot read the current directory")?,
        };
        let root = root
            .canonicalize()
            .with_context(|| format!("cannot open the root {}", root.display()))?;
        let state_dir = state::state_dir_for(state_dir, &root)?;
        memreuse_daemon::layout::prepare_private_dir(&state_dir)
            .map_err(|err| DaemonUnavailable(err.to_string()))?;
        let state_dir = state_dir.canonicalize()?;
        let launch = Launch {
            exe: daemon_exe()?,
            root: root.clone(),
            layout: Layout::new(&state_dir),
            args: settings_args()?,
            wait: WAIT,
        };
        Ok(Target { root, launch })
    }

    pub fn layout(&self) -> &Layout {
        &self.launch.layout
    }

    /// The running daemon, started if none runs; replaced if it is another build.
    pub fn ensure(&self) -> Result<Connection> {
        let expected = build_id(&self.launch.exe)
            .with_context(|| format!("cannot read {}", self.launch.exe.display()))?;
        client::ensure(&self.launch, &expected)
            .map_err(|err| DaemonUnavailable(err.to_string()).into())
    }

    /// The running daemon, if one answers and is this build (none is started).
    pub fn running(&self) -> Option<Connection> {
        let connection = client::connect(self.layout())?;
        let expected = build_id(&self.launch.exe).ok()?;
        (connection.hello.build_id == expected && connection.hello.root == self.root)
            .then_some(connection)
    }
}

/// The daemon could not be reached or started (exit code 3).
#[derive(Debug)]
pub struct DaemonUnavailable(pub String);

impl std::fmt::Display for DaemonUnavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DaemonUnavailable {}

/// `memreused`: `$MEMREUSED` when set, else the file beside this executable.
fn daemon_exe() -> Result<PathBuf> {
    if let Some(path) = std::env::var_os("MEMREUSED").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(path));
    }
    let me = std::env::current_exe().context("cannot find my own executable")?;
    let exe = me.with_file_name("memreused");
    if !exe.is_file() {
        bail!(DaemonUnavailable(format!(
            "memreused is not installed beside {} (or set MEMREUSED)",
            me.display()
        )));
    }
    Ok(exe)
}

/// The daemon plans with `memreuse.toml`'s settings, as `memreuse plan` would by default.
fn settings_args() -> Result<Vec<OsString>> {
    let config = crate::settings::plan_config(None, &[])?;
    let mut args: Vec<OsString> = vec!["--backend".into(), config.backend.name().into()];
    for space in memreuse::ir::MemSpace::ALL {
        if let Some(bytes) = config.capacity_overrides[*space as usize] {
            args.push("--capacity".into());
            args.push(format!("{}={bytes}", space.name()).into());
        }
    }
    if let Some(bytes) = crate::settings::max_file_bytes()? {
        args.push("--max-file-bytes".into());
        args.push(bytes.to_string().into());
    }
    Ok(args)
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
            println!(
                "memreused is running (pid {}) for {}",
                hello.pid,
                hello.root.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Action::Stop => {
            match client::stop(target.layout(), WAIT)
                .map_err(|e| DaemonUnavailable(e.to_string()))?
            {
                Some(pid) => println!("stopped memreused (pid {pid})"),
                None => println!("no daemon runs for {}", target.root.display()),
            }
            Ok(ExitCode::SUCCESS)
        }
        Action::Status { json } => {
            let Some(mut connection) = client::connect(target.layout()) else {
                eprintln!(
                    "no daemon runs for {} (state dir {})",
                    target.root.display(),
                    target.layout().state_dir.display()
                );
                return Ok(ExitCode::from(3));
            };
            let (status, revision) = status(&mut connection)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&status)?);
            } else {
                print_status(&status, revision);
            }
            Ok(ExitCode::SUCCESS)
        }
        Action::Run { idle_timeout } => {
            use std::os::unix::process::CommandExt as _;
            let err = std::process::Command::new(&target.launch.exe)
                .arg("--root")
                .arg(&target.root)
                .arg("--state-dir")
                .arg(&target.layout().state_dir)
                .args(&target.launch.args)
                .arg("--idle-timeout")
                .arg(idle_timeout.to_string())
                .arg("--log-stderr")
                .exec();
            Err(
                DaemonUnavailable(format!("cannot run {}: {err}", target.launch.exe.display()))
                    .into(),
            )
        }
    }
}

/// The daemon's status and the revision it answered at.
pub fn status(connection: &mut Connection) -> Result<(Status, u64)> {
    let response = connection
        .client
        .request(&Request::Status)
        .map_err(|e| DaemonUnavailable(e.to_string()))?;
    match response.body {
        Body::Status(status) => Ok((*status, response.revision)),
        Body::Error(err) => bail!(DaemonUnavailable(err.message)),
        other => bail!(DaemonUnavailable(format!("unexpected answer {other:?}"))),
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

fn print_status(s: &Status, revision: u64) {
    println!("pid:          {}", s.pid);
    println!("root:         {}", s.root.display());
    println!("state dir:    {}", s.state_dir.display());
    println!("build:        {}", s.build_id);
    println!("uptime:       {:.1} s", s.uptime_seconds);
    println!("revision:     {revision}");
    if s.scan.finished {
        println!("scan:         done ({} files)", s.scan.total);
    } else {
        println!("scan:         {}/{} files", s.scan.done, s.scan.total);
    }
    println!("files:        {}", s.files);
    println!("functions:    {}", s.functions);
    match s.watch_limit {
        Some(limit) => println!("watches:      {} of {limit} allowed", s.watches),
        None => println!("watches:      {}", s.watches),
    }
    println!("rescans:      {}", s.rescans.len());
    for rescan in s.rescans.iter().rev().take(5) {
        println!("  at {:.1} s: {}", rescan.at_seconds, rescan.reason);
    }
    let c = &s.cache;
    println!(
        "cache:        plans {} hits, {} misses; files {} hits, {} misses; {} rejected, {} errors",
        c.plan_hits, c.plan_misses, c.file_hits, c.file_misses, c.rejected, c.errors
    );
    println!(
        "store:        {} entries, {} bytes on disk",
        s.store_entries, s.store_bytes
    );
    if let Some(rss) = s.rss_bytes {
        let per_function = rss.checked_div(s.functions as u64).unwrap_or(0);
        println!("memory:       {rss} bytes resident ({per_function} per function)");
    }
    println!(
        "last error:   {}",
        s.last_error.as_deref().unwrap_or("none")
    );
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
        println!("{}", serde_json::to_string_pretty(&document)?);
        return Ok(Some(ExitCode::SUCCESS));
    }
    let c = &s.cache;
    println!("state dir:     {}", s.state_dir.display());
    println!("entries:       {}", s.store_entries);
    println!("bytes on disk: {}", s.store_bytes);
    println!(
        "daemon:        pid {}, revision {revision}, {} files, {} functions",
        s.pid, s.files, s.functions
    );
    println!(
        "  plans:       {} hits, {} misses; files {} hits, {} misses; {} rejected",
        c.plan_hits, c.plan_misses, c.file_hits, c.file_misses, c.rejected
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
    if args.backend.is_some() || args.materialize_aliases != crate::plan::Toggle::Auto {
        return Ok(None);
    }
    let target = Target::new(None, state_dir)?;
    let Some(mut connection) = target.running() else {
        return Ok(None);
    };
    let Ok(named) = crate::query::resolve(&args.target, &target.root) else {
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
    };
    let response = connection
        .client
        .request(&request)
        .map_err(|e| DaemonUnavailable(e.to_string()))?;
    match response.body {
        Body::Explain(answer) => crate::query::print_answer(&answer, false).map(Some),
        // Not a file the daemon tracks: read it here.
        Body::Error(_) => Ok(None),
        other => bail!(DaemonUnavailable(format!("unexpected answer {other:?}"))),
    }
}
