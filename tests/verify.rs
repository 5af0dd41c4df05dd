//! Data-driven tests of the independent verifier: each `tests/data/verify/<case>/input.py` is
//! a planned program; `expected.txt` holds the diagnostics it must produce (`ok` when none).
//! A line `# verify: backend=950 addressed` in the file's header sets the options.
//! Bless changed outputs with `UPDATE_EXPECT=1 cargo test --test verify`.

use std::fs;
use std::path::Path;

use expect_test::expect_file;
use memreuse::ir::{Expr, ExprKind, StmtKind, Type, parse_program};
use memreuse::verify::{Backend, VerifyOptions, verify_function, verify_program};
use memreuse_test_support::with_notes;

fn options(text: &str) -> VerifyOptions {
    let mut opts = VerifyOptions::default();
    let directive = text.lines().find_map(|l| l.strip_prefix("# verify:"));
    for word in directive.unwrap_or_default().split_whitespace() {
        match word {
            "backend=910b" => opts.backend = Backend::Ascend910B,
            "backend=950" => opts.backend = Backend::Ascend950,
            "addressed" => opts.addressing = memreuse::verify::Addressing::AllocateMemoryAddr,
            other => panic!("unknown verify directive `{other}`"),
        }
    }
    opts
}

fn run(file: &str, text: &str) -> String {
    let program = parse_program(text).unwrap_or_else(|e| panic!("{file} does not parse: {e}"));
    let lines = memreuse::ir::LineIndex::new(text);
    let diagnostics = verify_program(&program, &options(text));
    if diagnostics.is_empty() {
        return "ok\n".to_string();
    }
    let mut out = String::new();
    for (function, d) in diagnostics {
        let first = format!(
            "{} (in {})",
            d.one_line(file, text, &lines),
            program.functions[function].name
        );
        out.push_str(&with_notes(&first, &d, file, text, &lines));
    }
    out
}

#[test]
fn data_driven_cases() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/verify");
    let mut cases: Vec<_> = fs::read_dir(&root)
        .expect("tests/data/verify exists")
        .map(|e| e.expect("readable entry").path())
        .collect();
    cases.sort();
    assert!(!cases.is_empty());
    for case in cases {
        let text = fs::read_to_string(case.join("input.py")).expect("case has input.py");
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        expect_file![case.join("expected.txt")].assert_eq(&run(&format!("{name}/input.py"), &text));
    }
}

/// The parser already rejects a MemRef on a missing or too small alloc, so these plans are
/// built by editing a parsed one, as a buggy planner would.
fn simple_chain() -> memreuse::ir::Program {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/verify/simple_chain");
    let text = fs::read_to_string(root.join("input.py")).unwrap();
    parse_program(&text).unwrap()
}

fn codes_and_messages(f: &memreuse::ir::Function) -> Vec<String> {
    verify_function(f, &VerifyOptions::default())
        .into_iter()
        .map(|d| format!("{}: {}", d.code, d.message))
        .collect()
}

