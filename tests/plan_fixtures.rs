//! Data-driven planner tests: every `tests/data/plan/*.py` is an input program whose header
//! says how to plan it and what must hold of the result; the planned program (or the error)
//! is snapshotted next to it as `<name>.out.py` (bless with `UPDATE_EXPECT=1`).
//!
//! Header lines (comments in the preamble):
//! - `# memreuse-test: backend=none|910b|950 step0=on|off [function=NAME] [addresses=on]
//!   [capacity=SPACE:BYTES]... [exact=on] [planner=dsa]` (`exact=on`: Step 0 by PyPTO's rule alone, as
//!   `--exact`; the fixtures that snapshot a PyPTO miscompile use it)
//! - `# expect: same A B ...` — the tiles share one base
//! - `# expect: distinct A B ...` — pairwise different bases
//! - `# expect: base A mem_vec_3` — exact base
//! - `# expect: memref A BASE OFFSET SIZE` — exact MemRef (constant offset)
//! - `# expect: allocs Vec:16384 Mat:2048 ...` — the surviving allocs, in order
//! - `# expect: moves A_mv ...` — the inserted tile.move destinations, in order
//! - `# expect: error CODE MESSAGE-PREFIX` — planning fails with this error
//! - `# expect: diag CODE MESSAGE-PREFIX` — the plan reports this diagnostic (hint/warning)
//! - `# expect: nodiag CODE` — the plan reports no diagnostic with this code
//! - `# expect: verify-fails CODE` — PyPTO's plan is wrong here and the verifier says so with
//!   this code (every other plan must verify clean)
//! - `# expect: deterministic` — planning again gives the same program and diagnostics

use std::path::{Path, PathBuf};

use memreuse::backend::Backend;
use memreuse::ir::{Function, Program, StmtKind, parse_program, print_program};
use memreuse::plan::{PlanConfig, plan_program};

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/plan");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/data/plan exists")
        .map(|e| e.expect("readable dir entry").path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "py") && !p.to_string_lossy().ends_with(".out.py")
        })
        .collect();
    files.sort();
    files
}

struct Header {
    config: PlanConfig,
    function: Option<String>,
    expectations: Vec<Vec<String>>,
}

fn header(text: &str, path: &Path) -> Header {
    let mut config = PlanConfig::default();
    let mut function = None;
    let mut expectations = Vec::new();
    for line in text.lines() {
        if let Some(settings) = line.strip_prefix("# memreuse-test:") {
            for setting in settings.split_whitespace() {
                match setting.split_once('=') {
                    Some(("backend", b)) => {
                        config.backend = Backend::from_name(b)
                            .unwrap_or_else(|| panic!("{}: unknown backend {b}", path.display()))
                    }
                    Some(("step0", v)) => config.materialize_aliases = v == "on",
                    Some(("exact", v)) => config.exact = v == "on",
                    Some(("function", name)) => function = Some(name.to_string()),
                    Some(("addresses", v)) => config.assign_addresses = v == "on",
                    Some(("planner", "dsa")) => config.planner = memreuse::plan::Planner::Dsa,
                    Some(("capacity", v)) => {
                        let (space, bytes) = v
                            .split_once(':')
                            .unwrap_or_else(|| panic!("{}: capacity=SPACE:BYTES", path.display()));
                        let space = memreuse::ir::MemSpace::from_name(space)
                            .unwrap_or_else(|| panic!("{}: unknown space {space}", path.display()));
                        config.capacity_overrides[space as usize] =
                            Some(bytes.parse().expect("capacity in bytes"));
                    }
                    _ => panic!("{}: unknown setting {setting}", path.display()),
                }
            }
        } else if let Some(expect) = line.strip_prefix("# expect:") {
            let words: Vec<String> = expect.split_whitespace().map(str::to_string).collect();
            expectations.push(words);
        }
    }
    Header {
        config,
        function,
        expectations,
    }
}

fn function<'p>(program: &'p Program, name: &Option<String>) -> &'p Function {
    match name {
        Some(name) => program
            .functions
            .iter()
            .find(|f| f.name == name.as_str())
            .unwrap_or_else(|| panic!("no function {name}")),
        None => &program.functions[0],
    }
}

/// `(base, offset, size)` of the last-defined variable with this name.
fn memref_of(f: &Function, name: &str) -> Option<(String, Option<i64>, Option<i64>)> {
    let (_, var) = f.vars.iter().filter(|(_, v)| v.name == name).last()?;
    let memref = var.ty.as_ref()?.memref()?;
    Some((
        memref.base.to_string(),
        memref.const_offset(),
        memref.size_bytes(),
    ))
}

fn base(f: &Function, name: &str, fixture: &Path) -> String {
    memref_of(f, name)
        .unwrap_or_else(|| panic!("{}: no tile named {name} with a MemRef", fixture.display()))
        .0
}

fn allocs(f: &Function) -> Vec<String> {
    f.body
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::Assign { value, .. } => {
                let call = value.as_call()?;
                if !matches!(call.op(), "tile.alloc" | "tensor.alloc") {
                    return None;
                }
                let space = match call.args.first().map(|a| &a.kind) {
                    Some(memreuse::ir::ExprKind::Space(space)) => space.name(),
                    _ => "?",
                };
                let size = call
                    .args
                    .get(1)
                    .and_then(|e| e.as_const_int())
                    .unwrap_or(-1);
                Some(format!("{space}:{size}"))
            }
            _ => None,
        })
        .collect()
}

