//! The behaviour rules that code, tests, fixtures and docs cite live in the repository
//! (`docs/rules.md`, cited as `rules §N.N`, in fixtures `rule §N.N`), so a clone stands alone
//! (issue 34): nothing cites the sections of a document outside it, and every citation names a
//! section the page has.

use std::path::{Path, PathBuf};

/// Directories that hold no file of ours: build output, VCS data, local environments.
const NOT_OURS: &[&str] = &[
    "target",
    ".git",
    ".venv",
    "node_modules",
    "__pycache__",
    ".pytest_cache",
];

/// Every text file of the repository (binary files, such as images, are skipped).
fn text_files(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
    for entry in std::fs::read_dir(dir).expect("directory is readable") {
        let path = entry.expect("directory entry").path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if path.is_dir() {
            if !NOT_OURS.contains(&name.as_ref()) {
                text_files(&path, out);
            }
        } else if let Ok(text) = std::fs::read_to_string(&path) {
            out.push((path, text));
        }
    }
}

/// Where `line` cites a section of a document kept outside the repository: the old names of
/// the rules (`SPEC §6.2`, `SPEC's order`, `(SPEC)`) and of the design notes (`DESIGN §5`),
/// or a path to either file.
fn external_citation(line: &str) -> Option<&str> {
    for name in ["SPEC", "DESIGN"] {
        for (at, _) in line.match_indices(name) {
            let before = line[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let after = line[at + name.len()..].trim_start_matches(' ');
            if ["§", ".md", "'s", ")"].iter().any(|p| after.starts_with(p)) {
                return Some(&line[at..]);
            }
        }
    }
    None
}

/// The section ids `docs/rules.md` defines: its headings' numbers (`S`, `6`, `6.1`, `5.5a`).
fn rule_sections(rules: &str) -> Vec<String> {
    rules
        .lines()
        .filter(|l| l.starts_with('#'))
        .filter_map(|l| l.trim_start_matches('#').split_whitespace().next())
        .map(|id| id.trim_end_matches('.').to_string())
        .collect()
}

/// Whether `id` (as cited after `rules §`) names a section, a seed rule (`S2`) or a numbered
/// item of a section (`6.1.3`: item 3 of §6.1).
fn names_a_section(id: &str, sections: &[String]) -> bool {
    let known = |s: &str| sections.iter().any(|k| k == s);
    known(id)
        || (id.starts_with('S') && id[1..].parse::<u32>().is_ok() && known("S"))
        || id
            .rsplit_once('.')
            .is_some_and(|(section, item)| known(section) && item.parse::<u32>().is_ok())
}

#[test]
fn rules_are_cited_from_the_repository_only() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rules = std::fs::read_to_string(root.join("docs/rules.md")).expect("docs/rules.md");
    let sections = rule_sections(&rules);
    let mut files = Vec::new();
    text_files(root, &mut files);
    assert!(files.len() > 300, "found only {} text files", files.len());
    let this_file = root.join(file!().trim_start_matches("./"));
    let mut external = Vec::new();
    let mut unknown = Vec::new();
    for (path, text) in files.iter().filter(|(p, _)| *p != this_file) {
        let shown = path.strip_prefix(root).unwrap_or(path).display();
        for (n, line) in text.lines().enumerate() {
            if let Some(cited) = external_citation(line) {
                external.push(format!("{shown}:{}: {cited}", n + 1));
            }
            for (at, form) in line
                .match_indices("rules §")
                .chain(line.match_indices("rule §"))
            {
                let id: String = line[at + form.len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '.')
                    .collect();
                let id = id.trim_end_matches('.');
                // `rules §N.N` is how the docs spell the form itself.
                if id != "N.N" && !names_a_section(id, &sections) {
                    unknown.push(format!("{shown}:{}: {form}{id}", n + 1));
                }
            }
        }
    }
    assert!(
        external.is_empty(),
        "citations of documents outside the repository (the rules are docs/rules.md, cited \
         as `rules §N.N`; the system's design is ARCHITECTURE.md, README.md and docs/):\n{}",
        external.join("\n")
    );
    assert!(
        unknown.is_empty(),
        "citations of sections docs/rules.md does not have:\n{}",
        unknown.join("\n")
    );
}
