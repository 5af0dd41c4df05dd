//! The engine's plans are the planner's: planning through the database (whose stages are
//! memoized queries, `memreuse::db`) gives every function of every fixture and bundled kernel
//! the plan, the diagnostics and the error that planning it directly gives
//! (`repair::plan_checked`), under every backend and planner, Step 0 off and on, and with
//! `--addresses`, `--exact` or a small capacity; on one thread or two, the stages' memos kept
//! or evicted as a one-shot run evicts them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use memreuse::backend::Backend;
use memreuse::db::{FileStatus, StageRetention, Workspace};
use memreuse::ir::{MemSpace, parse_program, print_function};
use memreuse::plan::{PlanConfig, Planner};
use memreuse::repair::{SafePlanError, plan_checked, verify_options};
use memreuse::store::Cache;
use memreuse::system::MemorySystem;

fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).expect("readable dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            found.extend(inputs(&path));
        } else if path.extension().is_some_and(|e| e == "py")
            && !path.to_string_lossy().ends_with(".out.py")
        {
            found.push(path);
        }
    }
    found.sort();
    found
}

/// A plan as both paths report it: the printed function and each diagnostic's code and
/// message (the engine locates diagnostics in the file; the planner in the function).
fn direct(function: &memreuse::ir::Function, config: &PlanConfig) -> String {
    match plan_checked(function, config, &verify_options(config)) {
        Ok(plan) => {
            let mut text = String::new();
            print_function(&plan.function, &mut text, 4);
            let diagnostics: Vec<_> = plan
                .report
                .diagnostics
                .iter()
                .map(|d| (d.code, &d.message))
                .collect();
            format!("{text}{diagnostics:?}")
        }
        Err(SafePlanError::Plan(err)) => format!("error {} {}", err.0.code, err.0.message),
        Err(SafePlanError::Unrepaired(diagnostics)) => {
            let first = &diagnostics[0];
            format!("error {} {}", first.code, first.message)
        }
    }
}

#[test]
fn the_engine_plans_every_fixture_as_the_planner_does() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for tree in ["tests/data/plan", "tests/data/repair", "examples/kernels"] {
        for path in inputs(&repo.join(tree)) {
            let text = std::fs::read_to_string(&path).expect("readable");
            if let Ok(program) = parse_program(&text) {
                files.push((path, text, program));
            }
        }
    }
    let mut configs = Vec::new();
    for backend in [Backend::None, Backend::Ascend910B, Backend::Ascend950] {
        for planner in [Planner::Pypto, Planner::Dsa] {
            for materialize_aliases in [false, true] {
                configs.push(PlanConfig {
                    backend,
                    planner,
                    materialize_aliases,
                    ..PlanConfig::default()
                });
            }
        }
    }
    // `--addresses`, `--exact`, and a Vec capacity that many fixtures overflow.
    for planner in [Planner::Pypto, Planner::Dsa] {
        let base = PlanConfig {
            backend: Backend::Ascend910B,
            planner,
            materialize_aliases: true,
            ..PlanConfig::default()
        };
        let mut small_vec = base;
        small_vec.capacity_overrides[MemSpace::Vec as usize] = Some(32 * 1024);
        configs.extend([
            PlanConfig {
                assign_addresses: true,
                ..base
            },
            PlanConfig {
                exact: true,
                ..base
            },
            small_vec,
        ]);
    }
    // Each way of scheduling the work in turn: on one thread or two, memos kept (the daemon)
    // or evicted after every function (one thread) or batch (two), as a one-shot workspace
    // evicts them (keeping no plan past its file: the texts below plan them again).
    let schedules = [
        (StageRetention::Recent, 1),
        (StageRetention::OneShot, 1),
        (StageRetention::OneShot, 2),
        (StageRetention::Recent, 2),
    ];
    let mut compared = 0;
    for (index, config) in configs.into_iter().enumerate() {
        let materialize_aliases = config.materialize_aliases;
        let mut ws = Workspace::new(Arc::new(Cache::disabled()), config);
        let (retention, jobs) = schedules[index % schedules.len()];
        ws.set_stage_retention(retention);
        let sources: Vec<_> = files
            .iter()
            .map(|(path, text, _)| ws.set_file(path, text, materialize_aliases))
            .collect();
        let outcomes = ws.plan(&MemorySystem::default(), &sources, jobs, &|| {});
        for ((path, _, program), outcome) in files.iter().zip(&outcomes) {
            let FileStatus::Planned { functions, .. } = &*outcome.status else {
                panic!("{}: {:?}", path.display(), outcome.status);
            };
            let texts = ws.planned_texts(outcome.file);
            for ((function, planned), text) in program.functions.iter().zip(functions).zip(texts) {
                let engine = match &planned.result {
                    Ok(plan) => {
                        let diagnostics: Vec<_> = plan
                            .report
                            .summary()
                            .diagnostics
                            .iter()
                            .map(|d| (d.code, &d.message))
                            .collect();
                        let text = text.expect("a planned function has a text");
                        format!("{text}{diagnostics:?}")
                    }
                    Err((_, diagnostics)) => {
                        let first = &diagnostics[0];
                        format!("error {} {}", first.code, first.message)
                    }
                };
                let direct = direct(function, &config);
                assert!(
                    engine == direct,
                    "{} {} under {config:?}:\nengine:\n{engine}\nplanner:\n{direct}",
                    path.display(),
                    function.name
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 1000, "{compared} plans compared");
}
