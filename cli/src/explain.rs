//! `memreuse explain`: why two tiles do or do not share a buffer.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use memreuse::ir;
use memreuse::plan::PlanConfig;
use memreuse::plan::explain::explain;

use crate::args::{BackendArg, Toggle};
use crate::exit::UsageError;

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
    /// The MemoryReuse rules of the plan explained: `seed` or `snapshot` (as `plan --rules`)
    /// [default: memreuse.toml's, else seed].
    #[arg(long, value_enum)]
    pub rules: Option<crate::args::RulesArg>,
    /// Run MaterializeSemanticAliases first (`auto`: for `*_after_InitMemRef.py` dumps).
    #[arg(long, value_enum, default_value = "auto", num_args = 0..=1, default_missing_value = "on")]
    pub materialize_aliases: Toggle,
    /// Print JSON: the file, function, both tiles and the explanation.
    #[arg(long)]
    pub json: bool,
}

/// `FILE::FUNCTION`, or a usage error.
pub fn split_target(target: &str) -> Result<(&str, &str), UsageError> {
    match crate::target::split_function(target) {
        (file, Some(function)) => Ok((file, function)),
        (_, None) => Err(UsageError(format!(
            "expected FILE::FUNCTION, got '{target}'"
        ))),
    }
}

pub fn run(args: ExplainArgs) -> Result<ExitCode> {
    let (file, function) = split_target(&args.target)?;
    let path = PathBuf::from(file);
    let text = std::fs::read_to_string(&path)
        .map_err(|err| UsageError(format!("cannot read {file}: {err}")))?;
    let program = match ir::parse_program(&text) {
        Ok(program) => program,
        Err(err) => {
            for d in &err.diagnostics {
                eprint!("{}", crate::color::render(d, file, &text));
            }
            return Ok(ExitCode::from(crate::exit::ERRORS));
        }
    };
    let Some(f) = program.functions.iter().find(|f| f.name == function) else {
        let names = program.functions.iter().map(|f| f.name.as_str());
        eprintln!(
            "error: {}",
            crate::target::no_such_function(function, file, names)
        );
        return Ok(ExitCode::from(crate::exit::ERRORS));
    };
    let config = crate::settings::plan_config(
        &crate::settings::root_of(std::slice::from_ref(&path))?,
        args.backend,
        &[],
    )?;
    let config = PlanConfig {
        materialize_aliases: args.materialize_aliases.applies_to(&path),
        rules: args.rules.map_or(config.rules, Into::into),
        ..config
    };
    match explain(f, &text, &config, &args.first, &args.second) {
        Ok(mut text) => {
            let pair = (args.first.as_str(), args.second.as_str());
            text.extend(memreuse::repair::emitted_placement(f, &config, pair));
            print_explanation(&args, file, function, &text)?;
            Ok(ExitCode::SUCCESS)
        }
        Err(err) => {
            eprintln!("error: {err}");
            Ok(ExitCode::from(crate::exit::ERRORS))
        }
    }
}

/// The explanation as text, or with `--json` as one object.
pub fn print_explanation(
    args: &ExplainArgs,
    file: &str,
    function: &str,
    explanation: &str,
) -> Result<()> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    if args.json {
        let document = serde_json::json!({
            "file": file,
            "function": function,
            "first": args.first,
            "second": args.second,
            "explanation": explanation,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&document)?)?;
    } else {
        out.write_all(explanation.as_bytes())?;
    }
    out.flush()?;
    Ok(())
}
