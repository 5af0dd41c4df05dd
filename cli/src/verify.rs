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
    let mut run = Run::new(options, args.json);
    let named = split_inputs(&args.paths)?;
    let mut has_program = vec![false; named.paths.len()];
    for file in discover(&named.paths)? {
        let display = file.path.display().to_string();
        // A folder of PyPTO's dumps holds the inputs of MemoryReuse beside its outputs: those
        // are skipped (and counted). A file named on the command line is checked as asked.
        let asked = named.paths.contains(&file.path);
        if !asked && dumped_before_memory_reuse(&file.path) {
            run.files.push(
                json!({"path": display, "status": "skipped_before_memory_reuse",
                                   "violations": []}),
            );
            run.skipped += 1;
            has_program[file.argument] = true;
            continue;
        }
        let text = match std::fs::read_to_string(&file.path) {
            Ok(text) => text,
            Err(err) => {
                eprintln!("error: cannot read {display}: {err}");
                run.fail(json!({"path": display, "status": "unreadable",
                                "message": err.to_string(), "violations": []}));
                continue;
            }
        };
        if !ir::has_program(&text) {
            continue;
        }
        has_program[file.argument] = true;
        run.file(&file.path, &text, named.functions[file.argument].as_deref());
    }
    for (path, found) in named.paths.iter().zip(&has_program) {
        if !found && !args.allow_empty {
            eprintln!(
                "error: {} holds no @pl.program (pass --allow-empty to accept that)",
                path.display()
            );
            run.failed = true;
        }
    }
    run.summary()?;
    Ok(if run.failed {
        ExitCode::from(crate::exit::ERRORS)
    } else {
        ExitCode::SUCCESS
    })
}

/// One `memreuse verify`: how it checks, and what it found so far (each file's JSON and the
/// counts the summary prints).
struct Run {
    options: VerifyOptions,
    json: bool,
    failed: bool,
    checked: usize,
    violations: usize,
    files_with_violations: usize,
    unplanned: usize,
    skipped: usize,
    notes: usize,
    files: Vec<Value>,
}

impl Run {
    fn new(options: VerifyOptions, json: bool) -> Run {
        Run {
            options,
            json,
            failed: false,
            checked: 0,
            violations: 0,
            files_with_violations: 0,
            unplanned: 0,
            skipped: 0,
            notes: 0,
            files: Vec::new(),
        }
    }

    /// Records a file that fails before its plan is checked.
    fn fail(&mut self, file: Value) {
        self.files.push(file);
        self.failed = true;
    }

    /// Checks the program `text` of the file at `path` (only `function` of it, if named).
    fn file(&mut self, path: &Path, text: &str, function: Option<&str>) {
        let display = path.display().to_string();
        let lines = LineIndex::new(text);
        let program = match ir::parse_program(text) {
            Ok(program) => program,
            Err(err) => {
                for d in &err.diagnostics {
                    eprint!("{}", crate::color::render(d, &display, text));
                }
                let diagnostics: Vec<Value> = err
                    .diagnostics
                    .iter()
                    .map(|d| diagnostic_json(d, text, &lines))
                    .collect();
                self.fail(json!({"path": display, "status": "parse_failed",
                                 "diagnostics": diagnostics, "violations": []}));
                return;
            }
        };
        let violations = match function {
            None => verify_program(&program, &self.options),
            Some(function) => {
                let found = program.functions.iter().position(|f| f.name == function);
                let Some(index) = found else {
                    let names = program.functions.iter().map(|f| f.name.as_str());
                    eprintln!("error: {}", no_such_function(function, &display, names));
                    self.fail(json!({"path": display, "status": "no_such_function",
                                     "violations": []}));
                    return;
                };
                let checked = verify_function(&program.functions[index], &self.options);
                checked.into_iter().map(|d| (index, d)).collect()
            }
        };
        self.checked += 1;
        if not_planned_yet(path, &violations) {
            eprintln!(
                "error: {display} is not planned yet (it is input to MemoryReuse, not its \
                 output): plan it with `memreuse plan {display}`, or verify PyPTO's \
                 *_after_MemoryReuse.py dump"
            );
            self.fail(json!({"path": display, "status": "not_planned", "violations": []}));
            self.unplanned += 1;
            return;
        }
        let mut listed = Vec::with_capacity(violations.len());
        for (index, diagnostic) in &violations {
            let function = program.functions[*index].name.as_str();
            if !self.json {
                eprint!("{}", crate::color::render(diagnostic, &display, text));
                eprintln!("  in function '{function}'");
            }
            let mut entry = diagnostic_json(diagnostic, text, &lines);
            entry["function"] = Value::from(function);
            listed.push(entry);
        }
        // Notes (lifetimes that overlap without a lost value) are shown, not violations.
        let unsafe_count = violations
            .iter()
            .filter(|(_, d)| d.severity != Severity::Note)
            .count();
        self.notes += violations.len() - unsafe_count;
        if unsafe_count > 0 {
            self.failed = true;
            self.violations += unsafe_count;
            self.files_with_violations += 1;
        }
        let status = if unsafe_count == 0 {
            "verified"
        } else {
            "violations"
        };
        self.files
            .push(json!({"path": display, "status": status, "violations": listed}));
    }

    /// Prints the JSON document, or the summary line.
    fn summary(&mut self) -> Result<()> {
        let mut out = std::io::stdout().lock();
        if self.json {
            let document = json!({
                "files": std::mem::take(&mut self.files),
                "checked": self.checked,
                "violations": self.violations,
                "files_with_violations": self.files_with_violations,
                "not_planned": self.unplanned,
                "skipped_before_memory_reuse": self.skipped,
                "notes": self.notes,
            });
            writeln!(out, "{}", serde_json::to_string_pretty(&document)?)?;
        } else {
            let not_planned = match self.unplanned {
                0 => String::new(),
                n => format!(", {n} not planned yet"),
            };
            let notes = match self.notes {
                0 => String::new(),
                n => format!(", {}", plural(n, "note")),
            };
            let skipped = match self.skipped {
                0 => String::new(),
                n => format!(", {} dumped before MemoryReuse skipped", plural(n, "file")),
            };
            writeln!(
                out,
                "{} in {} ({} checked{not_planned}{skipped}{notes})",
                plural(self.violations, "violation"),
                plural(self.files_with_violations, "file"),
                plural(self.checked, "file")
            )?;
        }
        out.flush()?;
        Ok(())
    }
}
