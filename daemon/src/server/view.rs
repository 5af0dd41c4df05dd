//! The viewer's HTTP side (`memreuse view`): a read-only HTTP/1.1 server on 127.0.0.1 at a
//! port the system picks, started on the first `view` request and kept while the daemon runs.
//!
//! Every request must carry the random token of the URL (`?token=`) and a `Host` of
//! `127.0.0.1:PORT` or `localhost:PORT` (a page of another site that resolves its name to
//! 127.0.0.1 cannot read it); only `GET` and `HEAD`. Routes: `/` the page, `api/files` the
//! list, `api/function` one function's document (the plan variants asked for), `api/explain` the
//! verdict for two tiles, `api/events` a server-sent event per revision.
//!
//! Any local process can connect, token or not, so connections cannot be spent by one that
//! never asks: a connection without a complete request head 5 s after it was accepted is
//! closed, and at the cap (256) the oldest connection without one gives way to the new one.
//!
//! As everywhere in the daemon, the runtime only moves bytes: planning and reading the
//! database run on the blocking pool.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use memreuse::db::FileStatus;
use memreuse::system::OsSystem;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

use super::shared::Shared;
use super::state::{Endpoint, Server, Viewer};
use memreuse_daemon_client::answer::explain_answer;
use memreuse_viewer::data::{self, PlanVariant};
use memreuse_viewer::page;

/// Longest request head read.
const MAX_HEAD: usize = 16 * 1024;
/// A connection that has not sent a complete request head this long after it was accepted
/// is closed: anyone on the machine can connect, and a browser sends its head at once.
const FIRST_HEAD_WAIT: Duration = Duration::from_secs(5);
/// A connection that has not sent its next request head this long after an answer is closed.
const NEXT_HEAD_WAIT: Duration = Duration::from_secs(30);
/// Open event streams at once (each open page holds one).
const MAX_STREAMS: usize = 64;
/// Open connections at once (a page needs a few). Beyond, the oldest connection that has not
/// sent a complete request head is closed to make room; when every one has, the new one is.
const MAX_CONNECTIONS: usize = 256;
/// A comment line this often keeps an idle event stream from being closed by proxies.
const KEEPALIVE: Duration = Duration::from_secs(15);

impl Viewer {
    /// The viewer's endpoint, listening from the first call on.
    pub async fn start(&self, server: &Arc<Server>) -> std::io::Result<Arc<Endpoint>> {
        self.endpoint
            .get_or_try_init(|| async {
                let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
                let endpoint = Arc::new(Endpoint {
                    port: listener.local_addr()?.port(),
                    token: random_token()?,
                });
                tracing::info!(port = endpoint.port, "viewer listening");
                tokio::spawn(accept(listener, server.clone(), endpoint.clone()));
                Ok(endpoint)
            })
            .await
            .cloned()
    }

    /// The viewer's address, if it was started.
    pub fn url(&self) -> Option<String> {
        self.endpoint.get().map(|endpoint| endpoint.url())
    }
}

/// 128 random bits from the system, hex.
fn random_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 16];
    // SAFETY: the buffer is valid for writes of its length.
    let n = unsafe { libc::getrandom(bytes.as_mut_ptr().cast(), bytes.len(), 0) };
    if n != bytes.len() as isize {
        return Err(std::io::Error::last_os_error());
    }
    Ok(memreuse_daemon_client::protocol::to_hex(&bytes))
}

async fn accept(listener: TcpListener, server: Arc<Server>, endpoint: Arc<Endpoint>) {
    let mut stopping = server.stopping.subscribe();
    loop {
        tokio::select! {
            () = stopped(&mut stopping) => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let connections = &server.view.connections;
                    if connections.open.load(Ordering::SeqCst) >= MAX_CONNECTIONS
                        && !connections.evict()
                    {
                        drop(stream);
                        continue;
                    }
                    // Counted here, not when the task first runs: a burst of accepts must
                    // see the connections before it.
                    connections.open.fetch_add(1, Ordering::SeqCst);
                    let accepted = tokio::time::Instant::now();
                    let (server, endpoint) = (server.clone(), endpoint.clone());
                    tokio::spawn(async move {
                        connection(stream, accepted, &server, endpoint).await;
                    });
                }
                Err(err) => {
                    server.shared.record_error(format!("viewer: accept failed: {err}"));
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
        }
    }
}

