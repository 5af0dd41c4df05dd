//! The viewer page: one HTML file with its style and script inlined (no build step, nothing
//! fetched from elsewhere). Served live by the daemon, or written with the data embedded.

use serde_json::Value;

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
