//! The safe planner's repairs, one fixture per repair class: every `tests/data/repair/*.py`
//! is a program on which PyPTO's plan is unsafe. Its header gives the configuration
//! (`# memreuse-test: backend=… step0=on|off`) and the repairs expected, in order
//! (`# expect: repairs MR-R…`), and the hazards of the input itself it keeps
//! (`# expect: input hazards MR-W004`). The test requires that PyPTO's plan (`--exact`) fails
//! the checker, that the repaired plan passes it with exactly those repairs (or, with input
//! hazards, that its only findings are those of the values the input overwrites in place), and
//! that planning is deterministic; `<name>.out.py` snapshots the repaired program, the repairs
//! and the input hazards (bless with `UPDATE_EXPECT=1`).
//!
//! It also pins `--exact` to upstream's output byte for byte on real miscompiles of the
//! conformance subset (`tests/data/conformance/`).

use std::path::{Path, PathBuf};

use memreuse::backend::Backend;
use memreuse::diagnostics::{Diagnostic, Severity};
use memreuse::ir::{LineIndex, Program, parse_program, print_program};
use memreuse::plan::{PlanConfig, PlanReport};
use memreuse::repair::{is_input_hazard, is_repair, plan_program_checked, plan_program_repairs};
use memreuse::verify::{VerifyOptions, program_violations};
use memreuse_test_support::manifest_rows;

#[path = "support/input_hazards.rs"]
mod input_hazards;
use input_hazards::safe_plan;

fn fixtures() -> Vec<PathBuf> {
    fixtures_in("tests/data/repair")
}

/// The fixture programs in `dir` (relative to the repository), sorted.
fn fixtures_in(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("readable entry").path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "py") && !p.to_string_lossy().ends_with(".out.py")
        })
        .collect();
    files.sort();
    files
}

/// The configuration, the repairs expected and the input hazards expected.
fn header(text: &str) -> (PlanConfig, Vec<String>, Vec<String>) {
    let mut config = PlanConfig::default();
    let mut repairs = Vec::new();
    let mut hazards = Vec::new();
    for line in text.lines() {
        if let Some(settings) = line.strip_prefix("# memreuse-test:") {
            for setting in settings.split_whitespace() {
                match setting.split_once('=') {
                    Some(("backend", b)) => {
                        config.backend = Backend::from_name(b).expect("known backend")
                    }
                    Some(("step0", v)) => config.materialize_aliases = v == "on",
                    _ => panic!("unknown setting {setting}"),
                }
            }
        } else if let Some(codes) = line.strip_prefix("# expect: repairs") {
            repairs = codes.split_whitespace().map(str::to_string).collect();
        } else if let Some(codes) = line.strip_prefix("# expect: input hazards") {
            hazards = codes.split_whitespace().map(str::to_string).collect();
        }
    }
    (config, repairs, hazards)
}

fn options(backend: Backend) -> VerifyOptions {
    VerifyOptions {
        backend,
        ..VerifyOptions::default()
    }
}

/// The repaired program and its repairs, then its input hazards, as `file:line:col` lines.
fn repaired(program: &Program, config: &PlanConfig, file: &str, text: &str) -> (Program, String) {
    let (planned, reports) = safe_plan(file, program, config);
    report_lists_the_planned_buffers(&planned, &reports, file);
    let lines = LineIndex::new(text);
    let mut listed = String::new();
    let diagnostics = || reports.iter().flat_map(|r| &r.diagnostics);
    for d in diagnostics()
        .filter(|d| is_repair(d))
        .chain(diagnostics().filter(|d| is_input_hazard(d)))
    {
        listed.push_str(&d.one_line(file, text, &lines));
        listed.push('\n');
        for related in d.related_lines(file, text, &lines) {
            listed.push_str(&format!("  {related}\n"));
        }
    }
    (planned, listed)
}

