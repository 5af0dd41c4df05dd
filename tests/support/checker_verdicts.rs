//! The two checkers' verdicts on one plan, for the tests that require them to agree
//! (`checkers_agree.rs`, `random_programs_get_safe_plans.rs`): the liveness checker's
//! `V003`/`V004`/`V005`/`V006` against the value checker's `V007` (which finds a forbidden
//! alias as the read of an input its op overwrites). `V001`/`V002` (allocs) are about another
//! rule and take no part.

use memreuse::ir::Function;
use memreuse::ir::codes;
use memreuse::verify::{VerifyOptions, verify_function};

/// (liveness rejects, value checker rejects, every finding as `code: message`).
pub fn verdicts(f: &Function, options: &VerifyOptions) -> (bool, bool, Vec<String>) {
    let diagnostics = verify_function(f, options);
    let liveness = diagnostics.iter().any(|d| {
        [
            codes::CO_LIVE_OVERLAP,
            codes::FORBIDDEN_ALIAS,
            codes::CARRY_NOT_IN_PLACE,
            codes::DETACHED_VIEW,
        ]
        .contains(&d.code)
    });
    let values = diagnostics.iter().any(|d| d.code == codes::VALUE_LOST);
    let lines = diagnostics
        .iter()
        .map(|d| format!("{}: {}", d.code, d.message))
        .collect();
    (liveness, values, lines)
}
