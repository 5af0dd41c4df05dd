//! The daemon and its clients on a hostile machine: other users squatting the socket, files
//! that no one may read, special files in the tree, connection floods, damaged caches.
//!
//! Like `e2e.rs`, every test has a fresh root and state dir and kills the daemons it started.
//! Tests that need a second user (a listener running as `nobody`) re-run this binary as that
//! user, which only root can do; as another user they check what they can and say so.

use std::io::{BufRead as _, BufReader, Write as _};
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use memreuse_daemon_client::protocol::{Answer, Body, Hello, PROTOCOL_VERSION, Response};
use memreuse_test_support::{Project, cli_beside, is_root, kernels, plan_digests, text};
use serde_json::Value;

const DAEMON: &str = env!("CARGO_BIN_EXE_memreused");
/// `nobody` on most systems.
const OTHER_UID: u32 = 65534;

/// Whether another user may run `exe`: it and every directory above it are open to others
/// (not so for a checkout under a private home directory).
fn others_can_run(exe: &Path) -> bool {
    let open = |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.permissions().mode() & 0o001 != 0);
    open(exe) && exe.ancestors().skip(1).all(open)
}

/// What a squatter answers to every request: a convincing handshake for `root`, then a
/// forged plan.
fn forged(root: &Path, line: &str) -> Vec<u8> {
    let body = if line.contains("\"hello\"") {
        Body::Hello(Hello {
            protocol: PROTOCOL_VERSION,
            build_id: memreuse_daemon_client::state_dir::build_id(Path::new(DAEMON))
                .expect("build id"),
            pid: std::process::id(),
            root: root.to_path_buf(),
        })
    } else {
        Body::Query(Answer {
            document: Some(serde_json::json!({"files": [{"functions": [
                {"name": "forged", "digest": "forged"}]}]})),
            ..Answer::default()
        })
    };
    let response = Response {
        instance: "squatter".into(),
        revision: 1,
        body,
    };
    memreuse_daemon_client::protocol::to_line(&response)
}

/// Serves forged answers on `listener` until the process ends; counts connections.
fn squat(
    listener: std::os::unix::net::UnixListener,
    root: PathBuf,
) -> std::sync::mpsc::Receiver<()> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let _ = tx.send(());
            let root = root.clone();
            std::thread::spawn(move || {
                let mut writer = stream.try_clone().expect("clone");
                for line in BufReader::new(stream).lines() {
                    let Ok(line) = line else { return };
                    if writer.write_all(&forged(&root, &line)).is_err() {
                        return;
                    }
                }
            });
        }
    });
    rx
}

/// The squatter run as another user by [`a_listener_of_another_user_is_refused`]: Python
/// binds `SOCKET`, says "listening", and answers every line with `HELLO` or `ANSWER` (what
/// [`forged`] gives), as a squatter written in Rust would.
const SQUATTER: &str = r#"
import os, socket, threading
hello, answer = os.environb[b"HELLO"], os.environb[b"ANSWER"]
listener = socket.socket(socket.AF_UNIX)
listener.bind(os.environ["SOCKET"])
listener.listen(64)
print("listening", flush=True)
def serve(connection):
    for line in connection.makefile("rb"):
        connection.sendall(hello if b'"hello"' in line else answer)
while True:
    connection, _ = listener.accept()
    threading.Thread(target=serve, args=(connection,), daemon=True).start()
"#;

/// Before, a state dir too deep for a socket put it at `<tmp>/memreuse-<digest>.sock`,
/// where anyone could listen first and be trusted.
#[test]
fn a_listener_on_the_old_shared_temp_path_is_never_asked() {
    let deep = format!("state/{}", "d".repeat(100));
    let env = Project::with_state(DAEMON, &deep);
    let path = env.kernel(1);
    // The old path, under the temp dir the CLI sees.
    let digest = blake3::hash(env.state.as_os_str().as_encoded_bytes()).to_hex();
    let old = env.base().join(format!("memreuse-{}.sock", &digest[..16]));
    let listener = std::os::unix::net::UnixListener::bind(&old).expect("bind the old path");
    let connections = squat(listener, env.root.clone());
    let answered = plan_digests(&env.ok(&["query", &path, "--json"]));
    assert_eq!(
        answered,
        env.cold_digests(&path),
        "the real daemon answered"
    );
    assert!(
        connections.try_recv().is_err(),
        "nobody connected to the squatted path"
    );
    // SAFETY: geteuid only reads the process's credentials.
    let private = env
        .base()
        .join(format!("memreuse-{}", unsafe { libc::geteuid() }));
    let dir = std::fs::symlink_metadata(&private).expect("the per-user socket dir");
    assert_eq!(dir.mode() & 0o777, 0o700);
    assert!(private.join(format!("{}.sock", &digest[..16])).exists());
}

