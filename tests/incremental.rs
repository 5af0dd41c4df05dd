//! The database and the cache together: warm runs, shared entries, damaged values, restarts,
//! and spans that follow their function.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use memreuse::db::{
    FileOutcome, FileStatus, FunctionOutcome, Handout, LoadInputs, OutcomeDetail, OutcomeText,
    ShardFile, ShardedWorkspace, StageRetention, Stamps, Texts, Workspace,
};
use memreuse::ir::{LineIndex, parse_program};
use memreuse::plan::{PlanConfig, PlanOptions, plan_function};
use memreuse::store::{Cache, CacheStore, Kind, MemoryStore, SledStore, StoreEvent, check};
use memreuse::system::MemorySystem;
use memreuse_testgen::tree_gen::{TreeConfig, generate};

fn tree() -> Vec<(PathBuf, String)> {
    generate(&TreeConfig {
        files: 6,
        functions: 4,
        tiles: 4..=12,
        seed: 3,
    })
    .collect()
}

/// One "process": a fresh workspace over `store`, planning `files`, flushed at the end.
fn run(store: &MemoryStore, files: &[(PathBuf, String)]) -> (Workspace, Vec<FileOutcome>) {
    run_set_up(store, files, 2, |_| {})
}

/// [`run`] on `jobs` threads, the workspace first set up by `set_up`.
fn run_set_up(
    store: &MemoryStore,
    files: &[(PathBuf, String)],
    jobs: usize,
    set_up: impl FnOnce(&mut Workspace),
) -> (Workspace, Vec<FileOutcome>) {
    run_over(Cache::new(Box::new(store.clone())), files, jobs, set_up)
}

/// `files` planned over `cache` on `jobs` threads, the workspace first set up by `set_up`,
/// flushed at the end.
fn run_over(
    cache: Cache,
    files: &[(PathBuf, String)],
    jobs: usize,
    set_up: impl FnOnce(&mut Workspace),
) -> (Workspace, Vec<FileOutcome>) {
    let mut ws = Workspace::new(Arc::new(cache), PlanConfig::default());
    set_up(&mut ws);
    let sources: Vec<_> = files
        .iter()
        .map(|(path, text)| ws.set_file(path, text, false))
        .collect();
    let outcomes = ws.plan(&MemorySystem::default(), &sources, jobs, &|| {});
    ws.flush().expect("flushes");
    (ws, outcomes)
}

/// (fresh, cached) function counts.
fn counts(ws: &Workspace, outcomes: &[FileOutcome]) -> (usize, usize) {
    counts_by(outcomes, |f| ws.is_fresh(f))
}

/// [`counts`], `is_fresh` telling which function was planned by the run.
fn counts_by(
    outcomes: &[FileOutcome],
    is_fresh: impl Fn(&FunctionOutcome) -> bool,
) -> (usize, usize) {
    let mut fresh = 0;
    let mut cached = 0;
    for outcome in outcomes {
        let FileStatus::Planned { functions, .. } = &*outcome.status else {
            panic!("{}: {:?}", outcome.path.display(), outcome.status);
        };
        for f in functions {
            assert!(f.result.is_ok(), "{}::{}", outcome.path.display(), f.name);
            if is_fresh(f) { fresh += 1 } else { cached += 1 }
        }
    }
    (fresh, cached)
}

/// What `memreuse plan --emit json` prints from an outcome: names, digests and complete
/// reports (manifest-served ones get their detail from the plan entries).
fn rendered(ws: &Workspace, outcomes: &[FileOutcome]) -> String {
    render(outcomes, |_, o| ws.add_report_detail(o, None))
}

/// [`rendered`], each outcome (with its index) given its detail by `add_detail`.
fn render(outcomes: &[FileOutcome], add_detail: impl Fn(usize, &mut FileOutcome)) -> String {
    let mut out = String::new();
    for (index, o) in outcomes.iter().enumerate() {
        let mut o = o.clone();
        add_detail(index, &mut o);
        if let FileStatus::Planned { functions, .. } = &*o.status {
            for f in functions {
                let planned = f.result.as_ref().expect("planned");
                out += &format!(
                    "{}::{} {:?} {:?}\n",
                    o.path.display(),
                    f.name,
                    planned.planned_digest,
                    planned.report
                );
            }
        }
    }
    out
}

