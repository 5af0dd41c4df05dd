//! Inside every crate of the workspace, the top-level modules form no cycle: a module that
//! another one builds on does not use it back, and a crate root that uses its modules defines
//! nothing they use (shared types live in their own module). Cargo enforces the crate graph;
//! this test enforces the same rule one level down (ARCHITECTURE.md), and again inside every
//! module that is a directory (`db/`, `store/`, the daemon's `server/` …). Deeper modules count
//! as the module they are in.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const CRATE_SOURCES: &[&str] = &[
    "crates/ir/src",
    "crates/plan/src",
    "crates/verify/src",
    "crates/repair/src",
    "crates/solve/src",
    "crates/testgen/src",
    "crates/testsupport/src",
    "src",
    "daemon/client/src",
    "viewer/src",
    "daemon/src",
    "cli/src",
];

/// The crate root's pseudo-module name.
const ROOT: &str = "<root>";

#[path = "support/source_files.rs"]
mod source_files;
use source_files::rust_files;

/// Product code only: unit tests may reach anywhere, and comments name modules freely.
fn code_of(text: &str) -> String {
    let product = text.split("#[cfg(test)]").next().unwrap_or_default();
    product
        .lines()
        .map(|line| line.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn idents(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !is_ident(c)).filter(|s| !s.is_empty())
}

/// The names a path like `crate::{a, b::c}` or `super::x` starts with, for each occurrence of
/// `prefix` in `code`.
fn first_segments<'a>(code: &'a str, prefix: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find(prefix) {
        let preceded_by_ident = rest[..at].chars().next_back().is_some_and(is_ident);
        let after = &rest[at + prefix.len()..];
        rest = after;
        if preceded_by_ident {
            continue;
        }
        if let Some(group) = after.strip_prefix('{') {
            // Top-level names of the group: those not after `::` inside it.
            let end = group.find('}').unwrap_or(group.len());
            let mut depth = 0;
            let mut start = 0;
            let inner = &group[..end];
            for (i, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.extend(idents(&inner[start..i]).next());
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            out.extend(idents(&inner[start..]).next());
        } else {
            out.extend(idents(after).next());
        }
    }
    out
}

/// Items a crate root defines (`pub struct X`, `fn y`, `pub mod codes { … }` …).
fn defined_items(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in code.lines() {
        let mut words = line.split_whitespace().peekable();
        while let Some(&w) = words.peek() {
            if w == "pub" || w.starts_with("pub(") {
                words.next();
            } else {
                break;
            }
        }
        let Some(kind) = words.next() else { continue };
        if !line.starts_with(|c: char| !c.is_whitespace()) {
            continue;
        }
        let inline_mod = kind == "mod" && line.trim_end().ends_with('{');
        let item = matches!(
            kind,
            "struct" | "enum" | "fn" | "trait" | "type" | "const" | "static"
        ) || inline_mod;
        if item && let Some(name) = words.next().and_then(|n| idents(n).next()) {
            out.insert(name.to_string());
        }
    }
    out
}

/// `pub use module::{a, b}` in a crate root: which module each re-exported name comes from.
/// A glob re-export maps every public item of the module.
fn reexports(root_code: &str, modules: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for statement in root_code.split(';') {
        let statement = statement.trim();
        let Some(path) = statement
            .strip_prefix("pub use ")
            .or_else(|| statement.strip_prefix("pub(crate) use "))
        else {
            continue;
        };
        let path = path
            .trim_start_matches("self::")
            .trim_start_matches("crate::");
        let Some((module, rest)) = path.split_once("::") else {
            continue;
        };
        let Some(module_code) = modules.get(module) else {
            continue;
        };
        if rest.trim() == "*" {
            for name in defined_items(module_code) {
                out.entry(name).or_insert_with(|| module.to_string());
            }
        } else {
            for name in idents(rest) {
                out.entry(name.to_string())
                    .or_insert_with(|| module.to_string());
            }
        }
    }
    out
}

/// The top-level module graph of one crate: files by module (nested files join their
/// top-level module's text), then who uses whom.
fn module_graph(
    files: &[(String, String)],
    crate_path: &str,
) -> BTreeMap<String, BTreeSet<String>> {
    let mut modules: BTreeMap<String, String> = BTreeMap::new();
    // (module, whether the file is the module's own top-level file, code)
    let mut sources = Vec::new();
    for (relative, text) in files {
        let module = match relative.as_str() {
            "lib.rs" | "main.rs" | "mod.rs" => ROOT.to_string(),
            path => path
                .split('/')
                .next()
                .unwrap_or(path)
                .trim_end_matches(".rs")
                .to_string(),
        };
        let code = code_of(text);
        let top_level = !relative.contains('/') || relative.ends_with("/mod.rs");
        modules.entry(module.clone()).or_default().push_str(&code);
        sources.push((module, top_level, code));
    }
    let root_code = modules.get(ROOT).cloned().unwrap_or_default();
    let in_root = defined_items(&root_code);
    let reexported = reexports(&root_code, &modules);
    let resolve = |name: &str| -> Option<String> {
        if modules.contains_key(name) && name != ROOT {
            Some(name.to_string())
        } else if in_root.contains(name) {
            Some(ROOT.to_string())
        } else {
            reexported.get(name).cloned()
        }
    };
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, top_level, code) in &sources {
        let mut used: Vec<&str> = first_segments(code, crate_path);
        // `super::` from a top-level module's own file is the crate root.
        if *top_level && module != ROOT {
            used.extend(first_segments(code, "super::"));
        }
        for name in used {
            if let Some(target) = resolve(name).filter(|t| t != module) {
                edges.entry(module.clone()).or_default().insert(target);
            }
        }
    }
    // The root uses a module when its items' bodies name it (declaring and re-exporting
    // modules is not a use).
    let body: String = root_code
        .split(';')
        .filter(|s| {
            let s = s.trim_start();
            let s = s.strip_prefix("pub ").unwrap_or(s);
            let s = s.strip_prefix("pub(crate) ").unwrap_or(s);
            !(s.starts_with("mod ") || s.starts_with("use "))
        })
        .collect::<Vec<_>>()
        .join(";");
    for module in modules.keys().filter(|m| *m != ROOT) {
        let needle = format!("{module}::");
        let named = body.match_indices(&needle).any(|(at, _)| {
            !body[..at].chars().next_back().is_some_and(is_ident) && !body[..at].ends_with("::")
        });
        if named {
            edges
                .entry(ROOT.to_string())
                .or_default()
                .insert(module.clone());
        }
    }
    edges
}

