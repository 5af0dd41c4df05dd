//! `plan --emit sarif`: the run's findings as SARIF 2.1.0, for CI systems that show them as
//! annotations on the code. The rules are the code table (`memreuse::ir::codes::ALL`);
//! results are the errors, warnings and notes the summary lists (performance hints only
//! with `-v`: real programs have thousands).

use memreuse::diagnostics::{Diagnostic, Severity};
use memreuse::ir::LineIndex;
use memreuse::ir::codes::{self, CodeInfo};
use serde_json::{Value, json};

/// One file's findings, as the SARIF document takes them.
pub struct FileFindings<'a> {
    /// The path as given, relative to where the command ran.
    pub path: &'a str,
    pub text: &'a str,
    /// The file could not be read (why).
    pub unreadable: Option<&'a str>,
    /// Each diagnostic with the function it is in (`None`: the file's own, a parse error).
    pub diagnostics: Vec<(Option<&'a str>, &'a Diagnostic)>,
}

/// The SARIF log of one run over `files`; `hints`: performance hints included.
pub fn log(files: &[FileFindings], hints: bool) -> Value {
    let rules: Vec<Value> = codes::ALL.iter().map(rule).collect();
    let mut results = Vec::new();
    for file in files {
        if let Some(why) = file.unreadable {
            results.push(json!({
                "ruleId": codes::UNREADABLE,
                "ruleIndex": rule_index(codes::UNREADABLE),
                "level": "error",
                "message": { "text": format!("cannot read the file: {why}") },
                "locations": [{ "physicalLocation": {
                    "artifactLocation": { "uri": uri(file.path) } } }],
            }));
            continue;
        }
        let lines = LineIndex::new(file.text);
        let place = |span_start: u32| {
            let at = lines.line_col(file.text, span_start);
            json!({
                "artifactLocation": { "uri": uri(file.path) },
                "region": { "startLine": at.line, "startColumn": at.col },
            })
        };
        for &(function, d) in &file.diagnostics {
            if d.severity == Severity::Hint && !hints {
                continue;
            }
            let mut text = match function {
                Some(function) => format!("{} (in function '{function}')", d.message),
                None => d.message.clone(),
            };
            // A repair's hint walks through why PyPTO's decision is unsafe.
            if let Some(hint) = &d.hint {
                text.push_str("\n\n");
                text.push_str(hint);
            }
            let mut result = json!({
                "ruleId": d.code,
                "level": level(d.severity),
                "message": { "text": text },
                "locations": [{ "physicalLocation": place(d.span.start) }],
            });
            if let Some(index) = rule_index(d.code) {
                result["ruleIndex"] = Value::from(index);
            }
            if !d.related.is_empty() {
                let related = d.related.iter().enumerate().map(|(id, r)| {
                    json!({
                        "id": id,
                        "message": { "text": r.message },
                        "physicalLocation": place(r.span.start),
                    })
                });
                result["relatedLocations"] = Value::from(related.collect::<Vec<_>>());
            }
            results.push(result);
        }
    }
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "memreuse",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            } },
            // `startColumn` counts characters, as every `line:col` memreuse prints does.
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    })
}

/// A code of the table as a SARIF rule: its first sentence, the whole meaning, its level.
fn rule(info: &CodeInfo) -> Value {
    let meaning = info.meaning_line();
    let short = match meaning.split_once(". ") {
        Some((first, _)) => format!("{first}."),
        None => meaning.clone(),
    };
    json!({
        "id": info.id,
        "shortDescription": { "text": short },
        "fullDescription": { "text": meaning },
        "help": { "text": format!("`memreuse codes {}` explains it.", info.id) },
        "defaultConfiguration": { "level": level(info.severity) },
    })
}

fn rule_index(code: &str) -> Option<usize> {
    codes::ALL.iter().position(|row| row.id == code)
}

/// SARIF's levels: a hint is a note too.
fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note | Severity::Hint => "note",
    }
}

/// A path as a URI reference (a `file://` URI for an absolute path): `/` between segments,
/// every byte outside the unreserved set percent-encoded.
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len() + 7);
    if path.starts_with('/') {
        out.push_str("file://");
    }
    for byte in path.replace('\\', "/").bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(char::from(byte))
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn paths_become_relative_uris() {
        assert_eq!(super::uri("a b/k.py"), "a%20b/k.py");
        assert_eq!(super::uri("dir\\ü.py"), "dir/%C3%BC.py");
        assert_eq!(super::uri("/tmp/k.py"), "file:///tmp/k.py");
    }
}