fn kinds(store: &dyn CacheStore, kind: Kind) -> usize {
    let mut n = 0;
    store
        .for_each(&mut |_, _, value| n += usize::from(check(value) == Ok(kind)))
        .expect("scan");
    n
}

#[test]
fn a_restart_serves_every_function_from_the_cache_with_the_same_result() {
    let store = MemoryStore::default();
    let files = tree();
    let (cold_ws, cold) = run(&store, &files);
    assert_eq!(counts(&cold_ws, &cold), (24, 0));
    let (ws, warm) = run(&store, &files);
    assert_eq!(counts(&ws, &warm), (0, 24));
    assert_eq!(rendered(&cold_ws, &cold), rendered(&ws, &warm));
    let c = ws.cache().counters();
    assert_eq!((c.file_hits, c.file_misses, c.rejected), (6, 0, 0));
}

#[test]
fn after_a_restart_an_edit_inside_one_function_replans_only_it() {
    let store = MemoryStore::default();
    let mut files = tree();
    run(&store, &files);
    let text = &mut files[2].1;
    let at = text.find("def kernel_1(").expect("a second kernel");
    let load = at + text[at..].find("[0, 0]").expect("a load offset");
    text.replace_range(load..load + 6, "[0, 1]");
    let (ws, outcomes) = run(&store, &files);
    assert_eq!(counts(&ws, &outcomes), (1, 23));
    // The edited file's other functions come from their plan entries.
    let c = ws.cache().counters();
    assert_eq!((c.file_misses, c.plan_hits, c.plan_misses), (1, 3, 1));
}

#[test]
fn identical_functions_in_two_files_share_one_plan_entry() {
    let store = MemoryStore::default();
    let (_, text) = tree().remove(0);
    let copy = text.replacen(
        "import pypto.language as pl",
        "import pypto.language as pl\n# a copy",
        1,
    );
    run(&store, &[("a.py".into(), text), ("b/a.py".into(), copy)]);
    assert_eq!(kinds(&store, Kind::Plan), 4);
    assert_eq!(kinds(&store, Kind::File), 2);
}

#[test]
fn damaged_values_are_misses_and_are_planned_again() {
    let store = MemoryStore::default();
    let files = tree();
    let (cold_ws, cold) = run(&store, &files);
    for (kind, key) in store.keys() {
        let mut value = store
            .get(kind, &key)
            .expect("memory")
            .expect("present")
            .to_vec();
        let last = value.len() - 1;
        value[last] ^= 0x5a;
        store.overwrite(kind, key, value);
    }
    let (ws, again) = run(&store, &files);
    assert_eq!(counts(&ws, &again), (24, 0));
    assert_eq!(rendered(&cold_ws, &cold), rendered(&ws, &again));
    assert!(ws.cache().counters().rejected > 0);
}

#[test]
fn spans_follow_their_function_without_replanning_it() {
    let text = include_str!("../examples/kernels/if_phi_select/31_after_InitMemRef.py");
    let shifted = text.replacen("@pl.program", "# two more\n# lines\n@pl.program", 1);
    let line_of_move = |text: &str, outcome: &FileOutcome| {
        let FileStatus::Planned { functions, .. } = &*outcome.status else {
            panic!()
        };
        let report = functions[0]
            .result
            .as_ref()
            .expect("planned")
            .report
            .summary();
        let span = report.inserted_moves[0].span;
        LineIndex::new(text).line_col(text, span.start)
    };
    let mut ws = Workspace::with_log(Arc::new(Cache::disabled()), PlanConfig::default());
    let file = ws.set_file(Path::new("k.py"), text, false);
    let before = ws.plan(&MemorySystem::default(), &[file], 1, &|| {});
    ws.executed();
    ws.set_file(Path::new("k.py"), &shifted, false);
    let after = ws.plan(&MemorySystem::default(), &[file], 1, &|| {});
    let replanned: Vec<String> = ws
        .executed()
        .into_iter()
        .filter(|query| query.starts_with("plan("))
        .collect();
    assert!(
        replanned.is_empty(),
        "moving a function must not re-plan it: {replanned:?}"
    );
    let (b, a) = (
        line_of_move(text, &before[0]),
        line_of_move(&shifted, &after[0]),
    );
    assert_eq!((a.line, a.col), (b.line + 2, b.col));
    // The truth: plan the shifted text directly.
    let program = parse_program(&shifted).expect("parses");
    let direct = plan_function(
        &program.functions[0],
        &PlanConfig::default(),
        &PlanOptions::default(),
    )
    .expect("plans");
    let span = direct.report.inserted_moves[0].span;
    assert_eq!(LineIndex::new(&shifted).line_col(&shifted, span.start), a);
}

