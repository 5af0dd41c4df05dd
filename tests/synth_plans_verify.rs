//! Plans generated programs (`memreuse_testgen::synth`) and requires both checkers to accept every
//! plan, with and without Step 0 and for every backend, and two runs to print the same bytes.
//! The generator's default shapes are the ones PyPTO's plan handles; the shapes on which
//! PyPTO's own plan is wrong are pinned in `tests/upstream_miscompiles.rs` and generated only
//! with `Shapes::WithUpstreamHazards` (`tests/checkers_agree.rs`).

use memreuse::backend::Backend;
use memreuse::ir::{parse_program, print_program};
use memreuse::plan::{PlanConfig, plan_program};
use memreuse::verify::{VerifyOptions, program_violations};
use memreuse_testgen::synth::{SynthConfig, program_text};
use proptest::prelude::*;

const BACKENDS: [Backend; 3] = [Backend::None, Backend::Ascend910B, Backend::Ascend950];

/// The planned program's printed bytes, after the verifier accepted it.
fn plan_verified(text: &str, config: &PlanConfig) -> Result<String, String> {
    let program = parse_program(text).map_err(|e| format!("does not parse: {e:?}"))?;
    let (planned, _) = match plan_program(&program, config) {
        Ok(planned) => planned,
        // Generated tiles may simply not fit a backend's capacity: AllocateMemoryAddr's overflow
        // error is a correct outcome (and must be as deterministic as a plan).
        Err((function, e)) if e.0.code == memreuse::ir::codes::CAPACITY_OVERFLOW => {
            return Ok(format!("function {function}: {}", e.0.message));
        }
        Err((function, e)) => {
            return Err(format!(
                "planning function {function} fails: {}",
                e.0.message
            ));
        }
    };
    let options = VerifyOptions {
        backend: config.backend,
        ..VerifyOptions::default()
    };
    let violations = program_violations(&planned, &options);
    if !violations.is_empty() {
        let lines: Vec<String> = violations
            .iter()
            .map(|(function, d)| format!("  function {function}: {}: {}", d.code, d.message))
            .collect();
        return Err(format!(
            "the plan fails verification:\n{}",
            lines.join("\n")
        ));
    }
    Ok(print_program(&planned))
}

fn check(cfg: &SynthConfig) -> Result<(), String> {
    let text = program_text("Synth", cfg);
    for backend in BACKENDS {
        for materialize_aliases in [false, true] {
            let config = PlanConfig {
                backend,
                materialize_aliases,
                ..PlanConfig::default()
            };
            let context = |e: String| format!("{cfg:?} with {config:?}: {e}");
            let first = plan_verified(&text, &config).map_err(context)?;
            let second = plan_verified(&text, &config).map_err(context)?;
            if first != second {
                return Err(context("two runs print different bytes".to_string()));
            }
        }
    }
    Ok(())
}

#[test]
fn a_spread_of_generated_programs_plans_to_verified_stable_bytes() {
    for seed in 0..6 {
        for max_live in [Some(2), Some(6), None] {
            for functions in [1, 2] {
                let cfg = SynthConfig {
                    functions,
                    tiles_per_function: 40,
                    max_live,
                    seed,
                    control_flow: true,
                };
                if let Err(e) = check(&cfg) {
                    panic!("{e}");
                }
            }
        }
    }
}

fn synth_config() -> impl Strategy<Value = SynthConfig> {
    (
        1usize..=2,
        1usize..=80,
        prop::option::weighted(0.75, 1usize..=10),
        any::<u64>(),
        prop::bool::weighted(0.9),
    )
        .prop_map(
            |(functions, tiles_per_function, max_live, seed, control_flow)| SynthConfig {
                functions,
                tiles_per_function,
                max_live,
                seed,
                control_flow,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn every_generated_program_plans_to_verified_stable_bytes(cfg in synth_config()) {
        if let Err(e) = check(&cfg) {
            return Err(TestCaseError::fail(e));
        }
    }
}