/// A socket in the right place, but bound by another user: its answers are refused.
#[test]
fn a_listener_of_another_user_is_refused() {
    if !is_root() {
        eprintln!(
            "cannot run a listener as another user (not root); the peer check is then only \
             checked against this user's own daemon"
        );
        return;
    }
    let env = Project::new(DAEMON);
    let path = env.kernel(2);
    std::fs::create_dir_all(&env.state).expect("state");
    // The squatter binds in a directory of its own; the socket is then moved where the
    // client looks (a socket keeps its binder's credentials wherever its name goes).
    // The squatter must reach its directory through the test's.
    std::fs::set_permissions(env.base(), std::fs::Permissions::from_mode(0o711)).expect("chmod");
    let theirs = env.base().join("theirs");
    std::fs::create_dir(&theirs).expect("dir");
    std::os::unix::fs::chown(&theirs, Some(OTHER_UID), Some(OTHER_UID)).expect("chown");
    let socket = theirs.join("s.sock");
    let mut squatter = Command::new("python3")
        .args(["-c", SQUATTER])
        .env("SOCKET", &socket)
        .env("HELLO", text(&forged(&env.root, "\"hello\"")))
        .env("ANSWER", text(&forged(&env.root, "")))
        .uid(OTHER_UID)
        .gid(OTHER_UID)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the squatter");
    let mut ready = String::new();
    let mut out = BufReader::new(squatter.stdout.take().expect("stdout"));
    while !ready.contains("listening") {
        ready.clear();
        assert!(
            out.read_line(&mut ready).expect("read") > 0,
            "the squatter failed"
        );
    }
    std::fs::rename(&socket, env.state.join("daemon.sock")).expect("move the socket");
    let out = env.run(&["query", &path, "--json"]);
    let _ = squatter.kill();
    let _ = squatter.wait();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "refused: {stderr}");
    assert!(
        !text(&out.stdout).contains("forged"),
        "nothing forged printed"
    );
    assert!(
        stderr.contains(&format!("runs as uid {OTHER_UID}")),
        "says why: {stderr}"
    );
}

/// A state dir owned by someone else is refused before any connection.
#[test]
fn a_state_dir_of_another_user_is_refused() {
    if !is_root() {
        eprintln!("not root: cannot give a directory to another user");
        return;
    }
    let env = Project::new(DAEMON);
    let path = env.kernel(3);
    std::fs::create_dir_all(&env.state).expect("state");
    std::os::unix::fs::chown(&env.state, Some(OTHER_UID), Some(OTHER_UID)).expect("chown");
    let out = env.run(&["query", &path]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("not private to this user") && stderr.contains("owned by uid"),
        "{stderr}"
    );
    assert!(env.daemons().is_empty(), "no daemon started");
}

/// Everything under the state dir is for this user only, even under umask 000.
#[test]
fn state_files_are_private_whatever_the_umask() {
    let env = Project::new(DAEMON);
    let path = env.kernel(4);
    let with_umask = |args: &[&str]| {
        let mut command = env.command(args);
        // SAFETY: umask is async-signal-safe and only changes the child's mask.
        unsafe {
            command.pre_exec(|| {
                libc::umask(0);
                Ok(())
            });
        }
        let out = command.output().expect("runs");
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    };
    with_umask(&["plan", &path]);
    with_umask(&["query", &path]);
    with_umask(&["daemon", "stop"]);
    let mut loose = Vec::new();
    let mut stack = vec![env.state.clone()];
    while let Some(dir) = stack.pop() {
        let meta = std::fs::symlink_metadata(&dir).expect("meta");
        if meta.mode() & 0o077 != 0 {
            loose.push(format!("{} {:o}", dir.display(), meta.mode() & 0o777));
        }
        for entry in std::fs::read_dir(&dir).expect("read dir").flatten() {
            let meta = entry.metadata().expect("meta");
            if meta.is_dir() {
                stack.push(entry.path());
            } else if meta.mode() & 0o077 != 0 {
                loose.push(format!(
                    "{} {:o}",
                    entry.path().display(),
                    meta.mode() & 0o777
                ));
            }
        }
    }
    assert!(loose.is_empty(), "not private: {loose:#?}");
    let mode = std::fs::metadata(&env.state)
        .expect("state")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700);
}

