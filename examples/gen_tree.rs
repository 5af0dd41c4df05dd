//! Writes a generated kernel tree (see `memreuse_testgen::tree_gen`) under OUT.
//!
//! `cargo run --release --example gen_tree -- [--files 1000] [--functions 20] [--seed 0]
//! [--min-tiles 4] [--max-tiles 32] OUT`

use std::path::PathBuf;

use memreuse_testgen::tree_gen::{TreeConfig, generate};

const USAGE: &str =
    "usage: gen_tree [--files N] [--functions N] [--seed N] [--min-tiles N] [--max-tiles N] OUT";

fn main() {
    let mut cfg = TreeConfig::default();
    let (mut min, mut max) = (*cfg.tiles.start(), *cfg.tiles.end());
    let mut out = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .unwrap_or_else(|| fail(&format!("{arg} needs a value")))
        };
        match arg.as_str() {
            "--files" => cfg.files = number(&value()),
            "--functions" => cfg.functions = number(&value()),
            "--seed" => cfg.seed = number(&value()),
            "--min-tiles" => min = number(&value()),
            "--max-tiles" => max = number(&value()),
            "--help" | "-h" => {
                println!("{USAGE}");
                return;
            }
            flag if flag.starts_with('-') => fail(&format!("unknown argument '{flag}'")),
            path => out = Some(PathBuf::from(path)),
        }
    }
    let Some(out) = out else {
        fail("OUT is required")
    };
    if min > max {
        fail("--min-tiles must not exceed --max-tiles");
    }
    cfg.tiles = min..=max;
    let mut bytes = 0;
    for (path, text) in generate(&cfg) {
        let path = out.join(path);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .unwrap_or_else(|e| fail(&format!("cannot create {}: {e}", dir.display())));
        }
        std::fs::write(&path, &text)
            .unwrap_or_else(|e| fail(&format!("cannot write {}: {e}", path.display())));
        bytes += text.len();
    }
    eprintln!(
        "gen_tree: {} files x {} functions, {bytes} bytes under {}",
        cfg.files,
        cfg.functions,
        out.display()
    );
}

fn number<T: std::str::FromStr>(text: &str) -> T {
    text.parse()
        .unwrap_or_else(|_| fail(&format!("'{text}' is not a number")))
}

fn fail(message: &str) -> ! {
    eprintln!("gen_tree: {message}\n{USAGE}");
    std::process::exit(2)
}
