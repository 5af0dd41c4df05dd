//! PyPTO's own dumps of real kernels (pypto-lib programs, `tests/data/real/README.md`): every
//! input and output dump prints back byte for byte, planning the input reproduces upstream's
//! output exactly, and the checkers accept upstream's output — except for the programs
//! `tests/data/real/DEVIATIONS.tsv` lists, where the checkers must reject upstream's plan with
//! the listed code, `--exact` must reproduce it, and the default (safe) plan must be a repair
//! that passes both checkers.
//!
//! Runs the full set in `../shared/conformance/real` when it is there (CI has it), else the
//! subset copied into `tests/data/real`, and says which.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use memreuse::backend::Backend;
use memreuse::ir::{Program, parse_program, print_program};
use memreuse::plan::PlanConfig;
use memreuse::repair::{is_repair, plan_program_checked};
use memreuse::verify::{PlanInput, VerifyOptions, is_violation, verify_plan};
use memreuse_test_support::{RealDump, real_dumps};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/real")
}

/// The corpus to run: the shared full set if present, else the bundled subset.
fn corpus() -> (PathBuf, Vec<RealDump>) {
    real_dumps(Path::new(env!("CARGO_MANIFEST_DIR")))
}

/// Kernel → the checker code that rejects upstream's plan of it.
fn deviations() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(data_dir().join("DEVIATIONS.tsv")).expect("DEVIATIONS");
    text.lines()
        .skip(1)
        .map(|line| {
            let cells: Vec<&str> = line.split('\t').collect();
            (cells[0].to_string(), cells[2].to_string())
        })
        .collect()
}

fn parse(path: &Path) -> Result<(String, Program), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let program = parse_program(&text).map_err(|e| format!("{}: {e:?}", path.display()))?;
    Ok((text, program))
}

/// The checker's violations on `planned`, a plan of `input`, per function (notes of lifetimes
/// that overlap without a lost value are no violation).
fn findings(input: &Program, planned: &Program, backend: Backend) -> Vec<String> {
    let options = VerifyOptions {
        backend,
        ..VerifyOptions::default()
    };
    input
        .functions
        .iter()
        .zip(&planned.functions)
        .flat_map(|(i, p)| {
            verify_plan(&PlanInput::of(i), p, &options)
                .into_iter()
                .filter(is_violation)
                .map(move |d| {
                    format!(
                        "{}: {}[{}] {}",
                        p.name,
                        d.severity.name(),
                        d.code,
                        d.message
                    )
                })
        })
        .collect()
}

fn check(case: &RealDump, deviation: Option<&String>) -> Result<(), String> {
    let (input_text, input) = parse(&case.input)?;
    let (output_text, upstream) = parse(&case.output)?;
    for (text, program, which) in [
        (&input_text, &input, "input"),
        (&output_text, &upstream, "upstream output"),
    ] {
        if print_program(program) != *text {
            return Err(format!("the {which} does not print back byte for byte"));
        }
    }
    let upstream_findings = findings(&input, &upstream, case.backend);
    let config = PlanConfig {
        backend: case.backend,
        materialize_aliases: false,
        ..PlanConfig::default()
    };
    let options = VerifyOptions {
        backend: case.backend,
        ..VerifyOptions::default()
    };
    let plan = |exact: bool| {
        let mut config = config;
        config.exact = exact;
        plan_program_checked(&input, &config, &options).map_err(|(i, e)| {
            format!(
                "planning {} (exact: {exact}) fails: {e:?}",
                input.functions[i].name
            )
        })
    };
    let (exact, _) = plan(true)?;
    if print_program(&exact) != output_text {
        return Err("`--exact` differs from upstream's output".into());
    }
    let (planned, reports) = plan(false)?;
    let repairs = reports
        .iter()
        .flat_map(|r| &r.diagnostics)
        .filter(|d| is_repair(d))
        .count();
    match deviation {
        None => {
            if !upstream_findings.is_empty() {
                return Err(format!(
                    "the checker rejects upstream's output, which DEVIATIONS.tsv does not list: {upstream_findings:?}"
                ));
            }
            if print_program(&planned) != output_text || repairs != 0 {
                return Err(format!(
                    "the plan differs from upstream's output ({repairs} repairs)"
                ));
            }
        }
        Some(code) => {
            if !upstream_findings
                .iter()
                .any(|f| f.contains(&format!("[{code}]")))
            {
                return Err(format!(
                    "DEVIATIONS.tsv says the checker rejects upstream's plan with {code}, but it finds {upstream_findings:?}"
                ));
            }
            let ours = findings(&input, &planned, case.backend);
            if repairs == 0 || !ours.is_empty() {
                return Err(format!(
                    "the safe plan has {repairs} repairs and the checkers find {ours:?}"
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn real_dumps_round_trip_and_plan_as_upstream() {
    let (root, cases) = corpus();
    let deviations = deviations();
    assert!(!cases.is_empty());
    eprintln!(
        "real dumps: {} programs from {}",
        cases.len(),
        root.display()
    );
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            check(case, deviations.get(&case.kernel))
                .err()
                .map(|e| format!("{}: {e}", case.kernel))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} real programs fail:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// A deviation names a program that exists, so a stale row cannot hide a regression.
#[test]
fn every_deviation_is_a_real_program() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/real");
    let (_, cases) = corpus();
    if !shared.is_dir() {
        return eprintln!("../shared/conformance/real is absent: deviations checked in CI");
    }
    for kernel in deviations().keys() {
        assert!(
            cases.iter().any(|c| c.kernel == *kernel),
            "DEVIATIONS.tsv lists {kernel}, which is not in the corpus"
        );
    }
}