/// A run split between shards (the CLI's `plan` on several threads) plans as one workspace
/// does: the same outcomes in the order of the inputs, an unreadable input's error in its
/// place, every function fresh in a cold run and served from the store in the next; whether
/// or not the shards keep the plans once their files' outcomes are made.
#[test]
fn a_run_split_between_shards_plans_as_one_workspace_does() {
    let files = tree();
    let expected = {
        let (ws, outcomes) = run(&MemoryStore::default(), &files);
        rendered(&ws, &outcomes)
    };
    let system = MemorySystem::default();
    for (path, text) in &files {
        system.write(path.clone(), text.clone());
    }
    let mut paths: Vec<(PathBuf, bool)> = files.iter().map(|(p, _)| (p.clone(), false)).collect();
    paths.insert(2, (PathBuf::from("gone.py"), false));
    for detail in [
        OutcomeDetail::Summary,
        OutcomeDetail::Detailed { lifetimes: true },
    ] {
        let store = MemoryStore::default();
        for (round, fresh_and_cached) in [("cold", (24, 0)), ("warm", (0, 24))] {
            let cache = Arc::new(Cache::new(Box::new(store.clone())));
            let handout = Handout {
                detail,
                texts: Texts::Kept,
            };
            let mut ws = ShardedWorkspace::new(cache, PlanConfig::default(), 3, handout);
            let inputs = LoadInputs {
                paths: &paths,
                jobs: 2,
                stamps: Stamps::Ignored,
            };
            let loaded = ws.load(&system, inputs);
            assert!(
                loaded[2].is_err(),
                "{detail:?} {round}: the missing input is its error, in its place"
            );
            let sources: Vec<ShardFile> = loaded.into_iter().filter_map(Result::ok).collect();
            let outcomes = ws.plan(&system, &sources, &|| {});
            ws.flush().expect("memory stores do not fail");
            let planned: Vec<&Path> = outcomes.iter().map(|o| o.path.as_path()).collect();
            let inputs: Vec<&Path> = files.iter().map(|(p, _)| p.as_path()).collect();
            assert_eq!(planned, inputs, "{detail:?} {round}");
            let counted = counts_by(&outcomes, |f| ws.is_fresh(f));
            assert_eq!(counted, fresh_and_cached, "{detail:?} {round}");
            let got = render(&outcomes, |i, o| ws.add_report_detail(sources[i], o));
            assert!(
                got == expected,
                "{detail:?} {round}: sharded\n{got}\none workspace\n{expected}"
            );
        }
    }
}

/// A one-shot run that asks nothing of its plans once it has their files' outcomes keeps none
/// of them (a cold summary of a large tree held every plan and planned text to the end):
/// asking for the first file's planned texts afterwards plans its functions again, where a
/// run that keeps its plans answers from them. Both give the outcome's texts.
#[test]
fn a_one_shot_run_that_takes_only_outcomes_keeps_no_plan() {
    let files = tree();
    for (retention, planned_again) in [
        (StageRetention::Recent, false),
        (StageRetention::OneShot, true),
    ] {
        let mut ws = Workspace::with_log(Arc::new(Cache::disabled()), PlanConfig::default());
        ws.set_stage_retention(retention);
        let sources: Vec<_> = files
            .iter()
            .map(|(p, t)| ws.set_file(p, t, false))
            .collect();
        let outcomes = ws.plan(&MemorySystem::default(), &sources, 1, &|| {});
        ws.executed();
        let texts = ws.planned_texts(sources[0]);
        let executed = ws.executed();
        assert_eq!(
            executed.iter().any(|q| q.starts_with("checked_plan(")),
            planned_again,
            "{retention:?}: {executed:?}"
        );
        let FileStatus::Planned { functions, .. } = &*outcomes[0].status else {
            panic!("{retention:?}: {:?}", outcomes[0].status);
        };
        let handed: Vec<_> = functions
            .iter()
            .map(|f| f.result.as_ref().ok().and_then(|p| p.planned_text.clone()))
            .collect();
        assert_eq!(texts, handed, "{retention:?}");
    }
}

