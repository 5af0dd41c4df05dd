//! `memreuse verify`: check already-planned IR with the independent verifier.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use memreuse::diagnostics::Severity;
use memreuse::ir::codes;
use memreuse::ir::{self, LineIndex};
use memreuse::json::diagnostic_json;
use memreuse::verify::{Addressing, VerifyOptions, verify_function, verify_program};
use serde_json::{Value, json};

use crate::args::BackendArg;
use crate::inputs::{discover, split_inputs};
use crate::summary::plural;
use crate::target::no_such_function;

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// Planned kernel files or directories (e.g. PyPTO's `*_after_MemoryReuse.py` dumps), or
    /// one function of a file, `FILE::FUNCTION`.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Target backend (selects the target-specific no-alias rows).
    #[arg(long, value_enum, default_value = "none")]
    pub backend: BackendArg,
    /// MemRef offsets are absolute addresses (dumps taken after AllocateMemoryAddr).
    #[arg(long)]
    pub addressed: bool,
    /// Print JSON: every file with its status and violations, and the totals.
    #[arg(long)]
    pub json: bool,
    /// Accept a PATH that holds no `@pl.program`.
    #[arg(long)]
    pub allow_empty: bool,
}

/// Dumps PyPTO writes before its MemoryReuse pass: nothing has been planned in them yet.
const BEFORE_MEMORY_REUSE: [&str; 2] = ["_after_InitMemRef", "_after_MaterializeSemanticAliases"];

/// Whether the file's name says PyPTO dumped it before MemoryReuse.
fn dumped_before_memory_reuse(path: &Path) -> bool {
    path.file_name().is_some_and(|n| {
        BEFORE_MEMORY_REUSE
            .iter()
            .any(|p| n.to_string_lossy().contains(p))
    })
}

/// Whether a file that fails verification is input to MemoryReuse rather than its output:
/// its name says so (`memreuse plan --out` keeps the names, but its outputs verify), or its
/// violations are loop carries kept apart from their init values (which MemoryReuse always
/// puts in place) and the reads of the values they therefore never receive.
fn not_planned_yet(path: &Path, violations: &[(usize, memreuse::diagnostics::Diagnostic)]) -> bool {
    let named = dumped_before_memory_reuse(path);
    let carries_apart = violations
        .iter()
        .any(|(_, d)| d.code == codes::CARRY_NOT_IN_PLACE)
        && violations
            .iter()
            .all(|(_, d)| [codes::CARRY_NOT_IN_PLACE, codes::VALUE_LOST].contains(&d.code));
    !violations.is_empty() && (named || carries_apart)
}

