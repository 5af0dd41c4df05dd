//! The viewer page: one HTML file with its style and script inlined (no build step, nothing
//! fetched from elsewhere). Served live by the daemon, or written with the data embedded.

use std::path::Path;

use memreuse::db::FileOutcome;
use memreuse::plan::PlanConfig;
use memreuse::system::System;
use serde_json::Value;

use super::data;

const TEMPLATE: &str = include_str!("../../web/index.html");
const STYLE: &str = include_str!("../../web/viewer.css");
const SCRIPT: &str = include_str!("../../web/viewer.js");

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
/// planner's) planned from `config`.
pub fn static_page_of(system: &dyn System, files: &[PageFile], config: &PlanConfig) -> String {
    let mut entries = Vec::new();
    let mut functions = serde_json::Map::new();
    for file in files {
        if let Some(err) = file.unreadable {
            let message = format!("cannot read {}: {err}", file.display);
            entries.push(data::unreadable_entry(file.display, &message));
            continue;
        }
        let path = Path::new(file.display);
        let variants: Vec<(&str, PlanConfig, FileOutcome)> = data::VARIANTS
            .iter()
            .filter_map(|v| {
                let variant = data::variant_config(config, v, file.materialize_aliases);
                let planned = data::plan_text(system, path, file.text, variant)?;
                Some((*v, variant, planned))
            })
            .collect();
        let Some((_, _, primary)) = variants.first() else {
            continue;
        };
        let borrowed: Vec<data::Variant> = variants
            .iter()
            .map(|(name, config, outcome)| data::Variant {
                name,
                outcome,
                config: *config,
            })
            .collect();
        for name in &file.functions {
            if let Some(document) = data::function_document(file.display, primary, name, &borrowed)
            {
                functions.insert(format!("{}::{name}", file.display), document);
            }
        }
        entries.push(data::file_entry(file.display, primary));
    }
    static_page(&serde_json::json!({ "files": entries, "functions": functions }))
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
}
