//! What an emitted plan may still lose (the tests that plan programs through the engine's
//! path and check what it emits): only a value the input itself overwrites in place, which
//! the report of its function names in an `MR-W004` warning ("the input overwrites 'x' in
//! place"). Every other finding of the checkers on an emitted plan is a defect.

use memreuse::diagnostics::Diagnostic;
use memreuse::ir::{Program, codes};
use memreuse::plan::{PlanConfig, PlanReport};
use memreuse::repair::{plan_program_checked, verify_options};
use memreuse::verify::program_violations;

/// `program` planned under `config` as the engine plans it (`repair::plan_program_checked`),
/// required to pass both checkers but for the values the input overwrites itself; `case`
/// names the program when it gets no plan or the plan loses a value.
pub fn safe_plan(case: &str, program: &Program, config: &PlanConfig) -> (Program, Vec<PlanReport>) {
    let options = verify_options(config);
    let (planned, reports) =
        plan_program_checked(program, config, &options).unwrap_or_else(|(function, err)| {
            panic!("{case}: function {function} has no plan: {err:?}")
        });
    let findings = program_violations(&planned, &options);
    let lost = beyond_input_hazards(&findings, &reports);
    assert!(
        lost.is_empty(),
        "{case}: an emitted plan fails the checkers: {lost:?}"
    );
    (planned, reports)
}

/// The values `report` says the input overwrites in place, each quoted (`'x'`).
pub fn overwritten_by_the_input(report: &PlanReport) -> Vec<String> {
    report
        .diagnostics
        .iter()
        .filter(|d| d.code == codes::INPUT_OVERWRITES_LIVE_VALUE)
        .filter_map(|d| {
            d.message
                .split("the input overwrites '")
                .nth(1)?
                .split('\'')
                .next()
        })
        .map(|v| format!("'{v}'"))
        .collect()
}

/// Whether `finding` is about one of the values `overwritten` (the liveness checker's pair
/// names it first, the value checker's lost read names it).
pub fn is_about(finding: &Diagnostic, overwritten: &[String]) -> bool {
    overwritten.iter().any(|v| {
        finding.message.starts_with(&format!("tiles {v}"))
            || finding.message.starts_with(&format!("{v} is read here"))
    })
}

/// The findings of `violations` (function index, finding) that are not about a value the
/// report of their function (`reports`, by function index) says the input overwrites.
pub fn beyond_input_hazards<'v>(
    violations: &'v [(usize, Diagnostic)],
    reports: &[PlanReport],
) -> Vec<&'v (usize, Diagnostic)> {
    violations
        .iter()
        .filter(|(function, d)| {
            let overwritten = reports
                .get(*function)
                .map(overwritten_by_the_input)
                .unwrap_or_default();
            !is_about(d, &overwritten)
        })
        .collect()
}
