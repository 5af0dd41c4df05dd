//! `plan_svg` pictures, parsed back: well-formed, one panel per space, every buffer in the
//! legend, every tile a titled rectangle inside the plot, the capacity line iff it is known.

use std::path::{Path, PathBuf};

use memreuse::backend::Backend;
use memreuse::ir::{MemSpace, Name, parse_program};
use memreuse::plan::{
    BufferReport, LifetimeReport, LiveStep, PlanConfig, PlanOptions, PlanReport, SpaceReport,
    plan_function,
};
use memreuse::svg::plan_svg;
use roxmltree::{Document, Node};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// Every program file of the example kernels and the planner fixtures.
fn inputs() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(repo("examples/kernels")).expect("examples exist") {
        let dir = entry.expect("entry").path();
        if dir.is_dir() {
            files.push(dir.join("31_after_InitMemRef.py"));
        }
    }
    for entry in std::fs::read_dir(repo("tests/data/plan")).expect("fixtures exist") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "py")
            && !path.to_string_lossy().ends_with(".out.py")
        {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// `(function name, report)` for every function of `path` that plans under `config`.
fn reports(path: &Path, config: &PlanConfig) -> Vec<(String, PlanReport)> {
    let text = std::fs::read_to_string(path).expect("readable");
    let program = parse_program(&text).expect("parses");
    program
        .functions
        .iter()
        .filter_map(|f| {
            Some((
                f.name.to_string(),
                plan_function(f, config, &PlanOptions::default())
                    .ok()?
                    .report,
            ))
        })
        .collect()
}

fn text_of(path: &Path) -> String {
    std::fs::read_to_string(path).expect("readable")
}

fn class<'a>(node: Node<'a, 'a>, name: &str) -> bool {
    node.attribute("class") == Some(name)
}

fn attr(node: Node, name: &str) -> f64 {
    node.attribute(name)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("<{}> has no numeric {name}", node.tag_name().name()))
}

fn title(node: Node) -> String {
    node.children()
        .find(|c| c.has_tag_name("title"))
        .and_then(|t| t.text())
        .unwrap_or_default()
        .to_string()
}

