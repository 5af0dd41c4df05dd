//! End-to-end tests of `memreuse plan --emit svg`.

use memreuse_test_support::text;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn memreuse(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memreuse"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs")
}

fn kernel(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("cli/ sits in the workspace")
        .join("examples/kernels")
        .join(name)
        .join("31_after_InitMemRef.py")
}

/// The `data-buffer` names of the legend entries of a well-formed SVG.
fn legend(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
    assert!(doc.root_element().has_tag_name("svg"));
    doc.descendants()
        .filter(|n| n.attribute("class") == Some("legend-entry"))
        .filter_map(|n| n.attribute("data-buffer").map(str::to_string))
        .collect()
}

#[test]
fn one_function_goes_to_stdout() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::copy(kernel("flash_attention"), dir.path().join("fa.py")).expect("copy");
    let result = memreuse(
        &["plan", "fa.py", "--emit", "svg", "--backend", "910b"],
        dir.path(),
    );
    assert!(result.status.success(), "{}", text(&result.stderr));
    let svg = text(&result.stdout);
    assert!(svg.starts_with("<svg"), "{svg}");
    assert!(svg.contains(r#"class="capacity""#));
    let buffers = legend(&svg);
    assert!(buffers.iter().any(|b| b == "mem_vec_8"), "{buffers:?}");
}

#[test]
fn several_functions_need_out() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::copy(kernel("orchestrated_kernels"), dir.path().join("k.py")).expect("copy");
    std::fs::copy(kernel("rms_norm"), dir.path().join("r.py")).expect("copy");
    for args in [
        &["plan", "k.py", "--emit", "svg"][..],
        &["plan", "k.py", "r.py", "--emit", "svg"][..],
    ] {
        let result = memreuse(args, dir.path());
        assert_eq!(result.status.code(), Some(2), "{args:?}");
        assert!(text(&result.stderr).contains("--out DIR"), "{args:?}");
        assert!(result.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn out_gets_one_file_per_function_mirroring_the_tree() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(dir.path().join("tree/sub")).expect("mkdir");
    std::fs::copy(
        kernel("orchestrated_kernels"),
        dir.path().join("tree/sub/k.py"),
    )
    .expect("copy");
    std::fs::copy(kernel("rms_norm"), dir.path().join("tree/r.py")).expect("copy");
    let result = memreuse(
        &["plan", "tree", "--emit", "svg", "--out", "svg"],
        dir.path(),
    );
    assert!(result.status.success(), "{}", text(&result.stderr));
    assert!(result.stdout.is_empty(), "{}", text(&result.stdout));
    let mut written: Vec<String> = Vec::new();
    let mut stack = vec![dir.path().join("svg")];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("readable") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.ends_with(".memreuse-output") {
                // The marker that keeps later runs from planning the outputs.
            } else {
                legend(&std::fs::read_to_string(&path).expect("utf-8"));
                let relative = path.strip_prefix(dir.path().join("svg")).expect("below");
                written.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    written.sort();
    let source = std::fs::read_to_string(kernel("orchestrated_kernels")).expect("readable");
    let program = memreuse::ir::parse_program(&source).expect("parses");
    // `main` orchestrates the kernels and has no tiles: nothing to draw, and it says so.
    let mut expected: Vec<String> = program
        .functions
        .iter()
        .filter(|f| f.name != "main")
        .map(|f| format!("sub/k.py.{}.svg", f.name))
        .collect();
    assert!(
        text(&result.stderr).contains("1 function without tiles not drawn: main"),
        "{}",
        text(&result.stderr)
    );
    let rms = memreuse::ir::parse_program(
        &std::fs::read_to_string(kernel("rms_norm")).expect("readable"),
    )
    .expect("parses");
    expected.extend(rms.functions.iter().map(|f| format!("r.py.{}.svg", f.name)));
    expected.sort();
    assert_eq!(written, expected);
}

/// `FILE::FUNCTION` draws that function alone, to stdout; a function without tiles gives no
/// picture and a note; one the file lacks is an error naming those it has.
#[test]
fn a_named_function_is_drawn_alone() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::copy(kernel("orchestrated_kernels"), dir.path().join("k.py")).expect("copy");
    let one = memreuse(&["plan", "k.py::scale_kernel", "--emit", "svg"], dir.path());
    assert!(one.status.success(), "{}", text(&one.stderr));
    let svg = text(&one.stdout);
    assert!(
        svg.starts_with("<svg") && svg.contains("scale_kernel"),
        "{svg}"
    );
    assert!(!svg.contains("add_kernel"), "{svg}");

    let tileless = memreuse(&["plan", "k.py::main", "--emit", "svg"], dir.path());
    assert!(tileless.status.success(), "{}", text(&tileless.stderr));
    assert!(tileless.stdout.is_empty());
    assert!(text(&tileless.stderr).contains("without tiles not drawn: main"));

    let missing = memreuse(&["plan", "k.py::nope", "--emit", "svg"], dir.path());
    assert_eq!(missing.status.code(), Some(1));
    let stderr = text(&missing.stderr);
    assert!(
        stderr.contains("no function 'nope' in k.py (it has: add_kernel, scale_kernel, main)"),
        "{stderr}"
    );
}
