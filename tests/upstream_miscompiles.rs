//! Post-InitMemRef programs on which PyPTO's MemoryReuse (reproduced faithfully by our planner)
//! produces a wrong plan, and the verifier says so. Each `tests/data/verify_upstream/<case>.py`
//! explains in its header why the plan is wrong; `<case>.expected` snapshots, with Step 0 off
//! and on, the planned program and what the verifier reports on it (bless with
//! `UPDATE_EXPECT=1 cargo test --test upstream_miscompiles`). The plan and the verdict are the
//! same for every backend. `memreuse_testgen::synth` emits these shapes only with
//! `Shapes::WithUpstreamHazards` (`tests/checkers_agree.rs`).

use std::fs;
use std::path::{Path, PathBuf};

use expect_test::expect_file;
use memreuse::backend::Backend;
use memreuse::ir::{LineIndex, Program, parse_program, print_program};
use memreuse::plan::{PlanConfig, plan_program};
use memreuse::verify::{VerifyOptions, verify_program};
use memreuse_test_support::with_notes;

fn cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/verify_upstream");
    let mut cases: Vec<PathBuf> = fs::read_dir(&dir)
        .expect("tests/data/verify_upstream exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    cases.sort();
    cases
}

/// Plans the program; panics if PyPTO's pass would have failed instead.
fn planned(program: &Program, config: &PlanConfig, file: &str) -> Program {
    plan_program(program, config)
        .unwrap_or_else(|(_, e)| panic!("{file}: planning fails with {config:?}: {e}"))
        .0
}

/// The verifier's diagnostics on a planned program, located in the input text.
fn verdict(planned: &Program, backend: Backend, file: &str, text: &str) -> String {
    let options = VerifyOptions {
        backend,
        ..VerifyOptions::default()
    };
    let diagnostics = verify_program(planned, &options);
    if diagnostics.is_empty() {
        return "ok\n".to_string();
    }
    let lines = LineIndex::new(text);
    let mut out = String::new();
    for (_, d) in diagnostics {
        let first = d.one_line(file, text, &lines);
        out.push_str(&with_notes(&first, &d, file, text, &lines));
    }
    out
}

#[test]
fn pypto_plans_of_unsupported_shapes_fail_verification() {
    let cases = cases();
    assert!(!cases.is_empty());
    for case in cases {
        let name = case.file_stem().unwrap().to_string_lossy().into_owned();
        let text = fs::read_to_string(&case).expect("readable case");
        let program =
            parse_program(&text).unwrap_or_else(|e| panic!("{name}.py does not parse: {e:?}"));
        let mut snapshot = String::new();
        let mut rejected = false;
        for materialize_aliases in [false, true] {
            let step0 = if materialize_aliases { "on" } else { "off" };
            let file = format!("{name}.py");
            // PyPTO's plan as it is (`--exact`): these cases snapshot what PyPTO gets wrong.
            let config = PlanConfig {
                backend: Backend::None,
                materialize_aliases,
                exact: true,
                ..PlanConfig::default()
            };
            let plan = planned(&program, &config, &file);
            let report = verdict(&plan, Backend::None, &file, &text);
            for backend in [Backend::Ascend910B, Backend::Ascend950] {
                let config = PlanConfig { backend, ..config };
                let other = planned(&program, &config, &file);
                assert_eq!(
                    print_program(&other),
                    print_program(&plan),
                    "{file}: the plan depends on the backend"
                );
                assert_eq!(
                    verdict(&other, backend, &file, &text),
                    report,
                    "{file}: the verdict depends on the backend"
                );
            }
            rejected |= report != "ok\n";
            snapshot.push_str(&format!(
                "## step0={step0}: planned\n{}## step0={step0}: verifier\n{report}",
                print_program(&plan)
            ));
        }
        assert!(rejected, "{name}: the verifier accepts every plan");
        expect_file![case.with_extension("expected")].assert_eq(&snapshot);
    }
}
