//! The store of a command working without the daemon, shared with the commands that run beside
//! it. sled lets one process open a store; the one that holds `daemon.lock` serves the store
//! on `cache.sock` for as long as it holds it, so that the others read the plans it has (and
//! writes theirs through it) instead of waiting for it to finish. Readers never wait for a
//! writer: each connection has its thread, and sled reads beside writes.
//!
//! The same wire protocol as the daemon's ([`crate::protocol`]): a handshake, then
//! [`Request::CacheGet`] and [`Request::CachePut`]; a client is believed only when it runs as
//! this user, and the socket is 0600 in a private directory, as the daemon's. As on the
//! daemon's socket, a connection that has not sent a complete first request 5 s after it was
//! accepted is closed, and at the cap (256) the oldest such one makes room for the new one.
//!
//! The entries a reader finds or writes are marked used with the holder's generation, as the
//! holder's own are: its pruning then counts them among the most recent, and a reader's new
//! plans are not the first to go for never having been marked.

use std::collections::VecDeque;
use std::io::{BufReader, Write as _};
use std::net::Shutdown;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use memreuse::store::{CacheStore, Key, Kind};

use crate::protocol::{
    Body, CacheValue, ErrorCode, ErrorReply, Hello, PROTOCOL_VERSION, Request, Response, from_hex,
    read_line, to_hex, to_line,
};
use crate::state_dir::{StatePaths, effective_uid, peer_uid};

/// Longest request line the server reads: a client's writes come in batches of up to
/// [`MAX_PUT_BYTES`] of values, hex-encoded.
pub const MAX_CACHE_REQUEST_LINE: usize = 64 * 1024 * 1024;
/// Values per [`Request::CachePut`], in bytes before hex (a client splits larger batches).
pub const MAX_PUT_BYTES: usize = 8 * 1024 * 1024;

/// How often the accept loop looks at the stop flag.
const POLL: Duration = Duration::from_millis(5);

/// How long the holder, done itself, waits for a connected reader that asks nothing: a
/// reader between requests for this long is stopped or hung, and keeps the holder no longer
/// (its next request fails, and it plans on without the cache).
pub const READER_IDLE: Duration = Duration::from_secs(60);

/// Used entries a connection gathers before it marks them (and it marks the rest when its
/// client hangs up): one write per batch, not per lookup.
const MARK_BATCH: usize = 1024;

/// How many connections are served at once, and how long one may take to ask its first
/// question (a client sends its handshake as soon as it connects). Beyond the cap, the
/// oldest connection that has not asked yet is closed to make room; when every one has,
/// the new one is closed (its client plans without the cache).
#[derive(Clone, Copy)]
struct Limits {
    max_connections: usize,
    first_request_wait: Duration,
}

impl Limits {
    const STANDARD: Limits = Limits {
        max_connections: 256,
        first_request_wait: Duration::from_secs(5),
    };
}

/// The store being served; stop it with [`CacheServer::finish`] before closing the store.
pub struct CacheServer {
    socket: PathBuf,
    serving: Arc<Serving>,
    accept: std::thread::JoinHandle<()>,
}

/// What the accept loop and the connections share.
struct Serving {
    store: Arc<dyn CacheStore + Send + Sync>,
    generation: u64,
    limits: Limits,
    stop: AtomicBool,
    /// Connections open now.
    open: AtomicUsize,
    /// Connections ever accepted.
    served: AtomicUsize,
    /// The open connections that have not asked anything yet.
    unasked: Unasked,
    /// When a reader last asked something, as milliseconds since `started`.
    last_request_ms: AtomicU64,
    started: Instant,
}

impl Serving {
    fn note_request(&self) {
        let now = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_request_ms.fetch_max(now, Ordering::SeqCst);
    }

    fn idle_for(&self) -> Duration {
        let last = Duration::from_millis(self.last_request_ms.load(Ordering::SeqCst));
        self.started.elapsed().saturating_sub(last)
    }
}

/// The connections that have not sent a complete request yet, oldest first, each with a
/// handle on its socket that closes it (a blocked read of its thread then ends).
#[derive(Default)]
struct Unasked {
    waiting: Mutex<VecDeque<Waiting>>,
    next_id: AtomicU64,
}

struct Waiting {
    id: u64,
    accepted: Instant,
    socket: UnixStream,
}

impl Unasked {
    fn waiting(&self) -> MutexGuard<'_, VecDeque<Waiting>> {
        self.waiting.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Registers a connection just accepted; its id.
    fn add(&self, stream: &UnixStream) -> std::io::Result<u64> {
        let socket = stream.try_clone()?;
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.waiting().push_back(Waiting {
            id,
            accepted: Instant::now(),
            socket,
        });
        Ok(id)
    }

