//! The two checkers agree: on plans of generated programs (`memreuse_testgen::synth`, with the shapes
//! PyPTO's plan handles and with the `tests/data/verify_upstream/` hazard shapes), the liveness
//! checker (`V003`/`V004`/`V005`/`V006`) rejects a plan exactly when the value checker (`V007`)
//! does. A disagreement is a bug in one of them. `V001`/`V002` (allocs) are about another rule
//! and take no part.

use std::fs;
use std::path::Path;

use memreuse::backend::Backend;
use memreuse::ir::{parse_program, print_function};
use memreuse::plan::{PlanConfig, plan_program};
use memreuse::verify::VerifyOptions;
use memreuse_testgen::synth::{Shapes, SynthConfig, program_text_with};
use proptest::prelude::*;

#[path = "support/checker_verdicts.rs"]
mod checker_verdicts;
use checker_verdicts::verdicts;

#[derive(Debug, Default)]
struct Tally {
    plans: usize,
    rejected: usize,
}

/// Plans `cfg`'s program both ways (Step 0 off and on) and compares the verdicts.
fn agree(cfg: &SynthConfig, shapes: Shapes, tally: &mut Tally) -> Result<(), String> {
    let text = program_text_with("Synth", cfg, shapes);
    let program = parse_program(&text).map_err(|e| format!("{cfg:?}: does not parse: {e:?}"))?;
    for materialize_aliases in [false, true] {
        let config = PlanConfig {
            backend: Backend::None,
            materialize_aliases,
            ..PlanConfig::default()
        };
        // A program PyPTO refuses has no plan to check.
        let Ok((planned, _)) = plan_program(&program, &config) else {
            continue;
        };
        for f in &planned.functions {
            let (liveness, values, lines) = verdicts(f, &VerifyOptions::default());
            tally.plans += 1;
            tally.rejected += usize::from(values);
            if liveness != values {
                let mut planned_text = String::new();
                print_function(f, &mut planned_text, 4);
                return Err(format!(
                    "{cfg:?} {shapes:?} step0={materialize_aliases}: liveness {} but values {}:\n{}\n{planned_text}",
                    if liveness { "rejects" } else { "accepts" },
                    if values { "rejects" } else { "accepts" },
                    lines.join("\n"),
                ));
            }
        }
    }
    Ok(())
}

fn config(seed: u64, tiles: usize, max_live: Option<usize>) -> SynthConfig {
    SynthConfig {
        functions: 1,
        tiles_per_function: tiles,
        max_live,
        seed,
        control_flow: true,
    }
}

#[test]
fn the_checkers_agree_on_a_spread_of_generated_plans() {
    let mut safe = Tally::default();
    let mut hazards = Tally::default();
    for seed in 0..60 {
        for max_live in [Some(3), Some(8), None] {
            let cfg = config(seed, 30, max_live);
            agree(&cfg, Shapes::PyptoSafe, &mut safe).unwrap_or_else(|e| panic!("{e}"));
            agree(&cfg, Shapes::WithUpstreamHazards, &mut hazards)
                .unwrap_or_else(|e| panic!("{e}"));
        }
    }
    eprintln!("pypto-safe shapes: {safe:?}; with upstream hazards: {hazards:?}");
    assert_eq!(
        safe.rejected, 0,
        "a plan of a safe shape fails both checkers"
    );
    // The hazard shapes must really produce broken plans, or this test checks nothing.
    assert!(
        hazards.rejected * 10 >= hazards.plans,
        "too few hazard plans rejected: {hazards:?}"
    );
}

/// Every planned fixture: the verifier's own cases and the planner fixtures' outputs.
#[test]
fn the_checkers_agree_on_every_planned_fixture() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut files: Vec<_> = fs::read_dir(root.join("verify"))
        .expect("tests/data/verify exists")
        .map(|e| e.expect("readable entry").path().join("input.py"))
        .chain(
            fs::read_dir(root.join("plan"))
                .expect("tests/data/plan exists")
                .map(|e| e.expect("readable entry").path())
                .filter(|p| p.to_string_lossy().ends_with(".out.py")),
        )
        .collect();
    files.sort();
    let mut tally = Tally::default();
    for file in files {
        let text = fs::read_to_string(&file).expect("readable fixture");
        // Some planner fixtures' outputs are expected errors, not programs.
        let Ok(program) = parse_program(&text) else {
            continue;
        };
        for f in &program.functions {
            let (liveness, values, lines) = verdicts(f, &VerifyOptions::default());
            tally.plans += 1;
            tally.rejected += usize::from(values);
            assert_eq!(
                liveness,
                values,
                "{}: the checkers disagree:\n{}",
                file.display(),
                lines.join("\n")
            );
        }
    }
    assert!(tally.rejected >= 10, "{tally:?}");
}

fn synth_config() -> impl Strategy<Value = (SynthConfig, Shapes)> {
    (
        1usize..=2,
        1usize..=60,
        prop::option::weighted(0.75, 1usize..=10),
        any::<u64>(),
        prop::bool::weighted(0.5),
    )
        .prop_map(|(functions, tiles_per_function, max_live, seed, hazards)| {
            let cfg = SynthConfig {
                functions,
                tiles_per_function,
                max_live,
                seed,
                control_flow: true,
            };
            let shapes = if hazards {
                Shapes::WithUpstreamHazards
            } else {
                Shapes::PyptoSafe
            };
            (cfg, shapes)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn the_checkers_agree_on_generated_plans((cfg, shapes) in synth_config()) {
        if let Err(e) = agree(&cfg, shapes, &mut Tally::default()) {
            return Err(TestCaseError::fail(e));
        }
    }
}
