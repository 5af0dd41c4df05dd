//! The viewer's drawing speed in headless Chromium: a 2,000-tile function (`memreuse_testgen::synth`, every
//! statement form) on the saved page, measured with the browser's `performance.now()`.
//!
//! - render: from selecting the function to the frame after it is drawn (the page's data is
//!   embedded, so no network), median and worst of 15;
//! - pan and zoom: 240 animation frames, each moving or zooming the view, frames per second
//!   and the worst frame's own work (redraw and layout);
//! - settling: laying every tile out again at a new zoom (the page does it 150 ms after the
//!   last zoom step), median and worst of 15.
//!
//! `cargo bench -p memreuse-daemon --bench viewer` (needs Chromium: Debian's `chromium`, or
//! `CHROMIUM=...`). Figures go to BENCHMARKS.md.

#[path = "../tests/browser/mod.rs"]
mod browser;

use std::path::Path;
use std::time::Duration;

use memreuse::plan::PlanConfig;
use memreuse::system::OsSystem;
use memreuse_daemon::viewer::{data, page};
use memreuse_testgen::synth::{SynthConfig, program_text};
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
    let outcomes: Vec<(&str, PlanConfig, memreuse::db::FileOutcome)> = data::VARIANTS
        .iter()
        .map(|v| {
            let config = data::variant_config(&PlanConfig::default(), v, true);
            (
                *v,
                config,
                data::plan_text(&OsSystem, path, &text, config).expect("planned"),
            )
        })
        .collect();
    let variants: Vec<data::Variant> = outcomes
        .iter()
        .map(|(name, config, outcome)| data::Variant {
            name,
            outcome,
            config: *config,
        })
        .collect();
    let display = path.display().to_string();
    let entry = data::file_entry(&display, &outcomes[0].2);
    let name = entry["functions"][0]["name"]
        .as_str()
        .expect("a function")
        .to_string();
    let document =
        data::function_document(&display, &outcomes[0].2, &name, &variants).expect("document");
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
}

fn ms(value: &Value) -> f64 {
    value.as_f64().unwrap_or(f64::NAN)
}
