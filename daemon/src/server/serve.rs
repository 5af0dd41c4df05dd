//! The socket side: tokio accepts connections and reads requests; anything that touches
//! the database runs on the blocking pool, never on the runtime's thread.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::net::{UnixListener, UnixStream};

use super::shared::{ReadError, Shared};
use super::state::Server;
use memreuse_daemon_client::answer::{explain_answer, query_answer};
use memreuse_daemon_client::protocol::{
    Body, CacheValue, ErrorCode, ErrorReply, Hello, MAX_REQUEST_LINE, PROTOCOL_VERSION, Progress,
    Request, Response, SettingsStatus, SpaceCapacity, Status, from_hex, to_hex,
};

/// How long a query waits for its freshness cookie to come back through the watcher.
const COOKIE_WAIT: Duration = Duration::from_secs(10);

/// Connections open at once. Beyond, the connection that has waited longest without asking
/// anything is closed to make room; when every one is being answered, accepting waits.
pub const MAX_CONNECTIONS: usize = 512;
/// A connection that asks nothing for this long after connecting is closed (clients send
/// their handshake at once)...
const FIRST_REQUEST_WAIT: Duration = Duration::from_secs(10);
/// ... and one that asks nothing more for this long after an answer.
const IDLE_CONNECTION: Duration = Duration::from_secs(300);
/// How long a stopping daemon still reads requests on open connections (a client that got
/// its handshake answered sends its query right after).
const STOP_GRACE: Duration = Duration::from_secs(2);

/// Accepts connections until `stopping` completes.
pub async fn accept(
    listener: UnixListener,
    server: Arc<Server>,
    stopping: impl Future<Output = ()>,
) {
    tokio::pin!(stopping);
    loop {
        if server.connections.open.load(Ordering::SeqCst) >= MAX_CONNECTIONS
            && !server.connections.evict()
        {
            // Every connection is being answered: let one finish first.
            tokio::select! {
                () = &mut stopping => break,
                () = tokio::time::sleep(Duration::from_millis(20)) => continue,
            }
        }
        tokio::select! {
            () = &mut stopping => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    // Counted here, not when the task first runs: a burst of accepts must
                    // see the connections before it.
                    server.connections.open.fetch_add(1, Ordering::SeqCst);
                    tokio::spawn(connection(stream, server.clone()));
                }
                Err(err) => {
                    server.shared.record_error(format!("accept failed: {err}"));
                    // Out of descriptors, say: make room before trying again.
                    server.connections.evict();
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
        }
    }
}

async fn connection(stream: UnixStream, server: Arc<Server>) {
    let registered = server.connections.register();
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    let mut line = Vec::new();
    let mut first = true;
    loop {
        line.clear();
        let wait = if first {
            FIRST_REQUEST_WAIT
        } else {
            IDLE_CONNECTION
        };
        let mut limited = (&mut reader).take(MAX_REQUEST_LINE as u64 + 1);
        let read = limited.read_until(b'\n', &mut line);
        let mut stopping = server.stopping.subscribe();
        let stopped = async move {
            let _ = stopping.wait_for(|s| *s).await;
            tokio::time::sleep(STOP_GRACE).await;
        };
        let n = tokio::select! {
            read = tokio::time::timeout(wait, read) => match read {
                Ok(Ok(n)) => n,
                // An error, or silence for too long.
                _ => return,
            },
            () = registered.closed() => return,
            () = stopped => return,
        };
        if n == 0 {
            return;
        }
        if first {
            registered.asked();
            first = false;
        }
        let complete = line.last() == Some(&b'\n');
        server.touch();
        server.busy.fetch_add(1, Ordering::SeqCst);
        let body = if !complete {
            error(
                ErrorCode::BadRequest,
                format!("request longer than {MAX_REQUEST_LINE} bytes"),
            )
        } else {
            match serde_json::from_slice::<Request>(&line) {
                Ok(request) => respond(request, &server).await,
                Err(err) => error(ErrorCode::BadRequest, format!("bad request: {err}")),
            }
        };
        let stop = matches!(body, Body::ShuttingDown);
        let response = Response {
            instance: server.shared.instance.clone(),
            revision: server.shared.revision(),
            body,
        };
        let written = write
            .write_all(&memreuse_daemon_client::protocol::to_line(&response))
            .await;
        server.busy.fetch_sub(1, Ordering::SeqCst);
        if stop {
            server.stop.notify_one();
        }
        // A line cut off means the stream is out of step: drop the connection.
        if written.is_err() || !complete || stop || *server.stopping.borrow() {
            return;
        }
    }
}

