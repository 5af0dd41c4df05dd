//! Firewall tests in the rust-analyzer style: after an edit, snapshot which queries
//! re-execute. A `plan(...)` line is a function being planned (or fetched from the store);
//! everything else is per-file bookkeeping.

use std::path::Path;
use std::sync::Arc;

use expect_test::{Expect, expect};
use memreuse::backend::Backend;
use memreuse::db::{Planner, Workspace};
use memreuse::plan::PlanConfig;
use memreuse::store::Cache;
use memreuse::system::MemorySystem;

const ORIGINAL: &str = include_str!("data/incremental/three_functions.py");

struct Fixture {
    ws: Workspace,
}

impl Fixture {
    fn new() -> Fixture {
        let ws = Workspace::with_log(
            Arc::new(Cache::disabled()),
            PlanConfig::default(),
            Planner::Pypto,
        );
        let mut fixture = Fixture { ws };
        fixture.set(ORIGINAL);
        fixture.run();
        fixture
    }

    fn set(&mut self, text: &str) {
        self.ws.set_file(Path::new("k.py"), text, false);
    }

    /// Plans the file and returns the executed queries, one per line.
    fn run(&mut self) -> String {
        let file = self
            .ws
            .set_file(Path::new("k.py"), &self.current_text(), false);
        let outcomes = self.ws.plan(&MemorySystem::default(), &[file], 1, &|| {});
        assert!(
            matches!(outcomes[0].status, memreuse::db::FileStatus::Planned { .. }),
            "{:?}",
            outcomes[0].status
        );
        self.ws.executed().join("\n")
    }

    fn current_text(&self) -> String {
        self.ws.text_of(Path::new("k.py")).unwrap_or_default()
    }

    fn check(&mut self, edit: impl FnOnce(&str) -> String, expected: Expect) {
        let text = edit(&self.current_text());
        self.set(&text);
        expected.assert_eq(&self.run());
    }
}

fn edit_inside_scale_kernel(text: &str) -> String {
    text.replace(
        "pl.tile.muls(tile_src, 0.5)",
        "pl.tile.muls(tile_src, 0.25)",
    )
}

#[test]
fn cold_run_plans_every_function() {
    let mut ws = Workspace::with_log(
        Arc::new(Cache::disabled()),
        PlanConfig::default(),
        Planner::Pypto,
    );
    let file = ws.set_file(Path::new("k.py"), ORIGINAL, false);
    ws.plan(&MemorySystem::default(), &[file], 1, &|| {});
    expect![[r#"
        file_result(k.py)
        file_items(k.py)
        manifest(k.py)
        plan(k.py::add_kernel)
        plan(k.py::scale_kernel)
        plan(k.py::main)"#]]
    .assert_eq(&ws.executed().join("\n"));
}

#[test]
fn edit_inside_one_function_replans_only_it() {
    Fixture::new().check(
        edit_inside_scale_kernel,
        expect![[r#"
            file_items(k.py)
            plan(k.py::scale_kernel)
            file_result(k.py)"#]],
    );
}

#[test]
fn comment_and_whitespace_above_a_function_replan_nothing() {
    Fixture::new().check(
        |t| {
            t.replace(
                "    @pl.function(type=pl.FunctionType.InCore)\n    def scale_kernel",
                "\n    # scales the sum\n\n    @pl.function(type=pl.FunctionType.InCore)\n    def scale_kernel",
            )
        },
        expect!["file_items(k.py)"],
    );
}

#[test]
fn reordering_functions_replans_nothing() {
    Fixture::new().check(
        |t| {
            let start = t
                .find("    @pl.function(type=pl.FunctionType.InCore)\n    def add_kernel")
                .unwrap();
            let middle = t
                .find("    @pl.function(type=pl.FunctionType.InCore)\n    def scale_kernel")
                .unwrap();
            let end = t
                .find("    @pl.function(type=pl.FunctionType.Orchestration)")
                .unwrap();
            format!(
                "{}{}{}{}",
                &t[..start],
                &t[middle..end],
                &t[start..middle],
                &t[end..]
            )
        },
        expect![[r#"
            file_items(k.py)
            file_result(k.py)"#]],
    );
}

#[test]
fn renaming_a_function_replans_only_it() {
    Fixture::new().check(
        |t| t.replace("def scale_kernel(", "def scale_rows("),
        expect![[r#"
            file_items(k.py)
            file_result(k.py)
            plan(k.py::scale_rows)"#]],
    );
}

#[test]
fn an_edit_reverted_before_the_next_run_replans_nothing() {
    let mut fixture = Fixture::new();
    fixture.set(&edit_inside_scale_kernel(ORIGINAL));
    fixture.check(|_| ORIGINAL.to_string(), expect!["file_items(k.py)"]);
}

#[test]
fn changing_the_backend_replans_everything() {
    let mut fixture = Fixture::new();
    fixture.ws.set_settings(
        PlanConfig {
            backend: Backend::Ascend910B,
            ..PlanConfig::default()
        },
        Planner::Pypto,
    );
    expect![[r#"
        plan(k.py::add_kernel)
        parse_file(k.py)
        file_result(k.py)
        plan(k.py::scale_kernel)
        plan(k.py::main)"#]]
    .assert_eq(&fixture.run());
}
