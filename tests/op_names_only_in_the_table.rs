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

#[path = "support/source_files.rs"]
mod source_files;
use source_files::rust_files;

#[test]
fn no_op_name_literal_outside_the_op_table() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let table = root.join("crates/ir/src/ops.rs");
    let mut files = Vec::new();
    for dir in [
        "crates/ir/src",
        "crates/plan/src",
        "crates/verify/src",
        "src",
    ] {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 20, "found only {} source files", files.len());
    let mut offenders = Vec::new();
    for file in files.iter().filter(|f| **f != table) {
        let text = std::fs::read_to_string(file).expect("source file is readable");
        // Unit tests write programs as text; only the product code must ask the table.
        let product = text.split("#[cfg(test)]").next().unwrap_or_default();
        for (n, line) in product.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            if OP_NAME_PREFIXES.iter().any(|p| code.contains(p)) {
                let shown = file.strip_prefix(root).unwrap_or(file).display();
                offenders.push(format!("{shown}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "op names spelled outside the op table (add a column or role to crates/ir/src/ops.rs \
         and ask it instead):\n{}",
        offenders.join("\n")
    );
}