/// Completes once the daemon stops (the guard `wait_for` gives must not live across awaits).
async fn stopped(stopping: &mut tokio::sync::watch::Receiver<bool>) {
    let _ = stopping.wait_for(|s| *s).await;
}

/// One parsed request head.
struct Head {
    method: String,
    path: String,
    query: Vec<(String, String)>,
    host: Option<String>,
    close: bool,
    has_body: bool,
}

impl Head {
    fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A response: status, content type, body.
struct Reply {
    status: u16,
    content_type: &'static str,
    body: Vec<u8>,
}

impl Reply {
    fn json(value: &Value) -> Reply {
        Reply {
            status: 200,
            content_type: "application/json",
            body: value.to_string().into_bytes(),
        }
    }

    fn text(status: u16, message: impl Into<String>) -> Reply {
        let mut body = message.into().into_bytes();
        body.push(b'\n');
        Reply {
            status,
            content_type: "text/plain; charset=utf-8",
            body,
        }
    }
}

async fn connection(
    mut stream: TcpStream,
    accepted: tokio::time::Instant,
    server: &Arc<Server>,
    endpoint: Arc<Endpoint>,
) {
    let registered = server.view.connections.register();
    let mut buffer = Vec::with_capacity(1024);
    let mut deadline = accepted + FIRST_HEAD_WAIT;
    loop {
        let read = tokio::select! {
            read = tokio::time::timeout_at(deadline, read_head(&mut stream, &mut buffer)) => read,
            () = registered.closed() => return,
        };
        let head = match read {
            Ok(Some(Ok(head))) => head,
            Ok(Some(Err(reply))) => {
                let _ = write_reply(&mut stream, &reply, Content::Whole, Connection::Close).await;
                return;
            }
            // The peer closed, or sent no complete head in time.
            Ok(None) | Err(_) => return,
        };
        registered.asked();
        server.touch();
        if let Some(reply) = refuse(&head, &endpoint) {
            let _ = write_reply(&mut stream, &reply, Content::of(&head), Connection::Close).await;
            return;
        }
        if head.path == "/api/events" {
            events(stream, server).await;
            return;
        }
        let reply = route(&head, server).await;
        let connection = if head.close || head.has_body {
            Connection::Close
        } else {
            Connection::KeepAlive
        };
        if write_reply(&mut stream, &reply, Content::of(&head), connection)
            .await
            .is_err()
            || connection == Connection::Close
        {
            return;
        }
        deadline = tokio::time::Instant::now() + NEXT_HEAD_WAIT;
    }
}

/// Reads one request head; `None` when the peer closed.
async fn read_head(stream: &mut TcpStream, buffer: &mut Vec<u8>) -> Option<Result<Head, Reply>> {
    loop {
        if let Some(end) = find(buffer, b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buffer[..end]).into_owned();
            buffer.drain(..end + 4);
            return Some(parse_head(&head));
        }
        if buffer.len() > MAX_HEAD {
            return Some(Err(Reply::text(431, "request head too large")));
        }
        let mut chunk = [0u8; 4096];
        let n = match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => n,
        };
        buffer.extend_from_slice(&chunk[..n]);
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn parse_head(head: &str) -> Result<Head, Reply> {
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or("");
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err(Reply::text(400, "bad request line"));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(Reply::text(505, "HTTP/1.x only"));
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let mut head = Head {
        method: method.to_string(),
        path: percent_decode(path, false),
        query: query
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|pair| {
                let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                (percent_decode(k, true), percent_decode(v, true))
            })
            .collect(),
        host: None,
        close: version == "HTTP/1.0",
        has_body: false,
    };
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            return Err(Reply::text(400, "bad header line"));
        };
        let value = value.trim();
        match name.trim().to_ascii_lowercase().as_str() {
            "host" => head.host = Some(value.to_string()),
            "connection" => head.close = value.eq_ignore_ascii_case("close"),
            "content-length" => head.has_body = value != "0",
            "transfer-encoding" => head.has_body = true,
            _ => {}
        }
    }
    Ok(head)
}

/// `%XX` decoded (and `+` as a space in a query); bytes that are not UTF-8 are replaced.
fn percent_decode(text: &str, plus_is_space: bool) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let digits = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
                match digits.and_then(memreuse_daemon_client::protocol::from_hex) {
                    Some(byte) => {
                        out.extend(byte);
                        i += 3;
                        continue;
                    }
                    None => out.push(b'%'),
                }
            }
            b'+' if plus_is_space => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Why a request is refused, if it is: another `Host`, no token, or a method that writes.