/// The space report lists each tile in the buffer the repaired program puts it on (a tile a
/// repair keeps on its own allocation leaves the row of the buffer PyPTO gave it).
fn report_lists_the_planned_buffers(planned: &Program, reports: &[PlanReport], file: &str) {
    for (function, report) in planned.functions.iter().zip(reports) {
        for buffer in report.spaces.iter().flat_map(|s| &s.buffers) {
            for member in &buffer.members {
                let bases: Vec<&str> = function
                    .vars
                    .iter()
                    .filter(|(_, v)| v.name == *member)
                    .filter_map(|(_, v)| Some(v.ty.as_ref()?.memref()?.base.as_str()))
                    .collect();
                assert!(
                    bases.contains(&buffer.base.as_str()),
                    "{file}: the report lists '{member}' in '{}', the plan puts it on {bases:?}",
                    buffer.base
                );
            }
        }
    }
}

#[test]
fn each_repair_class_makes_an_unsafe_plan_safe() {
    let fixtures = fixtures();
    assert!(fixtures.len() >= 5, "the repair fixtures are missing");
    for path in fixtures {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).expect("readable fixture");
        let (config, expected_repairs, expected_hazards) = header(&text);
        assert!(
            !expected_repairs.is_empty() || !expected_hazards.is_empty(),
            "{file}: no `# expect: repairs` nor `# expect: input hazards`"
        );
        let program = parse_program(&text).unwrap_or_else(|e| panic!("{file}: {e}"));

        // PyPTO's own decision is unsafe (or PyPTO's pass, as the seed states it, refuses).
        let exact = PlanConfig {
            exact: true,
            ..config
        };
        let unsafe_plan = plan_program_checked(&program, &exact, &options(config.backend));
        if let Ok((plan, _)) = &unsafe_plan {
            assert!(
                !program_violations(plan, &options(config.backend)).is_empty(),
                "{file}: PyPTO's plan passes the checker, so there is nothing to repair"
            );
        }

        let (planned, listed) = repaired(&program, &config, &file, &text);
        // A value the input overwrites in place is the only one a plan may still lose
        // (`safe_plan`); a fixture that expects such hazards has them.
        let violations = program_violations(&planned, &options(config.backend));
        assert_eq!(
            violations.is_empty(),
            expected_hazards.is_empty(),
            "{file}: the findings of the repaired plan: {violations:?}"
        );
        let codes = |hazards: bool| -> Vec<&str> {
            listed
                .lines()
                .filter_map(|l| l.split("warning[").nth(1)?.split(']').next())
                .filter(|c| c.starts_with("MR-W") == hazards)
                .collect()
        };
        assert_eq!(codes(false), expected_repairs, "{file}: repairs");
        assert_eq!(codes(true), expected_hazards, "{file}: input hazards");
        let again = repaired(&program, &config, &file, &text);
        assert_eq!(
            (print_program(&again.0), &again.1),
            (print_program(&planned), &listed),
            "{file}: planning is not deterministic"
        );
        let snapshot = format!("{}## repairs\n{listed}", print_program(&planned));
        expect_test::expect_file![path.with_extension("out.py")].assert_eq(&snapshot);
    }
}