/// Runs `command`, killing it after `limit`: its output, or `None` when it did not finish.
fn bounded(mut command: Command, limit: Duration) -> Option<Output> {
    let child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    // Collected on a thread, so a full pipe never stalls the child.
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(output) => Some(output.expect("output")),
        Err(_) => {
            // SAFETY: sends a signal to the child this test started.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            None
        }
    }
}

/// Copies a directory tree.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir").flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// Applies `f` to every file and directory below `dir`, deepest first.
fn for_all(dir: &Path, f: &dyn Fn(&Path)) {
    for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
        if entry.file_type().expect("type").is_dir() {
            for_all(&entry.path(), f);
        }
        f(&entry.path());
    }
    f(dir);
}

/// How a cache is damaged.
#[derive(Clone, Copy, Debug)]
enum Damage {
    /// Bytes flipped inside stored plans (found in sled's data file by their value header),
    /// a different choice of plans for each seed: a flip where no value lives damages
    /// nothing, so this one must be noticed.
    Flip(u64),
    /// The data file cut to half its length: sled recovers the first half, as after a crash.
    Truncate,
    /// The data file overwritten with garbage of the same length: sled finds no valid log
    /// and starts afresh.
    Garbage,
    /// A byte of sled's snapshot flipped (as a kill while sled writes one can leave it):
    /// the snapshot is an index of the log, so nothing may be lost.
    Snapshot,
    /// The store's files and directories made read-only (not damage: must not move).
    ReadOnly,
}

/// Where sled's data file holds the first payload byte after a stored plan's value header
/// (magic `MR`, the schema version, the kind): the plans the cold run wrote, which a warm run
/// reads and does not rewrite.
fn stored_plans(bytes: &[u8]) -> Vec<usize> {
    let schema = memreuse::store::SCHEMA_VERSION.to_le_bytes();
    let header = [
        b'M',
        b'R',
        schema[0],
        schema[1],
        memreuse::store::Kind::Plan as u8,
    ];
    // The rest of the header: a reserved byte, the payload's length and its CRC-32.
    const REST: usize = 1 + 4 + 4;
    bytes
        .windows(header.len())
        .enumerate()
        .filter(|(_, w)| *w == header)
        .map(|(at, _)| at + header.len() + REST)
        .filter(|&at| at < bytes.len())
        .collect()
}

fn damage(cache: &Path, how: Damage) {
    let db = cache.join("db");
    let mut bytes = std::fs::read(&db).expect("the store has a data file");
    let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    match how {
        Damage::Flip(seed) => {
            for _ in 0..seed {
                next();
            }
            let plans = stored_plans(&bytes);
            assert!(
                plans.len() >= 20,
                "only {} stored plans found in the data file",
                plans.len()
            );
            for _ in 0..20 {
                let at = plans[(next() % plans.len() as u64) as usize];
                bytes[at] ^= 0xff;
            }
        }
        Damage::Truncate => bytes.truncate(bytes.len() / 2),
        Damage::Garbage => bytes.iter_mut().for_each(|b| *b = next() as u8),
        Damage::Snapshot => {
            let snapshot = std::fs::read_dir(cache)
                .expect("cache")
                .flatten()
                .map(|e| e.path())
                .find(|p| {
                    p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with("snap."))
                })
                .expect("the store has a snapshot");
            let mut snap = std::fs::read(&snapshot).expect("read");
            let middle = snap.len() / 2;
            snap[middle] ^= 0x5a;
            std::fs::write(&snapshot, snap).expect("write");
        }
        Damage::ReadOnly => {}
    }
    std::fs::write(&db, bytes).expect("damage");
    if let Damage::ReadOnly = how {
        for_all(cache, &|p| {
            let mode = if p.is_dir() { 0o500 } else { 0o400 };
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).expect("chmod");
        });
    }
}

