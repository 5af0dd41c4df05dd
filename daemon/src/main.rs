//! `memreused`: the memreuse daemon. Normally started by `memreuse daemon start` or by the
//! first `memreuse query`; see `memreuse_daemon::server`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Parser;
use memreuse::backend::Backend;
use memreuse::ir::MemSpace;
use memreuse::plan::Planner;
use memreuse_daemon::server::{self, Options, Overrides, StartError};
use memreuse_daemon_client::state_dir::build_id;

/// Serves memreuse plans of one kernel tree, keeping them up to date as files change.
#[derive(Parser)]
#[command(name = "memreused", version)]
struct Args {
    /// The workspace root to watch.
    #[arg(long)]
    root: PathBuf,
    /// The state dir (cache, lock, socket, logs).
    #[arg(long)]
    state_dir: PathBuf,
    /// Target backend: none, 910b or 950 [default: memreuse.toml's, else none].
    #[arg(long)]
    backend: Option<String>,
    /// A memory space's capacity, `SPACE=BYTES` (repeatable; over memreuse.toml's).
    #[arg(long, value_name = "SPACE=BYTES", value_parser = memreuse_project::parse_capacity)]
    capacity: Vec<(MemSpace, i64)>,
    /// `pypto`, or `none` to only re-print.
    #[arg(long, default_value = "pypto")]
    planner: String,
    /// Stop after this many seconds without a request (0: never).
    #[arg(long, default_value_t = 3 * 3600)]
    idle_timeout: u64,
    /// Seconds to wait for daemon.lock held by a command working without the daemon.
    #[arg(long, default_value_t = 60)]
    lock_wait: u64,
    /// Planning threads [default: the number of cores].
    #[arg(long)]
    jobs: Option<usize>,
    /// Log to standard error instead of the state dir's log file (`memreuse daemon run`).
    #[arg(long)]
    log_stderr: bool,
    /// More events than this in one batch make a full rescan.
    #[arg(long, hide = true, default_value_t = memreuse_daemon::server::STORM)]
    storm_events: usize,
    /// Files larger than this many bytes are not read (reported instead) [default:
    /// memreuse.toml's max_file_bytes, else 64 MiB].
    #[arg(long)]
    max_file_bytes: Option<u64>,
    /// Report this build id instead of the executable's (for tests of version skew).
    #[arg(long, hide = true)]
    build_id: Option<String>,
}

fn main() -> ExitCode {
    // Everything the daemon creates (state, logs, cache) is for this user only.
    // SAFETY: umask only swaps the process's file mode mask; no other thread runs yet.
    unsafe { libc::umask(0o077) };
    raise_descriptor_limit();
    let args = Args::parse();
    let _log = match init_logging(&args) {
        Ok(guard) => guard,
        Err(err) => {
            eprintln!("memreused: cannot set up logging: {err:#}");
            return ExitCode::from(3);
        }
    };
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            tracing::error!("{err:#}");
            eprintln!("memreused: {err:#}");
            // docs/cli.md, Exit codes: 3 when the daemon could not run.
            ExitCode::from(3)
        }
    }
}

fn run(args: Args) -> Result<()> {
    let root = args
        .root
        .canonicalize()
        .with_context(|| format!("cannot open the root {}", args.root.display()))?;
    memreuse_daemon_client::state_dir::prepare_private_dir(&args.state_dir)?;
    let state_dir = args.state_dir.canonicalize()?;
    let build_id = match args.build_id {
        Some(id) => id,
        None => {
            let exe = std::env::current_exe().context("cannot find my own executable")?;
            build_id(&exe).context("cannot read my own executable")?
        }
    };
    let planner = match args.planner.as_str() {
        "pypto" => Planner::Pypto,
        "none" => Planner::None,
        other => bail!("unknown planner '{other}' (use pypto or none)"),
    };
    let backend = match &args.backend {
        Some(name) => Some(
            Backend::from_name(name)
                .with_context(|| format!("unknown backend '{name}' (use none, 910b or 950)"))?,
        ),
        None => None,
    };
    let options = Options {
        root,
        state_dir,
        overrides: Overrides {
            backend,
            capacities: args.capacity,
            max_file_bytes: args.max_file_bytes,
        },
        planner,
        idle_timeout: (args.idle_timeout > 0).then(|| Duration::from_secs(args.idle_timeout)),
        lock_wait: Duration::from_secs(args.lock_wait),
        build_id,
        storm_events: args.storm_events,
        jobs: args.jobs.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        }),
    };
    match server::run(options) {
        Ok(()) => Ok(()),
        Err(err @ StartError::AlreadyRunning(_)) => bail!("{err}"),
        Err(err) => Err(err).context("the daemon stopped"),
    }
}

/// Each connection takes a descriptor: use all the system allows this process (the soft
/// limit is often 1,024, the hard one much higher).
fn raise_descriptor_limit() {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is valid for writes; setrlimit only changes this process's limit.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 && limit.rlim_cur < limit.rlim_max
        {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}

/// Logs go to `<state dir>/logs/memreused.<date>.log`, rotated daily, the last 7 kept.
fn init_logging(args: &Args) -> Result<Option<tracing_appender::non_blocking::WorkerGuard>> {
    let filter = tracing_subscriber::EnvFilter::try_from_env("MEMREUSE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,salsa=warn"));
    if args.log_stderr {
        tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .init();
        return Ok(None);
    }
    let dir = args.state_dir.join("logs");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let appender = tracing_appender::rolling::Builder::new()
        .rotation(tracing_appender::rolling::Rotation::DAILY)
        .filename_prefix("memreused")
        .filename_suffix("log")
        .max_log_files(7)
        .build(&dir)
        .context("cannot open the log file")?;
    let (writer, guard) = tracing_appender::non_blocking(appender);
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_ansi(false)
        .init();
    Ok(Some(guard))
}