/// Checks `svg` against `report`; returns how many tiles got a text label.
fn check(what: &str, function: &str, report: &PlanReport, svg: &str) -> usize {
    let doc = Document::parse(svg).unwrap_or_else(|e| panic!("{what}: not well-formed: {e}"));
    let root = doc.root_element();
    assert!(root.has_tag_name("svg"), "{what}");
    assert!(title(root).contains(function), "{what}: document title");
    let panels: Vec<Node> = root
        .descendants()
        .filter(|n| n.has_tag_name("g") && class(*n, "space"))
        .collect();
    assert_eq!(
        panels.len(),
        report.spaces.len(),
        "{what}: one panel per space"
    );
    let mut labels = 0;
    for (panel, space) in panels.iter().zip(&report.spaces) {
        let what = format!("{what} {}", space.space.name());
        assert_eq!(
            panel.attribute("data-space"),
            Some(space.space.name()),
            "{what}"
        );
        let heading = panel
            .descendants()
            .find(|n| class(*n, "panel-title"))
            .and_then(|n| n.text())
            .unwrap_or_default();
        assert!(heading.contains(function), "{what}: title {heading}");

        let legend: Vec<String> = panel
            .descendants()
            .filter(|n| class(*n, "legend-entry"))
            .filter_map(|n| n.descendants().find(|t| t.has_tag_name("text"))?.text())
            .map(str::to_string)
            .collect();
        for b in &space.buffers {
            let entry = format!("{} (", b.base);
            assert!(
                legend.iter().any(|l| l.starts_with(&entry)),
                "{what}: {} missing from the legend {legend:?}",
                b.base
            );
        }

        let frame = panel
            .children()
            .find(|n| class(*n, "frame"))
            .unwrap_or_else(|| panic!("{what}: no frame"));
        let (fx, fy) = (attr(frame, "x"), attr(frame, "y"));
        let (fw, fh) = (attr(frame, "width"), attr(frame, "height"));
        let inside = |x: f64, y: f64| {
            (fx - 0.01..=fx + fw + 0.7).contains(&x) && (fy - 0.01..=fy + fh + 0.01).contains(&y)
        };
        let rects: Vec<Node> = panel
            .children()
            .filter(|n| n.has_tag_name("rect") && class(*n, "tile"))
            .collect();
        let members: usize = space.buffers.iter().map(|b| b.members.len()).sum();
        assert_eq!(rects.len(), members, "{what}: one rectangle per tile");
        for b in &space.buffers {
            for member in &b.members {
                let rect = rects
                    .iter()
                    .find(|r| r.attribute("data-tile") == Some(member.as_str()))
                    .unwrap_or_else(|| panic!("{what}: no rectangle for {member}"));
                assert_eq!(rect.attribute("data-buffer"), Some(b.base.as_str()));
                assert!(
                    title(*rect).starts_with(&format!("{member} in {}", b.base)),
                    "{what}: {member}'s tooltip"
                );
                let (x, y) = (attr(*rect, "x"), attr(*rect, "y"));
                let (w, h) = (attr(*rect, "width"), attr(*rect, "height"));
                assert!(
                    inside(x, y) && inside(x + w, y + h),
                    "{what}: {member} outside the plot"
                );
            }
        }
        labels += panel
            .children()
            .filter(|n| class(*n, "tile-label"))
            .inspect(|l| {
                let text = l.text().unwrap_or_default();
                assert!(
                    space
                        .buffers
                        .iter()
                        .any(|b| b.members.iter().any(|m| m == text)),
                    "{what}: label {text} names no tile"
                );
            })
            .count();

        let capacity: Vec<Node> = panel
            .children()
            .filter(|n| n.has_tag_name("line") && class(*n, "capacity"))
            .collect();
        if space.capacity.is_some_and(|c| c > 0) {
            assert_eq!(capacity.len(), 1, "{what}: one capacity line");
            assert!(
                inside(fx, attr(capacity[0], "y1")),
                "{what}: capacity visible"
            );
        } else {
            assert!(capacity.is_empty(), "{what}: capacity unknown yet drawn");
        }
        let curve = panel
            .children()
            .find(|n| class(*n, "live-bytes"))
            .unwrap_or_else(|| panic!("{what}: no live-bytes curve"));
        // One definition of live bytes: the curve's peak is the summary's lower bound.
        assert_eq!(
            title(curve),
            format!("live bytes (peak {} B)", space.lower_bound),
            "{what}"
        );
        let points = curve.attribute("points").unwrap_or_default();
        for point in points.split_whitespace() {
            let (x, y) = point.split_once(',').expect("x,y");
            let (x, y) = (x.parse().expect("x"), y.parse().expect("y"));
            assert!(inside(x, y), "{what}: curve point {point} outside the plot");
        }
    }
    labels
}

#[test]
fn every_input_renders_every_buffer_and_tile() {
    let configs = [
        PlanConfig::default(),
        PlanConfig {
            backend: Backend::Ascend910B,
            ..PlanConfig::default()
        },
    ];
    let mut functions = 0;
    for path in inputs() {
        for config in &configs {
            for (function, report) in reports(&path, config) {
                let what = format!("{}::{function} ({:?})", path.display(), config.backend);
                check(
                    &what,
                    &function,
                    &report,
                    &plan_svg(&function, &report, &text_of(&path)),
                );
                functions += 1;
            }
        }
    }
    assert!(functions > 100, "only {functions} functions planned");
}