/// Every kind of damage ends in the right plan (exit 0, a warning) and a `stats` that
/// answers in bounded time, and the store works again; damage is noticed, a bad snapshot
/// loses nothing, a read-only store is left where it is.
#[test]
fn a_damaged_or_read_only_cache_heals_and_plans_stay_right() {
    let env = Project::new(DAEMON);
    // Large enough for several of sled's segments.
    for (path, text) in kernels(80, 4, 7) {
        env.write(&path, &text);
    }
    let expected = env.cold_digests(".");
    // The second run makes sled write a snapshot.
    env.ok(&["plan", ".", "--emit", "json"]);
    env.ok(&["plan", ".", "--emit", "json"]);
    let good = env.state.clone();
    // As root, the read-only case runs as another user (root ignores file modes).
    let as_other = is_root();
    let cases_run_as_other = as_other && others_can_run(&cli_beside(DAEMON));
    if as_other {
        std::fs::set_permissions(env.base(), std::fs::Permissions::from_mode(0o711))
            .expect("chmod");
    }
    let cases = [
        Damage::Flip(0),
        Damage::Flip(1),
        Damage::Flip(2),
        Damage::Truncate,
        Damage::Garbage,
        Damage::Snapshot,
        Damage::ReadOnly,
    ];
    let all = expected.len();
    for (n, how) in cases.into_iter().enumerate() {
        let state = env.base().join(format!("damaged-{n}"));
        copy_tree(&good, &state);
        if as_other && !cases_run_as_other && matches!(how, Damage::ReadOnly) {
            eprintln!(
                "root, and {} is private: the read-only case is skipped",
                cli_beside(DAEMON).display()
            );
            continue;
        }
        let unprivileged = as_other && matches!(how, Damage::ReadOnly);
        if unprivileged {
            for_all(&state, &|p| {
                std::os::unix::fs::chown(p, Some(OTHER_UID), Some(OTHER_UID)).expect("chown");
            });
        }
        damage(&state.join("cache"), how);
        let command = |args: &[&str]| {
            let mut command = Command::new(cli_beside(DAEMON));
            command
                .arg("--state-dir")
                .arg(&state)
                .args(args)
                .current_dir(&env.root)
                .env_remove("MEMREUSE_STATE_DIR")
                .stdin(Stdio::null());
            if unprivileged {
                command.uid(OTHER_UID).gid(OTHER_UID);
            }
            command
        };
        let mut warnings = String::new();
        let mut cached = Vec::new();
        let mut rejected = Vec::new();
        // Runs since the one that found damage and started a new store: sled may find a
        // damaged page in any run (a read, or a later write that moves pages), and the run
        // that finds it keeps no more than it planned itself.
        let mut since_damage: Option<usize> = None;
        for run in 0..5 {
            let out = bounded(
                command(&["plan", ".", "--emit", "json"]),
                Duration::from_secs(60),
            )
            .unwrap_or_else(|| panic!("{how:?}: plan run {run} hung"));
            let stderr = text(&out.stderr);
            assert!(out.status.success(), "{how:?}: run {run}: {stderr}");
            // A panic that escaped (Rust prints "thread '…' panicked at"); the store's own
            // warning for damage that made sled panic ("sled panicked: …") is an answer.
            assert!(!stderr.contains("panicked at"), "{how:?}: {stderr}");
            assert_eq!(
                plan_digests(&text(&out.stdout)),
                expected,
                "{how:?}: run {run}"
            );
            warnings.push_str(&stderr);
            let last: Value = serde_json::from_slice(
                &std::fs::read(state.join("last-run.json")).expect("last-run.json"),
            )
            .expect("JSON");
            cached.push(last["cached"].as_u64().expect("cached") as usize);
            rejected.push(last["lookups"]["rejected"].as_u64().expect("rejected"));
            since_damage = match stderr.contains("started a new one") {
                true => Some(0),
                false => since_damage.map(|n| n + 1),
            };
            // Done once a run had a working store behind it (two runs after any damage).
            if run >= 1 && since_damage.is_none_or(|n| n >= 2) {
                break;
            }
        }
        let stats = bounded(command(&["stats", "--json"]), Duration::from_secs(30))
            .unwrap_or_else(|| panic!("{how:?}: stats hung"));
        assert!(stats.status.success(), "{how:?}: {}", text(&stats.stderr));
        let moved = std::fs::read_dir(&state)
            .expect("state")
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("cache.bad-"));
        match how {
            Damage::ReadOnly => {
                assert!(!moved, "a read-only store is not damage");
                assert!(warnings.contains("cannot use the cache"), "{warnings}");
                assert_eq!(cached, [0, 0], "nothing can be cached");
            }
            Damage::Flip(_) => {
                // Noticed: moved aside, or values lost or rejected and planned afresh (a
                // function served by its file's manifest whose plan entry, read for the
                // report's detail, is rejected).
                assert!(
                    moved || cached[0] < all || rejected[0] > 0,
                    "{how:?}: {cached:?} {rejected:?} {warnings}"
                );
            }
            Damage::Snapshot => {
                assert!(!moved, "a bad snapshot is rebuilt from the log: {warnings}");
                assert!(warnings.contains("index was unreadable"), "{warnings}");
                assert_eq!(cached[0], all, "nothing lost");
            }
            Damage::Truncate | Damage::Garbage => {}
        }
        if !matches!(how, Damage::ReadOnly) {
            // The store works again: the last run was served from it.
            let served = cached.last().copied().unwrap_or(0);
            assert!(served > 0, "{how:?}: {cached:?} {warnings}");
        }
    }
}

