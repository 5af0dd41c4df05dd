//! The memory viewer in a real browser (headless Chromium over the DevTools protocol): the
//! saved page of the bundled kernels (`plan --emit html`) lists every function and draws every
//! tile; the live page of `memreuse view` refuses requests without its token or for another
//! host, shows a tooltip on hover, the explain verdict for two clicked tiles, follows an edit
//! of a watched file keeping the selection, and shows a file that stops parsing with its
//! located diagnostics.
//!
//! Without Chromium these tests say so and pass (`.ci/run` installs it, so CI runs them).

mod browser;

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use browser::{Browser, chromium_or_skip};
use memreuse_test_support::cli_beside;
use serde_json::{Value, json};

const DAEMON: &str = env!("CARGO_BIN_EXE_memreused");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

fn run(cwd: &Path, state: &Path, args: &[&str]) -> Output {
    Command::new(cli_beside(DAEMON))
        .arg("--state-dir")
        .arg(state)
        .args(args)
        .current_dir(cwd)
        .env("MEMREUSED", DAEMON)
        .env_remove("MEMREUSE_STATE_DIR")
        .env_remove("BROWSER")
        .stdin(Stdio::null())
        .output()
        .expect("memreuse runs")
}

fn ok(cwd: &Path, state: &Path, args: &[&str]) -> String {
    let out = run(cwd, state, args);
    assert!(
        out.status.success(),
        "memreuse {args:?} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `path::function` → tiles per memory space, as `plan --emit json` reports them.
fn planned_tiles(json: &str) -> Vec<(String, Vec<(String, u64)>)> {
    let document: Value = serde_json::from_str(json).expect("plan JSON");
    let mut out = Vec::new();
    for file in document["files"].as_array().expect("files") {
        for f in file["functions"].as_array().expect("functions") {
            let key = format!(
                "{}::{}",
                file["path"].as_str().expect("path"),
                f["name"].as_str().expect("name")
            );
            let spaces = f["spaces"]
                .as_array()
                .expect("spaces")
                .iter()
                .map(|s| {
                    (
                        s["space"].as_str().expect("space").to_string(),
                        s["tiles"].as_u64().expect("tiles"),
                    )
                })
                .collect();
            out.push((key, spaces));
        }
    }
    out
}

/// The function with the largest footprint (summed over its spaces) in a plan JSON.
fn expected_footprints(json: &str) -> String {
    let document: Value = serde_json::from_str(json).expect("plan JSON");
    let mut best = (i64::MIN, String::new());
    for file in document["files"].as_array().expect("files") {
        for f in file["functions"].as_array().expect("functions") {
            let footprint: i64 = f["spaces"]
                .as_array()
                .expect("spaces")
                .iter()
                .map(|s| s["footprint"].as_i64().expect("footprint"))
                .sum();
            let key = format!(
                "{}::{}",
                file["path"].as_str().expect("path"),
                f["name"].as_str().expect("name")
            );
            if footprint > best.0 {
                best = (footprint, key);
            }
        }
    }
    best.1
}

/// What the page draws now, per space: tiles drawn and the smallest drawn width and height.
const DRAWN: &str = r#"Array.from(document.querySelectorAll('.space svg')).map(svg => {
  const rects = Array.from(svg.querySelectorAll('rect.tile'));
  const boxes = rects.map(r => r.getBoundingClientRect());
  return { space: svg.dataset.space, tiles: rects.length,
           min_w: Math.min(...boxes.map(b => b.width)), min_h: Math.min(...boxes.map(b => b.height)) };
})"#;

