//! A headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
//! commands on its fd 3, answers on its fd 4, each a JSON object ended by a NUL byte). No
//! WebSocket, no crate: the viewer's browser tests and its benchmark share this.

// Each of the test and the bench uses part of this module; each helper is used by one.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::io::{BufRead as _, BufReader, Write as _};
use std::os::fd::{FromRawFd as _, OwnedFd};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Where Chromium is: `$CHROMIUM`, else the first of Debian's and others' usual names on
/// `PATH`.
pub fn find_chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser", "google-chrome", "chrome"] {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    None
}

/// Chromium, or a clear message and `None` when the machine has none (CI installs it).
pub fn chromium_or_skip(test: &str) -> Option<PathBuf> {
    let found = find_chromium();
    if found.is_none() {
        eprintln!(
            "SKIPPED {test}: no Chromium found (install Debian's `chromium`, or set CHROMIUM); \
             .ci/run installs it, so CI runs this test"
        );
    }
    found
}

pub struct Browser {
    child: Child,
    commands: std::fs::File,
    answers: Receiver<Value>,
    /// Events read while waiting for an answer.
    events: VecDeque<Value>,
    next_id: u64,
    session: String,
    _profile: tempfile::TempDir,
}

fn pipe() -> (OwnedFd, OwnedFd) {
    let mut fds = [0; 2];
    // SAFETY: `fds` is valid for two descriptors; O_CLOEXEC keeps them out of other children.
    let rc = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    assert_eq!(rc, 0, "pipe2: {}", std::io::Error::last_os_error());
    // SAFETY: both were just created and are owned by nobody else.
    unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
}