fn mkfifo(path: &Path) {
    let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).expect("path");
    // SAFETY: `name` is a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0, "mkfifo");
}

fn daemon_rss(pid: i32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// A FIFO, a symlink to `/dev/zero` and an oversized file, present at start and arriving
/// later: fresh queries of the other files keep answering, the FIFO and the oversized file
/// get a located diagnostic, the symlink out of the root is ignored, memory stays small,
/// and `daemon stop` is prompt and clean.
#[test]
fn special_files_in_the_tree_cannot_stop_the_daemon() {
    let env = Project::new(DAEMON);
    let path = env.kernel(8);
    mkfifo(&env.root.join("early.py"));
    std::fs::write(env.root.join("big.py"), vec![b'#'; 5000]).expect("write");
    std::fs::write(env.root.join("memreuse.toml"), "max_file_bytes = 4096\n").expect("write");
    let start =
        bounded(env.command(&["daemon", "start"]), Duration::from_secs(30)).expect("start answers");
    assert!(start.status.success(), "{}", text(&start.stderr));
    let expected = env.cold_digests(&path);
    let query = |target: &str| {
        bounded(
            env.command(&["query", target, "--json"]),
            Duration::from_secs(30),
        )
        .unwrap_or_else(|| panic!("query {target} hung"))
    };
    // Arriving after start, as with a checkout.
    mkfifo(&env.root.join("late.py"));
    std::os::unix::fs::symlink("/dev/zero", env.root.join("zero.py")).expect("symlink");
    std::fs::write(
        env.root.join(&path),
        std::fs::read(env.root.join(&path)).expect("read"),
    )
    .expect("touch");
    for _ in 0..3 {
        let out = query(&path);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(plan_digests(&text(&out.stdout)), expected);
    }
    for (name, why) in [
        ("early.py", "FIFO"),
        ("late.py", "FIFO"),
        ("big.py", "limit of 4096"),
    ] {
        let out = query(name);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        assert!(
            stderr.contains(name) && stderr.contains(why),
            "{name}: {stderr}"
        );
    }
    let zero = query("zero.py");
    assert_ne!(
        zero.status.code(),
        Some(0),
        "a symlink out of the root is not served"
    );
    let refused = text(&zero.stderr);
    assert!(
        refused.contains("not a kernel file") || refused.contains("outside the workspace root"),
        "{refused}"
    );
    let pids = env.daemons();
    assert_eq!(pids.len(), 1);
    let rss_kib = daemon_rss(pids[0]);
    assert!(
        rss_kib < 1 << 20,
        "the daemon read /dev/zero? {rss_kib} KiB"
    );
    let stop =
        bounded(env.command(&["daemon", "stop"]), Duration::from_secs(20)).expect("stop answers");
    assert!(stop.status.success(), "{}", text(&stop.stderr));
    assert!(!env.state.join("daemon.json").exists());
    assert!(!env.state.join("daemon.sock").exists());
}

/// Raises this process's descriptor limit as far as allowed; the new soft limit.
fn raise_descriptor_limit() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is valid for writes; setrlimit only changes this process's limit.
    unsafe {
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit);
        limit.rlim_cur = limit.rlim_max;
        libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit);
    }
    limit.rlim_cur
}