    /// The connection has asked (or ended): it is no longer closed to make room.
    fn forget(&self, id: u64) {
        self.waiting().retain(|waiting| waiting.id != id);
    }

    /// Closes the connections that have not asked within `wait` of being accepted.
    fn close_overdue(&self, wait: Duration) {
        let mut waiting = self.waiting();
        while waiting
            .front()
            .is_some_and(|oldest| oldest.accepted.elapsed() >= wait)
        {
            if let Some(overdue) = waiting.pop_front() {
                let _ = overdue.socket.shutdown(Shutdown::Both);
            }
        }
    }

    /// Closes the oldest connection that has not asked; whether there was one.
    fn close_oldest(&self) -> bool {
        match self.waiting().pop_front() {
            Some(oldest) => {
                let _ = oldest.socket.shutdown(Shutdown::Both);
                true
            }
            None => false,
        }
    }
}

/// Serves `store` on `paths`'s cache socket. The caller holds `daemon.lock`, so a socket
/// file there is a dead holder's: it is replaced.
pub fn serve(
    paths: &StatePaths,
    store: Arc<dyn CacheStore + Send + Sync>,
    generation: u64,
) -> std::io::Result<CacheServer> {
    serve_within(paths, store, generation, Limits::STANDARD)
}

fn serve_within(
    paths: &StatePaths,
    store: Arc<dyn CacheStore + Send + Sync>,
    generation: u64,
    limits: Limits,
) -> std::io::Result<CacheServer> {
    use std::os::unix::fs::PermissionsExt as _;
    // The socket's directory may be a per-user runtime directory no one made yet.
    paths.prepare().map_err(std::io::Error::other)?;
    let socket = paths.cache_socket.clone();
    match std::fs::remove_file(&socket) {
        Ok(()) => {}
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => return Err(err),
    }
    let listener = UnixListener::bind(&socket)?;
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600))?;
    listener.set_nonblocking(true)?;
    let serving = Arc::new(Serving {
        store,
        generation,
        limits,
        stop: AtomicBool::new(false),
        open: AtomicUsize::new(0),
        served: AtomicUsize::new(0),
        unasked: Unasked::default(),
        last_request_ms: AtomicU64::new(0),
        started: Instant::now(),
    });
    let accept = {
        let serving = serving.clone();
        std::thread::Builder::new()
            .name("cache-server".into())
            .spawn(move || accept_until(&listener, &serving))?
    };
    Ok(CacheServer {
        socket,
        serving,
        accept,
    })
}

impl CacheServer {
    /// Waits (up to `wait`) until no client is connected, or those connected have asked
    /// nothing for [`READER_IDLE`], then stops serving; returns how many clients were served
    /// in all. A client that comes after finds no socket and opens the store itself once it
    /// is released.
    pub fn finish(self, wait: Duration) -> usize {
        self.finish_within(wait, READER_IDLE)
    }

    fn finish_within(self, wait: Duration, idle: Duration) -> usize {
        let deadline = Instant::now() + wait;
        let serving = &self.serving;
        while serving.open.load(Ordering::SeqCst) > 0
            && Instant::now() < deadline
            && serving.idle_for() < idle
        {
            std::thread::sleep(POLL);
        }
        serving.stop.store(true, Ordering::SeqCst);
        let _ = self.accept.join();
        let _ = std::fs::remove_file(&self.socket);
        serving.served.load(Ordering::SeqCst)
    }
}

fn accept_until(listener: &UnixListener, serving: &Arc<Serving>) {
    while !serving.stop.load(Ordering::SeqCst) {
        serving
            .unasked
            .close_overdue(serving.limits.first_request_wait);
        match listener.accept() {
            Ok((stream, _)) => admit(stream, serving),
            Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => std::thread::sleep(POLL),
            Err(err) => {
                tracing::warn!("the cache server cannot accept: {err}");
                std::thread::sleep(POLL);
            }
        }
    }
}