#[test]
fn the_saved_page_lists_every_function_and_draws_every_tile_of_the_bundled_kernels() {
    let Some(chromium) = chromium_or_skip("saved page of the bundled kernels") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let (out, state) = (dir.path().join("out"), dir.path().join("state"));
    let repo = repo();
    let out_arg = out.to_string_lossy().into_owned();
    ok(
        &repo,
        &state,
        &[
            "plan",
            "examples/kernels",
            "--emit",
            "html",
            "--out",
            &out_arg,
        ],
    );
    let expected = planned_tiles(&ok(
        &repo,
        &state,
        &["plan", "examples/kernels", "--emit", "json"],
    ));
    assert!(expected.len() >= 19, "{expected:?}");

    let mut browser = Browser::start(&chromium, 1600, 1000);
    browser.goto(&format!("file://{}/index.html", out.display()));
    browser.wait_for(
        "the page",
        "document.body.dataset.ready === '1'",
        Duration::from_secs(30),
    );
    let listed = browser
        .eval("Array.from(document.querySelectorAll('tr.function')).map(tr => tr.dataset.key)");
    let mut listed: Vec<String> = serde_json::from_value(listed).expect("keys");
    // A function without tiles (the orchestrating `main`) is folded away until asked for.
    let mut keys: Vec<String> = expected
        .iter()
        .filter(|(_, spaces)| spaces.iter().any(|(_, tiles)| *tiles > 0))
        .map(|(k, _)| k.clone())
        .collect();
    listed.sort();
    keys.sort();
    assert!(
        keys.len() < expected.len(),
        "the kernels include a function without tiles"
    );
    assert_eq!(listed, keys, "the list shows every function with tiles");
    let all = browser.eval(
        "(() => { const c = document.getElementById('show-empty'); c.checked = true; c.dispatchEvent(new Event('change')); return Array.from(document.querySelectorAll('tr.function')).map(tr => tr.dataset.key); })()",
    );
    let mut all: Vec<String> = serde_json::from_value(all).expect("keys");
    let mut every: Vec<String> = expected.iter().map(|(k, _)| k.clone()).collect();
    all.sort();
    every.sort();
    assert_eq!(all, every, "asked for, the list shows every function");

    // Sorted by footprint (a first click on a figure sorts largest first): one list over
    // the tree.
    let largest = expected_footprints(&ok(
        &repo,
        &state,
        &["plan", "examples/kernels", "--emit", "json"],
    ));
    browser.eval("document.querySelector('th[data-sort=footprint]').click()");
    let first = browser.eval("document.querySelector('tr.function').dataset.key");
    assert_eq!(first, json!(largest), "sorted by footprint, largest first");
    browser.eval(
        "(() => { const f = document.getElementById('filter'); f.value = 'flash'; f.dispatchEvent(new Event('input')); })()",
    );
    let filtered = browser
        .eval("Array.from(document.querySelectorAll('tr.function')).map(tr => tr.dataset.key)");
    assert_eq!(
        filtered,
        json!(["examples/kernels/flash_attention/31_after_InitMemRef.py::flash_attention_block"]),
        "the filter keeps the matching function only"
    );

    for (key, spaces) in &expected {
        browser.eval(&format!(
            "memreuseViewer.select({}).then(() => true)",
            json!(key)
        ));
        for variant in ["pypto", "exact", "dsa"] {
            let drawn = browser.eval(&format!(
                "(() => {{ memreuseViewer.state.variant = '{variant}'; memreuseViewer.renderDetail(); return {DRAWN}; }})()"
            ));
            let drawn = drawn.as_array().expect("spaces drawn");
            if variant == "pypto" {
                let counts: Vec<(String, u64)> = drawn
                    .iter()
                    .map(|s| {
                        (
                            s["space"].as_str().unwrap_or("?").to_string(),
                            s["tiles"].as_u64().unwrap_or(0),
                        )
                    })
                    .collect();
                assert_eq!(&counts, spaces, "{key}: one rectangle per planned tile");
            }
            for space in drawn {
                if space["tiles"] == json!(0) {
                    continue;
                }
                let (w, h) = (
                    space["min_w"].as_f64().unwrap_or(0.0),
                    space["min_h"].as_f64().unwrap_or(0.0),
                );
                assert!(
                    w >= 1.9 && h >= 1.9,
                    "{key} ({variant}) {}: a tile drawn {w}×{h} px is not visible",
                    space["space"]
                );
            }
        }
        browser.eval("memreuseViewer.state.variant = 'pypto'");
    }

    // The two arms of an `if` share a buffer while both look live: drawn hatched, in halves,
    // not over each other.
    let arms = browser.eval(&format!(
        r#"memreuseViewer.select({}).then(() => {{
  const tiles = Array.from(document.querySelectorAll('rect.tile.exclusive'));
  const buffers = new Set(tiles.filter(t => t.dataset.arm === 'then').map(t => t.dataset.buffer));
  return tiles.some(t => t.dataset.arm === 'else' && buffers.has(t.dataset.buffer))
    && document.querySelectorAll('rect.hatch').length === tiles.length;
}})"#,
        json!("examples/kernels/if_phi_select/31_after_InitMemRef.py::select_activation")
    ));
    assert_eq!(
        arms,
        json!(true),
        "the arms of one if are drawn apart and hatched"
    );

    // Where the repaired plan differs from PyPTO's exact one, the page says so and outlines
    // the tiles placed differently.
    let fixture = "tests/data/repair/r002_loop_carry_gets_own_buffer.py";
    let out2 = dir.path().join("repair");
    let out2_arg = out2.to_string_lossy().into_owned();
    ok(
        &repo,
        &state,
        &["plan", fixture, "--emit", "html", "--out", &out2_arg],
    );
    browser.goto(&format!("file://{}/index.html", out2.display()));
    browser.wait_for(
        "the repaired plan",
        "document.body.dataset.ready === '1' && document.querySelectorAll('rect.tile').length > 0",
        Duration::from_secs(30),
    );
    let marked = browser.eval(
        "[document.querySelector('#detail .figures .differs') !== null, document.querySelectorAll('rect.tile.differs').length, document.querySelector('#detail .diagnostics.warnings').textContent.includes('MR-R002')]",
    );
    assert_eq!(marked[0], json!(true), "exact and repaired differ");
    assert!(marked[1].as_u64().unwrap_or(0) >= 1, "{marked}");
    assert_eq!(marked[2], json!(true), "the repair is shown with its code");
}

