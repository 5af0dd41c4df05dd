//! PyPTO's planning stages are composed in one place, `crates/plan/src/pipeline.rs`: the
//! plain plan, the engine's queries and the repair's trials all run that composition
//! (ARCHITECTURE.md, The pipeline). The stage functions are private to the planner crate,
//! which Cargo enforces for the other crates; inside it, this test holds that only the
//! pipeline (and the stages' own module, whose stages are built of their parts) calls them.

use std::path::Path;

#[path = "support/product_code.rs"]
mod product_code;

/// The stage functions of `plan::stages` that make up PyPTO's plan.
const STAGES: &[&str] = &[
    "prepare",
    "reserved_windows_if_called",
    "pack_unbounded",
    "pack_within",
    "finish",
    "finish_deferring",
    "report_rows",
    "report_realigned",
    "layout_reserved",
    "apply_layout",
];

/// Where the stages may be called: the composition, and the stages' own module.
const COMPOSITION: &str = "crates/plan/src/pipeline.rs";
const STAGES_MODULE: &str = "crates/plan/src/stages.rs";

/// The stage `code` calls, if any: a stage's name followed by `(`, not as a method, a
/// definition, or a pipeline stage of the same name (`pipeline::layout_reserved`).
fn stage_called(code: &str) -> Option<&'static str> {
    STAGES.iter().copied().find(|name| {
        code.match_indices(&format!("{name}(")).any(|(at, _)| {
            let before = &code[..at];
            let joined = before
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.');
            !joined && !before.ends_with("fn ") && !before.ends_with("pipeline::")
        })
    })
}

#[test]
fn only_the_pipeline_composes_the_stages() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let allowed = [COMPOSITION, STAGES_MODULE];
    let lines =
        product_code::product_code_lines(root, product_code::PRODUCT_DIRS, &root.join(COMPOSITION));
    let offenders: Vec<String> = lines
        .iter()
        .filter(|line| {
            !allowed
                .iter()
                .any(|a| line.place.starts_with(&format!("{a}:")))
        })
        .filter_map(|line| Some(format!("{}: {}", line.place, stage_called(&line.code)?)))
        .collect();
    assert!(
        offenders.is_empty(),
        "planning stages called outside {COMPOSITION} (ask the pipeline for the stage's \
         result instead):\n{}",
        offenders.join("\n")
    );
    // The composition does call them: the list names stages that exist.
    let composition = std::fs::read_to_string(root.join(COMPOSITION)).expect("readable");
    for stage in STAGES {
        let called = composition
            .lines()
            .any(|line| stage_called(line) == Some(stage));
        assert!(called, "{COMPOSITION} calls no stage `{stage}`");
    }
}

#[test]
fn the_detector_sees_calls_only() {
    assert_eq!(
        stage_called("    let plan = stages::finish(p, l);"),
        Some("finish")
    );
    assert_eq!(
        stage_called("finish_deferring(prepared, l)"),
        Some("finish_deferring")
    );
    assert_eq!(stage_called("    builder.finish()"), None);
    assert_eq!(
        stage_called("pub(crate) fn finish(prepared: Prepared,"),
        None
    );
    assert_eq!(stage_called("pipeline::layout_reserved(&stages, f)"), None);
    assert_eq!(stage_called("let_starving_reads_finish()"), None);
}