#[test]
fn flash_attention_is_labelled_and_the_capacity_is_visible() {
    let path = repo("examples/kernels/flash_attention/31_after_InitMemRef.py");
    let config = PlanConfig {
        backend: Backend::Ascend910B,
        ..PlanConfig::default()
    };
    let [(function, report)] = reports(&path, &config).try_into().expect("one function");
    assert!(
        report
            .spaces
            .iter()
            .all(|s| s.capacity.is_some_and(|c| c > s.footprint))
    );
    let text = text_of(&path);
    let svg = plan_svg(&function, &report, &text);
    let labels = check("flash_attention", &function, &report, &svg);
    assert!(labels >= 10, "only {labels} labels");
    assert!(svg.contains(">o_init</text>") && svg.contains(">s_tmp</text>"));
    // The capacity is far above the footprint: the axis is broken rather than the tiles squashed.
    assert!(svg.contains(r#"class="axis-break""#));
}

#[test]
fn a_crowded_panel_drops_labels_that_do_not_fit() {
    let path = repo("examples/kernels/synth_1200_tiles/31_after_InitMemRef.py");
    let [(function, report)] = reports(&path, &PlanConfig::default())
        .try_into()
        .expect("one function");
    let tiles: usize = report.spaces.iter().map(|s| s.tiles).sum();
    assert!(tiles > 1000, "{tiles} tiles");
    let labels = check(
        "synth",
        &function,
        &report,
        &plan_svg(&function, &report, &text_of(&path)),
    );
    assert!(labels < tiles / 4, "{labels} labels for {tiles} tiles");
}

#[test]
fn output_is_deterministic() {
    let path = repo("examples/kernels/orchestrated_kernels/31_after_InitMemRef.py");
    let first: Vec<String> = reports(&path, &PlanConfig::default())
        .iter()
        .map(|(f, r)| plan_svg(f, r, &text_of(&path)))
        .collect();
    let second: Vec<String> = reports(&path, &PlanConfig::default())
        .iter()
        .map(|(f, r)| plan_svg(f, r, &text_of(&path)))
        .collect();
    assert_eq!(first, second);
}

#[test]
fn names_are_escaped() {
    let name = |s: &str| Name::from(s);
    let report = PlanReport {
        spaces: vec![SpaceReport {
            space: MemSpace::Vec,
            capacity: Some(1024),
            tiles: 2,
            buffers_before: 2,
            buffers_after: 1,
            bytes_before: 512,
            bytes_after: 256,
            lower_bound: 256,
            footprint: 256,
            pypto_footprint: None,
            live: vec![
                LiveStep { at: 0, bytes: 256 },
                LiveStep { at: 2, bytes: 128 },
                LiveStep { at: 3, bytes: 0 },
            ],
            buffers: vec![BufferReport {
                base: name("mem<&>\"'"),
                size: 256,
                offset: 0,
                pinned: true,
                members: vec![name("a<b"), name("c&d")],
            }],
        }],
        lifetimes: vec![
            LifetimeReport {
                var: name("a<b"),
                space: MemSpace::Vec,
                size: 256,
                def: 0,
                last: 2,
            },
            LifetimeReport {
                var: name("c&d"),
                space: MemSpace::Vec,
                size: 128,
                def: 2,
                last: 2,
            },
        ],
        ..PlanReport::default()
    };
    let svg = plan_svg("f<&>", &report, "");
    check("escaped", "f<&>", &report, &svg);
}

#[test]
fn a_function_without_tiles_still_renders() {
    let svg = plan_svg("orchestrator", &PlanReport::default(), "");
    let doc = Document::parse(&svg).expect("well-formed");
    assert!(doc.root_element().has_tag_name("svg"));
    assert!(svg.contains("no on-chip tiles"));
}

#[test]
fn the_time_axis_is_labelled_with_source_lines() {
    let path = repo("examples/kernels/flash_attention/31_after_InitMemRef.py");
    let text = text_of(&path);
    let source: Vec<&str> = text.lines().collect();
    let [(function, report)] = reports(&path, &PlanConfig::default())
        .try_into()
        .expect("one function");
    let svg = plan_svg(&function, &report, &text);
    let doc = Document::parse(&svg).expect("well-formed");
    let mut ticks = Vec::new();
    for panel in doc.descendants().filter(|n| class(*n, "space")) {
        let in_panel: Vec<usize> = panel
            .descendants()
            .filter(|n| class(*n, "tick"))
            .map(|n| n.text().unwrap_or("").parse().expect("a line number"))
            .collect();
        assert!(in_panel.len() >= 3, "{in_panel:?}");
        assert!(in_panel.windows(2).all(|w| w[0] <= w[1]), "{in_panel:?}");
        ticks.extend(in_panel);
    }
    let body_starts = source
        .iter()
        .position(|l| l.contains(&format!("def {function}(")))
        .expect("the function's def")
        + 1;
    for &line in &ticks {
        assert!(line > body_starts && line <= source.len(), "tick {line}");
        let statement = source[line - 1].trim_start();
        assert!(
            !statement.is_empty() && !statement.starts_with('#'),
            "tick {line} labels no statement: {statement:?}"
        );
    }
    // Every tile's tooltip names the lines it is live over, and its definition's line
    // assigns it.
    let tooltips: Vec<String> = doc
        .descendants()
        .filter(|n| class(*n, "tile"))
        .map(title)
        .collect();
    assert!(!tooltips.is_empty());
    for tooltip in &tooltips {
        let (name, rest) = tooltip.split_once(" in ").expect("name in base");
        let lines = rest.split("source lines ").nth(1).expect("source lines");
        let def: usize = lines
            .split("..")
            .next()
            .expect("def")
            .parse()
            .expect("line");
        assert!(
            source[def - 1].trim_start().starts_with(name),
            "{tooltip}: line {def} is {:?}",
            source[def - 1]
        );
    }
}
