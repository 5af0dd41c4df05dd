//! A plan stored for any capacities (`store::Capacities::Fitting`, under a key that names
//! none) answers only where planning again gives the same bytes. Every plan fixture and the
//! engine's kernels are planned over a sweep of one space's capacity at a time, around each
//! footprint and tile size the plans report (where packings, pipeline depths and overflow
//! checks change), each capacity by a fresh process over one shared store and by a fresh
//! database without a store; the two must agree byte for byte, and the store must have
//! answered for capacities it was not planned at. A one-shot workspace, which plans each
//! function in one go instead of through the memoized stages, stores the same entries.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use memreuse::backend::Backend;
use memreuse::db::{FileStatus, StageRetention, Workspace};
use memreuse::ir::MemSpace;
use memreuse::plan::PlanConfig;
use memreuse::store::{Cache, CacheStore, Counters, MemoryStore};
use memreuse::system::MemorySystem;

fn files() -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut files = Vec::new();
    for dir in ["plan", "incremental"] {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .expect("the fixtures")
            .map(|e| e.expect("an entry").path())
            .filter(|p| {
                let name = p.to_string_lossy();
                name.ends_with(".py") && !name.ends_with(".out.py")
            })
            .collect();
        paths.sort();
        for path in paths {
            let text = std::fs::read_to_string(&path).expect("a fixture");
            files.push((path, text));
        }
    }
    files
}

/// Plans every file in a fresh database over `cache`, keeping its stages as `retention`
/// says; every function's result (planned text, digest and complete report, or the failure)
/// and the cache's counters.
fn plan_all(
    cache: Cache,
    config: PlanConfig,
    retention: StageRetention,
    files: &[(PathBuf, String)],
) -> (String, Counters) {
    let mut ws = Workspace::new(Arc::new(cache), config);
    ws.set_stage_retention(retention);
    let sources: Vec<_> = files
        .iter()
        .map(|(path, text)| ws.set_file(path, text, false))
        .collect();
    let outcomes = ws.plan(&MemorySystem::default(), &sources, 1, &|| {});
    let mut out = String::new();
    for (outcome, &file) in outcomes.into_iter().zip(&sources) {
        let mut outcome = outcome;
        ws.add_report_detail(&mut outcome, None);
        let texts = ws.planned_texts(file);
        match &*outcome.status {
            FileStatus::Planned { functions, .. } => {
                for (f, text) in functions.iter().zip(texts) {
                    let result = f
                        .result
                        .as_ref()
                        .map(|p| (p.planned_digest, p.report.summary()));
                    out += &format!(
                        "{}::{} {result:?}\n{text:?}\n",
                        outcome.path.display(),
                        f.name
                    );
                }
            }
            other => out += &format!("{}: {other:?}\n", outcome.path.display()),
        }
    }
    ws.flush().expect("memory stores do not fail");
    (out, ws.cache().counters())
}

fn base(assign_addresses: bool) -> PlanConfig {
    PlanConfig {
        backend: Backend::Ascend910B,
        assign_addresses,
        ..PlanConfig::default()
    }
}

/// Capacities where a plan of `files` changes: each reported footprint and bound, one byte
/// either side, and small multiples of each buffer's size (pipeline depths), per space.
fn sensitive_capacities(files: &[(PathBuf, String)]) -> BTreeSet<(MemSpace, i64)> {
    let mut ws = Workspace::new(Arc::new(Cache::disabled()), base(false));
    let sources: Vec<_> = files
        .iter()
        .map(|(path, text)| ws.set_file(path, text, false))
        .collect();
    let mut capacities = BTreeSet::new();
    for mut outcome in ws.plan(&MemorySystem::default(), &sources, 1, &|| {}) {
        ws.add_report_detail(&mut outcome, None);
        let FileStatus::Planned { functions, .. } = &*outcome.status else {
            continue;
        };
        for planned in functions.iter().filter_map(|f| f.result.as_ref().ok()) {
            for space in &planned.report.summary().spaces {
                for bytes in [space.footprint, space.bytes_after, space.lower_bound] {
                    for near in [bytes - 1, bytes, bytes + 1] {
                        capacities.insert((space.space, near));
                    }
                }
                for buffer in &space.buffers {
                    for depth in 1..=3 {
                        capacities.insert((space.space, buffer.size * depth - 1));
                        capacities.insert((space.space, buffer.size * depth));
                    }
                }
            }
        }
    }
    capacities.retain(|&(_, bytes)| bytes > 0);
    capacities
}