/// One raw HTTP/1.1 request; the status code.
fn status_of(port: u16, request: &str) -> u16 {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream.write_all(request.as_bytes()).expect("send");
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status in {answer:?}"))
}

/// Kills the daemons serving `state` when the test ends, pass or fail.
struct Daemons(PathBuf);

impl Drop for Daemons {
    fn drop(&mut self) {
        let needle = self.0.to_string_lossy().into_owned();
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
                continue;
            };
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if cmdline.contains("memreused") && cmdline.contains(&needle) {
                // SAFETY: sends a signal to a daemon this test started.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
    }
}

/// How many statements a view (`{x0, x1}`) spans.
fn span(view: &Value) -> f64 {
    view["x1"].as_f64().unwrap_or(0.0) - view["x0"].as_f64().unwrap_or(0.0)
}

/// A tile whose centre the pointer would hit (no other tile drawn over it), other than
/// `except`: its name and centre in page pixels.
fn hittable_tile(browser: &mut Browser, except: &str) -> (String, f64, f64) {
    let found = browser.eval(&format!(
        r#"(() => {{
  for (const r of document.querySelectorAll('rect.tile')) {{
    if (r.dataset.tile === {except}) continue;
    const b = r.getBoundingClientRect();
    const x = b.x + b.width / 2, y = b.y + b.height / 2;
    if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) continue;
    if (document.elementFromPoint(x, y) === r) return [r.dataset.tile, x, y];
  }}
  return null;
}})()"#,
        except = json!(except)
    ));
    let found = found.as_array().expect("a tile the pointer can reach");
    (
        found[0].as_str().expect("name").to_string(),
        found[1].as_f64().expect("x"),
        found[2].as_f64().expect("y"),
    )
}

