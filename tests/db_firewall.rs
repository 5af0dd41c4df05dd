//! Firewall tests in the rust-analyzer style: after an edit or a configuration change,
//! snapshot which queries re-execute. Per file, `parse_file` parses (once per change of its
//! text). Per function, `plan(...)` is the store layer (a plan fetched from the cache or
//! computed), `checked_plan` runs both checkers (and repairs), `parsed_function` finds the
//! function in its file's parse (it re-runs after any edit of the file, and only a change of
//! the function's IR gets past it), and the stages are `source` (the function as the stages
//! plan it), `prepared` (Step 0), `lifetimes`,
//! `sharing_rules`, `packing(function, space)` (as if the capacity were unlimited),
//! `fitted(function, space)` (its capacity check), `fixed` (rules §7), `layout`,
//! `overflow(function, space)` (§8's capacity check) and `addressed`; the offset planner's
//! (`--planner dsa`) are `offset_input` (its post-steps), per space `offset_pairs` (the
//! pairs kept apart, which read the capacity), `offset_solution` (the solver) and
//! `offset_layout` (held to the capacity), and `offset_plan`; `space_capacity`,
//! `capacity_known` and `capacity_aware` read the configuration; everything else is per-file
//! bookkeeping. Each case runs without and with a plan cache, and after each configuration
//! change the plans must equal a fresh database's.

use std::path::Path;
use std::sync::Arc;

use expect_test::{Expect, expect};
use memreuse::backend::Backend;
use memreuse::db::{OutcomeDetail, StageRetention, Workspace};
use memreuse::ir::MemSpace;
use memreuse::plan::PlanConfig;
use memreuse::store::{Cache, MemoryStore};
use memreuse::system::MemorySystem;

const ORIGINAL: &str = include_str!("data/incremental/three_functions.py");
const FOUR_SPACES: &str = include_str!("data/incremental/matmul_four_spaces.py");

struct Fixture {
    ws: Workspace,
}

impl Fixture {
    fn new() -> Fixture {
        Fixture::of(ORIGINAL, Cache::disabled(), PlanConfig::default())
    }

    /// With a plan cache (in memory, shared by nothing else).
    fn cached() -> Fixture {
        Fixture::of(ORIGINAL, cache(), PlanConfig::default())
    }

    fn of(text: &str, cache: Cache, config: PlanConfig) -> Fixture {
        let ws = Workspace::with_log(Arc::new(cache), config);
        let mut fixture = Fixture { ws };
        fixture.set(text);
        fixture.run();
        fixture
    }

    fn configure(&mut self, config: PlanConfig, expected: Expect) {
        self.ws.set_settings(config);
        expected.assert_eq(&self.run());
        assert_eq!(
            self.results(),
            Fixture::of(&self.current_text(), Cache::disabled(), config).results(),
            "after the change, the plans of a fresh database of that configuration"
        );
    }