fn refuse(head: &Head, endpoint: &Endpoint) -> Option<Reply> {
    let allowed = [
        format!("127.0.0.1:{}", endpoint.port),
        format!("localhost:{}", endpoint.port),
    ];
    if !head
        .host
        .as_deref()
        .is_some_and(|h| allowed.iter().any(|a| a.eq_ignore_ascii_case(h)))
    {
        return Some(Reply::text(
            403,
            "forbidden: the viewer answers only requests for 127.0.0.1 or localhost",
        ));
    }
    let token = head.param("token").unwrap_or("");
    if !same(token.as_bytes(), endpoint.token.as_bytes()) {
        return Some(Reply::text(
            403,
            "forbidden: open the URL `memreuse view` printed (it carries the token)",
        ));
    }
    if head.method != "GET" && head.method != "HEAD" {
        return Some(Reply::text(405, "the viewer is read-only: GET only"));
    }
    None
}

/// Compares without stopping at the first difference.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// What a reply carries: its body, or its head alone (the answer to `HEAD`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Content {
    Whole,
    HeadOnly,
}

impl Content {
    fn of(head: &Head) -> Content {
        if head.method == "HEAD" {
            Content::HeadOnly
        } else {
            Content::Whole
        }
    }
}

/// Whether the connection stays open for another request after a reply.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Connection {
    KeepAlive,
    Close,
}

async fn write_reply(
    stream: &mut TcpStream,
    reply: &Reply,
    content: Content,
    connection: Connection,
) -> std::io::Result<()> {
    let reason = match reply.status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "Internal Server Error",
    };
    let mut out = format!(
        "HTTP/1.1 {} {reason}\r\nContent-Type: {}\r\nContent-Length: {}\r\n{}{}\r\n",
        reply.status,
        reply.content_type,
        reply.body.len(),
        COMMON_HEADERS,
        match connection {
            Connection::Close => "Connection: close\r\n",
            Connection::KeepAlive => "",
        },
    )
    .into_bytes();
    if content == Content::Whole {
        out.extend_from_slice(&reply.body);
    }
    stream.write_all(&out).await?;
    stream.flush().await
}

/// Nothing cached, nothing framed, no referrer (the URL holds the token), no script or
/// connection to anywhere but here.
const COMMON_HEADERS: &str = "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\
    Referrer-Policy: no-referrer\r\nX-Frame-Options: DENY\r\n\
    Content-Security-Policy: default-src 'none'; script-src 'unsafe-inline'; \
    style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'\r\n";

async fn route(head: &Head, server: &Arc<Server>) -> Reply {
    match head.path.as_str() {
        "/" | "/index.html" => Reply {
            status: 200,
            content_type: "text/html; charset=utf-8",
            body: page::live_page().into_bytes(),
        },
        "/api/files" => blocking(server, files).await,
        "/api/function" => {
            let (Some(path), Some(name)) = (head.param("path"), head.param("name")) else {
                return Reply::text(400, "api/function needs path and name");
            };
            let (path, name) = (path.to_string(), name.to_string());
            // The default plan is the daemon's own (memoized); the others are planned per
            // request, so the page asks for them after it has drawn.
            let variants: Vec<PlanVariant> = match head.param("variants") {
                Some(list) => PlanVariant::ALL
                    .into_iter()
                    .filter(|v| list.split(',').any(|w| w == v.name()))
                    .collect(),
                None => PlanVariant::ALL.to_vec(),
            };
            blocking(server, move |shared| {
                function(shared, &path, &name, &variants)
            })
            .await
        }
        "/api/explain" => {
            let params = ["path", "name", "a", "b"].map(|k| head.param(k).map(str::to_string));
            let [Some(path), Some(name), Some(a), Some(b)] = params else {
                return Reply::text(400, "api/explain needs path, name, a and b");
            };
            // A variant the page does not know asks for the default plan.
            let variant = head
                .param("variant")
                .and_then(PlanVariant::from_name)
                .unwrap_or(PlanVariant::Pypto);
            blocking(server, move |shared| {
                explain(shared, &path, &name, &a, &b, variant)
            })
            .await
        }
        _ => Reply::text(404, format!("no such page: {}", head.path)),
    }
}