#[test]
fn the_live_page_needs_its_token_explains_two_tiles_and_follows_edits() {
    let Some(chromium) = chromium_or_skip("live page of memreuse view") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let base = dir.path().canonicalize().expect("canonical");
    let (root, state) = (base.join("root"), base.join("state"));
    let _daemons = Daemons(state.clone());
    std::fs::create_dir_all(root.join(".git")).expect("root");
    let kernels = repo().join("examples/kernels");
    for kernel in ["if_phi_select", "flash_attention", "softmax_rows"] {
        let from = kernels.join(kernel).join("31_after_InitMemRef.py");
        let to = root.join(kernel).join("31_after_InitMemRef.py");
        std::fs::create_dir_all(to.parent().expect("dir")).expect("mkdir");
        std::fs::copy(&from, &to).expect("copy");
    }
    let edited = root.join("flash_attention/31_after_InitMemRef.py");
    let original = std::fs::read_to_string(&edited).expect("kernel");

    let url = ok(
        &root,
        &state,
        &[
            "view",
            "--no-open",
            "flash_attention/31_after_InitMemRef.py",
        ],
    );
    let url = url.lines().next().expect("a URL").to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let port: u16 = url["http://127.0.0.1:".len()..]
        .split('/')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("a port");
    let token = url
        .split("token=")
        .nth(1)
        .and_then(|t| t.split('#').next())
        .expect("a token");
    assert_eq!(token.len(), 32, "128 random bits");
    let host = format!("Host: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    assert_eq!(
        status_of(port, &format!("GET / HTTP/1.1\r\n{host}")),
        403,
        "no token"
    );
    assert_eq!(
        status_of(
            port,
            &format!("GET /api/files?token=x{token} HTTP/1.1\r\n{host}")
        ),
        403,
        "a wrong token"
    );
    assert_eq!(
        status_of(
            port,
            &format!(
                "GET /?token={token} HTTP/1.1\r\nHost: rebound.example:{port}\r\nConnection: close\r\n\r\n"
            )
        ),
        403,
        "another host"
    );
    assert_eq!(
        status_of(port, &format!("POST /?token={token} HTTP/1.1\r\n{host}")),
        405,
        "read-only"
    );
    assert_eq!(
        status_of(port, &format!("GET /?token={token} HTTP/1.1\r\n{host}")),
        200
    );

    let mut browser = Browser::start(&chromium, 1600, 1000);
    browser.goto(&url);
    browser.wait_for(
        "the live page",
        "document.body.dataset.ready === '1' && document.querySelectorAll('rect.tile').length > 0",
        Duration::from_secs(60),
    );
    let selected = browser.eval("memreuseViewer.state.selected");
    assert_eq!(
        selected,
        json!("flash_attention/31_after_InitMemRef.py::flash_attention_block"),
        "the function named on the command line is shown first"
    );
    let listed = browser.eval("document.querySelectorAll('tr.function').length");
    assert_eq!(listed, json!(3), "one row per function of the tree");

    // Hover: the tooltip names the tile, its size and type, its lines and its buffer.
    let (first, x, y) = hittable_tile(&mut browser, "");
    browser.mouse_move(x, y);
    browser.wait_for(
        "the tooltip",
        &format!(
            "(() => {{ const t = document.getElementById('tooltip'); return !t.hidden && t.dataset.tile === {0} && t.textContent.includes('buffer') && t.textContent.includes('lines'); }})()",
            json!(first)
        ),
        Duration::from_secs(10),
    );

    // Two clicks: the first shows its source line; the pair gets the explain verdict.
    browser.click(x, y);
    browser.wait_for(
        "the source line",
        "document.querySelector('#source .hl') !== null",
        Duration::from_secs(10),
    );
    let members = browser.eval(
        r#"(() => {
  const selected = document.querySelector('rect.tile.selected');
  const space = selected.closest('svg');
  const same = space.querySelectorAll(`rect.tile[data-buffer="${selected.dataset.buffer}"]`).length;
  return [space.querySelectorAll('rect.tile.member').length, same - 1,
          space.querySelectorAll('rect.tile.dim').length + same === space.querySelectorAll('rect.tile').length];
})()"#,
    );
    assert_eq!(
        members[0], members[1],
        "the clicked tile's buffer's other members are marked: {members}"
    );
    assert_eq!(
        members[2],
        json!(true),
        "the other buffers are dimmed: {members}"
    );
    let (second, x2, y2) = hittable_tile(&mut browser, &first);
    browser.click(x2, y2);
    browser.wait_for(
        "the explain verdict",
        &format!(
            "(() => {{ const e = document.getElementById('explain'); return e.dataset.pair === {0} && /kept apart|no gate|never share|one sharing group/.test(e.textContent); }})()",
            json!(format!("{first} {second}"))
        ),
        Duration::from_secs(30),
    );

    // `MEMREUSE_VIEWER_SCREENSHOT=docs/viewer.png` keeps a picture of this state for the docs.
    if let Some(out) = std::env::var_os("MEMREUSE_VIEWER_SCREENSHOT") {
        std::fs::write(&out, browser.screenshot()).expect("write the screenshot");
    }

    // The wheel zooms in around the pointer, dragging pans.
    let full = browser.eval("memreuseViewer.state.view");
    browser.wheel(x, y, -600.0);
    browser.wait_for(
        "the wheel to zoom in",
        &format!(
            "memreuseViewer.state.view.x1 - memreuseViewer.state.view.x0 < {}",
            span(&full) * 0.9
        ),
        Duration::from_secs(10),
    );
    let zoomed = browser.eval("memreuseViewer.state.view");
    browser.drag(x, y, x + 150.0);
    let panned = browser.eval("memreuseViewer.state.view");
    assert!(
        panned["x0"].as_f64() < zoomed["x0"].as_f64()
            && (span(&panned) - span(&zoomed)).abs() < 1e-6,
        "a drag to the right shows earlier statements at the same zoom: {zoomed} -> {panned}"
    );

    // An edit to the watched file: the page follows, keeping the function, the tile and the
    // view.
    let before = browser.eval("memreuseViewer.state.doc.statements[0]");
    let before = before.as_u64().expect("a line");
    std::fs::write(&edited, format!("# an edit above the program\n{original}")).expect("edit");
    let took = browser.wait_for(
        "the page to follow the edit",
        &format!(
            "memreuseViewer.state.doc && memreuseViewer.state.doc.statements[0] === {}",
            before + 1
        ),
        Duration::from_secs(10),
    );
    eprintln!("the page followed an edit in {took:?}");
    let kept = browser.eval(&format!(
        "memreuseViewer.state.tile.endsWith('/' + {0}) && document.querySelector('rect.tile.selected').dataset.tile === {0}",
        json!(second)
    ));
    assert_eq!(kept, json!(true), "the selection survives the update");
    assert_eq!(
        browser.eval("memreuseViewer.state.view"),
        panned,
        "the view survives the update"
    );

    // A file that stops parsing: its located diagnostics in place of its plan.
    let broken = original.replacen(
        "def flash_attention_block(",
        "def flash_attention_block((",
        1,
    );
    std::fs::write(&edited, broken).expect("break");
    browser.wait_for(
        "the diagnostics of the broken file",
        "(() => { const d = document.querySelector('#detail .file-errors'); return d && /31_after_InitMemRef\\.py:\\d+:\\d+: error/.test(d.textContent); })()",
        Duration::from_secs(10),
    );
    std::fs::write(&edited, &original).expect("repair");
    browser.wait_for(
        "the plan again",
        "document.querySelectorAll('#detail rect.tile').length > 0",
        Duration::from_secs(10),
    );
}

