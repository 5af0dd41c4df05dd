//! A writer killed with SIGKILL mid-batch, 50 times (`MEMREUSE_CRASH_ROUNDS` for more): the
//! store always reopens as it is (no repair, nothing moved aside), every batch the writer
//! flushed before the kill is in it, and every value in it is exactly one that was written
//! (so none ever fails its checksum).
//!
//! The writer is this test binary re-run with `MEMREUSE_CRASH_WRITER` set: it then runs
//! `writer`, which says when the store is open and after each batch, and writes batches until
//! it is killed. So that the writer is no test, this binary has its own `main` (`harness =
//! false`); arguments after `--` are ignored.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use memreuse::plan::PlanReport;
use memreuse::store::{Anchor, Cache, CacheStore, CachedPlan, Capacities, Key, SledStore, check};

const WRITER_ENV: &str = "MEMREUSE_CRASH_WRITER";
const BATCH: u64 = 64;

/// The index in the first 8 bytes, a hash of it in the rest: keys are checkable by reading.
fn key(i: u64) -> Key {
    let mut key = *blake3::hash(&i.to_le_bytes()).as_bytes();
    key[..8].copy_from_slice(&i.to_be_bytes());
    Key(key)
}

fn index_of(k: &Key) -> Option<u64> {
    let i = u64::from_be_bytes(k.0[..8].try_into().ok()?);
    (key(i) == *k).then_some(i)
}

/// The value written under `key(i)`: large enough that batches span sled segments.
fn value(i: u64) -> CachedPlan {
    CachedPlan {
        planned_text: format!("    # plan {i}\n")
            .repeat(1 + (i % 200) as usize)
            .into(),
        planned_digest: *blake3::hash(&i.to_be_bytes()).as_bytes(),
        report: PlanReport::default(),
        anchors: vec![Anchor::Nowhere; (i % 7) as usize],
        capacities: Capacities::Configured,
    }
}

fn main() {
    match std::env::var_os(WRITER_ENV) {
        Some(dir) => writer(Path::new(&dir)),
        None => {
            println!("test sigkill_mid_batch_never_leaves_a_bad_value ...");
            sigkill_mid_batch_never_leaves_a_bad_value();
            println!("test sigkill_mid_batch_never_leaves_a_bad_value ... ok");
        }
    }
}

/// Writes batches into the store at `dir` until it is killed.
fn writer(dir: &Path) -> ! {
    let store = SledStore::open(dir).expect("the writer opens the store");
    let start = store.stats().expect("stats").entries;
    let cache = Cache::new(Box::new(store));
    let mut out = std::io::stdout();
    let _ = writeln!(out, "open {start}");
    // Continue numbering where the last writer stopped, so batches keep adding entries.
    let mut next = start;
    loop {
        for i in next..next + BATCH {
            cache.put_plan(key(i), &value(i));
        }
        cache.flush().expect("the writer flushes");
        next += BATCH;
        let _ = writeln!(out, "batch");
    }
}

fn sigkill_mid_batch_never_leaves_a_bad_value() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("cache");
    let exe = std::env::current_exe().expect("test binary");
    let started = Instant::now();
    let mut rng = 0x2545_f491_4f6c_dd1d_u64;
    let mut entries_seen = 0u64;
    let rounds: u32 = std::env::var("MEMREUSE_CRASH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(50);
    for round in 0..rounds {
        let mut child = Command::new(&exe)
            .env(WRITER_ENV, &path)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the writer starts");
        // Kill at a random moment once the writer is writing; in the first round, only after
        // a batch has landed, so the test always checks a non-empty store.
        let mut lines = BufReader::new(child.stdout.take().expect("piped")).lines();
        let (mut start, mut batches) = (None, 0u64);
        let mut note = |line: &str| {
            if let Some(n) = line
                .strip_suffix('\n')
                .unwrap_or(line)
                .split("open ")
                .nth(1)
            {
                start = n.trim().parse::<u64>().ok();
            } else if line.ends_with("batch") {
                batches += 1;
            }
        };
        let wanted = if round == 0 { "batch" } else { "open" };
        for line in lines.by_ref() {
            let Ok(line) = line else { break };
            note(&line);
            if line.contains(wanted) {
                break;
            }
        }
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        std::thread::sleep(Duration::from_millis(rng % 80));
        child.kill().expect("SIGKILL");
        child.wait().expect("reaped");
        // What the writer said before it died: every batch it reported is flushed.
        for line in lines.map_while(Result::ok) {
            note(&line);
        }
        let flushed = start.expect("the writer said where it started") + batches * BATCH;

        let store = SledStore::open(&path)
            .unwrap_or_else(|err| panic!("round {round}: the store does not reopen: {err}"));
        let mut entries = 0u64;
        let mut present = std::collections::HashSet::new();
        store
            .for_each(&mut |_, k, bytes| {
                entries += 1;
                present.extend(index_of(k));
                assert_eq!(
                    check(bytes),
                    Ok(memreuse::store::Kind::Plan),
                    "round {round}"
                );
                assert!(index_of(k).is_some(), "round {round}: a key nobody wrote");
            })
            .expect("scan");
        // Every value's checksum was checked above; decode the newest ones and a sample.
        let cache = Cache::new(Box::new(store));
        let newest = entries.saturating_sub(2 * BATCH)..entries;
        for i in (0..entries).step_by(97).chain(newest) {
            let got = cache.get_plan(&key(i));
            assert!(
                got.is_none_or(|v| v == value(i)),
                "round {round}: value {i} is wrong"
            );
        }
        assert!(
            entries >= entries_seen,
            "round {round}: entries disappeared"
        );
        let lost = (0..flushed).filter(|i| !present.contains(i)).count();
        assert_eq!(lost, 0, "round {round}: flushed entries lost");
        entries_seen = entries;
    }
    assert!(entries_seen > 0, "the writers never completed a batch");
    eprintln!(
        "{rounds} kills in {:?}: {entries_seen} entries, none lost",
        started.elapsed()
    );
}