/// Before, 1,100 idle connections exhausted the daemon's descriptors and clients hung. Half
/// of them send part of a request line, which does not make them requests.
#[test]
fn two_thousand_idle_or_half_sent_connections_do_not_lock_clients_out() {
    let limit = raise_descriptor_limit();
    // 2,000 where the system allows; always more than the daemon's 512 connections.
    let idle_count = 2000.min(limit.saturating_sub(100) as usize);
    assert!(
        idle_count > 600,
        "descriptor limit {limit} too low for the test"
    );
    let env = Project::new(DAEMON);
    let path = env.kernel(9);
    env.ok(&["daemon", "start"]);
    let expected = env.cold_digests(&path);
    let socket = env.state.join("daemon.sock");
    let idle: Vec<std::os::unix::net::UnixStream> = (0..idle_count)
        .map(|i| {
            let mut stream = std::os::unix::net::UnixStream::connect(&socket)
                .unwrap_or_else(|e| panic!("connection {i}: {e}"));
            if i % 2 == 1 {
                // The daemon may have closed it already, to make room: that is allowed.
                let _ = stream.write_all(br#"{"hello":{"#);
            }
            stream
        })
        .collect();
    for _ in 0..3 {
        let out = bounded(
            env.command(&["query", &path, "--json"]),
            Duration::from_secs(60),
        )
        .expect("query answers");
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(plan_digests(&text(&out.stdout)), expected);
    }
    let status = bounded(
        env.command(&["daemon", "status", "--json"]),
        Duration::from_secs(30),
    )
    .expect("status answers");
    assert!(status.status.success(), "{}", text(&status.stderr));
    drop(idle);
}

/// The viewer's port and token, from the URL `memreuse view` printed.
fn viewer_endpoint(url: &str) -> (u16, String) {
    let port = url
        .strip_prefix("http://127.0.0.1:")
        .and_then(|rest| rest.split('/').next())
        .and_then(|port| port.parse().ok())
        .unwrap_or_else(|| panic!("a viewer URL: {url}"));
    let token = url
        .split("token=")
        .nth(1)
        .and_then(|t| t.split('#').next())
        .unwrap_or_else(|| panic!("a token in {url}"));
    (port, token.to_string())
}

/// One HTTP/1.1 request to the viewer: the status (or why there is none) and how long the
/// answer took.
fn viewer_request(port: u16, target: &str, host: &str) -> (Result<u16, String>, Duration) {
    let started = std::time::Instant::now();
    let ask = || -> std::io::Result<u16> {
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", port))?;
        stream.set_read_timeout(Some(Duration::from_secs(10)))?;
        write!(
            stream,
            "GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
        )?;
        let mut answer = Vec::new();
        std::io::Read::read_to_end(&mut stream, &mut answer)?;
        let answer = String::from_utf8_lossy(&answer);
        answer
            .strip_prefix("HTTP/1.1 ")
            .and_then(|rest| rest.get(..3))
            .and_then(|status| status.parse().ok())
            .ok_or_else(|| std::io::Error::other(format!("not an HTTP answer: {answer:.80}")))
    };
    let status = ask().map_err(|err| err.to_string());
    (status, started.elapsed())
}

/// Descriptors the process `pid` has open.
fn open_descriptors(pid: i32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |dir| dir.count())
}

/// Connections a neighbour holds open to the viewer, from a process of its own:
/// `scripts/flood-viewer.py hold`, until dropped.
struct Flood {
    child: std::process::Child,
    /// Connections it opened (fewer than asked when its descriptor limit allows no more).
    open: usize,
}

impl Flood {
    fn start(port: u16, kind: &str, count: usize) -> Flood {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/flood-viewer.py");
        let mut child = Command::new("python3")
            .arg(&script)
            .args(["hold", &port.to_string(), kind, &count.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("python3 {}: {e}", script.display()));
        let mut line = String::new();
        let stdout = child.stdout.take().expect("piped stdout");
        BufReader::new(stdout).read_line(&mut line).expect("reads");
        let open = line
            .trim()
            .strip_prefix("open ")
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("the flood did not start: {line:?}"));
        Flood { child, open }
    }
}