/// Where PyPTO's plan puts tiles whose lifetimes overlap on shared bytes but no read sees a wrong
/// value (`tests/data/kept/*.py`, each headed `# expect: notes V008 ...`), the default plan is
/// PyPTO's own, byte for byte, with no repair and a located note per overlap; `<name>.notes.txt`
/// snapshots the notes (bless with `UPDATE_EXPECT=1`).
#[test]
fn pypto_plans_that_lose_no_value_are_kept_with_notes() {
    let fixtures = fixtures_in("tests/data/kept");
    assert!(fixtures.len() >= 2, "the kept-plan fixtures are missing");
    for path in fixtures {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).expect("readable fixture");
        let (config, _, _) = header(&text);
        let expected: Vec<&str> = text
            .lines()
            .find_map(|l| l.strip_prefix("# expect: notes"))
            .unwrap_or_else(|| panic!("{file}: no `# expect: notes`"))
            .split_whitespace()
            .collect();
        let program = parse_program(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        let exact = PlanConfig {
            exact: true,
            ..config
        };
        let (pypto, _) = plan_program_checked(&program, &exact, &options(config.backend))
            .unwrap_or_else(|(_, e)| panic!("{file}: no plan: {e:?}"));
        let (kept, reports) = plan_program_checked(&program, &config, &options(config.backend))
            .unwrap_or_else(|(_, e)| panic!("{file}: no plan: {e:?}"));
        assert_eq!(
            print_program(&kept),
            print_program(&pypto),
            "{file}: the default plan is not PyPTO's"
        );
        let diagnostics: Vec<_> = reports.iter().flat_map(|r| &r.diagnostics).collect();
        assert!(
            !diagnostics.iter().any(|d| is_repair(d)),
            "{file}: a plan that loses no value was repaired: {diagnostics:?}"
        );
        let notes: Vec<_> = diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Note)
            .collect();
        let codes: Vec<&str> = notes.iter().map(|d| d.code).collect();
        assert_eq!(codes, expected, "{file}: notes");
        // The checker says the same of PyPTO's plan: notes, no violation.
        assert!(program_violations(&pypto, &options(config.backend)).is_empty());
        let lines = LineIndex::new(&text);
        let snapshot: String = notes
            .iter()
            .map(|d| {
                format!(
                    "{}
",
                    d.one_line(&file, &text, &lines)
                )
            })
            .collect();
        expect_test::expect_file![path.with_extension("notes.txt")].assert_eq(&snapshot);
    }
}

/// PyPTO's pass asks only for the planned program and its repairs (`plan_program_repairs`,
/// which leaves the reports unfinished): it gets the program and the repairs, in order, that
/// the whole report gives, on every repair fixture, every kept-plan fixture and every
/// bundled conformance program (repaired ones among them) under each backend it names.
#[test]
fn the_pass_gets_the_program_and_repairs_the_whole_report_gives() {
    let conformance = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/conformance");
    let mut cases: Vec<(PathBuf, PlanConfig)> = fixtures()
        .into_iter()
        .chain(fixtures_in("tests/data/kept"))
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("readable fixture");
            (path, header(&text).0)
        })
        .collect();
    for row in manifest_rows(&conformance) {
        let config = PlanConfig {
            backend: row.backend(),
            ..PlanConfig::default()
        };
        cases.push((
            conformance.join(format!("{}.input.py", row.cell("name"))),
            config,
        ));
    }
    let mut repaired = 0;
    for (path, config) in &cases {
        let file = path.display();
        let text = std::fs::read_to_string(path).expect("readable case");
        let program = parse_program(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        let opts = options(config.backend);
        let whole = plan_program_checked(&program, config, &opts);
        let lean = plan_program_repairs(&program, config, &opts);
        let (Ok((planned, reports)), Ok(lean)) = (&whole, &lean) else {
            assert_eq!(whole.is_ok(), lean.is_ok(), "{file}: one of them fails");
            continue;
        };
        let repairs: Vec<Vec<&Diagnostic>> = reports
            .iter()
            .map(|r| r.diagnostics.iter().filter(|d| is_repair(d)).collect())
            .collect();
        let lean_repairs: Vec<Vec<&Diagnostic>> =
            lean.repairs.iter().map(|of| of.iter().collect()).collect();
        assert_eq!(
            print_program(&lean.program),
            print_program(planned),
            "{file}"
        );
        assert_eq!(lean_repairs, repairs, "{file}: repairs");
        repaired += usize::from(repairs.iter().any(|of| !of.is_empty()));
    }
    // Repaired programs are what makes this comparison worth having.
    assert!(repaired >= 20, "only {repaired} of the cases were repaired");
}