fn check(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let header = header(&text, path);
    let program = parse_program(&text).map_err(|e| format!("parse: {e}"))?;
    let expected_error = header.expectations.iter().find(|e| e[0] == "error");
    let snapshot = path.with_extension("out.py");
    let result = plan_program(&program, &header.config);
    let (planned, reports) = match (result, expected_error) {
        (Err((_, err)), Some(expect)) => {
            let code = &expect[1];
            let prefix = expect[2..].join(" ");
            if err.0.code != code.as_str() || !err.0.message.starts_with(&prefix) {
                return Err(format!(
                    "expected error {code} '{prefix}…', got {}: {}",
                    err.0.code, err.0.message
                ));
            }
            expect_test::expect_file![snapshot].assert_eq(&format!("{}\n", err.0));
            return Ok(());
        }
        (Err((_, err)), None) => return Err(format!("planning failed: {err}")),
        (Ok(_), Some(expect)) => {
            return Err(format!("expected error {expect:?}, planning succeeded"));
        }
        (Ok(ok), None) => ok,
    };
    let options = memreuse::repair::verify_options(&header.config);
    let violations: Vec<_> = program
        .functions
        .iter()
        .zip(&planned.functions)
        .enumerate()
        .flat_map(|(i, (input, planned))| {
            let input = memreuse::verify::PlanInput::of(input);
            memreuse::verify::verify_plan(&input, planned, &options)
                .into_iter()
                .map(move |d| (i, d))
        })
        .collect();
    let expected_failure = header.expectations.iter().find(|e| e[0] == "verify-fails");
    match (expected_failure, violations.is_empty()) {
        (None, false) => {
            return Err(format!("the plan fails verification: {violations:?}"));
        }
        (Some(expect), _) if !violations.iter().any(|(_, d)| d.code == expect[1].as_str()) => {
            return Err(format!(
                "expected {} from the verifier, got {violations:?}",
                expect[1]
            ));
        }
        _ => {}
    }
    let printed = print_program(&planned);
    let reparsed = parse_program(&printed).map_err(|e| format!("output does not parse: {e}"))?;
    if print_program(&reparsed) != printed {
        return Err("output does not print back to itself".into());
    }
    let index = match &header.function {
        Some(name) => program
            .functions
            .iter()
            .position(|f| f.name == name.as_str())
            .ok_or("no such function")?,
        None => 0,
    };
    let f = function(&planned, &header.function);
    for expect in &header.expectations {
        let args = &expect[1..];
        match expect[0].as_str() {
            "same" => {
                let first = base(f, &args[0], path);
                for name in &args[1..] {
                    let other = base(f, name, path);
                    if other != first {
                        return Err(format!("{} on {first} but {name} on {other}", args[0]));
                    }
                }
            }
            "distinct" => {
                for (i, a) in args.iter().enumerate() {
                    for b in &args[i + 1..] {
                        if base(f, a, path) == base(f, b, path) {
                            return Err(format!("{a} and {b} share {}", base(f, a, path)));
                        }
                    }
                }
            }
            "base" => {
                let actual = base(f, &args[0], path);
                if actual != args[1] {
                    return Err(format!("{} on {actual}, expected {}", args[0], args[1]));
                }
            }
            "memref" => {
                let actual = memref_of(f, &args[0]).ok_or(format!("no tile {}", args[0]))?;
                let expected = (
                    args[1].clone(),
                    args[2].parse::<i64>().ok(),
                    args[3].parse::<i64>().ok(),
                );
                if actual != expected {
                    return Err(format!(
                        "{}: memref {actual:?}, expected {expected:?}",
                        args[0]
                    ));
                }
            }
            "allocs" => {
                let actual = allocs(f);
                if actual != args {
                    return Err(format!("allocs {actual:?}, expected {args:?}"));
                }
            }
            "moves" => {
                let actual: Vec<String> = reports[index]
                    .inserted_moves
                    .iter()
                    .map(|m| m.destination.to_string())
                    .collect();
                if actual != args {
                    return Err(format!("moves {actual:?}, expected {args:?}"));
                }
            }
            "diag" => {
                let prefix = args[1..].join(" ");
                let found = reports[index]
                    .diagnostics
                    .iter()
                    .any(|d| d.code == args[0].as_str() && d.message.starts_with(&prefix));
                if !found {
                    return Err(format!(
                        "no {} diagnostic starting '{prefix}'; got {:?}",
                        args[0], reports[index].diagnostics
                    ));
                }
            }
            "nodiag" => {
                if let Some(d) = reports[index]
                    .diagnostics
                    .iter()
                    .find(|d| d.code == args[0].as_str())
                {
                    return Err(format!("unexpected diagnostic {d}"));
                }
            }
            "verify-fails" => {}
            "deterministic" => {
                let (again, again_reports) = plan_program(&program, &header.config)
                    .map_err(|(_, e)| format!("second plan failed: {e}"))?;
                if print_program(&again) != printed {
                    return Err("planning twice gave different programs".into());
                }
                if again_reports[index].diagnostics != reports[index].diagnostics {
                    return Err("planning twice gave different diagnostics".into());
                }
            }
            other => return Err(format!("unknown expectation {other}")),
        }
    }
    expect_test::expect_file![snapshot].assert_eq(&printed);
    Ok(())
}

#[test]
fn plan_fixtures() {
    let fixtures = fixtures();
    assert!(!fixtures.is_empty(), "no fixtures found");
    let failures: Vec<String> = fixtures
        .iter()
        .filter_map(|path| {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            let result = std::panic::catch_unwind(|| check(path));
            match result {
                Ok(Ok(())) => None,
                Ok(Err(message)) => Some(format!("{}: {message}", name.unwrap_or_default())),
                Err(_) => Some(format!(
                    "{}: panicked (snapshot mismatch?)",
                    name.unwrap_or_default()
                )),
            }
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} fixtures failed:\n{}",
        failures.len(),
        fixtures.len(),
        failures.join("\n")
    );
}