#[test]
fn a_one_shot_run_that_releases_texts_keeps_none_past_complete_outcomes() {
    let files = tree();
    let store = MemoryStore::default();
    // Cold, every outcome is complete; warm, a detailed outcome is completed later from the
    // file's stored detail, which may need the text.
    for (round, detail, released) in [
        ("cold", OutcomeDetail::Detailed { lifetimes: true }, true),
        ("warm", OutcomeDetail::Detailed { lifetimes: true }, false),
        ("warm", OutcomeDetail::Summary, true),
    ] {
        let (ws, outcomes) = run_set_up(&store, &files, 1, |ws| {
            ws.set_stage_retention(StageRetention::OneShot);
            ws.set_outcome_detail(detail);
            ws.set_texts(Texts::Released);
        });
        for ((path, text), outcome) in files.iter().zip(&outcomes) {
            let what = format!("{round} {detail:?} {}", path.display());
            let digest = *blake3::hash(text.as_bytes()).as_bytes();
            let expected = if released {
                OutcomeText::Released(digest)
            } else {
                OutcomeText::Held(text.as_str().into())
            };
            assert_eq!(outcome.text, expected, "{what}");
            assert_eq!(ws.text_of(path).is_none(), released, "{what}");
            let FileStatus::Planned { functions, .. } = &*outcome.status else {
                continue;
            };
            for function in functions {
                let planned = function.result.as_ref().ok();
                assert!(planned.is_none_or(|p| p.planned_text.is_none()), "{what}");
            }
        }
    }
}

/// `files` planned over the sled store at `path`.
fn run_in_sled(
    path: &Path,
    files: &[(PathBuf, String)],
    jobs: usize,
) -> (Workspace, Vec<FileOutcome>) {
    let store = SledStore::open(path).expect("opens");
    run_over(Cache::new(Box::new(store)), files, jobs, |_| {})
}

#[test]
fn a_sled_store_survives_a_restart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("cache");
    let files = tree();
    let plan_with = |files: &[(PathBuf, String)]| {
        let (ws, outcomes) = run_in_sled(&path, files, 2);
        (counts(&ws, &outcomes), rendered(&ws, &outcomes))
    };
    let (cold_counts, cold) = plan_with(&files);
    let (warm_counts, warm) = plan_with(&files);
    assert_eq!((cold_counts, warm_counts), ((24, 0), (0, 24)));
    assert_eq!(cold, warm);
}

#[test]
fn corrupted_bytes_on_disk_never_come_back_as_values() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("cache");
    let files = tree();
    let expected = {
        let (ws, outcomes) = run_in_sled(&path, &files, 1);
        rendered(&ws, &outcomes)
    };
    // Flip bytes all over sled's largest file.
    let mut largest = (0, PathBuf::new());
    for entry in walk(&path) {
        let len = std::fs::metadata(&entry).map_or(0, |m| m.len());
        if len > largest.0 {
            largest = (len, entry);
        }
    }
    let mut bytes = std::fs::read(&largest.1).expect("readable");
    for i in (100..bytes.len()).step_by(997) {
        bytes[i] ^= 0xff;
    }
    std::fs::write(&largest.1, bytes).expect("writable");
    let store = SledStore::open_or_rebuild(&path, Arc::new(|_: &StoreEvent| {}))
        .expect("opens or rebuilds");
    let (ws, outcomes) = run_over(Cache::new(Box::new(store)), &files, 1, |_| {});
    // Whatever survived or was rejected, the results are the true ones.
    assert_eq!(rendered(&ws, &outcomes), expected);
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("readable").flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// A warm run over `store` that `show`s its outcomes' detail, flushed; how many files it
/// parsed to show it.
fn parses_showing_detail(
    store: &MemoryStore,
    files: &[(PathBuf, String)],
    show: impl FnOnce(&mut Workspace, &[FileOutcome]),
) -> usize {
    let cache = Cache::new(Box::new(store.clone()));
    let mut ws = Workspace::with_log(Arc::new(cache), PlanConfig::default());
    let sources: Vec<_> = files
        .iter()
        .map(|(path, text)| ws.set_file(path, text, false))
        .collect();
    let outcomes = ws.plan(&MemorySystem::default(), &sources, 1, &|| {});
    ws.executed();
    show(&mut ws, &outcomes);
    ws.flush().expect("memory stores do not fail");
    ws.executed()
        .iter()
        .filter(|q| q.starts_with("parse_file"))
        .count()
}