/// About `points` of the [`sensitive_capacities`], spread over them, and an unknown
/// capacity (0) of each space.
fn sweep(files: &[(PathBuf, String)], points: usize) -> Vec<(MemSpace, i64)> {
    let all = sensitive_capacities(files);
    let step = all.len().div_ceil(points).max(1);
    let mut sweep: Vec<(MemSpace, i64)> = all.into_iter().step_by(step).collect();
    sweep.extend(MemSpace::ALL.iter().map(|&space| (space, 0)));
    sweep
}

#[test]
fn plans_stored_for_any_capacity_answer_only_where_planning_again_agrees() {
    let files = files();
    // Every capacity once, so that any hit is a plan stored at another capacity.
    let sweep = sweep(&files, 48);
    assert!(sweep.len() > 20, "the fixtures report sizes to sweep");
    let store = MemoryStore::default();
    let mut hits = 0;
    let mut planned_again = 0;
    for (n, &(space, bytes)) in sweep.iter().enumerate() {
        let mut config = base(n % 3 == 0);
        config.capacity_overrides[space as usize] = Some(bytes);
        // Stored and served by workspaces of both kinds in turn.
        let retention = match n % 2 {
            0 => StageRetention::Recent,
            _ => StageRetention::OneShot,
        };
        let cache = Cache::new(Box::new(store.clone()));
        let (served, counters) = plan_all(cache, config, retention, &files);
        let (fresh, _) = plan_all(Cache::disabled(), config, StageRetention::Recent, &files);
        assert!(
            served == fresh,
            "{space:?} at {bytes} bytes: the store's answer differs from planning again\n{}",
            first_difference(&served, &fresh)
        );
        if n > 0 {
            hits += counters.plan_hits + counters.file_hits;
            planned_again += counters.plan_misses;
        }
    }
    assert!(hits > 0, "plans stored at other capacities answered");
    assert!(planned_again > 0, "some capacities changed plans");
}

/// Every entry of `store`, key and bytes.
fn entries(store: &MemoryStore) -> Vec<String> {
    let mut entries = Vec::new();
    store
        .for_each(&mut |kind, key, value| entries.push(format!("{kind:?} {key:?} {value:?}")))
        .expect("a memory store lists its entries");
    entries.sort();
    entries
}

/// Planned in one go (a one-shot workspace) or through the stages, every plan and manifest
/// is stored under the same key, which says for which capacities it holds, with the same
/// bytes: at capacities that keep each packing and at capacities that change them, and
/// with no capacity known at all (no backend).
#[test]
fn one_shot_and_staged_planning_store_the_same_entries() {
    let files = files();
    let mut configs: Vec<PlanConfig> = sweep(&files, 24)
        .into_iter()
        .enumerate()
        .map(|(n, (space, bytes))| {
            let mut config = base(n % 3 == 0);
            config.capacity_overrides[space as usize] = Some(bytes);
            config
        })
        .collect();
    configs.extend([false, true].map(|assign_addresses| PlanConfig {
        assign_addresses,
        ..PlanConfig::default()
    }));
    let mut stored_entries = 0;
    for config in configs {
        let stored = [StageRetention::OneShot, StageRetention::Recent].map(|retention| {
            let store = MemoryStore::default();
            let cache = Cache::new(Box::new(store.clone()));
            plan_all(cache, config, retention, &files);
            entries(&store)
        });
        let [one_shot, staged] = &stored;
        assert!(
            one_shot == staged,
            "{config:?}: the stores differ\n{}",
            first_difference(&one_shot.join("\n"), &staged.join("\n"))
        );
        stored_entries += one_shot.len();
    }
    assert!(stored_entries > 0, "the workspaces stored plans");
}

fn first_difference(a: &str, b: &str) -> String {
    let (a, b): (Vec<_>, Vec<_>) = (a.lines().collect(), b.lines().collect());
    match a.iter().zip(&b).position(|(x, y)| x != y) {
        Some(at) => format!("served: {}\nfresh:  {}", a[at], b[at]),
        None => format!("{} lines served, {} fresh", a.len(), b.len()),
    }
}