/// Answers a connection of this user on a thread of its own, if there is room for it.
fn admit(stream: UnixStream, serving: &Arc<Serving>) {
    if !matches!(peer_uid(&stream), Ok(uid) if uid == effective_uid()) {
        return;
    }
    if serving.open.load(Ordering::SeqCst) >= serving.limits.max_connections
        && !serving.unasked.close_oldest()
    {
        return;
    }
    let Ok(id) = serving.unasked.add(&stream) else {
        return;
    };
    serving.served.fetch_add(1, Ordering::SeqCst);
    serving.open.fetch_add(1, Ordering::SeqCst);
    serving.note_request();
    let here = serving.clone();
    let spawned = std::thread::Builder::new()
        .name("cache-client".into())
        .spawn(move || {
            connection(stream, id, &here);
            here.unasked.forget(id);
            here.open.fetch_sub(1, Ordering::SeqCst);
        });
    if spawned.is_err() {
        serving.unasked.forget(id);
        serving.open.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Answers one client (registered as `id` among the unasked) until it hangs up.
fn connection(stream: UnixStream, id: u64, serving: &Serving) {
    // Blocking reads: a connection ends when its client does (it is this user's process),
    // or, before its first request, when the accept loop closes it.
    if stream.set_nonblocking(false).is_err() {
        return;
    }
    let Ok(reader) = stream.try_clone() else {
        return;
    };
    let store = &*serving.store;
    let mut reader = BufReader::new(reader);
    let mut writer = stream;
    let mut line = Vec::new();
    let mut used = Vec::new();
    let mut first = true;
    while read_line(&mut reader, &mut line, MAX_CACHE_REQUEST_LINE).is_ok() {
        if std::mem::take(&mut first) {
            serving.unasked.forget(id);
        }
        serving.note_request();
        let body = match serde_json::from_slice::<Request>(&line) {
            Ok(request) => answer(request, store, &mut used),
            Err(err) => refused(ErrorCode::BadRequest, format!("bad request: {err}")),
        };
        let response = Response {
            instance: String::new(),
            revision: 0,
            body,
        };
        if used.len() >= MARK_BATCH {
            mark_used(store, &mut used, serving.generation);
        }
        if writer.write_all(&to_line(&response)).is_err() {
            break;
        }
    }
    mark_used(store, &mut used, serving.generation);
}

/// Recency only: a mark that fails costs the entries their place in pruning order, never a
/// value, so it is logged and not answered.
fn mark_used(store: &dyn CacheStore, used: &mut Vec<(Kind, Key)>, generation: u64) {
    if used.is_empty() {
        return;
    }
    if let Err(err) = store.mark_used(used, generation) {
        tracing::info!("cannot mark the entries another command used: {err}");
    }
    used.clear();
}

/// One request's answer; the entries it found or wrote join `used`.
fn answer(request: Request, store: &dyn CacheStore, used: &mut Vec<(Kind, Key)>) -> Body {
    match request {
        Request::Hello { .. } => Body::Hello(Hello {
            protocol: PROTOCOL_VERSION,
            build_id: String::new(),
            pid: std::process::id(),
            root: PathBuf::new(),
        }),
        Request::CacheGet { kind, key } => {
            let (Some(kind), Some(key)) = (kind_of(kind), key_of(&key)) else {
                return refused(ErrorCode::Refused, "a kind and 32 hex bytes".into());
            };
            match store.get(kind, &key) {
                Ok(value) => Body::CacheValue(CacheValue {
                    value: value.map(|bytes| {
                        used.push((kind, key));
                        to_hex(&bytes)
                    }),
                }),
                Err(err) => refused(ErrorCode::Internal, format!("cannot read the cache: {err}")),
            }
        }
        Request::CachePut { entries } => {
            let mut batch = Vec::with_capacity(entries.len());
            for entry in entries {
                let (Some(kind), Some(key), Some(value)) = (
                    kind_of(entry.kind),
                    key_of(&entry.key),
                    from_hex(&entry.value),
                ) else {
                    return refused(ErrorCode::Refused, "a kind, a key and hex bytes".into());
                };
                batch.push((kind, key, value));
            }
            match store.write_batch(&batch).and_then(|()| store.sync()) {
                Ok(()) => {
                    used.extend(batch.iter().map(|(kind, key, _)| (*kind, *key)));
                    Body::Stored
                }
                Err(err) => refused(
                    ErrorCode::Internal,
                    format!("cannot write the cache: {err}"),
                ),
            }
        }
        _ => refused(
            ErrorCode::Refused,
            "this is the cache of a memreuse command, not a daemon".into(),
        ),
    }
}

fn kind_of(kind: u8) -> Option<Kind> {
    Kind::ALL.into_iter().find(|k| *k as u8 == kind)
}

fn key_of(hex: &str) -> Option<Key> {
    Some(Key(<[u8; 32]>::try_from(from_hex(hex)?).ok()?))
}

fn refused(code: ErrorCode, message: String) -> Body {
    Body::Error(ErrorReply { code, message })
}

#[cfg(test)]
mod tests {
    use super::*;
    use memreuse::store::MemoryStore;

    #[test]
    fn entries_a_reader_finds_or_writes_are_marked_with_the_holders_generation() {
        let dir = tempfile::tempdir().expect("temp dir");
        let paths = StatePaths::new(dir.path());
        let store = MemoryStore::default();
        let generation = store.next_generation().expect("a generation");
        let (found, missing, written) = (Key([1; 32]), Key([2; 32]), Key([3; 32]));
        store
            .write_batch(&[(Kind::Plan, found, b"plan".to_vec())])
            .expect("seeded");
        let server = serve(&paths, Arc::new(store.clone()), generation).expect("serves");
        {
            let connection =
                crate::client::connect_shared_cache(&paths).expect("connects to the holder");
            let reader = crate::client::DaemonStore::shared(connection);
            assert!(reader.get(Kind::Plan, &found).expect("answers").is_some());
            assert!(reader.get(Kind::Plan, &missing).expect("answers").is_none());
            reader
                .write_batch(&[(Kind::Plan, written, b"new plan".to_vec())])
                .expect("writes through");
            reader.sync().expect("durable");
        }
        assert_eq!(server.finish(Duration::from_secs(10)), 1);
        let last_uses = store.last_uses().expect("reads");
        assert_eq!(last_uses.get(&(Kind::Plan, found)), Some(&generation));
        assert_eq!(last_uses.get(&(Kind::Plan, written)), Some(&generation));
        assert_eq!(last_uses.get(&(Kind::Plan, missing)), None);
    }

    /// Whether the server closed `stream` (rather than leaving it open for 10 s).
    fn closed_by_the_server(stream: &mut UnixStream) -> bool {
        use std::io::Read as _;
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("a timeout");
        match stream.read(&mut [0u8; 1]) {
            Ok(0) => true,
            Ok(_) => false,
            Err(err) => err.kind() == std::io::ErrorKind::ConnectionReset,
        }
    }

    fn connect_silent(paths: &StatePaths, partial: bool) -> UnixStream {
        let mut stream = UnixStream::connect(&paths.cache_socket).expect("connects");
        if partial {
            stream.write_all(b"{\"hello\":").expect("writes");
        }
        stream
    }

    #[test]
    fn at_the_cap_the_oldest_connection_that_asked_nothing_makes_room() {
        let dir = tempfile::tempdir().expect("temp dir");
        let paths = StatePaths::new(dir.path());
        let limits = Limits {
            max_connections: 8,
            first_request_wait: Duration::from_secs(600),
        };
        let server =
            serve_within(&paths, Arc::new(MemoryStore::default()), 0, limits).expect("serves");
        let mut silent: Vec<UnixStream> = (0..24)
            .map(|i| connect_silent(&paths, i % 2 == 1))
            .collect();
        let connection =
            crate::client::connect_shared_cache(&paths).expect("connects to the holder");
        let reader = crate::client::DaemonStore::shared(connection);
        assert!(
            reader
                .get(Kind::Plan, &Key([7; 32]))
                .expect("answers")
                .is_none()
        );
        assert!(
            closed_by_the_server(&mut silent[0]) && closed_by_the_server(&mut silent[1]),
            "the oldest silent connections were kept"
        );
        drop((reader, silent));
        server.finish(Duration::from_secs(10));
    }

    #[test]
    fn a_connection_without_a_first_request_in_time_is_closed() {
        let dir = tempfile::tempdir().expect("temp dir");
        let paths = StatePaths::new(dir.path());
        let limits = Limits {
            first_request_wait: Duration::from_millis(200),
            ..Limits::STANDARD
        };
        let server =
            serve_within(&paths, Arc::new(MemoryStore::default()), 0, limits).expect("serves");
        let connection =
            crate::client::connect_shared_cache(&paths).expect("connects to the holder");
        let reader = crate::client::DaemonStore::shared(connection);
        let (mut idle, mut slow) = (connect_silent(&paths, false), connect_silent(&paths, true));
        assert!(
            closed_by_the_server(&mut idle),
            "an idle connection was kept"
        );
        assert!(
            closed_by_the_server(&mut slow),
            "a partial request was waited for"
        );
        // A client that has asked keeps its connection past the deadline.
        assert!(
            reader
                .get(Kind::Plan, &Key([8; 32]))
                .expect("answers")
                .is_none()
        );
        drop(reader);
        server.finish(Duration::from_secs(10));
    }

    #[test]
    fn a_reader_that_asks_nothing_keeps_the_holder_only_for_the_idle_time() {
        let dir = tempfile::tempdir().expect("temp dir");
        let paths = StatePaths::new(dir.path());
        let store = MemoryStore::default();
        let server = serve(&paths, Arc::new(store), 0).expect("serves");
        let connection =
            crate::client::connect_shared_cache(&paths).expect("connects to the holder");
        let reader = crate::client::DaemonStore::shared(connection);
        assert!(
            reader
                .get(Kind::Plan, &Key([9; 32]))
                .expect("answers")
                .is_none()
        );
        // The reader stays connected and silent, as a stopped process would.
        let started = Instant::now();
        assert_eq!(
            server.finish_within(Duration::from_secs(30), Duration::from_millis(300)),
            1
        );
        let waited = started.elapsed();
        assert!(
            waited < Duration::from_secs(10),
            "the holder waited {waited:?} for a silent reader"
        );
        assert!(
            waited >= Duration::from_millis(250),
            "the holder left its reader at once ({waited:?})"
        );
        drop(reader);
    }
}
