//! The lines of product code below some directories, for the tests that hold a fact is
//! spelled in one place only (`op_names_only_in_the_table.rs`, `one_code_table.rs`).

use std::path::Path;

#[path = "source_files.rs"]
mod source_files;

/// Every directory of product code (the crates' sources, not their tests).
#[allow(dead_code)] // Some tests scan fewer directories.
pub const PRODUCT_DIRS: &[&str] = &[
    "crates/ir/src",
    "crates/plan/src",
    "crates/verify/src",
    "crates/repair/src",
    "src",
    "cli/src",
    "daemon/src",
    "daemon/client/src",
    "viewer/src",
    "python/src",
];

/// One line of product code: where it is, and its code (without a `//` comment).
pub struct CodeLine {
    /// `path:line`, the path relative to the repository.
    pub place: String,
    pub code: String,
}

/// Every line of product code in the Rust files below `dirs` (relative to `root`) but
/// `table`: a file's text before its `#[cfg(test)]` (unit tests write programs and codes as
/// users see them), each line up to its `//`.
pub fn product_code_lines(root: &Path, dirs: &[&str], table: &Path) -> Vec<CodeLine> {
    let mut files = Vec::new();
    for dir in dirs {
        source_files::rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 20, "found only {} source files", files.len());
    let mut lines = Vec::new();
    for file in files.iter().filter(|f| *f != table) {
        let text = std::fs::read_to_string(file).expect("source file is readable");
        let product = text.split("#[cfg(test)]").next().unwrap_or_default();
        let shown = file
            .strip_prefix(root)
            .unwrap_or(file)
            .display()
            .to_string();
        for (n, line) in product.lines().enumerate() {
            lines.push(CodeLine {
                place: format!("{shown}:{}", n + 1),
                code: line.split("//").next().unwrap_or_default().to_string(),
            });
        }
    }
    lines
}
