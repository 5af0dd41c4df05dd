//! Inputs the `parse` fuzz target (fuzz/) found, minimised: each must parse, and its printed
//! form must parse back and print identically.

use memreuse::ir::{ExprKind, Program, StmtKind, parse_program, print_program};

fn print_is_idempotent(text: &str) -> Program {
    let program = parse_program(text).expect("the input parses");
    let printed = print_program(&program);
    let reparsed = parse_program(&printed).expect("the printed text parses");
    assert_eq!(
        print_program(&reparsed),
        printed,
        "printing is not idempotent"
    );
    reparsed
}

/// The printer escapes control characters as `\r` and `\xHH`; the parser used to keep those
/// escapes verbatim, so every round trip added a backslash (`\x00` → `\\x00` → ...).
#[test]
fn control_characters_in_strings_survive_a_round_trip() {
    let text = "@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n    \
                def main(self):\n        \
                pl.reserve_buffer(name='a\0b\r\u{1e}\u{85}\\x4a', size=1)\n        return\n";
    let program = print_is_idempotent(text);
    let StmtKind::Eval(call) = &program.functions[0].body[0].kind else {
        panic!("the first statement is the reserve_buffer call");
    };
    let ExprKind::Call(_, call) = &call.kind else {
        panic!("an eval of a call");
    };
    let ExprKind::Str { value, .. } = &call.kwargs[0].value.kind else {
        panic!("name= is a string");
    };
    assert_eq!(value, "a\0b\r\u{1e}\u{85}J");
}

/// The parser used to drop a unary `+`, so `+pl.MemRef("m", x / 2)` among a tensor type's
/// arguments (an expression there) printed as `pl.MemRef("m", x / 2)`, which reads back as the
/// type's MemRef and fails for want of a size.
#[test]
fn unary_plus_before_a_memref_call_in_a_type_survives_a_round_trip() {
    let text = "@pl.program\nclass P:\n    @pl.function\n    \
                def main(self, a: pl.Tensor[[8], pl.FP32, +pl.MemRef(\"m\", pl.const(0, pl.INT64) / 2)]):\n        \
                return\n";
    let program = print_is_idempotent(text);
    let printed = print_program(&program);
    assert!(
        printed.contains("+pl.MemRef(\"m\", pl.const(0, pl.INT64) / 2)"),
        "{printed}"
    );
}

/// A deeply nested expression is an error, not a stack overflow (the fuzz target died on one
/// with SIGSEGV once unary `+` became a node).
#[test]
fn deep_nesting_is_a_located_error() {
    let forms = [
        ("+", ""),
        ("-", ""),
        ("not ", ""),
        ("(", ")"),
        ("[", "]"),
        ("2 ** ", ""),
        ("f(", ")"),
    ];
    for (open, close) in forms {
        let deep = format!("{}1{}", open.repeat(100_000), close.repeat(100_000));
        let text = format!(
            "@pl.program\nclass P:\n    @pl.function\n    def main(self):\n        x = {deep}\n        return\n"
        );
        let error = parse_program(&text).expect_err("100,000 levels are refused");
        assert!(
            error.diagnostics[0].message.contains("nested more than"),
            "{open}: {:?}",
            error.diagnostics[0]
        );
    }
    let shallow = format!("(({}1{}))", "-".repeat(150), "");
    let text = format!(
        "@pl.program\nclass P:\n    @pl.function\n    def main(self):\n        x = {shallow}\n        return\n"
    );
    print_is_idempotent(&text);
}
