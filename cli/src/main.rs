//! `memreuse`: plan on-chip memory reuse for PyPTO tile kernels.

/// `println!` that returns the write's error (a closed pipe ends the command quietly, see
/// `exit::code_of`) instead of panicking.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)?
    }};
}

mod args;
mod cache;
mod codes;
mod color;
mod daemon;
mod exit;
mod explain;
mod inputs;
mod plan;
mod query;
mod sarif;
mod settings;
mod solve;
mod state;
mod stats;
mod summary;
mod target;
mod verify;
mod view;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

// A cold run allocates and frees millions of small model nodes on every planning thread;
// jemalloc makes such a run about 15 % faster than glibc's allocator (BENCHMARKS.md, issue 5).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Plans which tile buffers of PyPTO kernels can share one on-chip allocation, as PyPTO's
/// MemoryReuse pass does, and answers questions about the plans.
#[derive(Parser)]
#[command(name = "memreuse", version = VERSION)]
#[command(
    after_help = "Exit codes: 0 success; 1 the input or a plan has errors (diagnostics \
    with file:line:col are printed); 2 usage error; 3 the cache or the daemon could not be \
    reached or started."
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    /// More log output (repeat for more).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
    /// Only errors.
    #[arg(short, long, global = true)]
    quiet: bool,
    /// Where the cache lives [default: $MEMREUSE_STATE_DIR, else
    /// $XDG_STATE_HOME/memreuse/<hash of the current directory>].
    #[arg(long, global = true, value_name = "DIR")]
    state_dir: Option<std::path::PathBuf>,
    /// Colour diagnostics: `auto` on a terminal (unless NO_COLOR is set), never in pipes
    /// and logs.
    #[arg(
        long,
        global = true,
        value_enum,
        default_value = "auto",
        value_name = "WHEN"
    )]
    color: color::ColorChoice,
}

/// The version and the commit it was built from (`build.rs`).
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("MEMREUSE_COMMIT"),
    ")"
);

#[derive(Subcommand)]
enum Command {
    /// Plan kernel files: which tiles share which buffer, and the rewritten IR.
    Plan(plan::PlanArgs),
    /// Why two tiles of a function do or do not share a buffer: both lifetimes, the first
    /// gate that keeps them apart, and where the plan put them.
    Explain(explain::ExplainArgs),
    /// Check already-planned IR: no co-live tiles share bytes, no op output aliases an
    /// operand it must not, every MemRef names a surviving alloc and fits in it.
    Verify(verify::VerifyArgs),
    /// The cache: entries, bytes on disk, and the hits and misses of the last run.
    Stats(stats::StatsArgs),
    /// The cache: its figures (`stats`), LRU eviction to its size cap (`prune`), `clear`.
    Cache(cache::CacheArgs),
    /// The plan of one file or function, from the daemon (started when none runs).
    Query(query::QueryArgs),
    /// The memory viewer in the browser: every function's tiles over source lines and
    /// addresses, live as files change (served by the daemon on 127.0.0.1).
    View(view::ViewArgs),
    /// Start, stop or inspect the daemon that keeps a tree's plans up to date.
    Daemon(daemon::DaemonArgs),
    /// The diagnostic codes: each one's severity and meaning (`memreuse codes MR-R002`).
    Codes(codes::CodesArgs),
    /// Solve offline allocation problems (CSV `id,lower,upper,size`) and report peak vs bound.
    Solve(solve::SolveArgs),
    /// Print a shell completion script, e.g. `memreuse completions bash >
    /// ~/.local/share/bash-completion/completions/memreuse`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print a man page (roff): `memreuse man > ~/.local/share/man/man1/memreuse.1`, one
    /// subcommand's (`memreuse man plan`, `memreuse man cache prune`), or all of them into
    /// a directory (`memreuse man --out ~/.local/share/man/man1`).
    Man(ManArgs),
}