#[test]
fn memref_on_a_removed_alloc() {
    let mut program = simple_chain();
    let f = &mut program.functions[0];
    // Drop `mem_vec_4 = tile.alloc(...)` while tile_b still sits on it.
    f.body.retain(|s| match &s.kind {
        StmtKind::Assign { target, .. } => f.vars[*target].name != "mem_vec_4",
        _ => true,
    });
    expect_test::expect![[r#"
        [
            "V001: tile 'tile_b' is placed on 'mem_vec_4', which no `tile.alloc` in function 'main' defines",
        ]
    "#]]
    .assert_debug_eq(&codes_and_messages(f));
}

#[test]
fn memref_past_the_end_of_its_alloc() {
    let mut program = simple_chain();
    let f = &mut program.functions[0];
    // Shrink `mem_vec_3` to 8192 bytes: the 16384-byte tiles on it no longer fit.
    for s in &mut f.body {
        if let StmtKind::Assign { target, value } = &mut s.kind
            && f.vars[*target].name == "mem_vec_3"
            && let ExprKind::Call(_, call) = &mut value.kind
        {
            let call = std::sync::Arc::make_mut(call);
            call.args[1] = Expr::new(ExprKind::Int(8192), call.args[1].span);
        }
    }
    expect_test::expect![[r#"
        [
            "V002: tile 'tile_a' covers bytes [0, 16384), outside 'mem_vec_3', which has 8192 bytes",
            "V002: tile 'tile_c' covers bytes [0, 16384), outside 'mem_vec_3', which has 8192 bytes",
            "V002: tile 'tile_d' covers bytes [0, 16384), outside 'mem_vec_3', which has 8192 bytes",
            "V002: tile 'tile_e' covers bytes [0, 16384), outside 'mem_vec_3', which has 8192 bytes",
        ]
    "#]]
    .assert_debug_eq(&codes_and_messages(f));
}

#[test]
fn addressed_plans_put_absolute_addresses_in_offsets() {
    let mut program = simple_chain();
    let f = &mut program.functions[0];
    // AllocateMemoryAddr (rules §8) places mem_vec_4's slot after mem_vec_3's: tile_b at 16384.
    let (tile_b, _) = f.vars.iter().find(|(_, v)| v.name == "tile_b").unwrap();
    let Some(Type::Tile(tile)) = &mut f.vars[tile_b].ty else {
        panic!("tile_b is a tile");
    };
    let extent = tile
        .memref
        .as_mut()
        .and_then(|m| m.extent.as_mut())
        .unwrap();
    extent.offset = Expr::new(ExprKind::Int(16384), extent.offset.span);
    let addressed = VerifyOptions {
        addressing: memreuse::verify::Addressing::AllocateMemoryAddr,
        ..VerifyOptions::default()
    };
    assert!(verify_function(f, &addressed).is_empty());
    expect_test::expect![[r#"
        [
            "V002: tile 'tile_b' covers bytes [16384, 32768), outside 'mem_vec_4', which has 16384 bytes",
        ]
    "#]]
    .assert_debug_eq(&codes_and_messages(f));
}

/// All planned fixtures, parsed.
fn fixtures() -> Vec<memreuse::ir::Program> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/verify");
    let mut paths: Vec<_> = fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path().join("input.py"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| parse_program(&fs::read_to_string(p).unwrap()).unwrap())
        .collect()
}

proptest::proptest! {
    /// A plan may come from anywhere: moved tiles, odd offsets and dropped statements must
    /// give findings, never a panic.
    #[test]
    fn never_panics_on_damaged_plans(
        case in 0usize..64,
        edits in proptest::collection::vec((0usize..64, -70000i64..70000), 0..8),
    ) {
        let programs = fixtures();
        let mut f = programs[case % programs.len()].functions[0].clone();
        let bases: Vec<String> = f.vars.iter().filter(|(_, v)| v.name.starts_with("mem_")).map(|(_, v)| v.name.to_string()).collect();
        for (pick, value) in edits {
            let ids: Vec<_> = f.vars.iter().map(|(id, _)| id).collect();
            let id = ids[pick % ids.len()];
            match value.rem_euclid(3) {
                0 if !f.body.is_empty() => {
                    let at = pick % f.body.len();
                    f.body.remove(at);
                }
                1 => {
                    if let Some(Type::Tile(tile)) = &mut f.vars[id].ty
                        && let Some(extent) = tile.memref.as_mut().and_then(|m| m.extent.as_mut())
                    {
                        extent.offset = Expr::new(ExprKind::Int(value), extent.offset.span);
                        extent.size = Expr::new(ExprKind::Int(value / 3), extent.size.span);
                    }
                }
                _ => {
                    if let Some(Type::Tile(tile)) = &mut f.vars[id].ty
                        && let Some(memref) = tile.memref.as_mut()
                        && !bases.is_empty()
                    {
                        memref.base = bases[pick % bases.len()].as_str().into();
                    }
                }
            }
        }
        for backend in [Backend::None, Backend::Ascend910B, Backend::Ascend950] {
            for addressed in [false, true] {
                verify_function(
                    &f,
                    &VerifyOptions {
                        backend,
                        addressing: if addressed {
                            memreuse::verify::Addressing::AllocateMemoryAddr
                        } else {
                            memreuse::verify::Addressing::Offsets
                        },
                    },
                );
            }
        }
    }
}
