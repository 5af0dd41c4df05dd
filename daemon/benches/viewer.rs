//! The viewer's drawing speed in headless Chromium: a 2,000-tile function (`memreuse_testgen::synth`, every
//! statement form) on the saved page, measured with the browser's `performance.now()`.
//!
//! - render: from selecting the function to the frame after it is drawn (the page's data is
//!   embedded, so no network), median and worst of 15;
//! - pan and zoom: 240 animation frames, each moving or zooming the view, frames per second
//!   and the worst frame's own work (redraw and layout);
//! - settling: laying every tile out again at a new zoom (the page does it 150 ms after the
//!   last zoom step), median and worst of 15;
//! - live: the same function served by `memreuse view` (the CLI and daemon of this build
//!   profile), from writing an edit of its file to the open page showing it, of 7 edits.
//!
//! `cargo bench -p memreuse-daemon --bench viewer` (needs Chromium: Debian's `chromium`, or
//! `CHROMIUM=...`). Figures go to BENCHMARKS.md.

#[path = "../tests/browser/mod.rs"]
mod browser;

use std::path::Path;
use std::time::Duration;

use memreuse::plan::PlanConfig;
use memreuse::system::OsSystem;
use memreuse_testgen::synth::{SynthConfig, program_text};
use memreuse_viewer::data::{self, PlanVariant};
use memreuse_viewer::page;
use serde_json::{Value, json};

const TILES: usize = 2000;

fn main() {
    // `cargo bench` passes `--bench`; nothing to filter here.
    let Some(chromium) = browser::chromium_or_skip("viewer benchmark") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let text = program_text(
        "SynthViewer",
        &SynthConfig {
            tiles_per_function: TILES,
            seed: 5,
            ..SynthConfig::default()
        },
    );
    let path = Path::new("synth_2000_tiles/31_after_InitMemRef.py");
    let no_cache = std::sync::Arc::new(memreuse::store::Cache::disabled());
    let outcomes: Vec<(PlanVariant, PlanConfig, memreuse::db::FileOutcome)> = PlanVariant::ALL
        .into_iter()
        .map(|v| {
            let config = v.config(&PlanConfig::default(), true);
            (
                v,
                config,
                data::plan_text(&OsSystem, path, &text, config, &no_cache).expect("planned"),
            )
        })
        .collect();
    let variants: Vec<data::PlannedVariant> = outcomes
        .iter()
        .map(|(variant, config, outcome)| data::PlannedVariant::new(*variant, outcome, *config))
        .collect();
    let display = path.display().to_string();
    let entry = data::file_entry(&display, &outcomes[0].2);
    let name = entry["functions"][0]["name"]
        .as_str()
        .expect("a function")
        .to_string();
    let file = data::PlannedFile::new(&display, &outcomes[0].2);
    let document = data::function_document(&file, &name, &variants).expect("document");
    let tiles: usize = document["plans"]["pypto"]["spaces"]
        .as_array()
        .expect("spaces")
        .iter()
        .map(|s| s["tiles"].as_array().map_or(0, Vec::len))
        .sum();
    let key = format!("{display}::{name}");
    let html =
        page::static_page(&json!({ "files": [entry], "functions": { key.clone(): document } }));
    let file = dir.path().join("index.html");
    std::fs::write(&file, &html).expect("write the page");

    let mut browser = browser::Browser::start(&chromium, 1600, 1000);
    browser.goto(&format!("file://{}", file.display()));
    browser.wait_for(
        "the page",
        "document.body.dataset.ready === '1'",
        Duration::from_secs(60),
    );
    let drawn = browser.eval("document.querySelectorAll('rect.tile').length");
    println!(
        "viewer: {tiles} tiles in the data, {drawn} drawn, page {} KiB",
        html.len() / 1024
    );

    let render = browser.eval(&format!(
        r#"(async () => {{
  const frame = () => new Promise(r => requestAnimationFrame(() => r()));
  const times = [];
  for (let i = 0; i < 15; i++) {{
    memreuseViewer.state.selected = null;
    await frame();
    const t0 = performance.now();
    await memreuseViewer.select({key});
    document.body.offsetHeight;
    await frame();
    times.push(performance.now() - t0);
  }}
  times.sort((a, b) => a - b);
  return {{ median: times[7], worst: times[14] }};
}})()"#,
        key = json!(key)
    ));
    println!(
        "viewer: render of the {TILES}-tile function: median {:.1} ms, worst {:.1} ms (15 runs)",
        ms(&render["median"]),
        ms(&render["worst"])
    );

    for (what, step) in [
        ("pan", "memreuseViewer.panTo(v.x0 + d, v.x1 + d, n)"),
        (
            "zoom",
            "memreuseViewer.zoomAt((v.x0 + v.x1) / 2, i % 60 < 30 ? 0.95 : 1 / 0.95, n)",
        ),
    ] {
        let figures = browser.eval(&format!(
            r#"(async () => {{
  const s = memreuseViewer.state;
  const n = Math.max(...s.doc.plans[s.variant].spaces.flatMap(x => x.tiles.map(t => t.end)));
  memreuseViewer.panTo(0, n / 4, n);
  const frames = 240;
  let worst = 0, i = 0;
  const t0 = performance.now();
  await new Promise(done => {{
    const tick = () => {{
      const v = s.view, d = (i % 120 < 60 ? 1 : -1) * (v.x1 - v.x0) / 100;
      const w0 = performance.now();
      {step};
      document.querySelector('rect.tile').getBBox();
      document.body.offsetHeight;
      worst = Math.max(worst, performance.now() - w0);
      if (++i < frames) requestAnimationFrame(tick); else done();
    }};
    requestAnimationFrame(tick);
  }});
  const elapsed = performance.now() - t0;
  return {{ fps: frames / (elapsed / 1000), worst }};
}})()"#
        ));
        println!(
            "viewer: {what}: {:.1} frames/s over 240 frames, worst frame's redraw {:.1} ms",
            figures["fps"].as_f64().unwrap_or(0.0),
            ms(&figures["worst"])
        );
    }
    let settle = browser.eval(
        r#"(() => {
  const times = [];
  for (let i = 0; i < 15; i++) {
    memreuseViewer.zoomAt(100, i % 2 ? 0.7 : 1 / 0.7, 1e9);
    const t0 = performance.now();
    memreuseViewer.relayout();
    document.querySelector('rect.tile').getBBox();
    document.body.offsetHeight;
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { median: times[7], worst: times[14] };
})()"#,
    );
    println!(
        "viewer: laying the tiles out again once a zoom settles: median {:.1} ms, worst {:.1} ms",
        ms(&settle["median"]),
        ms(&settle["worst"])
    );
    if let Ok(out) = std::env::var("MEMREUSE_VIEWER_SCREENSHOT") {
        std::fs::write(&out, browser.screenshot()).expect("write the screenshot");
        println!("viewer: screenshot in {out}");
    }
    live_updates(&mut browser, &text, dir.path());
}

