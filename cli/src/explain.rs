//! `memreuse explain`: why two tiles do or do not share a buffer.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use memreuse::ir;
use memreuse::plan::PlanConfig;
use memreuse::plan::explain::explain;

use crate::plan::{BackendArg, Toggle};

#[derive(clap::Args)]
pub struct ExplainArgs {
    /// `FILE::FUNCTION`
    pub target: String,
    /// The first tile.
    pub first: String,
    /// The second tile.
    pub second: String,
    /// Target backend [default: memreuse.toml's, else none].
    #[arg(long, value_enum)]
    pub backend: Option<BackendArg>,
    /// Run MaterializeSemanticAliases first (`auto`: for `*_after_InitMemRef.py` dumps).
    #[arg(long, value_enum, default_value = "auto", num_args = 0..=1, default_missing_value = "on")]
    pub materialize_aliases: Toggle,
}

pub fn run(args: ExplainArgs) -> Result<ExitCode> {
    let Some((file, function)) = args.target.rsplit_once("::") else {
        bail!("expected FILE::FUNCTION, got '{}'", args.target);
    };
    let path = PathBuf::from(file);
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {file}"))?;
    let program = match ir::parse_program(&text) {
        Ok(program) => program,
        Err(err) => {
            for d in &err.diagnostics {
                eprint!("{}", d.render(file, &text));
            }
            return Ok(ExitCode::from(1));
        }
    };
    let Some(f) = program.functions.iter().find(|f| f.name == function) else {
        let names: Vec<&str> = program.functions.iter().map(|f| f.name.as_str()).collect();
        bail!(
            "no function '{function}' in {file} (it has: {})",
            names.join(", ")
        );
    };
    let config = PlanConfig {
        materialize_aliases: args.materialize_aliases.applies_to(&path),
        ..crate::settings::plan_config(
            &crate::settings::root_of(std::slice::from_ref(&path))?,
            args.backend,
            &[],
        )?
    };
    match explain(f, &config, &args.first, &args.second) {
        Ok(text) => {
            print!("{text}");
            Ok(ExitCode::SUCCESS)
        }
        Err(err) => {
            eprintln!("error: {err}");
            Ok(ExitCode::from(1))
        }
    }
}
