//! Every kind of malformed input gets its stable code and its location: one fixture per kind
//! under `tests/data/errors/`, the rendered report snapshotted as `<name>.err`.

use std::path::Path;

use memreuse::ir::{LineIndex, parse_program};

fn check(name: &str, code: &str, line: u32, col: u32) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/errors/{name}.py"));
    let text = std::fs::read_to_string(&path).expect("fixture exists");
    let err = parse_program(&text).expect_err("the fixture must not parse");
    let first = &err.diagnostics[0];
    let lines = LineIndex::new(&text);
    let position = lines.line_col(&text, first.span.start);
    assert_eq!(first.code, code, "{name}: {first}");
    assert_eq!(
        (position.line, position.col),
        (line, col),
        "{name}: {first}"
    );
    let report: String = err
        .diagnostics
        .iter()
        .map(|d| {
            format!(
                "{}\n{}",
                d.one_line(&format!("{name}.py"), &text, &lines),
                d.render(&format!("{name}.py"), &text)
            )
        })
        .collect();
    expect_test::expect_file![path.with_extension("err")].assert_eq(&report);
}

#[test]
fn syntax_error() {
    check("syntax_error", "E001", 10, 9);
}

#[test]
fn unknown_dtype() {
    check("unknown_dtype", "E002", 9, 30);
}

#[test]
fn unknown_memory_space() {
    check("unknown_memory_space", "E003", 9, 91);
}

#[test]
fn tile_without_memref() {
    check("tile_without_memref", "E004", 9, 9);
}

#[test]
fn memref_larger_than_alloc() {
    check("memref_larger_than_alloc", "E006", 9, 40);
}

#[test]
fn duplicate_function() {
    check("duplicate_function", "E007", 12, 5);
}

#[test]
fn undefined_variable() {
    check("undefined_variable", "E008", 9, 118);
}

#[test]
fn mixed_tabs_and_spaces() {
    check("mixed_tabs_and_spaces", "E009", 10, 1);
}

#[test]
fn memref_without_space() {
    check("memref_without_space", "E010", 9, 39);
}

#[test]
fn file_without_program_is_not_a_program() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/errors/no_program.py");
    let text = std::fs::read_to_string(path).expect("fixture exists");
    assert!(!memreuse::ir::has_program(&text));
    let err = parse_program(&text).expect_err("no program");
    assert_eq!(err.diagnostics[0].code, "E011");
}