/// The daemon serving the function (`memreuse view`), and an edit of its file until the open
/// page shows it: from the write to the page's new document drawn, median and worst of 7.
fn live_updates(browser: &mut browser::Browser, text: &str, dir: &Path) {
    let daemon = env!("CARGO_BIN_EXE_memreused");
    let cli = Path::new(daemon).with_file_name("memreuse");
    if !cli.is_file() {
        println!(
            "viewer: live updates not measured: {} is missing (build the CLI with the same profile)",
            cli.display()
        );
        return;
    }
    let (root, state) = (dir.join("root"), dir.join("state"));
    let relative = "synth_2000_tiles/31_after_InitMemRef.py";
    let file = root.join(relative);
    std::fs::create_dir_all(root.join(".git")).expect("root");
    std::fs::create_dir_all(file.parent().expect("dir")).expect("mkdir");
    std::fs::write(&file, text).expect("write the kernel");
    let memreuse = |args: &[&str]| {
        std::process::Command::new(&cli)
            .arg("--state-dir")
            .arg(&state)
            .args(args)
            .current_dir(&root)
            .env("MEMREUSED", daemon)
            .env_remove("MEMREUSE_STATE_DIR")
            .output()
            .expect("memreuse runs")
    };
    let out = memreuse(&["view", "--no-open", relative]);
    let url = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or("")
        .to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "no URL: {out:?}");
    browser.goto(&url);
    browser.wait_for(
        "the live page",
        "document.body.dataset.ready === '1' && document.querySelectorAll('rect.tile').length > 2000",
        Duration::from_secs(120),
    );
    let first = browser
        .eval("memreuseViewer.state.doc.statements[0]")
        .as_u64()
        .expect("a line");
    let mut times = Vec::new();
    for round in 1..=7u64 {
        let comments = "# an edit\n".repeat(round as usize);
        let started = std::time::Instant::now();
        std::fs::write(&file, format!("{comments}{text}")).expect("edit");
        browser.wait_for(
            "the page to follow the edit",
            &format!(
                "memreuseViewer.state.doc && memreuseViewer.state.doc.statements[0] === {} && document.querySelectorAll('rect.tile').length > 2000",
                first + round
            ),
            Duration::from_secs(60),
        );
        times.push(started.elapsed());
    }
    times.sort();
    println!(
        "viewer: an edit of the 2,000-tile file shown by the open page: median {:.0} ms, worst {:.0} ms (7 edits)",
        times[3].as_secs_f64() * 1e3,
        times[6].as_secs_f64() * 1e3
    );
    let _ = memreuse(&["daemon", "stop"]);
}

fn ms(value: &Value) -> f64 {
    value.as_f64().unwrap_or(f64::NAN)
}