impl Browser {
    /// Starts Chromium with a page of `width` × `height` pixels showing about:blank.
    pub fn start(chromium: &Path, width: u32, height: u32) -> Browser {
        use std::os::fd::AsRawFd as _;
        let profile = tempfile::tempdir().expect("profile dir");
        let (their_commands, our_commands) = pipe();
        let (our_answers, their_answers) = pipe();
        let (cmd_fd, ans_fd) = (their_commands.as_raw_fd(), their_answers.as_raw_fd());
        let mut command = Command::new(chromium);
        command
            .args([
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--disable-background-networking",
                "--remote-debugging-pipe",
                "--allow-file-access-from-files",
            ])
            .arg(format!("--window-size={width},{height}"))
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: only async-signal-safe fcntl and dup2 calls between fork and exec. The ends
        // are first copied above 10 (either may be fd 3 or 4 already), then onto 3 and 4;
        // dup2 clears O_CLOEXEC on the copies, so the browser keeps them.
        unsafe {
            command.pre_exec(move || {
                let high_cmd = libc::fcntl(cmd_fd, libc::F_DUPFD_CLOEXEC, 10);
                let high_ans = libc::fcntl(ans_fd, libc::F_DUPFD_CLOEXEC, 10);
                if high_cmd < 0
                    || high_ans < 0
                    || libc::dup2(high_cmd, 3) < 0
                    || libc::dup2(high_ans, 4) < 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn().expect("start chromium");
        drop(their_commands);
        drop(their_answers);
        let (tx, answers) = channel();
        let reader = std::fs::File::from(our_answers);
        std::thread::spawn(move || {
            let mut reader = BufReader::new(reader);
            let mut message = Vec::new();
            loop {
                message.clear();
                match reader.read_until(0, &mut message) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
                if message.last() == Some(&0) {
                    message.pop();
                }
                let Ok(value) = serde_json::from_slice::<Value>(&message) else {
                    continue;
                };
                if tx.send(value).is_err() {
                    return;
                }
            }
        });
        let mut browser = Browser {
            child,
            commands: std::fs::File::from(our_commands),
            answers,
            events: VecDeque::new(),
            next_id: 0,
            session: String::new(),
            _profile: profile,
        };
        let target = browser.call("Target.createTarget", json!({ "url": "about:blank" }));
        let target_id = target["targetId"].as_str().expect("a target").to_string();
        let attached = browser.call(
            "Target.attachToTarget",
            json!({ "targetId": target_id, "flatten": true }),
        );
        browser.session = attached["sessionId"]
            .as_str()
            .expect("a session")
            .to_string();
        browser.page("Page.enable", json!({}));
        browser.page("Runtime.enable", json!({}));
        browser.page(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false }),
        );
        browser
    }

    fn send(&mut self, method: &str, params: Value, session: Option<&str>) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(session) = session {
            message["sessionId"] = json!(session);
        }
        let mut bytes = serde_json::to_vec(&message).expect("JSON");
        bytes.push(0);
        self.commands.write_all(&bytes).expect("write to chromium");
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.answers.recv_timeout(left) {
                Ok(answer) if answer["id"] == json!(id) => {
                    if let Some(error) = answer.get("error") {
                        panic!("{method} failed: {error}");
                    }
                    return answer["result"].clone();
                }
                Ok(event) => self.events.push_back(event),
                Err(RecvTimeoutError::Timeout) => panic!("chromium did not answer {method}"),
                Err(RecvTimeoutError::Disconnected) => panic!("chromium went away during {method}"),
            }
        }
    }

    /// A browser-level command.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.send(method, params, None)
    }

    /// A command to the page.
    pub fn page(&mut self, method: &str, params: Value) -> Value {
        let session = self.session.clone();
        self.send(method, params, Some(&session))
    }

    pub fn goto(&mut self, url: &str) {
        self.page("Page.navigate", json!({ "url": url }));
    }

    /// The value of a JavaScript expression (promises awaited); a thrown error fails the test.
    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self.page(
            "Runtime.evaluate",
            json!({ "expression": expression, "awaitPromise": true, "returnByValue": true }),
        );
        if let Some(exception) = result.get("exceptionDetails") {
            panic!("{expression}\nthrew: {exception}");
        }
        result["result"]["value"].clone()
    }

    /// Waits until `expression` is truthy; how long that took.
    pub fn wait_for(&mut self, what: &str, expression: &str, limit: Duration) -> Duration {
        let started = Instant::now();
        // A page still loading may have no body yet: that is "not yet", not a failure.
        let guarded = format!(
            "(() => {{ try {{ return ({expression}); }} catch (e) {{ return false; }} }})()"
        );
        loop {
            let value = self.eval(&guarded);
            if !(value.is_null()
                || value == json!(false)
                || value == json!(0)
                || value == json!(""))
            {
                return started.elapsed();
            }
            assert!(
                started.elapsed() < limit,
                "timed out after {limit:?} waiting for {what} ({expression})"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Moves the mouse to `(x, y)` in page pixels, as a user would.
    pub fn mouse_move(&mut self, x: f64, y: f64) {
        self.page(
            "Input.dispatchMouseEvent",
            json!({ "type": "mouseMoved", "x": x, "y": y }),
        );
    }

    /// A left click at `(x, y)`, with `shift` held or not.
    pub fn click(&mut self, x: f64, y: f64) {
        self.mouse_move(x, y);
        for kind in ["mousePressed", "mouseReleased"] {
            self.page(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
            );
        }
    }

    /// A turn of the mouse wheel at `(x, y)` (negative `delta_y`: away from the user).
    pub fn wheel(&mut self, x: f64, y: f64, delta_y: f64) {
        self.page(
            "Input.dispatchMouseEvent",
            json!({ "type": "mouseWheel", "x": x, "y": y, "deltaX": 0, "deltaY": delta_y }),
        );
    }

    /// Presses the left button at `(x, y)`, moves to `(to_x, y)` in steps, and releases.
    pub fn drag(&mut self, x: f64, y: f64, to_x: f64) {
        self.mouse_move(x, y);
        self.page(
            "Input.dispatchMouseEvent",
            json!({ "type": "mousePressed", "x": x, "y": y, "button": "left", "buttons": 1, "clickCount": 1 }),
        );
        for step in 1..=10 {
            let at = x + (to_x - x) * f64::from(step) / 10.0;
            self.page(
                "Input.dispatchMouseEvent",
                json!({ "type": "mouseMoved", "x": at, "y": y, "button": "left", "buttons": 1 }),
            );
        }
        self.page(
            "Input.dispatchMouseEvent",
            json!({ "type": "mouseReleased", "x": to_x, "y": y, "button": "left", "buttons": 0, "clickCount": 1 }),
        );
    }

    /// A PNG of the page.
    pub fn screenshot(&mut self) -> Vec<u8> {
        let shot = self.page("Page.captureScreenshot", json!({ "format": "png" }));
        base64_decode(shot["data"].as_str().expect("data"))
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for c in text.bytes().filter_map(value) {
        acc = acc << 6 | c;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}