impl Drop for Flood {
    fn drop(&mut self) {
        // Its stdin closing is its signal to close the connections and exit.
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

/// Before, 1,500 idle connections (or 600 sending a partial head) from any local process
/// spent the viewer's 256 connections, and the owner's request was reset at once. Now the
/// oldest connection without a complete head makes room, and one is closed 5 s after it
/// connected without one: the owner's request is answered within 1 s, memory stays small,
/// and the viewer serves as before once the flood is gone.
///
/// The flooding process raises its descriptor soft limit to the hard one; under a hard
/// limit below the flood it opens what the limit allows, and the test needs more than twice
/// the viewer's cap of 256.
#[test]
fn a_neighbour_flooding_the_viewer_cannot_lock_its_owner_out() {
    let env = Project::new(DAEMON);
    let path = env.kernel(12);
    let url = env.ok(&["view", "--no-open", &path]);
    let (port, token) = viewer_endpoint(url.lines().next().unwrap_or_default());
    let host = format!("127.0.0.1:{port}");
    let files = format!("/api/files?token={token}");
    let pids = env.daemons();
    assert_eq!(pids.len(), 1, "one daemon");
    let daemon = pids[0];
    // The first answer plans the file: memory is measured after it.
    assert_eq!(viewer_request(port, &files, &host).0, Ok(200));
    let rss_before = daemon_rss(daemon);
    let descriptors_before = open_descriptors(daemon);
    for (kind, count) in [("idle", 1500), ("slow", 600)] {
        let flood = Flood::start(port, kind, count);
        eprintln!("{kind}: {} connections held", flood.open);
        assert!(
            flood.open > 512,
            "the flooding process could open only {} connections",
            flood.open
        );
        for _ in 0..3 {
            let (status, took) = viewer_request(port, &files, &host);
            assert_eq!(status, Ok(200), "the owner's request under {kind} x{count}");
            assert!(
                took < Duration::from_secs(1),
                "the owner waited {took:?} under {kind} x{count}"
            );
        }
        let rss_during = daemon_rss(daemon);
        assert!(
            rss_during < rss_before + 16 * 1024,
            "the daemon grew from {rss_before} KiB to {rss_during} KiB under {kind} x{count}"
        );
        // The flood's connections still open in the daemon are closed at their deadline.
        let started = std::time::Instant::now();
        while open_descriptors(daemon) > descriptors_before + 16 {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "{} descriptors still open after {:?} under {kind} x{count} ({descriptors_before} before)",
                open_descriptors(daemon),
                started.elapsed()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        drop(flood);
    }
    assert_eq!(viewer_request(port, &files, &host).0, Ok(200));
    assert_eq!(
        viewer_request(port, &format!("/?token={token}"), &host).0,
        Ok(200)
    );
    assert_eq!(
        viewer_request(port, "/api/files", &host).0,
        Ok(403),
        "no token"
    );
    assert_eq!(
        viewer_request(port, &files, &format!("rebound.example:{port}")).0,
        Ok(403),
        "another host"
    );
}

/// A file rewritten without pause while 8 clients query it: every query is answered with
/// a plan of one of its two versions, none fails.
#[test]
fn a_write_storm_with_eight_querying_clients_fails_no_query() {
    let env = Project::new(DAEMON);
    let mut versions = kernels(2, 30, 10);
    let (path, first) = versions.remove(0);
    let second = versions.remove(0).1;
    env.write(&path, &first);
    let mut expected = vec![env.cold_digests(&path)];
    env.write(&path, &second);
    expected.push(env.cold_digests(&path));
    env.ok(&["daemon", "start"]);
    let stop = std::sync::atomic::AtomicBool::new(false);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let mut flip = false;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                env.replace(&path, if flip { &first } else { &second });
                flip = !flip;
                std::thread::sleep(Duration::from_millis(3));
            }
        });
        let clients: Vec<_> = (0..8)
            .map(|_| {
                scope.spawn(|| {
                    for _ in 0..6 {
                        let out = bounded(
                            env.command(&["query", &path, "--json"]),
                            Duration::from_secs(150),
                        );
                        let failed = match &out {
                            Some(out) if out.status.success() => {
                                !expected.contains(&plan_digests(&text(&out.stdout)))
                            }
                            _ => true,
                        };
                        if failed {
                            let why = out.map_or("hung".into(), |o| text(&o.stderr));
                            failures.lock().expect("failures").push(why);
                        }
                    }
                })
            })
            .collect();
        for client in clients {
            client.join().expect("client");
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    let failures = failures.into_inner().expect("failures");
    assert!(
        failures.is_empty(),
        "{} failed: {failures:#?}",
        failures.len()
    );
}

/// `daemon stop` while clients query: every query is answered (by this daemon before it
/// goes, or by the next one it starts).
#[test]
fn daemon_stop_answers_the_queries_in_flight() {
    let env = Project::new(DAEMON);
    let mut versions = kernels(2, 30, 11);
    let (path, first) = versions.remove(0);
    let second = versions.remove(0).1;
    env.write(&path, &first);
    let mut expected = vec![env.cold_digests(&path)];
    env.write(&path, &second);
    expected.push(env.cold_digests(&path));
    env.ok(&["daemon", "start"]);
    let failures = std::sync::Mutex::new(Vec::new());
    let answered = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let clients: Vec<_> = (0..8)
            .map(|i| {
                let (env, path, failures, answered, expected) =
                    (&env, &path, &failures, &answered, &expected);
                let (first, second) = (&first, &second);
                scope.spawn(move || {
                    for n in 0..5 {
                        // Each edit makes the next query plan afresh: it is slow, in flight.
                        if i == 0 {
                            env.replace(path, if n % 2 == 0 { second } else { first });
                        }
                        let out = bounded(
                            env.command(&["query", path, "--json"]),
                            Duration::from_secs(120),
                        );
                        match &out {
                            Some(out)
                                if out.status.success()
                                    && expected.contains(&plan_digests(&text(&out.stdout))) =>
                            {
                                answered.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            }
                            _ => failures
                                .lock()
                                .expect("failures")
                                .push(out.map_or("hung".into(), |o| text(&o.stderr))),
                        }
                    }
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(300));
        for _ in 0..2 {
            let stop = bounded(env.command(&["daemon", "stop"]), Duration::from_secs(60))
                .expect("stop answers");
            assert!(stop.status.success(), "{}", text(&stop.stderr));
            std::thread::sleep(Duration::from_millis(400));
        }
        for client in clients {
            client.join().expect("client");
        }
    });
    let failures = failures.into_inner().expect("failures");
    assert!(
        failures.is_empty(),
        "{} failed: {failures:#?}",
        failures.len()
    );
    assert_eq!(answered.into_inner(), 40);
}

/// A kernel file that is not UTF-8 gets one diagnostic with its line and column, worded the
/// same by `plan` and by the daemon.
#[test]
fn text_that_is_not_utf8_is_located_alike_by_the_cli_and_the_daemon() {
    let env = Project::new(DAEMON);
    let (path, source) = kernels(1, 1, 12).remove(0);
    let mut bytes = source.into_bytes();
    let at = bytes.iter().position(|&b| b == b'\n').expect("a line") + 5;
    bytes.insert(at, 0xff);
    let full = env.root.join(&path);
    std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
    std::fs::write(&full, bytes).expect("write");
    let plan = env.run(&["plan", &path, "--no-cache"]);
    let query = env.run(&["query", &path]);
    let expected =
        format!("error: cannot read {path}: 2:5: not UTF-8 text (byte 0xff at offset {at})");
    for (what, out) in [("plan", &plan), ("query", &query)] {
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{what}: {stderr}");
        let lines: Vec<&str> = stderr.lines().filter(|l| l.contains("UTF-8")).collect();
        assert_eq!(lines.len(), 1, "{what}: one diagnostic: {stderr}");
        assert!(lines[0].starts_with(&expected), "{what}: {stderr}");
    }
}

/// `plan … | slow-reader`: while its output waits for a reader, plan holds no lock, so a
/// first query starts the daemon and is answered.
#[test]
fn a_slow_reader_of_plans_output_does_not_block_a_first_query() {
    let env = Project::new(DAEMON);
    for (path, text) in kernels(40, 4, 13) {
        env.write(&path, &text);
    }
    let path = kernels(40, 4, 13).remove(0).0;
    let expected = env.cold_digests(&path);
    // More than a pipe holds, and nobody reads it yet.
    let mut plan = env
        .command(&["plan", ".", "--emit", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("plan starts");
    // Wait until it has finished planning and blocks on its output.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !env.state.join("last-run.json").exists() {
        assert!(std::time::Instant::now() < deadline, "plan never finished");
        std::thread::sleep(Duration::from_millis(20));
    }
    let query = bounded(
        env.command(&["query", &path, "--json"]),
        Duration::from_secs(30),
    )
    .expect("the query is not blocked by plan's output");
    assert!(query.status.success(), "{}", text(&query.stderr));
    assert_eq!(plan_digests(&text(&query.stdout)), expected);
    let mut printed = Vec::new();
    std::io::Read::read_to_end(&mut plan.stdout.take().expect("stdout"), &mut printed)
        .expect("read");
    assert!(plan.wait().expect("plan ends").success());
    assert!(printed.len() > 64 * 1024, "{} bytes", printed.len());
}

/// A daemon started on a store whose snapshot is damaged starts, repairs it without loss,
/// answers right, and says what happened in a `status` that answers at once.
#[test]
fn a_daemon_on_a_damaged_store_starts_answers_and_reports_it() {
    let env = Project::new(DAEMON);
    let files = kernels(80, 4, 7);
    for (path, text) in &files {
        env.write(path, text);
    }
    // The second run makes sled write a snapshot.
    env.ok(&["plan", ".", "--emit", "summary"]);
    env.ok(&["plan", ".", "--emit", "summary"]);
    damage(&env.state.join("cache"), Damage::Snapshot);
    let start =
        bounded(env.command(&["daemon", "start"]), Duration::from_secs(60)).expect("start answers");
    assert!(start.status.success(), "{}", text(&start.stderr));
    let path = &files[0].0;
    let out = bounded(
        env.command(&["query", path, "--json"]),
        Duration::from_secs(60),
    )
    .expect("query answers");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(plan_digests(&text(&out.stdout)), env.cold_digests(path));
    let status = bounded(
        env.command(&["daemon", "status", "--json"]),
        Duration::from_secs(30),
    )
    .expect("status answers");
    assert!(status.status.success(), "{}", text(&status.stderr));
    let status: Value = serde_json::from_slice(&status.stdout).expect("status JSON");
    assert!(
        status["last_error"]
            .as_str()
            .is_some_and(|e| e.contains("index was unreadable")),
        "{status}"
    );
    assert!(
        status["store_entries"].as_u64() > Some(0),
        "nothing lost: {status}"
    );
    assert_eq!(
        status["cache"]["file_misses"], 0,
        "served from the store: {status}"
    );
}
