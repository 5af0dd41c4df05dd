//! The store of a command working without the daemon, shared with the commands that run beside
//! it. sled lets one process open a store; the one that holds `daemon.lock` serves the store
//! on `cache.sock` for as long as it holds it, so that the others read the plans it has (and
//! writes theirs through it) instead of waiting for it to finish. Readers never wait for a
//! writer: each connection has its thread, and sled reads beside writes.
//!
//! The same wire protocol as the daemon's ([`crate::protocol`]): a handshake, then
//! [`Request::CacheGet`] and [`Request::CachePut`]; a client is believed only when it runs as
//! this user, and the socket is 0600 in a private directory, as the daemon's.
//!
//! The entries a reader finds or writes are marked used with the holder's generation, as the
//! holder's own are: its pruning then counts them among the most recent, and a reader's new
//! plans are not the first to go for never having been marked.

use std::io::{BufReader, Write as _};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use memreuse::store::{CacheStore, Key, Kind};

use crate::layout::{Layout, effective_uid, peer_uid};
use crate::protocol::{
    Body, CacheValue, ErrorCode, ErrorReply, Hello, PROTOCOL_VERSION, Request, Response, from_hex,
    read_line, to_hex, to_line,
};

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

/// The store being served; stop it with [`CacheServer::finish`] before closing the store.
pub struct CacheServer {
    socket: PathBuf,
    stop: Arc<AtomicBool>,
    /// Connections open now.
    open: Arc<AtomicUsize>,
    /// Connections ever accepted.
    served: Arc<AtomicUsize>,
    /// When a reader last asked something, as milliseconds since `started`.
    last_request_ms: Arc<AtomicU64>,
    started: Instant,
    accept: std::thread::JoinHandle<()>,
}

/// Serves `store` on `layout`'s cache socket. The caller holds `daemon.lock`, so a socket
/// file there is a dead holder's: it is replaced.
pub fn serve(
    layout: &Layout,
    store: Arc<dyn CacheStore + Send + Sync>,
    generation: u64,
) -> std::io::Result<CacheServer> {
    use std::os::unix::fs::PermissionsExt as _;
    // The socket's directory may be a per-user runtime directory no one made yet.
    layout.prepare().map_err(std::io::Error::other)?;
    let socket = layout.cache_socket.clone();
    match std::fs::remove_file(&socket) {
        Ok(()) => {}
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => return Err(err),
    }
    let listener = UnixListener::bind(&socket)?;
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600))?;
    listener.set_nonblocking(true)?;
    let stop = Arc::new(AtomicBool::new(false));
    let open = Arc::new(AtomicUsize::new(0));
    let served = Arc::new(AtomicUsize::new(0));
    let last_request_ms = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let accept = {
        let (stop, open, served) = (stop.clone(), open.clone(), served.clone());
        let activity = Activity {
            last_request_ms: last_request_ms.clone(),
            started,
        };
        std::thread::Builder::new()
            .name("cache-server".into())
            .spawn(move || {
                accept_until(
                    listener, store, generation, &activity, &stop, &open, &served,
                )
            })?
    };
    Ok(CacheServer {
        socket,
        stop,
        open,
        served,
        last_request_ms,
        started,
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
        let quiet = || {
            let last = Duration::from_millis(self.last_request_ms.load(Ordering::SeqCst));
            self.started.elapsed().saturating_sub(last) >= idle
        };
        while self.open.load(Ordering::SeqCst) > 0 && Instant::now() < deadline && !quiet() {
            std::thread::sleep(POLL);
        }
        self.stop.store(true, Ordering::SeqCst);
        let _ = self.accept.join();
        let _ = std::fs::remove_file(&self.socket);
        self.served.load(Ordering::SeqCst)
    }
}

/// The clock of the readers' last request, shared by their connections.
#[derive(Clone)]
struct Activity {
    last_request_ms: Arc<AtomicU64>,
    started: Instant,
}

impl Activity {
    fn note(&self) {
        let now = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_request_ms.fetch_max(now, Ordering::SeqCst);
    }
}

fn accept_until(
    listener: UnixListener,
    store: Arc<dyn CacheStore + Send + Sync>,
    generation: u64,
    activity: &Activity,
    stop: &AtomicBool,
    open: &Arc<AtomicUsize>,
    served: &AtomicUsize,
) {
    while !stop.load(Ordering::SeqCst) {
        match listener.accept() {
            Ok((stream, _)) => {
                if !matches!(peer_uid(&stream), Ok(uid) if uid == effective_uid()) {
                    continue;
                }
                served.fetch_add(1, Ordering::SeqCst);
                open.fetch_add(1, Ordering::SeqCst);
                activity.note();
                let (store, open_here, activity) = (store.clone(), open.clone(), activity.clone());
                let spawned = std::thread::Builder::new()
                    .name("cache-client".into())
                    .spawn(move || {
                        connection(stream, &*store, generation, &activity);
                        open_here.fetch_sub(1, Ordering::SeqCst);
                    });
                if spawned.is_err() {
                    open.fetch_sub(1, Ordering::SeqCst);
                }
            }
            Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => std::thread::sleep(POLL),
            Err(err) => {
                tracing::warn!("the cache server cannot accept: {err}");
                std::thread::sleep(POLL);
            }
        }
    }
}

/// Answers one client until it hangs up.
fn connection(stream: UnixStream, store: &dyn CacheStore, generation: u64, activity: &Activity) {
    // Blocking reads: a connection ends when its client does (it is this user's process).
    if stream.set_nonblocking(false).is_err() {
        return;
    }
    let Ok(reader) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(reader);
    let mut writer = stream;
    let mut line = Vec::new();
    let mut used = Vec::new();
    while read_line(&mut reader, &mut line, MAX_CACHE_REQUEST_LINE).is_ok() {
        activity.note();
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
            mark_used(store, &mut used, generation);
        }
        if writer.write_all(&to_line(&response)).is_err() {
            break;
        }
    }
    mark_used(store, &mut used, generation);
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
        let layout = Layout::new(dir.path());
        let store = MemoryStore::default();
        let generation = store.next_generation().expect("a generation");
        let (found, missing, written) = (Key([1; 32]), Key([2; 32]), Key([3; 32]));
        store
            .write_batch(&[(Kind::Plan, found, b"plan".to_vec())])
            .expect("seeded");
        let server = serve(&layout, Arc::new(store.clone()), generation).expect("serves");
        {
            let connection =
                crate::client::connect_shared_cache(&layout).expect("connects to the holder");
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

    #[test]
    fn a_reader_that_asks_nothing_keeps_the_holder_only_for_the_idle_time() {
        let dir = tempfile::tempdir().expect("temp dir");
        let layout = Layout::new(dir.path());
        let store = MemoryStore::default();
        let server = serve(&layout, Arc::new(store), 0).expect("serves");
        let connection =
            crate::client::connect_shared_cache(&layout).expect("connects to the holder");
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
