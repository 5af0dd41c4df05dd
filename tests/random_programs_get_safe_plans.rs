//! Issue 14's promise on random programs (`memreuse_testgen::synth`, with and without the
//! upstream hazard shapes, every backend, Step 0 off and on): wherever PyPTO's pass plans a
//! program, the two checkers agree on PyPTO's plan (a disagreement is a bug in one of them),
//! and the plan memreuse emits (`repair::plan_program_checked`, the engine's path) passes both,
//! but for a value the input itself overwrites in place (an accumulator `if` whose other arm
//! accumulates into a tile read later), which the plan keeps as an `MR-W004` warning.
//!
//! `MEMREUSE_RANDOM_PROGRAMS=N` sets how many programs (default 300, which the test command
//! runs); the figure is `MEMREUSE_RANDOM_PROGRAMS=10000 cargo test --release --test
//! random_programs_get_safe_plans`. The seeds are fixed, so a failure names a reproducible case.

use memreuse::backend::Backend;
use memreuse::ir::{parse_program, print_function};
use memreuse::plan::{PlanConfig, plan_program};
use memreuse::repair::{is_input_hazard, is_repair, verify_options};
use memreuse_testgen::synth::{Shapes, SplitMix64, SynthConfig, program_text_with};

#[path = "support/checker_verdicts.rs"]
mod checker_verdicts;
use checker_verdicts::verdicts;

#[path = "support/input_hazards.rs"]
mod input_hazards;
use input_hazards::safe_plan;

const BACKENDS: [Backend; 3] = [Backend::None, Backend::Ascend910B, Backend::Ascend950];

#[derive(Debug, Default)]
struct Tally {
    programs: usize,
    planned_by_pypto: usize,
    pypto_plans_rejected: usize,
    repaired_programs: usize,
    /// Plans that keep a value the input itself overwrites in place (`MR-W004`), and those of
    /// them with no repair (PyPTO's plan loses nothing else).
    plans_with_input_hazards: usize,
    input_hazards_alone: usize,
    /// Programs with a `tile.fillpad_inplace`, and with an accumulator `if` (one arm
    /// initialises the accumulator with `tile.matmul`, the other accumulates into a tile from
    /// before the `if`).
    programs_padding_in_place: usize,
    programs_with_accumulator_ifs: usize,
}

fn run_case(cfg: &SynthConfig, shapes: Shapes, backend: Backend, tally: &mut Tally) {
    let text = program_text_with("Synth", cfg, shapes);
    let program = parse_program(&text)
        .unwrap_or_else(|e| panic!("{cfg:?} {shapes:?}: does not parse: {e:?}"));
    tally.programs += 1;
    tally.programs_padding_in_place += usize::from(text.contains("pl.tile.fillpad_inplace("));
    tally.programs_with_accumulator_ifs += usize::from(accumulator_if(&text));
    for materialize_aliases in [false, true] {
        let config = PlanConfig {
            backend,
            materialize_aliases,
            ..PlanConfig::default()
        };
        let exact = PlanConfig {
            exact: true,
            ..config
        };
        let case = format!("{cfg:?} {shapes:?} {backend:?} step0={materialize_aliases}");
        // A program PyPTO's pass refuses gets no plan from either.
        let Ok((pypto, _)) = plan_program(&program, &exact) else {
            continue;
        };
        tally.planned_by_pypto += 1;
        let options = verify_options(&config);
        let mut rejected = false;
        for f in &pypto.functions {
            let (liveness, values, lines) = verdicts(f, &options);
            rejected |= values;
            if liveness != values {
                let mut planned = String::new();
                print_function(f, &mut planned, 4);
                panic!(
                    "{case}: the checkers disagree on PyPTO's plan (liveness {}, values {}):\n{}\n{planned}",
                    if liveness { "rejects" } else { "accepts" },
                    if values { "rejects" } else { "accepts" },
                    lines.join("\n"),
                );
            }
        }
        tally.pypto_plans_rejected += usize::from(rejected);
        // Both checkers pass the emitted plan, but for the values the input overwrites itself.
        let (_, reports) = safe_plan(&format!("{case}\n{text}"), &program, &config);
        let diagnostics = || reports.iter().flat_map(|r| &r.diagnostics);
        match (
            diagnostics().any(is_repair),
            diagnostics().any(is_input_hazard),
        ) {
            (true, hazards) => {
                tally.repaired_programs += 1;
                tally.plans_with_input_hazards += usize::from(hazards);
            }
            (false, true) => {
                tally.plans_with_input_hazards += 1;
                tally.input_hazards_alone += 1;
            }
            (false, false) => {}
        }
    }
}

#[test]
fn random_programs_get_plans_both_checkers_pass() {
    let count: usize = std::env::var("MEMREUSE_RANDOM_PROGRAMS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(300);
    let mut cases = SplitMix64(0x6d65_6d72_6575_7365);
    let mut tally = Tally::default();
    for _ in 0..count {
        let cfg = SynthConfig {
            functions: 1 + cases.below(2),
            tiles_per_function: 1 + cases.below(60),
            max_live: match cases.below(4) {
                0 => None,
                _ => Some(1 + cases.below(10)),
            },
            seed: cases.next_u64(),
            control_flow: true,
        };
        let shapes = if cases.below(2) == 0 {
            Shapes::PyptoSafe
        } else {
            Shapes::WithUpstreamHazards
        };
        let backend = BACKENDS[cases.below(3)];
        run_case(&cfg, shapes, backend, &mut tally);
    }
    eprintln!("{tally:?}");
    assert_eq!(tally.programs, count);
    // The hazard shapes must really give PyPTO plans that need repairs, or the safe path is
    // not exercised.
    assert!(
        tally.pypto_plans_rejected * 20 >= tally.planned_by_pypto,
        "too few of PyPTO's plans were unsafe: {tally:?}"
    );
    assert!(
        tally.repaired_programs + tally.input_hazards_alone >= tally.pypto_plans_rejected,
        "an unsafe PyPTO plan went out unrepaired: {tally:?}"
    );
    // The in-place padding and the accumulator `if`s are generated, and some accumulator
    // overwrites a value read later (the input's own hazard).
    assert!(
        tally.programs_padding_in_place > 0
            && tally.programs_with_accumulator_ifs > 0
            && tally.plans_with_input_hazards > 0,
        "the shapes of in-place padding and accumulator ifs are missing: {tally:?}"
    );
}

/// Whether `text` has an `if` one of whose arms accumulates with `tile.matmul_acc` while the
/// other initialises with `tile.matmul` (the arms' last assignments before their yields).
fn accumulator_if(text: &str) -> bool {
    let lines: Vec<&str> = text.lines().collect();
    lines.windows(4).any(|w| {
        w[0].contains("pl.tile.matmul(")
            && w[1].contains("pl.yield_(")
            && w[2].trim() == "else:"
            && w[3].contains("pl.tile.matmul_acc(")
            || w[0].contains("pl.tile.matmul_acc(")
                && w[1].contains("pl.yield_(")
                && w[2].trim() == "else:"
                && w[3].contains("pl.tile.matmul(")
    })
}