async fn blocking(
    server: &Arc<Server>,
    work: impl FnOnce(&Shared) -> Reply + Send + 'static,
) -> Reply {
    let shared = server.shared.clone();
    server.busy.fetch_add(1, Ordering::SeqCst);
    let reply = tokio::task::spawn_blocking(move || work(&shared)).await;
    server.busy.fetch_sub(1, Ordering::SeqCst);
    reply.unwrap_or_else(|err| Reply::text(500, format!("the request failed: {err}")))
}

/// The path as the page shows it: relative to the root.
fn display(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// A path of the page (relative to the root) as the daemon's absolute one; `None` when it
/// would leave the root.
fn absolute(root: &Path, relative: &str) -> Option<PathBuf> {
    let relative = Path::new(relative);
    relative
        .components()
        .all(|c| matches!(c, Component::Normal(_)))
        .then(|| root.join(relative))
}

fn files(shared: &Shared) -> Reply {
    let read = shared.read(|snapshot, files| {
        let mut entries = Vec::new();
        for (path, &file) in files.iter() {
            let outcome = snapshot.outcome(file)?;
            if matches!(*outcome.status, FileStatus::NotAProgram) {
                continue;
            }
            entries.push(data::file_entry(&display(&shared.root, path), &outcome));
        }
        Ok(entries)
    });
    match read {
        Ok((entries, revision)) => Reply::json(&json!({
            "revision": revision,
            "root": shared.root.display().to_string(),
            "files": entries,
        })),
        Err(err) => Reply::text(503, err.to_string()),
    }
}

fn function(shared: &Shared, relative: &str, name: &str, wanted: &[PlanVariant]) -> Reply {
    let Some(path) = absolute(&shared.root, relative) else {
        return Reply::text(403, "the path must be relative to the root, without '..'");
    };
    let read = shared.read(|snapshot, files| {
        files
            .get(&path)
            .map(|&f| snapshot.detailed_outcome(f, Some(name)))
            .transpose()
    });
    let outcome = match read {
        Ok((Some(outcome), _)) => outcome,
        Ok((None, _)) => return Reply::text(404, format!("{relative} is not a watched file")),
        Err(err) => return Reply::text(503, err.to_string()),
    };
    let text = outcome.text.held().unwrap_or("");
    let materialize = super::writer::materialize_aliases(&path);
    let current = shared.config();
    let config = |variant: PlanVariant| variant.config(&current, materialize);
    let others: Vec<PlanVariant> = wanted
        .iter()
        .copied()
        .filter(|&v| v != PlanVariant::Pypto)
        .collect();
    let other_configs: Vec<_> = others.iter().map(|&v| config(v)).collect();
    let planned = data::plan_variants(
        &OsSystem,
        &path,
        text,
        &other_configs,
        &shared.cache,
        Some(name),
    );
    let others: Vec<(PlanVariant, memreuse::db::FileOutcome)> = others
        .into_iter()
        .zip(planned.outcomes)
        .filter_map(|(variant, outcome)| Some((variant, outcome?)))
        .collect();
    let mut variants = Vec::new();
    if wanted.contains(&PlanVariant::Pypto) {
        let pypto = PlanVariant::Pypto;
        variants.push(data::PlannedVariant::new(pypto, &outcome, config(pypto)));
    }
    variants.extend(
        others
            .iter()
            .map(|&(v, ref o)| data::PlannedVariant::new(v, o, config(v))),
    );
    // The variants' workspace parsed the file: its functions are the page's source.
    let file = match other_configs.is_empty() {
        true => data::PlannedFile::new(relative, &outcome),
        false => data::PlannedFile::with_functions(relative, &outcome, planned.functions),
    };
    match data::function_document(&file, name, &variants) {
        Some(document) => Reply::json(&document),
        None => Reply::text(404, format!("no function '{name}' in {relative}")),
    }
}

fn explain(
    shared: &Shared,
    relative: &str,
    name: &str,
    a: &str,
    b: &str,
    variant: PlanVariant,
) -> Reply {
    let Some(path) = absolute(&shared.root, relative) else {
        return Reply::text(403, "the path must be relative to the root, without '..'");
    };
    let read =
        shared.read(|snapshot, files| files.get(&path).map(|&f| snapshot.outcome(f)).transpose());
    let outcome = match read {
        Ok((Some(outcome), _)) => outcome,
        Ok((None, _)) => return Reply::text(404, format!("{relative} is not a watched file")),
        Err(err) => return Reply::text(503, err.to_string()),
    };
    let materialize = super::writer::materialize_aliases(&path);
    let config = variant.config(&shared.config(), materialize);
    let answer = explain_answer(
        outcome.text.held().unwrap_or(""),
        relative,
        name,
        &config,
        (a, b),
        false,
    );
    Reply::json(&json!({
        "text": answer.text,
        "diagnostics": answer.diagnostics,
        "failed": answer.failed,
    }))
}

/// A server-sent event per revision (the page then asks for what it shows), until the peer
/// goes or the daemon stops. An open page keeps the daemon from stopping idle.
async fn events(mut stream: TcpStream, server: &Arc<Server>) {
    let viewer = &server.view;
    if viewer.streams.fetch_add(1, Ordering::SeqCst) >= MAX_STREAMS {
        viewer.streams.fetch_sub(1, Ordering::SeqCst);
        let reply = Reply::text(503, "too many open viewer pages");
        let _ = write_reply(&mut stream, &reply, Content::Whole, Connection::Close).await;
        return;
    }
    server.busy.fetch_add(1, Ordering::SeqCst);
    let mut revisions = server.shared.revisions.subscribe();
    let mut stopping = server.stopping.subscribe();
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n{COMMON_HEADERS}\r\nretry: 1000\n\n"
    );
    let mut ok = stream.write_all(head.as_bytes()).await.is_ok();
    while ok {
        let revision = *revisions.borrow_and_update();
        let event = format!("event: revision\ndata: {{\"revision\":{revision}}}\n\n");
        ok = stream.write_all(event.as_bytes()).await.is_ok();
        let mut probe = [0u8; 64];
        loop {
            tokio::select! {
                changed = revisions.changed() => {
                    ok &= changed.is_ok();
                    break;
                }
                () = stopped(&mut stopping) => {
                    ok = false;
                    break;
                }
                () = tokio::time::sleep(KEEPALIVE) => {
                    if stream.write_all(b": keep-alive\n\n").await.is_err() {
                        ok = false;
                        break;
                    }
                }
                // The peer sends nothing on an event stream: a read that ends means it left.
                read = stream.read(&mut probe) => {
                    if matches!(read, Ok(0) | Err(_)) {
                        ok = false;
                        break;
                    }
                }
            }
        }
        // Several revisions in a burst make one event.
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.busy.fetch_sub(1, Ordering::SeqCst);
    viewer.streams.fetch_sub(1, Ordering::SeqCst);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_parse_with_decoded_queries() {
        let head = parse_head(
            "GET /api/function?token=ab&path=k%2Fa.py&name=main+x HTTP/1.1\r\nHost: 127.0.0.1:9\r\nConnection: close",
        )
        .unwrap_or_else(|_| panic!("parses"));
        assert_eq!(head.method, "GET");
        assert_eq!(head.path, "/api/function");
        assert_eq!(head.param("path"), Some("k/a.py"));
        assert_eq!(head.param("name"), Some("main x"));
        assert!(head.close);
        assert_eq!(percent_decode("%zz%4", false), "%zz%4");
    }

    #[test]
    fn refuses_other_hosts_missing_tokens_and_writes() {
        let endpoint = Endpoint {
            port: 9,
            token: "secret".into(),
        };
        let head = |line: &str, host: &str| {
            parse_head(&format!("{line} HTTP/1.1\r\nHost: {host}"))
                .unwrap_or_else(|_| panic!("parses"))
        };
        let status = |h: &Head| refuse(h, &endpoint).map(|r| r.status);
        assert_eq!(status(&head("GET /?token=secret", "127.0.0.1:9")), None);
        assert_eq!(status(&head("GET /?token=secret", "localhost:9")), None);
        assert_eq!(
            status(&head("GET /?token=secret", "evil.example:9")),
            Some(403)
        );
        assert_eq!(status(&head("GET /", "127.0.0.1:9")), Some(403));
        assert_eq!(
            status(&head("GET /?token=secreT", "127.0.0.1:9")),
            Some(403)
        );
        assert_eq!(
            status(&head("POST /?token=secret", "127.0.0.1:9")),
            Some(405)
        );
    }

    #[test]
    fn page_paths_stay_inside_the_root() {
        let root = Path::new("/r");
        assert_eq!(absolute(root, "a/b.py"), Some(PathBuf::from("/r/a/b.py")));
        assert_eq!(absolute(root, "../x.py"), None);
        assert_eq!(absolute(root, "/etc/passwd"), None);
    }
}
