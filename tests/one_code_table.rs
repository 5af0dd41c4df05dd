//! Every diagnostic code is spelled once, in `crates/ir/src/codes.rs`: product code names the
//! table's constants, and `docs/diagnostics.md` shows the table as it is (bless a changed table
//! with `UPDATE_EXPECT=1`).

use std::path::Path;

use memreuse::ir::codes;

#[path = "support/product_code.rs"]
mod product_code;

/// Whether `text` at `at` (just after a `"`) starts a code: `E001`, `V007`, `MR-R002`,
/// `PH-MR-001`, closed by a `"`.
fn code_literal_at(text: &str, at: usize) -> Option<&str> {
    let rest = &text[at..];
    let end = rest.find('"')?;
    let literal = &rest[..end];
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    let is_code = match literal.split_once('-') {
        None => (literal.starts_with('E') || literal.starts_with('V')) && digits(&literal[1..], 3),
        Some(("MR", tail)) => {
            matches!(tail.chars().next(), Some('E' | 'W' | 'R')) && digits(&tail[1..], 3)
        }
        Some(("PH", tail)) => tail.strip_prefix("MR-").is_some_and(|d| digits(d, 3)),
        Some(_) => false,
    };
    is_code.then_some(literal)
}

#[test]
fn no_code_is_spelled_outside_the_table() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let table = root.join("crates/ir/src/codes.rs");
    let offenders: Vec<String> =
        product_code::product_code_lines(root, product_code::PRODUCT_DIRS, &table)
            .into_iter()
            .filter_map(|line| {
                let spelled = line
                    .code
                    .match_indices('"')
                    .find_map(|(at, _)| code_literal_at(&line.code, at + 1))?
                    .to_string();
                Some(format!("{}: {spelled}", line.place))
            })
            .collect();
    assert!(
        offenders.is_empty(),
        "diagnostic codes spelled outside crates/ir/src/codes.rs (add a row there and name \
         its constant):\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_detector_sees_every_code_of_the_table() {
    for row in codes::ALL {
        let line = format!("let code = \"{}\";", row.id);
        let at = line.find('"').map(|at| at + 1).unwrap_or_default();
        assert_eq!(code_literal_at(&line, at), Some(row.id), "{line}");
    }
    assert_eq!(code_literal_at("\"E0010\"", 1), None);
    assert_eq!(code_literal_at("\"MR-X001\"", 1), None);
}

const BEGIN: &str = "<!-- the code table (crates/ir/src/codes.rs): begin -->\n";
const END: &str = "<!-- the code table: end -->\n";

#[test]
fn the_docs_show_the_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/diagnostics.md");
    let doc = std::fs::read_to_string(&path).expect("docs/diagnostics.md is readable");
    let (before, rest) = doc
        .split_once(BEGIN)
        .expect("docs/diagnostics.md marks the table");
    let (shown, after) = rest
        .split_once(END)
        .expect("docs/diagnostics.md ends the table");
    let table = codes::markdown_table();
    if shown == table {
        return;
    }
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        let updated = format!("{before}{BEGIN}{table}{END}{after}");
        std::fs::write(&path, updated).expect("docs/diagnostics.md is writable");
        return;
    }
    panic!(
        "docs/diagnostics.md does not show crates/ir/src/codes.rs's table (UPDATE_EXPECT=1 \
         rewrites it):\n{table}"
    );
}