/// One cycle of the graph, if any, as the modules along it.
fn find_cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, bool>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(node) {
            Some(true) => {
                let start = path.iter().position(|n| n == node).unwrap_or(0);
                let mut cycle = path[start..].to_vec();
                cycle.push(node.to_string());
                return Some(cycle);
            }
            Some(false) => return None,
            None => {}
        }
        state.insert(node.to_string(), true);
        path.push(node.to_string());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, edges, state, path) {
                return Some(cycle);
            }
        }
        path.pop();
        state.insert(node.to_string(), false);
        None
    }
    let mut state = BTreeMap::new();
    for node in edges.keys() {
        if let Some(cycle) = visit(node, edges, &mut state, &mut Vec::new()) {
            return Some(cycle);
        }
    }
    None
}

fn crate_files(dir: &Path) -> Vec<(String, String)> {
    let mut paths = Vec::new();
    rust_files(dir, &mut paths);
    paths
        .into_iter()
        .map(|path| {
            let relative = path
                .strip_prefix(dir)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(&path).expect("source file is readable");
            (relative, text)
        })
        .collect()
}

#[test]
fn no_crate_has_a_module_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cycles = Vec::new();
    let mut modules_seen = 0;
    for dir in CRATE_SOURCES {
        // The crate, then each module that is a directory, with the path `crate::` reaches
        // it by.
        let mut scopes = vec![(root.join(dir), "crate::".to_string())];
        let mut next = 0;
        while let Some((scope, path)) = scopes.get(next).cloned() {
            next += 1;
            for entry in std::fs::read_dir(&scope).expect("source directory is readable") {
                let sub = entry.expect("directory entry").path();
                if sub.join("mod.rs").is_file() {
                    let name = sub.file_name().unwrap_or_default().to_string_lossy();
                    scopes.push((sub.clone(), format!("{path}{name}::")));
                }
            }
            let graph = module_graph(&crate_files(&scope), &path);
            modules_seen += graph.len();
            if let Some(cycle) = find_cycle(&graph) {
                let shown = scope.strip_prefix(root).unwrap_or(&scope).display();
                cycles.push(format!("{shown}: {}", cycle.join(" -> ")));
            }
        }
    }
    assert!(
        modules_seen > 30,
        "saw only {modules_seen} modules with uses"
    );
    assert!(
        cycles.is_empty(),
        "module cycles (move what both sides need into a module of its own):\n{}",
        cycles.join("\n")
    );
}

#[test]
fn a_cycle_through_the_crate_root_is_found() {
    let files = vec![
        (
            "lib.rs".to_string(),
            "mod stage;\npub struct Config;\npub fn run() { stage::go() }\n".to_string(),
        ),
        (
            "stage.rs".to_string(),
            "use crate::Config;\npub fn go() {}\n".to_string(),
        ),
    ];
    let cycle =
        find_cycle(&module_graph(&files, "crate::")).expect("the root/stage cycle is found");
    assert!(cycle.contains(&"stage".to_string()), "{cycle:?}");
}

#[test]
fn a_cycle_between_modules_is_found_through_groups_and_reexports() {
    let files = vec![
        (
            "lib.rs".to_string(),
            "mod a;\nmod b;\npub use b::{Shared, other};\n".to_string(),
        ),
        (
            "a.rs".to_string(),
            "use crate::{Shared, b::thing};\npub fn f() {}\n".to_string(),
        ),
        (
            "b.rs".to_string(),
            "use super::a::f;\npub struct Shared;\n".to_string(),
        ),
    ];
    let cycle = find_cycle(&module_graph(&files, "crate::")).expect("the a/b cycle is found");
    assert!(cycle.contains(&"a".to_string()) && cycle.contains(&"b".to_string()));
    let acyclic = vec![
        (
            "lib.rs".to_string(),
            "mod a;\nmod b;\npub use b::Shared;\n".to_string(),
        ),
        ("a.rs".to_string(), "use crate::Shared;\n".to_string()),
        ("b.rs".to_string(), "pub struct Shared;\n".to_string()),
    ];
    assert_eq!(find_cycle(&module_graph(&acyclic, "crate::")), None);
}

#[test]
fn a_cycle_inside_a_directory_module_is_found() {
    // `server/mod.rs` composes; `serve` and `view` use each other, through `super::` and
    // through the crate path.
    let files = vec![
        ("mod.rs".to_string(), "mod serve;\nmod view;\n".to_string()),
        (
            "serve.rs".to_string(),
            "use super::view::Viewer;\npub struct Server;\n".to_string(),
        ),
        (
            "view.rs".to_string(),
            "use crate::server::serve::Server;\npub struct Viewer;\n".to_string(),
        ),
    ];
    let cycle = find_cycle(&module_graph(&files, "crate::server::")).expect("found");
    assert!(cycle.contains(&"serve".to_string()) && cycle.contains(&"view".to_string()));
}