    /// Every function's plan (text and report) or failure, as planned last.
    fn results(&mut self) -> Vec<String> {
        let file = self
            .ws
            .set_file(Path::new("k.py"), &self.current_text(), false);
        let mut outcome = self
            .ws
            .plan(&MemorySystem::default(), &[file], 1, &|| {})
            .remove(0);
        self.ws.add_report_detail(&mut outcome, None);
        let texts = self.ws.planned_texts(file);
        let memreuse::db::FileStatus::Planned { functions, .. } = &*outcome.status else {
            panic!("{:?}", outcome.status);
        };
        // Not part of the snapshot: only the plans are compared.
        self.ws.executed();
        functions
            .iter()
            .zip(texts)
            .map(|(f, text)| {
                let result = f.result.as_ref().map(|p| (&p.report, p.planned_digest));
                format!("{:?}\n{result:?}\n{text:?}", f.name)
            })
            .collect()
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
            matches!(
                *outcomes[0].status,
                memreuse::db::FileStatus::Planned { .. }
            ),
            "{:?}",
            outcomes[0].status
        );
        self.ws.flush().expect("memory stores do not fail");
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

/// The two kernels in the other order.
fn swap_the_kernels(t: &str) -> String {
    let start = t
        .find("    @pl.function(type=pl.FunctionType.InCore)\n    def add_kernel")
        .expect("the fixture has add_kernel");
    let middle = t
        .find("    @pl.function(type=pl.FunctionType.InCore)\n    def scale_kernel")
        .expect("the fixture has scale_kernel");
    let end = t
        .find("    @pl.function(type=pl.FunctionType.Orchestration)")
        .expect("the fixture has main");
    format!(
        "{}{}{}{}",
        &t[..start],
        &t[middle..end],
        &t[start..middle],
        &t[end..]
    )
}

fn edit_inside_scale_kernel(text: &str) -> String {
    text.replace(
        "pl.tile.muls(tile_src, 0.5)",
        "pl.tile.muls(tile_src, 0.25)",
    )
}

#[test]
fn cold_run_plans_every_function() {
    let mut ws = Workspace::with_log(Arc::new(Cache::disabled()), PlanConfig::default());
    let file = ws.set_file(Path::new("k.py"), ORIGINAL, false);
    ws.plan(&MemorySystem::default(), &[file], 1, &|| {});
    expect![[r#"
        file_result(k.py)
        file_items(k.py)
        manifest(k.py)
        parse_file(k.py)
        plan(k.py::add_kernel)
        checked_plan(k.py::add_kernel)
        source(k.py::add_kernel)
        parsed_function(k.py::add_kernel)
        addressed(k.py::add_kernel)
        fixed(k.py::add_kernel)
        prepared(k.py::add_kernel)
        lifetimes(k.py::add_kernel)
        sharing_rules(k.py::add_kernel)
        fitted(k.py::add_kernel, Vec)
        packing(k.py::add_kernel, Vec)
        capacity_known(Vec)
        space_capacity(Vec)
        capacity_aware()
        plan(k.py::scale_kernel)
        checked_plan(k.py::scale_kernel)
        source(k.py::scale_kernel)
        parsed_function(k.py::scale_kernel)
        addressed(k.py::scale_kernel)
        fixed(k.py::scale_kernel)
        prepared(k.py::scale_kernel)
        lifetimes(k.py::scale_kernel)
        sharing_rules(k.py::scale_kernel)
        fitted(k.py::scale_kernel, Vec)
        packing(k.py::scale_kernel, Vec)
        plan(k.py::main)
        checked_plan(k.py::main)
        source(k.py::main)
        parsed_function(k.py::main)
        addressed(k.py::main)"#]]
    .assert_eq(&ws.executed().join("\n"));
}

#[test]
fn edit_inside_one_function_replans_only_it() {
    Fixture::new().check(
        edit_inside_scale_kernel,
        expect![[r#"
            parse_file(k.py)
            file_items(k.py)
            parsed_function(k.py::add_kernel)
            plan(k.py::scale_kernel)
            parsed_function(k.py::scale_kernel)
            source(k.py::scale_kernel)
            checked_plan(k.py::scale_kernel)
            addressed(k.py::scale_kernel)
            prepared(k.py::scale_kernel)
            fixed(k.py::scale_kernel)
            lifetimes(k.py::scale_kernel)
            sharing_rules(k.py::scale_kernel)
            packing(k.py::scale_kernel, Vec)
            fitted(k.py::scale_kernel, Vec)
            file_result(k.py)
            parsed_function(k.py::main)"#]],
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
        expect![[r#"
            parse_file(k.py)
            file_items(k.py)
            parsed_function(k.py::add_kernel)
            parsed_function(k.py::scale_kernel)
            parsed_function(k.py::main)"#]],
    );
}

#[test]
fn reordering_functions_replans_nothing() {
    Fixture::new().check(
        swap_the_kernels,
        expect![[r#"
            parse_file(k.py)
            file_items(k.py)
            file_result(k.py)
            parsed_function(k.py::scale_kernel)
            parsed_function(k.py::add_kernel)
            parsed_function(k.py::main)"#]],
    );
}

#[test]
fn renaming_a_function_replans_only_it() {
    Fixture::new().check(
        |t| t.replace("def scale_kernel(", "def scale_rows("),
        expect![[r#"
            parse_file(k.py)
            file_items(k.py)
            file_result(k.py)
            parsed_function(k.py::add_kernel)
            plan(k.py::scale_rows)
            checked_plan(k.py::scale_rows)
            source(k.py::scale_rows)
            parsed_function(k.py::scale_rows)
            addressed(k.py::scale_rows)
            fixed(k.py::scale_rows)
            prepared(k.py::scale_rows)
            lifetimes(k.py::scale_rows)
            sharing_rules(k.py::scale_rows)
            fitted(k.py::scale_rows, Vec)
            packing(k.py::scale_rows, Vec)
            parsed_function(k.py::main)"#]],
    );
}

#[test]
fn an_edit_reverted_before_the_next_run_replans_nothing() {
    let mut fixture = Fixture::new();
    fixture.set(&edit_inside_scale_kernel(ORIGINAL));
    fixture.check(
        |_| ORIGINAL.to_string(),
        expect![[r#"
        parse_file(k.py)
        file_items(k.py)
        parsed_function(k.py::add_kernel)
        parsed_function(k.py::scale_kernel)
        parsed_function(k.py::main)"#]],
    );
}

#[test]
fn changing_the_backend_replans_everything() {
    let mut fixture = Fixture::new();
    fixture.ws.set_settings(PlanConfig {
        backend: Backend::Ascend910B,
        ..PlanConfig::default()
    });
    expect![[r#"
        plan(k.py::add_kernel)
        checked_plan(k.py::add_kernel)
        fixed(k.py::add_kernel)
        sharing_rules(k.py::add_kernel)
        space_capacity(Vec)
        capacity_known(Vec)
        packing(k.py::add_kernel, Vec)
        fitted(k.py::add_kernel, Vec)
        capacity_aware()
        addressed(k.py::add_kernel)
        layout(k.py::add_kernel)
        overflow(k.py::add_kernel, Vec)
        file_result(k.py)
        plan(k.py::scale_kernel)
        checked_plan(k.py::scale_kernel)
        fixed(k.py::scale_kernel)
        sharing_rules(k.py::scale_kernel)
        packing(k.py::scale_kernel, Vec)
        fitted(k.py::scale_kernel, Vec)
        addressed(k.py::scale_kernel)
        layout(k.py::scale_kernel)
        overflow(k.py::scale_kernel, Vec)
        plan(k.py::main)
        checked_plan(k.py::main)"#]]
    .assert_eq(&fixture.run());
}

fn cache() -> Cache {
    Cache::new(Box::new(MemoryStore::default()))
}

fn with_backend(backend: Backend) -> PlanConfig {
    PlanConfig {
        backend,
        ..PlanConfig::default()
    }
}

fn with_capacity(config: PlanConfig, space: MemSpace, bytes: i64) -> PlanConfig {
    let mut config = config;
    config.capacity_overrides[space as usize] = Some(bytes);
    config
}

#[test]
fn with_a_cache_an_edit_inside_one_function_replans_only_it() {
    Fixture::cached().check(
        edit_inside_scale_kernel,
        expect![[r#"
            manifest(k.py)
            parse_file(k.py)
            file_items(k.py)
            parsed_function(k.py::add_kernel)
            plan(k.py::scale_kernel)
            parsed_function(k.py::scale_kernel)
            source(k.py::scale_kernel)
            checked_plan(k.py::scale_kernel)
            addressed(k.py::scale_kernel)
            prepared(k.py::scale_kernel)
            fixed(k.py::scale_kernel)
            lifetimes(k.py::scale_kernel)
            sharing_rules(k.py::scale_kernel)
            packing(k.py::scale_kernel, Vec)
            fitted(k.py::scale_kernel, Vec)
            file_result(k.py)
            parsed_function(k.py::main)"#]],
    );
}

#[test]
fn with_a_cache_comments_above_a_function_replan_nothing() {
    Fixture::cached().check(
        |t| t.replace("    @pl.function(type=pl.FunctionType.InCore)\n    def scale_kernel", "\n    # scales\n    @pl.function(type=pl.FunctionType.InCore)\n    def scale_kernel"),
        expect![[r#"
            manifest(k.py)
            parse_file(k.py)
            file_items(k.py)
            file_result(k.py)
            parsed_function(k.py::add_kernel)
            parsed_function(k.py::scale_kernel)
            parsed_function(k.py::main)"#]],
    );
}

#[test]
fn with_a_cache_reordering_replans_nothing() {
    Fixture::cached().check(
        swap_the_kernels,
        expect![[r#"
            manifest(k.py)
            parse_file(k.py)
            file_items(k.py)
            file_result(k.py)
            parsed_function(k.py::scale_kernel)
            parsed_function(k.py::add_kernel)
            parsed_function(k.py::main)"#]],
    );
}

#[test]
fn an_edit_reverted_after_it_was_planned_replans_only_that_function() {
    let mut fixture = Fixture::new();
    fixture.check(
        edit_inside_scale_kernel,
        expect![[r#"
            parse_file(k.py)
            file_items(k.py)
            parsed_function(k.py::add_kernel)
            plan(k.py::scale_kernel)
            parsed_function(k.py::scale_kernel)
            source(k.py::scale_kernel)
            checked_plan(k.py::scale_kernel)
            addressed(k.py::scale_kernel)
            prepared(k.py::scale_kernel)
            fixed(k.py::scale_kernel)
            lifetimes(k.py::scale_kernel)
            sharing_rules(k.py::scale_kernel)
            packing(k.py::scale_kernel, Vec)
            fitted(k.py::scale_kernel, Vec)
            file_result(k.py)
            parsed_function(k.py::main)"#]],
    );
    fixture.check(
        |_| ORIGINAL.to_string(),
        expect![[r#"
            parse_file(k.py)
            file_items(k.py)
            parsed_function(k.py::add_kernel)
            plan(k.py::scale_kernel)
            parsed_function(k.py::scale_kernel)
            source(k.py::scale_kernel)
            checked_plan(k.py::scale_kernel)
            addressed(k.py::scale_kernel)
            prepared(k.py::scale_kernel)
            fixed(k.py::scale_kernel)
            lifetimes(k.py::scale_kernel)
            sharing_rules(k.py::scale_kernel)
            packing(k.py::scale_kernel, Vec)
            fitted(k.py::scale_kernel, Vec)
            file_result(k.py)
            parsed_function(k.py::main)"#]],
    );
}

#[test]
fn with_a_cache_an_edit_reverted_after_it_was_planned_is_served_from_it() {
    let mut fixture = Fixture::cached();
    fixture.check(
        edit_inside_scale_kernel,
        expect![[r#"
            manifest(k.py)
            parse_file(k.py)
            file_items(k.py)
            parsed_function(k.py::add_kernel)
            plan(k.py::scale_kernel)
            parsed_function(k.py::scale_kernel)
            source(k.py::scale_kernel)
            checked_plan(k.py::scale_kernel)
            addressed(k.py::scale_kernel)
            prepared(k.py::scale_kernel)
            fixed(k.py::scale_kernel)
            lifetimes(k.py::scale_kernel)
            sharing_rules(k.py::scale_kernel)
            packing(k.py::scale_kernel, Vec)
            fitted(k.py::scale_kernel, Vec)
            file_result(k.py)
            parsed_function(k.py::main)"#]],
    );
    fixture.check(
        |_| ORIGINAL.to_string(),
        expect![[r#"
        manifest(k.py)
        file_items(k.py)
        file_result(k.py)"#]],
    );
}

#[test]
fn a_capacity_change_of_one_space_repacks_only_that_space() {
    let config = with_backend(Backend::Ascend910B);
    let mut fixture = Fixture::of(FOUR_SPACES, Cache::disabled(), config);
    fixture.configure(
        with_capacity(config, MemSpace::Acc, 120 * 1024),
        expect![[r#"
            plan(k.py::matmul_kloop)
            space_capacity(Mat)
            space_capacity(Left)
            space_capacity(Right)
            space_capacity(Acc)
            capacity_known(Acc)
            fitted(k.py::matmul_kloop, Acc)
            capacity_aware()
            overflow(k.py::matmul_kloop, Acc)
            file_result(k.py)"#]],
    );
}

/// With a cache, a capacity at which every plan still fits is served by the file's manifest
/// stored for any capacities (its key names none): nothing is planned, and only the report's
/// capacities are read.
#[test]
fn with_a_cache_a_capacity_change_that_keeps_every_plan_is_served_from_the_store() {
    let config = with_backend(Backend::Ascend910B);
    let mut fixture = Fixture::of(FOUR_SPACES, cache(), config);
    fixture.configure(
        with_capacity(config, MemSpace::Acc, 120 * 1024),
        expect![[r#"
            manifest(k.py)
            file_items(k.py)
            file_result(k.py)
            space_capacity(Mat)
            space_capacity(Left)
            space_capacity(Right)
            space_capacity(Acc)"#]],
    );
}

/// After an edit of one function, in a new process at another capacity: the file's manifest
/// misses, and the functions not edited are served by their plans stored for any capacities;
/// only the edited one is planned.
#[test]
fn with_a_cache_a_capacity_change_serves_unedited_functions_from_plans_for_any_capacity() {
    let store = MemoryStore::default();
    let config = with_backend(Backend::Ascend910B);
    Fixture::of(ORIGINAL, Cache::new(Box::new(store.clone())), config);
    let smaller = with_capacity(config, MemSpace::Vec, 150 * 1024);
    let ws = Workspace::with_log(Arc::new(Cache::new(Box::new(store))), smaller);
    let mut fixture = Fixture { ws };
    fixture.set(&edit_inside_scale_kernel(ORIGINAL));
    expect![[r#"
        file_result(k.py)
        file_items(k.py)
        manifest(k.py)
        parse_file(k.py)
        plan(k.py::add_kernel)
        space_capacity(Vec)
        plan(k.py::scale_kernel)
        checked_plan(k.py::scale_kernel)
        source(k.py::scale_kernel)
        parsed_function(k.py::scale_kernel)
        addressed(k.py::scale_kernel)
        fixed(k.py::scale_kernel)
        prepared(k.py::scale_kernel)
        lifetimes(k.py::scale_kernel)
        sharing_rules(k.py::scale_kernel)
        fitted(k.py::scale_kernel, Vec)
        packing(k.py::scale_kernel, Vec)
        capacity_known(Vec)
        capacity_aware()
        layout(k.py::scale_kernel)
        overflow(k.py::scale_kernel, Vec)
        plan(k.py::main)"#]]
    .assert_eq(&fixture.run());
    assert_eq!(
        fixture.results(),
        Fixture::of(&fixture.current_text(), Cache::disabled(), smaller).results(),
        "the plans of a fresh database of that configuration"
    );
}

/// A capacity too small for the accumulator: the capacity check packs that space again
/// (which needs the stages before it, evicted or not) and the plan after it changes.
#[test]
fn a_capacity_change_that_changes_the_plan_replans_after_that_space() {
    let config = with_backend(Backend::Ascend910B);
    let mut fixture = Fixture::of(FOUR_SPACES, Cache::disabled(), config);
    fixture.configure(
        with_capacity(config, MemSpace::Acc, 1024),
        expect![[r#"
        plan(k.py::matmul_kloop)
        space_capacity(Mat)
        space_capacity(Left)
        space_capacity(Right)
        space_capacity(Acc)
        capacity_known(Acc)
        fitted(k.py::matmul_kloop, Acc)
        fixed(k.py::matmul_kloop)
        capacity_aware()
        overflow(k.py::matmul_kloop, Acc)
        addressed(k.py::matmul_kloop)
        checked_plan(k.py::matmul_kloop)
        file_result(k.py)"#]],
    );
}

#[test]
fn with_a_cache_a_capacity_change_that_changes_the_plan_replans_after_that_space() {
    let config = with_backend(Backend::Ascend910B);
    let mut fixture = Fixture::of(FOUR_SPACES, cache(), config);
    fixture.configure(
        with_capacity(config, MemSpace::Acc, 1024),
        expect![[r#"
        manifest(k.py)
        plan(k.py::matmul_kloop)
        space_capacity(Mat)
        space_capacity(Left)
        space_capacity(Right)
        space_capacity(Acc)
        capacity_known(Acc)
        fitted(k.py::matmul_kloop, Acc)
        fixed(k.py::matmul_kloop)
        capacity_aware()
        overflow(k.py::matmul_kloop, Acc)
        addressed(k.py::matmul_kloop)
        checked_plan(k.py::matmul_kloop)
        file_result(k.py)"#]],
    );
}

/// Back to a configuration planned before: with a cache, its plans come from the store.
#[test]
fn with_a_cache_a_capacity_change_undone_is_served_from_it() {
    let config = with_backend(Backend::Ascend910B);
    let mut fixture = Fixture::of(FOUR_SPACES, cache(), config);
    fixture
        .ws
        .set_settings(with_capacity(config, MemSpace::Acc, 1024));
    fixture.run();
    fixture.configure(
        config,
        expect![[r#"
            manifest(k.py)
            file_items(k.py)
            file_result(k.py)
            space_capacity(Mat)
            space_capacity(Left)
            space_capacity(Right)
            space_capacity(Acc)"#]],
    );
}

#[test]
fn with_a_cache_changing_the_backend_keeps_the_parse_and_lifetimes() {
    let mut fixture = Fixture::cached();
    fixture.configure(
        with_backend(Backend::Ascend910B),
        expect![[r#"
            manifest(k.py)
            plan(k.py::add_kernel)
            checked_plan(k.py::add_kernel)
            fixed(k.py::add_kernel)
            sharing_rules(k.py::add_kernel)
            space_capacity(Vec)
            capacity_known(Vec)
            packing(k.py::add_kernel, Vec)
            fitted(k.py::add_kernel, Vec)
            capacity_aware()
            addressed(k.py::add_kernel)
            layout(k.py::add_kernel)
            overflow(k.py::add_kernel, Vec)
            file_result(k.py)
            plan(k.py::scale_kernel)
            checked_plan(k.py::scale_kernel)
            fixed(k.py::scale_kernel)
            sharing_rules(k.py::scale_kernel)
            packing(k.py::scale_kernel, Vec)
            fitted(k.py::scale_kernel, Vec)
            addressed(k.py::scale_kernel)
            layout(k.py::scale_kernel)
            overflow(k.py::scale_kernel, Vec)
            plan(k.py::main)
            checked_plan(k.py::main)"#]],
    );
}

#[test]
fn toggling_addresses_reruns_only_addressing_and_the_checkers() {
    let config = with_backend(Backend::Ascend910B);
    let mut fixture = Fixture::of(FOUR_SPACES, Cache::disabled(), config);
    let addressed = PlanConfig {
        assign_addresses: true,
        ..config
    };
    fixture.configure(
        addressed,
        expect![[r#"
        plan(k.py::matmul_kloop)
        checked_plan(k.py::matmul_kloop)
        addressed(k.py::matmul_kloop)
        file_result(k.py)"#]],
    );
}

#[test]
fn with_a_cache_toggling_addresses_reruns_only_addressing_and_the_checkers() {
    let config = with_backend(Backend::Ascend910B);
    let mut fixture = Fixture::of(FOUR_SPACES, cache(), config);
    let addressed = PlanConfig {
        assign_addresses: true,
        ..config
    };
    fixture.configure(
        addressed,
        expect![[r#"
            manifest(k.py)
            plan(k.py::matmul_kloop)
            checked_plan(k.py::matmul_kloop)
            addressed(k.py::matmul_kloop)
            file_result(k.py)"#]],
    );
}

/// `explain` after a plan reads the memoized stages (nothing re-executes) and says what
/// explaining the parsed function from scratch says.
#[test]
fn explain_reads_the_memoized_stages() {
    let config = with_backend(Backend::Ascend910B);
    let mut fixture = Fixture::of(FOUR_SPACES, Cache::disabled(), config);
    let file = fixture.ws.set_file(Path::new("k.py"), FOUR_SPACES, false);
    let program = memreuse::ir::parse_program(FOUR_SPACES).expect("the fixture parses");
    for (a, b) in [
        ("a_mat_0", "a_mat"),
        ("a_mat_0", "b_mat_0"),
        ("a_left_0", "acc_0"),
    ] {
        let explained = fixture
            .ws
            .explain(file, "matmul_kloop", (a, b))
            .expect("the function is in the file");
        expect![[r#""#]].assert_eq(&fixture.ws.executed().join("\n"));
        let direct =
            memreuse::plan::explain::explain(&program.functions[0], FOUR_SPACES, &config, a, b);
        assert!(explained.is_ok(), "{a} and {b}: {explained:?}");
        assert_eq!(explained, direct, "{a} and {b}");
    }
    assert_eq!(
        fixture.ws.explain(file, "no_such_function", ("a", "b")),
        None
    );
}

fn with_the_offset_planner(config: PlanConfig) -> PlanConfig {
    PlanConfig {
        planner: memreuse::plan::Planner::Dsa,
        ..config
    }
}

/// The offset planner reads the memoized stages: PyPTO's (its fallback) and its own.
#[test]
fn with_the_offset_planner_an_edit_runs_its_stages_and_pypto_s() {
    let config = with_the_offset_planner(with_backend(Backend::Ascend910B));
    let mut fixture = Fixture::of(FOUR_SPACES, Cache::disabled(), config);
    fixture.check(
        |t| t.replace("acc_0", "acc_zero"),
        expect![[r#"
            parse_file(k.py)
            file_items(k.py)
            plan(k.py::matmul_kloop)
            parsed_function(k.py::matmul_kloop)
            source(k.py::matmul_kloop)
            checked_plan(k.py::matmul_kloop)
            offset_plan(k.py::matmul_kloop)
            prepared(k.py::matmul_kloop)
            fixed(k.py::matmul_kloop)
            lifetimes(k.py::matmul_kloop)
            sharing_rules(k.py::matmul_kloop)
            packing(k.py::matmul_kloop, Mat)
            fitted(k.py::matmul_kloop, Mat)
            packing(k.py::matmul_kloop, Left)
            fitted(k.py::matmul_kloop, Left)
            packing(k.py::matmul_kloop, Right)
            fitted(k.py::matmul_kloop, Right)
            packing(k.py::matmul_kloop, Acc)
            fitted(k.py::matmul_kloop, Acc)
            layout(k.py::matmul_kloop)
            offset_input(k.py::matmul_kloop)
            offset_pairs(k.py::matmul_kloop, Mat)
            offset_solution(k.py::matmul_kloop, Mat)
            offset_layout(k.py::matmul_kloop, Mat)
            offset_pairs(k.py::matmul_kloop, Left)
            offset_solution(k.py::matmul_kloop, Left)
            offset_layout(k.py::matmul_kloop, Left)
            offset_pairs(k.py::matmul_kloop, Right)
            offset_solution(k.py::matmul_kloop, Right)
            offset_layout(k.py::matmul_kloop, Right)
            offset_pairs(k.py::matmul_kloop, Acc)
            offset_solution(k.py::matmul_kloop, Acc)
            offset_layout(k.py::matmul_kloop, Acc)
            file_result(k.py)"#]],
    );
}

/// A capacity change of one space derives that space's layout problem again (how deep its
/// pipeline groups go) and holds the solver's layout to the new capacity, as PyPTO's packing
/// of it (the fallback) is checked; the solver does not run again, and where the layout still
/// fits, nothing after it re-runs.
#[test]
fn with_the_offset_planner_a_capacity_change_of_one_space_rechecks_only_that_space() {
    let config = with_the_offset_planner(with_backend(Backend::Ascend910B));
    let mut fixture = Fixture::of(FOUR_SPACES, Cache::disabled(), config);
    fixture.configure(
        with_capacity(config, MemSpace::Acc, 120 * 1024),
        expect![[r#"
            plan(k.py::matmul_kloop)
            space_capacity(Mat)
            space_capacity(Left)
            space_capacity(Right)
            space_capacity(Acc)
            capacity_known(Acc)
            fitted(k.py::matmul_kloop, Acc)
            capacity_aware()
            overflow(k.py::matmul_kloop, Acc)
            offset_pairs(k.py::matmul_kloop, Acc)
            offset_layout(k.py::matmul_kloop, Acc)
            file_result(k.py)"#]],
    );
}

/// The offset planner addresses every function: `--addresses` changes none of its stages.
#[test]
fn with_the_offset_planner_toggling_addresses_lays_out_nothing() {
    let config = with_the_offset_planner(with_backend(Backend::Ascend910B));
    let mut fixture = Fixture::of(FOUR_SPACES, Cache::disabled(), config);
    let addressed = PlanConfig {
        assign_addresses: true,
        ..config
    };
    fixture.configure(
        addressed,
        expect![[r#"
            plan(k.py::matmul_kloop)
            file_result(k.py)"#]],
    );
}

/// Switching from PyPTO's planner to the offset planner keeps every PyPTO stage (its
/// fallback).
#[test]
fn switching_to_the_offset_planner_keeps_the_pypto_stages() {
    let config = with_backend(Backend::Ascend910B);
    let mut fixture = Fixture::of(FOUR_SPACES, Cache::disabled(), config);
    fixture.configure(
        with_the_offset_planner(config),
        expect![[r#"
            plan(k.py::matmul_kloop)
            checked_plan(k.py::matmul_kloop)
            offset_plan(k.py::matmul_kloop)
            offset_input(k.py::matmul_kloop)
            offset_layout(k.py::matmul_kloop, Mat)
            offset_solution(k.py::matmul_kloop, Mat)
            offset_pairs(k.py::matmul_kloop, Mat)
            offset_layout(k.py::matmul_kloop, Left)
            offset_solution(k.py::matmul_kloop, Left)
            offset_pairs(k.py::matmul_kloop, Left)
            offset_layout(k.py::matmul_kloop, Right)
            offset_solution(k.py::matmul_kloop, Right)
            offset_pairs(k.py::matmul_kloop, Right)
            offset_layout(k.py::matmul_kloop, Acc)
            offset_solution(k.py::matmul_kloop, Acc)
            offset_pairs(k.py::matmul_kloop, Acc)
            file_result(k.py)"#]],
    );
}

/// With a cache, the plan at the new capacity is looked up (the offset planner's plans are
/// stored for their own capacities), misses, and comes from the stages as without one.
#[test]
fn with_a_cache_with_the_offset_planner_a_capacity_change_rechecks_only_that_space() {
    let config = with_the_offset_planner(with_backend(Backend::Ascend910B));
    let mut fixture = Fixture::of(FOUR_SPACES, cache(), config);
    fixture.configure(
        with_capacity(config, MemSpace::Acc, 120 * 1024),
        expect![[r#"
            manifest(k.py)
            plan(k.py::matmul_kloop)
            space_capacity(Mat)
            space_capacity(Left)
            space_capacity(Right)
            space_capacity(Acc)
            capacity_known(Acc)
            fitted(k.py::matmul_kloop, Acc)
            capacity_aware()
            overflow(k.py::matmul_kloop, Acc)
            offset_pairs(k.py::matmul_kloop, Acc)
            offset_layout(k.py::matmul_kloop, Acc)
            file_result(k.py)"#]],
    );
}

/// Plans `a.py` and `b.py` (the same text) one after the other under `retention`, then asks
/// why two tiles of `a.py::add_kernel` share or not: the queries that explaining re-executes.
fn explain_after_planning_two_files(retention: StageRetention) -> String {
    let mut ws = Workspace::with_log(Arc::new(Cache::disabled()), PlanConfig::default());
    ws.set_stage_retention(retention);
    let a = ws.set_file(Path::new("a.py"), ORIGINAL, false);
    let b = ws.set_file(Path::new("b.py"), ORIGINAL, false);
    ws.plan(&MemorySystem::default(), &[a, b], 1, &|| {});
    ws.executed();
    let verdict = ws.explain(a, "add_kernel", ("tile_a", "tile_sum"));
    assert!(matches!(verdict, Some(Ok(_))), "{verdict:?}");
    ws.executed().join("\n")
}

#[test]
fn a_workspace_keeps_recent_functions_stages() {
    expect![""].assert_eq(&explain_after_planning_two_files(StageRetention::Recent));
}

#[test]
fn a_one_shot_workspace_keeps_no_stage_after_its_file() {
    expect![[r#"
        source(a.py::add_kernel)
        parsed_function(a.py::add_kernel)
        parse_file(a.py)
        prepared(a.py::add_kernel)
        lifetimes(a.py::add_kernel)
        sharing_rules(a.py::add_kernel)
        addressed(a.py::add_kernel)
        fixed(a.py::add_kernel)
        fitted(a.py::add_kernel, Vec)
        packing(a.py::add_kernel, Vec)
        capacity_known(Vec)
        capacity_aware()"#]]
    .assert_eq(&explain_after_planning_two_files(StageRetention::OneShot));
}

/// A one-shot run parses each file once, whether it shows a summary or the detail
/// (`--emit json`): the parse is the one query the items and the plans read the functions
/// from.
#[test]
fn a_one_shot_run_parses_each_file_once() {
    for detail in [
        OutcomeDetail::Summary,
        OutcomeDetail::Detailed { lifetimes: true },
    ] {
        let mut ws = Workspace::with_log(Arc::new(Cache::disabled()), PlanConfig::default());
        ws.set_stage_retention(StageRetention::OneShot);
        ws.set_outcome_detail(detail);
        let a = ws.set_file(Path::new("a.py"), ORIGINAL, false);
        let b = ws.set_file(Path::new("b.py"), FOUR_SPACES, false);
        ws.plan(&MemorySystem::default(), &[a, b], 1, &|| {});
        let parses: Vec<String> = ws
            .executed()
            .into_iter()
            .filter(|query| query.starts_with("parse_file"))
            .collect();
        expect![[r#"
            parse_file(a.py)
            parse_file(b.py)"#]]
        .assert_eq(&parses.join("\n"));
    }
}