fn error(code: ErrorCode, message: String) -> Body {
    Body::Error(ErrorReply { code, message })
}

async fn respond(request: Request, server: &Arc<Server>) -> Body {
    let shared = &server.shared;
    match request {
        Request::Hello { .. } => Body::Hello(Hello {
            protocol: PROTOCOL_VERSION,
            build_id: shared.build_id.clone(),
            pid: std::process::id(),
            root: shared.root.clone(),
        }),
        Request::Status => {
            let shared = shared.clone();
            let viewer_url = server.view.url();
            blocking(move || Ok(Body::Status(Box::new(status(&shared, viewer_url))))).await
        }
        Request::Shutdown => Body::ShuttingDown,
        Request::CachePut { .. } => error(
            ErrorCode::Refused,
            "the daemon plans every file it watches and writes its cache itself".into(),
        ),
        Request::View => match server.view.start(server).await {
            Ok(endpoint) => Body::View(memreuse_daemon_client::protocol::ViewUrl {
                url: endpoint.url(),
            }),
            Err(err) => error(
                ErrorCode::Internal,
                format!("cannot start the viewer: {err}"),
            ),
        },
        Request::CacheGet { kind, key } => {
            let shared = shared.clone();
            blocking(move || Ok(cache_get(&shared, kind, &key))).await
        }
        Request::Query {
            path,
            function,
            stale_ok,
            color,
        } => {
            let answer = move |shared: &Shared, path: &Path, display: &str| {
                let backend = shared.config().backend.name();
                let planner = shared.planner.name();
                let (outcome, _) = shared.read(|snapshot, files| {
                    files
                        .get(path)
                        .map(|&f| snapshot.detailed_outcome(f, function.as_deref()))
                        .transpose()
                })?;
                Ok(outcome.map(|outcome| {
                    let function = function.as_deref();
                    query_answer(&outcome, display, function, (backend, planner), color)
                }))
            };
            answer_about(shared, path, stale_ok, Body::Query, answer).await
        }
        Request::Explain {
            path,
            function,
            first,
            second,
            stale_ok,
            color,
        } => {
            let answer = move |shared: &Shared, path: &Path, display: &str| {
                // From the database's memoized stages; what they cannot answer (no such
                // function, a parse error, the offset planner) is worded from the text.
                let (read, _) = shared.read(|snapshot, files| {
                    let Some(&file) = files.get(path) else {
                        return Ok(None);
                    };
                    Ok(Some(
                        match snapshot.explain(file, &function, (&first, &second))? {
                            Some(explained) => Ok(explained),
                            None => Err(snapshot.outcome(file)?),
                        },
                    ))
                })?;
                Ok(read.map(|read| match read {
                    Ok(Ok(text)) => memreuse_daemon_client::protocol::Answer {
                        text,
                        ..Default::default()
                    },
                    Ok(Err(err)) => memreuse_daemon_client::protocol::Answer {
                        diagnostics: format!("error: {err}\n"),
                        failed: true,
                        ..Default::default()
                    },
                    Err(outcome) => {
                        let config = memreuse::plan::PlanConfig {
                            materialize_aliases: super::writer::materialize_aliases(path),
                            ..shared.config()
                        };
                        explain_answer(
                            outcome.text.held().unwrap_or(""),
                            display,
                            &function,
                            &config,
                            (&first, &second),
                            color,
                        )
                    }
                }))
            };
            answer_about(shared, path, stale_ok, Body::Explain, answer).await
        }
    }
}

