//! The planner version follows the planner's output: `PLANNER_VERSION` is a digest of what
//! the planner makes of every fixture and bundled kernel, under every backend, planner and
//! set of rules (for both the planner's plan and the repaired one the CLI emits by default).
//! Cache keys include it, so when planner output changes this test fails until the constant
//! is updated, and an updated constant keeps every cache from serving the old plans.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use memreuse::backend::Backend;
use memreuse::ir::{parse_program, print_function};
use memreuse::plan::{PLANNER_VERSION, PlanConfig, PlanOptions, Planner, Rules, plan_function};
use memreuse::repair::{plan_checked, verify_options};

/// Every `*.py` input below `dir` (not the `*.out.py` snapshots), sorted.
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("readable dir") {
            let path = entry.expect("entry").path();
            let name = path.to_string_lossy();
            if path.is_dir() {
                stack.push(path);
            } else if name.ends_with(".py") && !name.ends_with(".out.py") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// Everything the planner decides about the corpus, in one deterministic text.
fn planner_output() -> String {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = String::new();
    for tree in [
        "tests/data/plan",
        "tests/data/repair",
        "tests/data/kept",
        "examples/kernels",
    ] {
        for path in inputs(&repo.join(tree)) {
            let text = std::fs::read_to_string(&path).expect("readable");
            let Ok(program) = parse_program(&text) else {
                continue;
            };
            let name = path.strip_prefix(repo).expect("in the repo").display();
            for backend in [Backend::None, Backend::Ascend910B, Backend::Ascend950] {
                for planner in [Planner::Pypto, Planner::Dsa] {
                    for (materialize_aliases, rules) in [
                        (false, Rules::Seed),
                        (true, Rules::Seed),
                        (false, Rules::Snapshot),
                        (true, Rules::Snapshot),
                    ] {
                        let config = PlanConfig {
                            backend,
                            planner,
                            materialize_aliases,
                            rules,
                            ..PlanConfig::default()
                        };
                        for function in &program.functions {
                            let _ = writeln!(out, "== {name} {config:?} {}", function.name);
                            match plan_function(function, &config, &PlanOptions::default()) {
                                Ok(plan) => {
                                    print_function(&plan.function, &mut out, 1);
                                    let _ = writeln!(out, "{:?}", plan.report);
                                }
                                Err(err) => {
                                    let _ = writeln!(out, "error {err:?}");
                                }
                            }
                            // What the CLI emits by default: the plan, repaired.
                            match plan_checked(function, &config, &verify_options(&config)) {
                                Ok(plan) => {
                                    print_function(&plan.function, &mut out, 1);
                                    let _ = writeln!(out, "{:?}", plan.report);
                                }
                                Err(err) => {
                                    let _ = writeln!(out, "unsafe {err:?}");
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

#[test]
fn planner_version_is_the_digest_of_the_planner_output() {
    let digest = blake3::hash(planner_output().as_bytes()).to_hex();
    let digest = &digest[..16];
    assert!(
        PLANNER_VERSION == digest,
        "the planner's output changed: set PLANNER_VERSION in crates/plan/src/lib.rs to \"{digest}\" \
         (so that no cache serves the old plans)"
    );
}