pub fn run(args: VerifyArgs) -> Result<ExitCode> {
    let options = VerifyOptions {
        backend: args.backend.into(),
        addressing: if args.addressed {
            Addressing::AllocateMemoryAddr
        } else {
            Addressing::Offsets
        },
    };
    let mut failed = false;
    let mut notes_total = 0;
    let mut checked = 0;
    let mut violations_total = 0;
    let mut files_with_violations = 0;
    let mut unplanned = 0;
    let mut skipped = 0;
    let named = split_inputs(&args.paths)?;
    let mut has_program = vec![false; named.paths.len()];
    let mut files_json: Vec<Value> = Vec::new();
    for file in discover(&named.paths)? {
        let display = file.path.display().to_string();
        // A folder of PyPTO's dumps holds the inputs of MemoryReuse beside its outputs: those
        // are skipped (and counted). A file named on the command line is checked as asked.
        let asked = named.paths.contains(&file.path);
        if !asked && dumped_before_memory_reuse(&file.path) {
            files_json.push(
                json!({"path": display, "status": "skipped_before_memory_reuse",
                                   "violations": []}),
            );
            skipped += 1;
            has_program[file.argument] = true;
            continue;
        }
        let text = match std::fs::read_to_string(&file.path) {
            Ok(text) => text,
            Err(err) => {
                eprintln!("error: cannot read {display}: {err}");
                files_json.push(json!({"path": display, "status": "unreadable",
                                       "message": err.to_string(), "violations": []}));
                failed = true;
                continue;
            }
        };
        if !ir::has_program(&text) {
            continue;
        }
        has_program[file.argument] = true;
        let lines = LineIndex::new(&text);
        let program = match ir::parse_program(&text) {
            Ok(program) => program,
            Err(err) => {
                for d in &err.diagnostics {
                    eprint!("{}", crate::color::render(d, &display, &text));
                }
                let diagnostics: Vec<Value> = err
                    .diagnostics
                    .iter()
                    .map(|d| diagnostic_json(d, &text, &lines))
                    .collect();
                files_json.push(json!({"path": display, "status": "parse_failed",
                                       "diagnostics": diagnostics, "violations": []}));
                failed = true;
                continue;
            }
        };
        let violations = match &named.functions[file.argument] {
            None => verify_program(&program, &options),
            Some(function) => {
                let found = program
                    .functions
                    .iter()
                    .position(|f| f.name == function.as_str());
                let Some(index) = found else {
                    let names = program.functions.iter().map(|f| f.name.as_str());
                    eprintln!("error: {}", no_such_function(function, &display, names));
                    files_json.push(json!({"path": display, "status": "no_such_function",
                                           "violations": []}));
                    failed = true;
                    continue;
                };
                let checked = verify_function(&program.functions[index], &options);
                checked.into_iter().map(|d| (index, d)).collect()
            }
        };
        checked += 1;
        if not_planned_yet(&file.path, &violations) {
            eprintln!(
                "error: {display} is not planned yet (it is input to MemoryReuse, not its \
                 output): plan it with `memreuse plan {display}`, or verify PyPTO's \
                 *_after_MemoryReuse.py dump"
            );
            files_json.push(json!({"path": display, "status": "not_planned",
                                   "violations": []}));
            unplanned += 1;
            failed = true;
            continue;
        }
        let mut listed = Vec::with_capacity(violations.len());
        for (index, diagnostic) in &violations {
            let function = program.functions[*index].name.as_str();
            if !args.json {
                eprint!("{}", crate::color::render(diagnostic, &display, &text));
                eprintln!("  in function '{function}'");
            }
            let mut entry = diagnostic_json(diagnostic, &text, &lines);
            entry["function"] = Value::from(function);
            listed.push(entry);
        }
        // Notes (lifetimes that overlap without a lost value) are shown, not violations.
        let unsafe_count = violations
            .iter()
            .filter(|(_, d)| d.severity != Severity::Note)
            .count();
        notes_total += violations.len() - unsafe_count;
        if unsafe_count > 0 {
            failed = true;
            violations_total += unsafe_count;
            files_with_violations += 1;
        }
        let status = if unsafe_count == 0 {
            "verified"
        } else {
            "violations"
        };
        files_json.push(json!({"path": display, "status": status, "violations": listed}));
    }
    for (path, found) in named.paths.iter().zip(&has_program) {
        if !found && !args.allow_empty {
            eprintln!(
                "error: {} holds no @pl.program (pass --allow-empty to accept that)",
                path.display()
            );
            failed = true;
        }
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        let document = json!({
            "files": files_json,
            "checked": checked,
            "violations": violations_total,
            "files_with_violations": files_with_violations,
            "not_planned": unplanned,
            "skipped_before_memory_reuse": skipped,
            "notes": notes_total,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&document)?)?;
    } else {
        let not_planned = match unplanned {
            0 => String::new(),
            n => format!(", {n} not planned yet"),
        };
        let notes = match notes_total {
            0 => String::new(),
            n => format!(", {}", plural(n, "note")),
        };
        let skipped = match skipped {
            0 => String::new(),
            n => format!(", {} dumped before MemoryReuse skipped", plural(n, "file")),
        };
        writeln!(
            out,
            "{} in {} ({} checked{not_planned}{skipped}{notes})",
            plural(violations_total, "violation"),
            plural(files_with_violations, "file"),
            plural(checked, "file")
        )?;
    }
    out.flush()?;
    Ok(if failed {
        ExitCode::from(crate::exit::ERRORS)
    } else {
        ExitCode::SUCCESS
    })
}