/// The answer for a path the daemon has no file for: why it was not read, or that it is
/// not a kernel file.
/// Answers a question about the file at `path` once [`admit`] lets it through: `answer` runs
/// on the blocking pool with the file's display name, and gives `None` for a file the daemon
/// does not track. The freshness note, when there is one, goes before the answer's
/// diagnostics; `wrap` makes the reply.
async fn answer_about(
    shared: &Arc<Shared>,
    path: PathBuf,
    stale_ok: bool,
    wrap: fn(memreuse_daemon_client::protocol::Answer) -> Body,
    answer: impl FnOnce(
        &Shared,
        &Path,
        &str,
    ) -> Result<Option<memreuse_daemon_client::protocol::Answer>, ReadError>
    + Send
    + 'static,
) -> Body {
    let unconfirmed = match admit(shared, &path, stale_ok).await {
        Ok(unconfirmed) => unconfirmed,
        Err(body) => return body,
    };
    let shared = shared.clone();
    blocking(move || {
        let display = display(&shared.root, &path);
        let Some(mut answer) = answer(&shared, &path, &display)? else {
            return Ok(match untracked(&shared, &path, &display) {
                Body::Query(answer) => wrap(answer),
                other => other,
            });
        };
        if let Some(note) = unconfirmed {
            answer.diagnostics.insert_str(0, &note);
        }
        Ok(wrap(answer))
    })
    .await
}

fn untracked(shared: &Shared, path: &Path, display: &str) -> Body {
    if let Some(why) = shared.refused().get(path) {
        return Body::Query(memreuse_daemon_client::protocol::Answer {
            // Worded as `memreuse plan` words a file it cannot read.
            diagnostics: format!("error: cannot read {display}: {why}\n"),
            failed: true,
            ..Default::default()
        });
    }
    error(
        ErrorCode::Refused,
        format!(
            "{display} is not a kernel file the daemon watches (it must exist, end in .py, \
             and not be hidden or ignored by .gitignore)"
        ),
    )
}

/// Refuses paths outside the root; unless `stale_ok`, waits until every change made before
/// now is applied. On a tree where the freshness cookie cannot be written (read-only), the
/// answer is given anyway: `Some` is the warning that it may be stale.
async fn admit(shared: &Arc<Shared>, path: &Path, stale_ok: bool) -> Result<Option<String>, Body> {
    if !path.is_absolute() || !path.starts_with(&shared.root) {
        return Err(error(
            ErrorCode::Refused,
            format!(
                "{} is outside the daemon's root {}",
                path.display(),
                shared.root.display()
            ),
        ));
    }
    if stale_ok {
        return Ok(None);
    }
    let (n, seen) = shared.new_cookie();
    let cookie = shared.tree.cookie_path(n);
    if let Err(err) = tokio::fs::write(&cookie, b"").await {
        shared.forget_cookie(n);
        return Ok(Some(format!(
            "warning: cannot write the freshness cookie {} ({err}), so changes made just \
             before this query may not be seen yet; the answer may be stale\n",
            cookie.display()
        )));
    }
    let result = tokio::time::timeout(COOKIE_WAIT, seen).await;
    // Removing it makes one more event, which the watcher ignores.
    let _ = tokio::fs::remove_file(&cookie).await;
    match result {
        Ok(Ok(())) => Ok(None),
        Ok(Err(_)) => Err(error(
            ErrorCode::ShuttingDown,
            "the daemon is shutting down".into(),
        )),
        Err(_) => {
            shared.forget_cookie(n);
            Err(error(
                ErrorCode::Internal,
                format!(
                    "changes could not be confirmed: the watcher did not report the freshness \
                     cookie within {COOKIE_WAIT:?} (use --stale-ok to answer anyway)"
                ),
            ))
        }
    }
}