/// `explain` of two tiles a repair separated says where the emitted plan puts them, beside
/// PyPTO's decision; of two tiles PyPTO's plan keeps, it adds nothing.
#[test]
fn explain_says_where_the_emitted_plan_differs_from_pyptos() {
    let repaired = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "tests/data/repair/r001_softmax_pool_row_overwritten_before_a_later_iteration_reads_it.py",
    );
    let text = std::fs::read_to_string(&repaired).expect("readable fixture");
    let (config, _, _) = header(&text);
    let program = parse_program(&text).expect("parses");
    let f = &program.functions[0];
    let pair = ("t__tile_19", "slot_score_inline171_inline357__tile");
    let pypto =
        memreuse::plan::explain::explain(f, &text, &config, pair.0, pair.1).expect("explains");
    assert!(pypto.contains("outcome: both on 'mem_vec_10'"), "{pypto}");
    let emitted = memreuse::repair::emitted_placement(f, &config, pair).expect("differs");
    assert!(
        emitted.starts_with("emitted plan: 't__tile_19' on 'mem_vec_")
            && !emitted.contains("both on"),
        "{emitted}"
    );
    let kept = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/kept/v008_softmax_pool_reads_each_row_before_it_is_overwritten.py");
    let text = std::fs::read_to_string(&kept).expect("readable fixture");
    let (config, _, _) = header(&text);
    let program = parse_program(&text).expect("parses");
    assert_eq!(
        memreuse::repair::emitted_placement(&program.functions[0], &config, pair),
        None
    );
}

/// `--exact` prints PyPTO's decision unchanged: upstream's output, byte for byte, on cases where
/// that output fails the checker and the default plan is a repair.
#[test]
fn exact_output_is_upstreams_on_miscompiles() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/conformance");
    for (case, backend) in [("g1005", Backend::Ascend950), ("g1366", Backend::Ascend950)] {
        let read = |ext: &str| {
            std::fs::read_to_string(dir.join(format!("{case}.{ext}"))).expect("case file")
        };
        let input = parse_program(&read("input.py")).expect("input parses");
        let upstream = read("expected.py");
        let upstream_program = parse_program(&upstream).expect("upstream's output parses");
        assert!(
            !program_violations(&upstream_program, &options(backend)).is_empty(),
            "{case}: upstream's output passes the checker"
        );
        let config = PlanConfig {
            backend,
            exact: true,
            ..PlanConfig::default()
        };
        let (exact, _) = plan_program_checked(&input, &config, &options(backend))
            .unwrap_or_else(|(_, e)| panic!("{case}: {e:?}"));
        assert_eq!(
            print_program(&exact),
            upstream,
            "{case}: --exact is not upstream's output"
        );
        let safe = PlanConfig {
            exact: false,
            ..config
        };
        let (repaired, _) = plan_program_checked(&input, &safe, &options(backend))
            .unwrap_or_else(|(_, e)| panic!("{case}: {e:?}"));
        assert_ne!(
            print_program(&repaired),
            upstream,
            "{case}: nothing was repaired"
        );
        assert!(program_violations(&repaired, &options(backend)).is_empty());
    }
}

/// Every generated program with the upstream hazard shapes (`memreuse_testgen::synth`) gets a
/// safe plan: where PyPTO's plan loses a value, the repair finds one both checkers pass, but
/// for the values the input itself overwrites in place (the accumulator `if`s whose other arm
/// accumulates into a tile read later), which the plan keeps as `MR-W004` warnings.
#[test]
fn every_generated_hazard_program_gets_a_safe_plan() {
    use memreuse_testgen::synth::{Shapes, SynthConfig, program_text_with};
    let mut repaired_programs = 0;
    for seed in 0..200 {
        for max_live in [Some(3), Some(8), None] {
            let cfg = SynthConfig {
                functions: 1,
                tiles_per_function: 30,
                max_live,
                seed,
                control_flow: true,
            };
            let text = program_text_with("Synth", &cfg, Shapes::WithUpstreamHazards);
            let program = parse_program(&text).expect("generated programs parse");
            for materialize_aliases in [false, true] {
                let config = PlanConfig {
                    materialize_aliases,
                    ..PlanConfig::default()
                };
                // A program PyPTO's pass refuses has no plan to repair.
                let exact = PlanConfig {
                    exact: true,
                    ..config
                };
                if memreuse::plan::plan_program(&program, &exact).is_err() {
                    continue;
                }
                let case = format!("{cfg:?} step0={materialize_aliases}\n{text}");
                let (_, reports) = safe_plan(&case, &program, &config);
                if reports.iter().flat_map(|r| &r.diagnostics).any(is_repair) {
                    repaired_programs += 1;
                }
            }
        }
    }
    eprintln!("{repaired_programs} generated plans needed a repair");
    // The hazard shapes must really need repairs, or this test checks nothing.
    assert!(
        repaired_programs >= 100,
        "only {repaired_programs} programs needed a repair"
    );
}

