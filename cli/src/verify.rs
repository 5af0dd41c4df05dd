//! `memreuse verify`: check already-planned IR with the independent verifier.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use memreuse::ir;
use memreuse::verify::{VerifyOptions, verify_program};

use crate::inputs::discover;
use crate::plan::BackendArg;

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// Planned kernel files or directories (e.g. PyPTO's `*_after_MemoryReuse.py` dumps).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Target backend (selects the target-specific no-alias rows).
    #[arg(long, value_enum, default_value = "none")]
    pub backend: BackendArg,
    /// MemRef offsets are absolute addresses (dumps taken after AllocateMemoryAddr).
    #[arg(long)]
    pub addressed: bool,
}

pub fn run(args: VerifyArgs) -> Result<ExitCode> {
    let options = VerifyOptions {
        backend: args.backend.into(),
        addressed: args.addressed,
        every_function_addressed: false,
    };
    let mut failed = false;
    let mut checked = 0;
    for file in discover(&args.paths)? {
        let display = file.path.display().to_string();
        let text = match std::fs::read_to_string(&file.path) {
            Ok(text) => text,
            Err(err) => {
                eprintln!("error: cannot read {display}: {err}");
                failed = true;
                continue;
            }
        };
        if !ir::has_program(&text) {
            continue;
        }
        let program = match ir::parse_program(&text) {
            Ok(program) => program,
            Err(err) => {
                for d in &err.diagnostics {
                    eprint!("{}", d.render(&display, &text));
                }
                failed = true;
                continue;
            }
        };
        checked += 1;
        for (index, diagnostic) in verify_program(&program, &options) {
            eprint!("{}", diagnostic.render(&display, &text));
            eprintln!("  in function '{}'", program.functions[index].name);
            failed = true;
        }
    }
    if failed {
        Ok(ExitCode::from(1))
    } else {
        println!("{checked} files verified: no violations");
        Ok(ExitCode::SUCCESS)
    }
}