/// The detail `--emit json` shows is made once: the first run that shows a file's detail
/// stores it (parsing served files again for their statement places), and every later run
/// reads it back without parsing, the same to the byte.
#[test]
fn report_detail_is_stored_where_it_is_made_and_read_back_without_a_parse() {
    let store = MemoryStore::default();
    let files = tree();
    let (ws, outcomes) = run(&store, &files);
    let cold = rendered(&ws, &outcomes);
    ws.flush().expect("memory stores do not fail");
    let warm = |round: &str| {
        parses_showing_detail(&store, &files, |ws, outcomes| {
            let shown = rendered(ws, outcomes);
            assert!(shown == cold, "{round}:\n{shown}\ncold:\n{cold}");
        })
    };
    let stored = || {
        store
            .keys()
            .iter()
            .filter(|(k, _)| *k == Kind::Detail)
            .count()
    };
    assert_eq!(
        warm("first warm run"),
        0,
        "the cold run stored every file's detail"
    );
    assert_eq!(stored(), files.len());
    assert_eq!(warm("second warm run"), 0);
}

/// Detail made without lifetimes (`--emit json`, which parses nothing for them) serves the
/// next run without lifetimes, while a run that shows lifetimes (`--lifetimes`) makes and
/// stores them; every warm run shows what a cold run shows, with lifetimes or without.
#[test]
fn detail_without_lifetimes_serves_only_runs_without_them() {
    let store = MemoryStore::default();
    let files = tree();
    let shown = |ws: &mut Workspace, outcomes: &[FileOutcome], lifetimes: bool| {
        let detailed: Vec<FileOutcome> = outcomes
            .iter()
            .map(|outcome| ws.detailed(&MemorySystem::default(), outcome, lifetimes))
            .collect();
        render(&detailed, |_, _| {})
    };
    let (mut cold_ws, cold_outcomes) = run(&MemoryStore::default(), &files);
    let cold = [false, true].map(|lifetimes| shown(&mut cold_ws, &cold_outcomes, lifetimes));
    assert_ne!(cold[0], cold[1], "the lifetimes are shown");
    run(&store, &files);
    let parses_showing = |lifetimes: bool| {
        parses_showing_detail(&store, &files, |ws, outcomes| {
            let warm = shown(ws, outcomes, lifetimes);
            let cold = &cold[usize::from(lifetimes)];
            assert!(
                &warm == cold,
                "lifetimes {lifetimes}:\n{warm}\ncold:\n{cold}"
            );
        })
    };
    assert_eq!(parses_showing(false), 0, "no lifetimes, no parse");
    assert_eq!(parses_showing(false), 0);
    assert!(parses_showing(true) > 0, "lifetimes need statement places");
    assert_eq!(parses_showing(true), 0, "stored by the run before");
    assert_eq!(parses_showing(false), 0);
}

/// The viewer asks for one function's plan under other configurations: that function alone
/// is planned, to the same outcome as when its whole file is.
#[test]
fn one_function_is_planned_alone_as_in_its_file() {
    let files = tree();
    let (path, text) = &files[0];
    let mut whole = Workspace::new(Arc::new(Cache::disabled()), PlanConfig::default());
    let file = whole.set_file(path, text, false);
    let outcome = whole
        .plan(&MemorySystem::default(), &[file], 1, &|| {})
        .remove(0);
    let FileStatus::Planned { functions, .. } = &*outcome.status else {
        panic!("{:?}", outcome.status);
    };
    assert!(functions.len() > 1);
    for function in functions {
        let mut alone = Workspace::with_log(Arc::new(Cache::disabled()), PlanConfig::default());
        let file = alone.set_file(path, text, false);
        let one = alone
            .plan_function(file, &function.name)
            .expect("the function");
        let FileStatus::Planned {
            functions: only, ..
        } = &*one.status
        else {
            panic!("{:?}", one.status);
        };
        assert_eq!(only.len(), 1);
        assert_eq!(
            format!("{:?}", only[0].result),
            format!("{:?}", function.result)
        );
        let planned: Vec<String> = alone
            .executed()
            .into_iter()
            .filter(|q| q.starts_with("plan("))
            .collect();
        assert_eq!(planned.len(), 1, "{planned:?}");
    }
    let mut alone = Workspace::new(Arc::new(Cache::disabled()), PlanConfig::default());
    let file = alone.set_file(path, text, false);
    assert!(alone.plan_function(file, "no_such_function").is_none());
}

