//! `memreuse codes`: the diagnostic codes, from the one code table (`memreuse::ir::codes`).

use std::process::ExitCode;

use anyhow::Result;
use memreuse::ir::codes::{self, CodeInfo};

use crate::exit::UsageError;
use crate::summary::wrapped;

#[derive(clap::Args)]
pub struct CodesArgs {
    /// One code to explain, e.g. `MR-R002` [default: every code].
    pub code: Option<String>,
    /// Print JSON: `[{"code", "severity", "meaning", "fix"}, …]`.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: CodesArgs) -> Result<ExitCode> {
    let rows: Vec<&CodeInfo> = match &args.code {
        None => codes::ALL.iter().collect(),
        Some(code) => {
            let wanted = code.trim().to_ascii_uppercase();
            let row = codes::info(&wanted).ok_or_else(|| {
                UsageError(format!(
                    "no diagnostic code '{code}' (`memreuse codes` lists them all)"
                ))
            })?;
            vec![row]
        }
    };
    if args.json {
        let listed: Vec<serde_json::Value> = rows
            .iter()
            .map(|row| {
                serde_json::json!({
                    "code": row.id,
                    "severity": row.severity.name(),
                    "meaning": row.meaning_line(),
                    "fix": row.fix,
                })
            })
            .collect();
        outln!("{}", serde_json::to_string_pretty(&listed)?);
        return Ok(ExitCode::SUCCESS);
    }
    for row in rows {
        let head = format!("{:<10} {:<8}", row.id, row.severity.name());
        let indent = head.chars().count() + 1;
        outln!("{}", wrapped(&head, &row.meaning_line(), indent).trim_end());
        let fix = format!("{:indent$}fix:", "");
        outln!("{}", wrapped(&fix, row.fix, indent + 5).trim_end());
    }
    Ok(ExitCode::SUCCESS)
}
