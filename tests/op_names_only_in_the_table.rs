//! The op table (`crates/ir/src/ops.rs`) is the only place planning or checking code spells an
//! op's name: every other place asks the table for the fact it needs (issue 16).

use std::path::Path;

const OP_NAME_PREFIXES: &[&str] = &[
    "\"tile.",
    "\"pl.tile.",
    "\"tensor.",
    "\"pl.tensor.",
    "\"system.",
    "\"reserve_buffer",
    "\"pl.reserve_buffer",
];

#[path = "support/product_code.rs"]
mod product_code;

#[test]
fn no_op_name_literal_outside_the_op_table() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dirs = [
        "crates/ir/src",
        "crates/plan/src",
        "crates/verify/src",
        "src",
    ];
    let table = root.join("crates/ir/src/ops.rs");
    let offenders: Vec<String> = product_code::product_code_lines(root, &dirs, &table)
        .into_iter()
        .filter(|line| OP_NAME_PREFIXES.iter().any(|p| line.code.contains(p)))
        .map(|line| format!("{}: {}", line.place, line.code.trim()))
        .collect();
    assert!(
        offenders.is_empty(),
        "op names spelled outside the op table (add a column or role to crates/ir/src/ops.rs \
         and ask it instead):\n{}",
        offenders.join("\n")
    );
}