/// A [`MemorySystem`] whose files have metadata (so that stamps vouch for them), counting
/// the texts read.
struct StampedSystem {
    files: MemorySystem,
    reads: std::sync::atomic::AtomicUsize,
}

impl StampedSystem {
    fn of(files: &[(PathBuf, String)]) -> StampedSystem {
        let system = MemorySystem::default();
        for (path, text) in files {
            system.write(path, text);
        }
        StampedSystem {
            files: system,
            reads: Default::default(),
        }
    }

    fn reads(&self) -> usize {
        self.reads.swap(0, std::sync::atomic::Ordering::Relaxed)
    }
}

impl memreuse::system::System for StampedSystem {
    fn read_to_string(&self, path: &Path) -> std::io::Result<String> {
        self.reads
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.files.read_to_string(path)
    }

    fn metadata(&self, path: &Path) -> std::io::Result<Option<memreuse::system::FileMeta>> {
        let len = self.files.read_to_string(path)?.len() as u64;
        Ok(Some(memreuse::system::FileMeta {
            len,
            modified_ns: 1,
            changed_ns: 1,
            inode: len,
        }))
    }

    fn now_ns(&self) -> i128 {
        i128::from(u64::MAX)
    }
}

/// A warm run that shows the detail of files its stamps vouched for reads each file only
/// where the store lacks its detail (to parse it for statement places), gets the detail a
/// run with every text gets, and lets the text go again; once the detail is stored, it reads
/// nothing.
#[test]
fn a_stamped_file_is_read_for_its_detail_only_where_the_store_lacks_it() {
    let store = MemoryStore::default();
    let files = tree();
    let (cold_ws, cold) = run(&store, &files);
    let expected = render(&cold, |_, o| cold_ws.add_report_detail(o, None));
    let system = StampedSystem::of(&files);
    let paths: Vec<(PathBuf, bool)> = files.iter().map(|(p, _)| (p.clone(), false)).collect();
    // (files read to plan, files read to show the detail)
    let warm = |store: &MemoryStore| {
        let cache = Arc::new(Cache::new(Box::new(store.clone())));
        let mut ws = Workspace::new(cache, PlanConfig::default());
        ws.set_stage_retention(StageRetention::OneShot);
        ws.set_texts(Texts::Released);
        let inputs = LoadInputs {
            paths: &paths,
            jobs: 1,
            stamps: Stamps::Trusted,
        };
        let sources: Vec<_> = ws
            .load(&system, inputs)
            .into_iter()
            .map(|f| f.expect("loads"))
            .collect();
        let outcomes = ws.plan(&system, &sources, 1, &|| {});
        ws.record_stamps(&outcomes);
        let planned = system.reads();
        let detailed: Vec<FileOutcome> = outcomes
            .iter()
            .map(|o| ws.detailed(&system, o, true))
            .collect();
        assert_eq!(render(&detailed, |_, _| {}), expected);
        assert!(paths.iter().all(|(p, _)| ws.text_of(p).is_none()), "let go");
        ws.flush().expect("memory stores do not fail");
        (planned, system.reads())
    };
    let n = files.len();
    assert_eq!(warm(&store), (n, n), "no stamps, no detail stored");
    let without_detail = MemoryStore::default();
    for (kind, key) in store.keys() {
        if kind != Kind::Detail
            && let Some(value) = store.get(kind, &key).expect("reads")
        {
            without_detail.overwrite(kind, key, value.to_vec());
        }
    }
    assert_eq!(warm(&store), (0, 0), "stamps and detail stored");
    // A run that completes the reports without reading the texts (`plan -v`, which shows no
    // places) stores no detail: its statement places would be missing.
    let cache = Arc::new(Cache::new(Box::new(without_detail.clone())));
    let mut ws = Workspace::new(cache, PlanConfig::default());
    let inputs = LoadInputs {
        paths: &paths,
        jobs: 1,
        stamps: Stamps::Trusted,
    };
    let sources: Vec<_> = ws.load(&system, inputs).into_iter().flatten().collect();
    for mut outcome in ws.plan(&system, &sources, 1, &|| {}) {
        ws.add_report_detail(&mut outcome, None);
    }
    ws.flush().expect("memory stores do not fail");
    assert_eq!(system.reads(), 0);
    assert_eq!(kinds(&without_detail, Kind::Detail), 0);
    assert_eq!(warm(&without_detail), (0, n), "stamps, no detail stored");
}