/// The path as shown in answers: relative to the root.
fn display(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .map(PathBuf::from)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

/// Runs `work` on the blocking pool.
async fn blocking(work: impl FnOnce() -> Result<Body, ReadError> + Send + 'static) -> Body {
    match tokio::task::spawn_blocking(work).await {
        Ok(Ok(body)) => body,
        Ok(Err(ReadError::Closed)) => error(ErrorCode::ShuttingDown, ReadError::Closed.to_string()),
        Ok(Err(err)) => error(ErrorCode::Internal, err.to_string()),
        Err(err) => error(ErrorCode::Internal, format!("the request failed: {err}")),
    }
}

/// One value of the store, for a CLI reading through the daemon.
fn cache_get(shared: &Shared, kind: u8, key: &str) -> Body {
    let kind = memreuse::store::Kind::ALL
        .into_iter()
        .find(|k| *k as u8 == kind);
    let key = from_hex(key).and_then(|bytes| <[u8; 32]>::try_from(bytes).ok());
    let (Some(kind), Some(key)) = (kind, key) else {
        return error(
            ErrorCode::Refused,
            "a cache key is a kind and 32 hex bytes".into(),
        );
    };
    let Some(store) = shared.cache.store() else {
        return Body::CacheValue(CacheValue { value: None });
    };
    match store.get(kind, &memreuse::store::Key(key)) {
        Ok(value) => Body::CacheValue(CacheValue {
            value: value.map(|bytes| to_hex(&bytes)),
        }),
        Err(err) => error(ErrorCode::Internal, format!("cannot read the cache: {err}")),
    }
}

fn status(shared: &Shared, viewer_url: Option<String>) -> Status {
    let store = shared.cache.store().map(|s| s.stats());
    let (store_entries, store_bytes, store_error) = match store {
        Some(Ok(stats)) => (stats.entries, stats.bytes_on_disk, None),
        Some(Err(err)) => (0, 0, Some(format!("cannot read the store's size: {err}"))),
        None => (0, 0, None),
    };
    let c = shared.cache.counters();
    let settings = shared.settings();
    let figures = shared.figures();
    Status {
        pid: std::process::id(),
        root: shared.root.clone(),
        state_dir: shared.state_dir.clone(),
        build_id: shared.build_id.clone(),
        backend: settings.config.backend.name().to_string(),
        planner: shared.planner.name().to_string(),
        settings: SettingsStatus {
            file: Some(shared.tree.settings_path()).filter(|p| p.is_file()),
            loaded_seconds_ago: settings.loaded.elapsed().as_secs_f64(),
            capacities: memreuse::ir::MemSpace::ALL
                .iter()
                .filter_map(|&space| Some((space, settings.config.capacity(space)?)))
                .map(|(space, bytes)| SpaceCapacity {
                    space: space.name().to_string(),
                    bytes,
                })
                .collect(),
            max_file_bytes: settings.max_file_bytes,
            error: settings.error,
        },
        watch_backend: super::watch::backend_name(),
        uptime_seconds: shared.started.elapsed().as_secs_f64(),
        scan: Progress {
            done: figures.scan_done,
            total: figures.scan_total,
            finished: figures.scan_finished,
        },
        pending_files: shared
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .len(),
        files: figures.files,
        functions: figures.functions,
        watches: shared.watches.load(Ordering::Relaxed),
        watch_limit: watch_limit(),
        rescans: figures.rescans.clone(),
        cache: c,
        store_entries,
        store_bytes,
        rss_bytes: rss_bytes(),
        last_error: store_error.or_else(|| figures.last_error.clone()),
        viewer_url,
    }
}

fn watch_limit() -> Option<u64> {
    std::fs::read_to_string("/proc/sys/fs/inotify/max_user_watches")
        .ok()?
        .trim()
        .parse()
        .ok()
}

fn rss_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf only reads a system constant.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * u64::try_from(page).ok()?)
}