#[test]
fn html_needs_an_out_dir_and_view_refuses_paths_outside_the_root() {
    let dir = tempfile::tempdir().expect("temp dir");
    let base = dir.path().canonicalize().expect("canonical");
    let (root, state) = (base.join("root"), base.join("state"));
    std::fs::create_dir_all(root.join(".git")).expect("root");
    let _daemons = Daemons(state.clone());
    let kernel = repo().join("examples/kernels/softmax_rows/31_after_InitMemRef.py");
    let kernel_arg = kernel.to_string_lossy().into_owned();
    let out = run(&root, &state, &["plan", &kernel_arg, "--emit", "html"]);
    assert_eq!(out.status.code(), Some(2), "--emit html without --out");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--out DIR"));
    let out = run(&root, &state, &["view", "--no-open", &kernel_arg]);
    assert_eq!(out.status.code(), Some(2), "a file outside the root");
    assert!(String::from_utf8_lossy(&out.stderr).contains("outside the workspace root"));
    let out = run(&root, &state, &["view", "--no-open", "missing.py"]);
    assert_eq!(out.status.code(), Some(2), "a file that does not exist");
}

#[test]
fn daemon_status_shows_the_viewer_once_started() {
    let dir = tempfile::tempdir().expect("temp dir");
    let base = dir.path().canonicalize().expect("canonical");
    let (root, state) = (base.join("root"), base.join("state"));
    let _daemons = Daemons(state.clone());
    std::fs::create_dir_all(root.join(".git")).expect("root");
    let from = repo().join("examples/kernels/softmax_rows/31_after_InitMemRef.py");
    std::fs::copy(&from, root.join("softmax.py")).expect("copy");
    ok(&root, &state, &["daemon", "start"]);
    let before = ok(&root, &state, &["daemon", "status"]);
    assert!(before.contains("viewer:       not started"), "{before}");
    let url = ok(&root, &state, &["view", "--no-open", "softmax.py"]);
    let url = url.lines().next().expect("a URL");
    let page = url.split('#').next().expect("the page's address");
    let after = ok(&root, &state, &["daemon", "status"]);
    assert!(
        after.contains(&format!("viewer:       {page}")),
        "{url}\n{after}"
    );
    let json = ok(&root, &state, &["daemon", "status", "--json"]);
    assert!(json.contains(page), "{json}");
}
