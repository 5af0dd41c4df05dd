//! The viewer page: one HTML file with its style and script inlined (no build step, nothing
//! fetched from elsewhere). Served live by the daemon, or written with the data embedded.

use std::path::Path;
use std::sync::Arc;

use memreuse::db::{FileOutcome, parallel_map};
use memreuse::plan::PlanConfig;
use memreuse::store::Cache;
use memreuse::system::System;
use serde_json::Value;

use super::data::{self, PlanVariant};

const TEMPLATE: &str = include_str!("../web/index.html");
const STYLE: &str = include_str!("../web/viewer.css");
const SCRIPT: &str = include_str!("../web/viewer.js");

/// The page as the daemon serves it: it asks the server for its data.
pub fn live_page() -> String {
    assemble("null")
}

/// The page with `data` embedded (`plan --emit html`): it needs no server.
///
/// `data` is `{"files": [...], "functions": {"PATH::NAME": document}}`.
pub fn static_page(data: &Value) -> String {
    assemble(&embeddable_json(data))
}

/// One file for [`static_page_of`]: its path as shown, its text, why it could not be read
/// (if so), whether Step 0 applies to it, and its functions' names in order.
pub struct PageFile<'a> {
    pub display: &'a str,
    pub text: &'a str,
    pub unreadable: Option<&'a str>,
    pub materialize_aliases: bool,
    pub functions: Vec<&'a str>,
}

/// The page with every file embedded (`plan --emit html`, a notebook's view of a plan): a
/// file that cannot be read or parsed with its diagnostics, the others with all their
/// functions, each in all its plan variants (PyPTO's repaired, PyPTO's exact, the offset
/// planner's) planned from `config` through `cache` (a page of cached plans plans nothing).
pub fn static_page_of(
    system: &dyn System,
    files: &[PageFile],
    config: &PlanConfig,
    cache: &Arc<Cache>,
) -> String {
    // Files are made into their parts on every core (the 81 real programs: 3.2 s of CPU),
    // each function's document serialized as soon as it is made: held as values, the
    // documents took 2 GB.
    let jobs = std::thread::available_parallelism().map_or(1, usize::from);
    let parts = parallel_map(files, jobs, |file| file_part(system, file, config, cache));
    let mut data = b"{\"functions\":{".to_vec();
    let mut entries = Vec::with_capacity(parts.len());
    let mut first = true;
    for FilePart { entry, documents } in parts {
        if !documents.is_empty() {
            if !first {
                data.push(b',');
            }
            first = false;
            data.extend_from_slice(&documents);
        }
        entries.extend(entry);
    }
    data.extend_from_slice(b"},\"files\":");
    push_embeddable(&mut data, &Value::Array(entries));
    data.push(b'}');
    // Serialized JSON is UTF-8.
    assemble(&String::from_utf8_lossy(&data))
}

/// One file's share of the page: its list entry, and its functions' `"PATH::NAME": document`
/// members, comma-separated.
struct FilePart {
    entry: Option<Value>,
    documents: Vec<u8>,
}

fn file_part(
    system: &dyn System,
    file: &PageFile,
    config: &PlanConfig,
    cache: &Arc<Cache>,
) -> FilePart {
    let mut documents = Vec::new();
    if let Some(err) = file.unreadable {
        let message = format!("cannot read {}: {err}", file.display);
        return FilePart {
            entry: Some(data::unreadable_entry(file.display, &message)),
            documents,
        };
    }
    let path = Path::new(file.display);
    let configs = PlanVariant::ALL.map(|v| v.config(config, file.materialize_aliases));
    let planned = data::plan_variants(system, path, file.text, &configs, cache, None);
    let variants: Vec<(PlanVariant, PlanConfig, FileOutcome)> = PlanVariant::ALL
        .into_iter()
        .zip(configs)
        .zip(planned.outcomes)
        .filter_map(|((variant, config), outcome)| Some((variant, config, outcome?)))
        .collect();
    let Some((_, _, primary)) = variants.first() else {
        return FilePart {
            entry: None,
            documents,
        };
    };
    let borrowed: Vec<data::PlannedVariant> = variants
        .iter()
        .map(|(variant, config, outcome)| data::PlannedVariant::new(*variant, outcome, *config))
        .collect();
    let planned = data::PlannedFile::with_functions(file.display, primary, planned.functions);
    for name in &file.functions {
        if let Some(document) = data::function_document(&planned, name, &borrowed) {
            if !documents.is_empty() {
                documents.push(b',');
            }
            let key = Value::String(format!("{}::{name}", file.display));
            push_embeddable(&mut documents, &key);
            documents.push(b':');
            push_embeddable(&mut documents, &document);
        }
    }
    FilePart {
        entry: Some(data::file_entry(file.display, primary)),
        documents,
    }
}

/// `value` as JSON that can sit inside a `<script>` element, appended to `out`.
fn push_embeddable(out: &mut Vec<u8>, value: &Value) {
    let start = out.len();
    // Writing JSON into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, value);
    if memchr::memchr(b'<', &out[start..]).is_some() {
        let written = out.split_off(start);
        for &byte in &written {
            match byte {
                b'<' => out.extend_from_slice(b"\\u003c"),
                _ => out.push(byte),
            }
        }
    }
}

/// JSON that can sit inside a `<script>` element: no `<` survives to end it early.
fn embeddable_json(data: &Value) -> String {
    data.to_string().replace('<', "\\u003c")
}

fn assemble(data: &str) -> String {
    TEMPLATE
        .replace("/*STYLE*/", STYLE)
        .replace("/*SCRIPT*/", SCRIPT)
        .replace("\"/*DATA*/\"", data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_data_cannot_close_its_script() {
        let data = serde_json::json!({ "files": [], "functions": { "a::b": "</script><!--" } });
        let page = static_page(&data);
        assert!(!page.contains("</script><!--"));
        assert!(page.contains("\\u003c/script>"));
        assert!(!live_page().contains("/*DATA*/"));
    }

    #[test]
    fn streamed_documents_cannot_close_their_script_either() {
        let mut out = Vec::new();
        push_embeddable(
            &mut out,
            &serde_json::json!({ "source": ["x = 1 </script><!--"] }),
        );
        let text = String::from_utf8(out).expect("JSON is UTF-8");
        assert_eq!(text, r#"{"source":["x = 1 \u003c/script>\u003c!--"]}"#);
        let back: Value = serde_json::from_str(&text).expect("still JSON");
        assert_eq!(back["source"][0], "x = 1 </script><!--");
    }
}
