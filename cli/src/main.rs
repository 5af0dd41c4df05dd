//! `memreuse`: plan on-chip memory reuse for PyPTO tile kernels.

mod solve;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Plans which tile buffers of PyPTO kernels can share one on-chip allocation, as PyPTO's
/// MemoryReuse pass does, and answers questions about the plans.
#[derive(Parser)]
#[command(name = "memreuse", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Solve offline allocation problems (CSV `id,lower,upper,size`) and report peak vs bound.
    Solve(solve::SolveArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Solve(args) => solve::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(1)
        }
    }
}