#[derive(clap::Args)]
struct ManArgs {
    /// The subcommand whose page to print, e.g. `plan` or `cache prune` [default: memreuse's
    /// own page].
    #[arg(value_name = "SUBCOMMAND")]
    subcommand: Vec<String>,
    /// Write every page into DIR instead: memreuse.1, memreuse-plan.1, memreuse-cache-prune.1
    /// and so on.
    #[arg(long, value_name = "DIR", conflicts_with = "subcommand")]
    out: Option<std::path::PathBuf>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    color::init(cli.color);
    // `-v` and `-vv` speak of memreuse's own work; the engine's internals (salsa's queries,
    // sled) appear only with `-vvv` or a filter in `MEMREUSE_LOG` / `RUST_LOG`.
    let ours = |level: &str| {
        let crates = [
            "memreuse",
            "memreuse_cli",
            "memreuse_daemon_client",
            "memreuse_plan",
        ];
        let mut filter = "warn".to_string();
        for name in crates {
            filter.push_str(&format!(",{name}={level}"));
        }
        filter
    };
    let filter = match (cli.quiet, cli.verbose) {
        (true, _) => "error".to_string(),
        (false, 0) => "warn".to_string(),
        (false, 1) => ours("info"),
        (false, 2) => ours("debug"),
        (false, _) => "debug".to_string(),
    };
    let from_env = tracing_subscriber::EnvFilter::try_from_env("MEMREUSE_LOG")
        .or_else(|_| tracing_subscriber::EnvFilter::try_from_default_env());
    tracing_subscriber::fmt()
        .with_env_filter(from_env.unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(filter)))
        .with_ansi(color::enabled())
        .with_writer(std::io::stderr)
        .init();
    let result = match cli.command {
        Command::Plan(args) => {
            let detail = match (cli.quiet, cli.verbose) {
                (true, _) => plan::Detail::Problems,
                (false, 0) => plan::Detail::Rows,
                (false, _) => plan::Detail::Members,
            };
            plan::run(args, cli.state_dir.as_deref(), detail)
        }
        Command::Stats(args) => match daemon::stats(args.json, cli.state_dir.as_deref()) {
            Ok(Some(code)) => Ok(code),
            Ok(None) => stats::run(args, cli.state_dir.as_deref()),
            Err(err) => Err(err),
        },
        Command::Explain(args) => match daemon::explain(&args, cli.state_dir.as_deref()) {
            Ok(Some(code)) => Ok(code),
            Ok(None) => explain::run(args),
            Err(err) => Err(err),
        },
        Command::Cache(args) => cache::run(args, cli.state_dir.as_deref()),
        Command::Query(args) => query::run(args, cli.state_dir.as_deref()),
        Command::Daemon(args) => daemon::run(args, cli.state_dir.as_deref()),
        Command::View(args) => view::run(args, cli.state_dir.as_deref()),
        Command::Verify(args) => verify::run(args),
        Command::Solve(args) => solve::run(args),
        Command::Codes(args) => codes::run(args),
        Command::Completions { shell } => completions(shell),
        Command::Man(args) => man_page(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => match exit::code_of(&err) {
            Some(code) => {
                eprintln!("error: {err:#}");
                code
            }
            None => ExitCode::SUCCESS,
        },
    }
}

fn completions(shell: clap_complete::Shell) -> anyhow::Result<ExitCode> {
    use clap::CommandFactory as _;
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "memreuse", &mut script);
    let mut out = std::io::stdout().lock();
    std::io::Write::write_all(&mut out, &script)?;
    std::io::Write::flush(&mut out)?;
    Ok(ExitCode::SUCCESS)
}

fn man_page(args: ManArgs) -> anyhow::Result<ExitCode> {
    use anyhow::Context as _;
    use clap::CommandFactory as _;
    let mut command = Cli::command().disable_help_subcommand(true);
    // Names every subcommand `memreuse-plan` and so on, as its page is titled and named.
    command.build();
    // Every page names memreuse and its version as its source (a subcommand has none).
    let page_of = |command: clap::Command| {
        clap_mangen::Man::new(command).source(format!("memreuse {VERSION}"))
    };
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let mut pending = vec![command];
        let mut written = 0;
        while let Some(command) = pending.pop() {
            pending.extend(command.get_subcommands().cloned());
            page_of(command)
                .generate_to(dir)
                .with_context(|| format!("cannot write a man page into {}", dir.display()))?;
            written += 1;
        }
        eprintln!("wrote {written} man pages into {}", dir.display());
        return Ok(ExitCode::SUCCESS);
    }
    let mut page = command;
    for name in &args.subcommand {
        let Some(sub) = page.find_subcommand(name).cloned() else {
            let names: Vec<&str> = page.get_subcommands().map(|c| c.get_name()).collect();
            anyhow::bail!(exit::UsageError(format!(
                "no subcommand '{name}' of {} (it has: {})",
                page.get_display_name().unwrap_or(page.get_name()),
                names.join(", ")
            )));
        };
        page = sub;
    }
    let mut out = std::io::stdout().lock();
    page_of(page).render(&mut out)?;
    std::io::Write::flush(&mut out)?;
    Ok(ExitCode::SUCCESS)
}
