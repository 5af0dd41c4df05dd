//! The socket side: tokio accepts connections and reads requests; anything that touches
//! the database runs on the blocking pool, never on the runtime's thread.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::Notify;

use super::shared::{ReadError, Shared};
use crate::answer::{explain_answer, query_answer};
use crate::protocol::{
    Body, CacheFigures, CacheValue, ErrorCode, ErrorReply, Hello, MAX_REQUEST_LINE,
    PROTOCOL_VERSION, Progress, Request, Response, Status, from_hex, to_hex,
};

/// How long a query waits for its freshness cookie to come back through the watcher.
const COOKIE_WAIT: Duration = Duration::from_secs(10);

/// What the accept loop and the connections share.
pub struct Server {
    pub shared: Arc<Shared>,
    /// Notified when a client asks the daemon to stop.
    pub stop: Notify,
    /// Requests being answered now.
    pub busy: AtomicUsize,
    /// Milliseconds since start of the last request, for the idle timeout.
    pub last_request_ms: AtomicU64,
}

impl Server {
    fn touch(&self) {
        let now = self.shared.started.elapsed().as_millis() as u64;
        self.last_request_ms.store(now, Ordering::Relaxed);
    }

    pub fn idle_for(&self) -> Duration {
        let last = Duration::from_millis(self.last_request_ms.load(Ordering::Relaxed));
        self.shared.started.elapsed().saturating_sub(last)
    }
}

/// Accepts connections until `stopping` completes.
pub async fn accept(
    listener: UnixListener,
    server: Arc<Server>,
    stopping: impl Future<Output = ()>,
) {
    tokio::pin!(stopping);
    loop {
        tokio::select! {
            () = &mut stopping => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    tokio::spawn(connection(stream, server.clone()));
                }
                Err(err) => {
                    server.shared.record_error(format!("accept failed: {err}"));
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
        }
    }
}

async fn connection(stream: UnixStream, server: Arc<Server>) {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = match (&mut reader)
            .take(MAX_REQUEST_LINE as u64 + 1)
            .read_until(b'\n', &mut line)
            .await
        {
            Ok(n) => n,
            Err(_) => return,
        };
        if n == 0 {
            return;
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
        let written = write.write_all(&crate::protocol::to_line(&response)).await;
        server.busy.fetch_sub(1, Ordering::SeqCst);
        if stop {
            server.stop.notify_one();
        }
        // A line cut off means the stream is out of step: drop the connection.
        if written.is_err() || !complete || stop {
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
            blocking(move || Ok(Body::Status(Box::new(status(&shared))))).await
        }
        Request::Shutdown => Body::ShuttingDown,
        Request::CacheGet { kind, key } => {
            let shared = shared.clone();
            blocking(move || Ok(cache_get(&shared, kind, &key))).await
        }
        Request::Query {
            path,
            function,
            stale_ok,
        } => {
            let unconfirmed = match admit(shared, &path, stale_ok).await {
                Ok(unconfirmed) => unconfirmed,
                Err(body) => return body,
            };
            let shared = shared.clone();
            blocking(move || {
                let display = display(&shared.root, &path);
                let backend = shared.config.backend.name();
                let planner = shared.planner.name();
                let (outcome, _) = shared.read(|snapshot, files| {
                    files
                        .get(&path)
                        .map(|&f| snapshot.detailed_outcome(f, function.as_deref()))
                        .transpose()
                })?;
                let Some(outcome) = outcome else {
                    return Ok(untracked(&display));
                };
                let function = function.as_deref();
                let mut answer = query_answer(&outcome, &display, function, backend, planner);
                if let Some(note) = unconfirmed {
                    answer.diagnostics.insert_str(0, &note);
                }
                Ok(Body::Query(answer))
            })
            .await
        }
        Request::Explain {
            path,
            function,
            first,
            second,
            stale_ok,
        } => {
            let unconfirmed = match admit(shared, &path, stale_ok).await {
                Ok(unconfirmed) => unconfirmed,
                Err(body) => return body,
            };
            let shared = shared.clone();
            blocking(move || {
                let display = display(&shared.root, &path);
                let (outcome, _) = shared.read(|snapshot, files| {
                    files.get(&path).map(|&f| snapshot.outcome(f)).transpose()
                })?;
                let Some(outcome) = outcome else {
                    return Ok(untracked(&display));
                };
                let config = memreuse::plan::PlanConfig {
                    materialize_aliases: super::writer::materialize_aliases(&path),
                    ..shared.config
                };
                let mut answer = explain_answer(
                    outcome.text.as_deref().unwrap_or(""),
                    &display,
                    &function,
                    &config,
                    &first,
                    &second,
                );
                if let Some(note) = unconfirmed {
                    answer.diagnostics.insert_str(0, &note);
                }
                Ok(Body::Explain(answer))
            })
            .await
        }
    }
}

fn untracked(display: &str) -> Body {
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

fn status(shared: &Shared) -> Status {
    let store = shared.cache.store().map(|s| s.stats());
    let (store_entries, store_bytes, store_error) = match store {
        Some(Ok(stats)) => (stats.entries, stats.bytes_on_disk, None),
        Some(Err(err)) => (0, 0, Some(format!("cannot read the store's size: {err}"))),
        None => (0, 0, None),
    };
    let c = shared.cache.counters();
    let figures = shared.figures();
    Status {
        pid: std::process::id(),
        root: shared.root.clone(),
        state_dir: shared.state_dir.clone(),
        build_id: shared.build_id.clone(),
        backend: shared.config.backend.name().to_string(),
        planner: shared.planner.name().to_string(),
        uptime_seconds: shared.started.elapsed().as_secs_f64(),
        scan: Progress {
            done: figures.scan_done,
            total: figures.scan_total,
            finished: figures.scan_finished,
        },
        files: figures.files,
        functions: figures.functions,
        watches: shared.watches.load(Ordering::Relaxed),
        watch_limit: watch_limit(),
        rescans: figures.rescans.clone(),
        cache: CacheFigures {
            plan_hits: c.plan_hits,
            plan_misses: c.plan_misses,
            file_hits: c.file_hits,
            file_misses: c.file_misses,
            rejected: c.rejected,
            errors: c.errors,
        },
        store_entries,
        store_bytes,
        rss_bytes: rss_bytes(),
        last_error: store_error.or_else(|| figures.last_error.clone()),
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