/// The gate every plan leaves the tool through lets a finding pass only where the input itself
/// carries it (`MR-W004`): on the repaired plan of the input-hazard fixture it keeps the value
/// the input overwrites in place, and a hazard the plan introduces beside it (a tile moved
/// onto the buffer of a value still read) is detected and refused.
#[test]
fn only_the_inputs_own_hazards_pass_the_gate() {
    use memreuse::ir::Type;
    use memreuse::repair::input_hazards;
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/repair/w004_input_accumulates_in_place_over_a_live_value.py");
    let text = std::fs::read_to_string(&path).expect("readable fixture");
    let (config, _, _) = header(&text);
    let program = parse_program(&text).expect("the fixture parses");
    let opts = options(config.backend);
    let (planned, _) = plan_program_checked(&program, &config, &opts).expect("a plan");
    let (input, plan) = (&program.functions[0], &planned.functions[0]);
    let kept = input_hazards(input, plan, &config, &opts).expect("the input's own hazard passes");
    let codes: Vec<&str> = kept.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["MR-W004"]);

    let var = |name: &str| {
        plan.vars
            .iter()
            .find(|(_, v)| v.name == name)
            .map(|(id, _)| id)
            .unwrap_or_else(|| panic!("no '{name}' in the plan"))
    };
    let base_of = |name: &str| match &plan.vars[var(name)].ty {
        Some(Type::Tile(t)) => t.memref.as_ref().expect("a MemRef").base.clone(),
        _ => panic!("'{name}' is not a tile"),
    };
    // 'nxt' is written in the loop while 'a' is still read after it.
    let mut damaged = plan.clone();
    if let Some(Type::Tile(t)) = &mut damaged.vars[var("nxt")].ty {
        t.memref.as_mut().expect("a MemRef").base = base_of("a");
    }
    let refused = input_hazards(input, &damaged, &config, &opts)
        .expect_err("a hazard the plan introduced passed the gate");
    assert!(
        refused.iter().any(|d| d.message.contains("'a'")),
        "the damage is not named: {refused:?}"
    );
}

/// The offset planner's plans go through the same check and repair: on every repair fixture
/// `--planner dsa` gets a plan both checkers pass (addresses in every function), or whose only
/// findings are the input's own hazards, kept as `MR-W004` warnings.
#[test]
fn the_offset_planners_plans_are_repaired_too() {
    use memreuse::plan::Planner;
    use memreuse::repair::verify_options;
    for path in fixtures() {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).expect("readable fixture");
        let (config, _, expected_hazards) = header(&text);
        let config = PlanConfig {
            planner: Planner::Dsa,
            ..config
        };
        let program = parse_program(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        let opts = verify_options(&config);
        let (planned, reports) = plan_program_checked(&program, &config, &opts)
            .unwrap_or_else(|(_, e)| panic!("{file}: no safe dsa plan: {e:?}"));
        let violations = program_violations(&planned, &opts);
        let hazards = reports
            .iter()
            .flat_map(|r| &r.diagnostics)
            .filter(|d| is_input_hazard(d))
            .count();
        assert_eq!(
            (violations.is_empty(), hazards == 0),
            (expected_hazards.is_empty(), expected_hazards.is_empty()),
            "{file}: the dsa plan's findings {violations:?}, {hazards} input hazards"
        );
    }
}
