//! `memreuse solve`: placeholder until the DSA planner lands.

use std::process::ExitCode;

#[derive(clap::Args)]
pub struct SolveArgs {
    /// Allocation-problem CSV files.
    pub files: Vec<std::path::PathBuf>,
}

pub fn run(_args: SolveArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("solve is not available yet")
}
