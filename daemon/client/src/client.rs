//! The client side: connect to the daemon of a state dir, start one when none runs (exactly
//! one, however many clients try at once), stop one.
//!
//! Starting: under `spawn.lock`, a client that finds no daemon answering starts
//! `memreused` detached and waits until it answers the handshake. Clients that queued on the
//! lock then find it running. A daemon whose protocol or build id differs from what this
//! client would start is stopped (SIGTERM, then SIGKILL) and replaced.

use std::ffi::OsString;
use std::io::{BufReader, Write as _};
use std::os::unix::fs::OpenOptionsExt as _;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::state_dir::{
    StatePaths, Untrusted, check_private_dir, effective_uid, lock_held, open_lock, peer_uid,
};
use memreuse::store::{Bytes, CacheStore, Key, Kind, LastUses, StoreError, StoreStats};

use crate::protocol::{
    Body, CacheEntry, CacheValue, Hello, LineError, MAX_RESPONSE_LINE, PROTOCOL_VERSION, Request,
    Response, from_hex, read_line, to_hex, to_line,
};

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("cannot talk to the daemon at {socket}: {source}")]
    Io {
        socket: PathBuf,
        source: std::io::Error,
    },
    #[error("the daemon's answer is unreadable: {0}")]
    Protocol(String),
    #[error("the daemon at {0} closed the connection before it answered")]
    Closed(PathBuf),
    #[error("{0}")]
    Start(String),
    /// Someone else could be answering: the socket's directory or the peer is not this user's.
    #[error("{0}")]
    Untrusted(#[from] Untrusted),
    #[error(
        "the daemon at {0} took the connection but did not answer the handshake within \
         {HANDSHAKE_WAIT:?} (too many connections, or stuck); try again, or stop it with \
         `memreuse daemon stop`"
    )]
    Unresponsive(PathBuf),
    #[error(
        "the daemon of this state dir serves {running}, not {wanted}; stop it (`memreuse daemon \
         stop`) or use another --state-dir"
    )]
    OtherRoot { running: PathBuf, wanted: PathBuf },
}

impl ClientError {
    /// Whether the daemon went away in the middle of a request (it was stopping): a
    /// read-only request can be asked again of the daemon that replaces it.
    pub fn daemon_went_away(&self) -> bool {
        use std::io::ErrorKind;
        match self {
            ClientError::Io { source, .. } => matches!(
                source.kind(),
                ErrorKind::BrokenPipe
                    | ErrorKind::ConnectionReset
                    | ErrorKind::ConnectionAborted
                    | ErrorKind::UnexpectedEof
            ),
            ClientError::Closed(_) => true,
            _ => false,
        }
    }
}

/// One connection to a daemon.
pub struct Client {
    socket: PathBuf,
    reader: BufReader<UnixStream>,
    writer: UnixStream,
    line: Vec<u8>,
}

/// How long a client waits for one answer (a query may wait for the initial load).
const ANSWER_WAIT: Duration = Duration::from_secs(600);
/// How long a client waits for the handshake: a daemon answers it at once, unless it is at
/// its connection limit (and then it frees a place within seconds).
const HANDSHAKE_WAIT: Duration = Duration::from_secs(20);

impl Client {
    /// Connects to `socket`, and believes the other end only when it runs as this user.
    pub fn connect(socket: &Path) -> Result<Client, ClientError> {
        let io = |source| ClientError::Io {
            socket: socket.to_path_buf(),
            source,
        };
        let stream = UnixStream::connect(socket).map_err(io)?;
        let me = effective_uid();
        match peer_uid(&stream) {
            Ok(peer) if peer == me => {}
            Ok(peer) => {
                return Err(Untrusted::Peer {
                    socket: socket.to_path_buf(),
                    peer,
                    me,
                }
                .into());
            }
            Err(source) => {
                return Err(Untrusted::PeerUnknown {
                    socket: socket.to_path_buf(),
                    source,
                }
                .into());
            }
        }
        Client::over(socket, stream).map_err(io)
    }

    fn over(socket: &Path, stream: UnixStream) -> std::io::Result<Client> {
        stream.set_read_timeout(Some(ANSWER_WAIT))?;
        Ok(Client {
            socket: socket.to_path_buf(),
            reader: BufReader::new(stream.try_clone()?),
            writer: stream,
            line: Vec::new(),
        })
    }

    fn set_wait(&mut self, wait: Duration) {
        // Only fails for a zero duration.
        let _ = self.writer.set_read_timeout(Some(wait));
    }

    pub fn request(&mut self, request: &Request) -> Result<Response, ClientError> {
        let io = |source| ClientError::Io {
            socket: self.socket.clone(),
            source,
        };
        self.writer.write_all(&to_line(request)).map_err(io)?;
        match read_line(&mut self.reader, &mut self.line, MAX_RESPONSE_LINE) {
            Ok(()) => {}
            Err(LineError::Io(err)) => return Err(io(err)),
            Err(LineError::Closed) => return Err(ClientError::Closed(self.socket.clone())),
            Err(err) => return Err(ClientError::Protocol(err.to_string())),
        }
        serde_json::from_slice(&self.line).map_err(|err| ClientError::Protocol(err.to_string()))
    }

    /// The handshake: the daemon's protocol, build id, pid and root.
    pub fn hello(&mut self) -> Result<Hello, ClientError> {
        let response = self.request(&Request::Hello {
            protocol: PROTOCOL_VERSION,
        })?;
        match response.body {
            Body::Hello(hello) => Ok(hello),
            other => Err(ClientError::Protocol(format!(
                "expected a handshake, got {other:?}"
            ))),
        }
    }
}

/// How to start a daemon: its executable, the root it serves, its state dir and any further
/// arguments (configuration, idle timeout).
pub struct Launch {
    pub exe: PathBuf,
    pub root: PathBuf,
    pub paths: StatePaths,
    pub args: Vec<OsString>,
    /// How long to wait for it to answer.
    pub wait: Duration,
}

/// A connected client and the daemon's handshake.
pub struct Connection {
    pub client: Client,
    pub hello: Hello,
}

/// The daemon of `paths`, if one answers and is trusted ([`connect_trusted`]).
pub fn connect(paths: &StatePaths) -> Option<Connection> {
    connect_trusted(paths).ok().flatten()
}

/// The daemon of `paths`: `Ok(None)` when none answers, an error when what answers could
/// be someone else's (the socket's directory is not private to this user, or the peer runs
/// as another user). Nothing is sent before both are checked.
pub fn connect_trusted(paths: &StatePaths) -> Result<Option<Connection>, ClientError> {
    check_private_dir(&paths.socket_dir)?;
    let mut client = match Client::connect(&paths.socket) {
        Ok(client) => client,
        Err(ClientError::Io { .. }) => return Ok(None),
        Err(err) => return Err(err),
    };
    client.set_wait(HANDSHAKE_WAIT);
    let hello = match client.hello() {
        Ok(hello) => hello,
        Err(ClientError::Io { source, .. })
            if matches!(
                source.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ) =>
        {
            return Err(ClientError::Unresponsive(paths.socket.clone()));
        }
        // A daemon on its way down, or not one at all.
        Err(_) => return Ok(None),
    };
    client.set_wait(ANSWER_WAIT);
    Ok(Some(Connection { client, hello }))
}

/// A connection to a daemon built as `launch.exe` is, starting one if none runs and
/// replacing one of another build or protocol. `expected_build` is `launch.exe`'s build id.
pub fn ensure(launch: &Launch, expected_build: &str) -> Result<Connection, ClientError> {
    let usable = |connection: Connection| -> Result<Option<Connection>, ClientError> {
        if connection.hello.protocol == PROTOCOL_VERSION
            && connection.hello.build_id == expected_build
        {
            if connection.hello.root != launch.root {
                return Err(ClientError::OtherRoot {
                    running: connection.hello.root,
                    wanted: launch.root.clone(),
                });
            }
            return Ok(Some(connection));
        }
        tracing::info!(
            running = %connection.hello.build_id,
            wanted = expected_build,
            "replacing a daemon of another build"
        );
        terminate(&launch.paths, connection.hello.pid, launch.wait)?;
        Ok(None)
    };
    launch.paths.prepare()?;
    if let Some(connection) = connect_trusted(&launch.paths)?
        && let Some(connection) = usable(connection)?
    {
        return Ok(connection);
    }
    let start_error =
        |what: &str, err: std::io::Error| ClientError::Start(format!("{what}: {err}"));
    let spawn_lock = open_lock(&launch.paths.spawn_lock)
        .map_err(|e| start_error("cannot open spawn.lock", e))?;
    spawn_lock
        .lock()
        .map_err(|e| start_error("cannot lock spawn.lock", e))?;
    // Whoever held the spawn lock before us may have started one.
    if let Some(connection) = connect_trusted(&launch.paths)?
        && let Some(connection) = usable(connection)?
    {
        return Ok(connection);
    }
    wait_for_lock(launch)?;
    if let Some(connection) = connect_trusted(&launch.paths)?
        && let Some(connection) = usable(connection)?
    {
        return Ok(connection);
    }
    let mut child = spawn(launch)?;
    let deadline = Instant::now() + launch.wait;
    let mut pause = Duration::from_millis(2);
    loop {
        if let Some(connection) = connect_trusted(&launch.paths)? {
            return Ok(connection);
        }
        if let Ok(Some(status)) = child.try_wait() {
            // It may have lost a race to a daemon started by other means.
            if let Some(connection) = connect_trusted(&launch.paths)? {
                return Ok(connection);
            }
            return Err(ClientError::Start(format!(
                "memreused exited ({status}) before answering: {}",
                tail(&launch.paths.stderr)
            )));
        }
        if Instant::now() >= deadline {
            return Err(ClientError::Start(format!(
                "memreused did not answer within {:?}: {}",
                launch.wait,
                tail(&launch.paths.stderr)
            )));
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// While `daemon.lock` is held by something that does not answer (a daemon starting up, or a
/// CLI working in-process), waits for it to answer or let go.
fn wait_for_lock(launch: &Launch) -> Result<(), ClientError> {
    let deadline = Instant::now() + launch.wait;
    loop {
        match lock_held(&launch.paths) {
            Ok(false) => return Ok(()),
            Ok(true) => {}
            Err(err) => {
                return Err(ClientError::Start(format!(
                    "cannot test daemon.lock: {err}"
                )));
            }
        }
        if UnixStream::connect(&launch.paths.socket).is_ok() {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(ClientError::Start(format!(
                "{} stayed locked for {:?} by a process that does not answer",
                launch.paths.lock.display(),
                launch.wait
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn spawn(launch: &Launch) -> Result<Child, ClientError> {
    let stderr = std::fs::File::options()
        .create(true)
        .truncate(true)
        .write(true)
        .mode(0o600)
        .open(&launch.paths.stderr)
        .map_err(|e| {
            ClientError::Start(format!(
                "cannot create {}: {e}",
                launch.paths.stderr.display()
            ))
        })?;
    Command::new(&launch.exe)
        .arg("--root")
        .arg(&launch.root)
        .arg("--state-dir")
        .arg(&launch.paths.state_dir)
        .args(&launch.args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        // Its own process group: a Ctrl-C meant for the client does not reach it.
        .process_group(0)
        .spawn()
        .map_err(|e| ClientError::Start(format!("cannot start {}: {e}", launch.exe.display())))
}

/// The last lines the daemon wrote to its standard error.
fn tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().rev().take(5).collect();
    if lines.is_empty() {
        return "no output".into();
    }
    lines.into_iter().rev().collect::<Vec<_>>().join("\n")
}

/// Stops the daemon of `paths` if one answers: asks it, then waits for it to release its
/// lock. Returns the pid of the daemon stopped.
pub fn stop(paths: &StatePaths, wait: Duration) -> Result<Option<u32>, ClientError> {
    let Some(mut connection) = connect_trusted(paths)? else {
        return Ok(None);
    };
    let pid = connection.hello.pid;
    // The daemon answers before it stops; a closed connection means the same.
    let _ = connection.client.request(&Request::Shutdown);
    drop(connection);
    if wait_released(paths, pid, wait) {
        return Ok(Some(pid));
    }
    terminate(paths, pid, wait)?;
    Ok(Some(pid))
}

/// SIGTERM to `pid`, then SIGKILL if it still holds the lock after `wait`.
fn terminate(paths: &StatePaths, pid: u32, wait: Duration) -> Result<(), ClientError> {
    let Ok(signalled) = libc::pid_t::try_from(pid) else {
        return Err(ClientError::Protocol(format!("bad pid {pid}")));
    };
    // SAFETY: kill only sends a signal; `pid` came from the daemon's own handshake.
    unsafe { libc::kill(signalled, libc::SIGTERM) };
    if wait_released(paths, pid, wait) {
        return Ok(());
    }
    // SAFETY: as above.
    unsafe { libc::kill(signalled, libc::SIGKILL) };
    if wait_released(paths, pid, Duration::from_secs(5)) {
        return Ok(());
    }
    Err(ClientError::Start(format!(
        "the daemon (pid {pid}) would not stop"
    )))
}

/// Waits up to `wait` for the daemon `pid` to let go of `daemon.lock`; whether it did. The
/// lock may be taken again at once by a daemon that a client started meanwhile: a lock held
/// while `daemon.json` names another pid is that successor's (the stopping daemon removes
/// its `daemon.json` before it releases the lock), and `pid` is gone.
fn wait_released(paths: &StatePaths, pid: u32, wait: Duration) -> bool {
    let deadline = Instant::now() + wait;
    loop {
        match lock_held(paths) {
            Ok(false) => return true,
            Ok(true) if paths.read_info().is_some_and(|info| info.pid != pid) => return true,
            _ => {}
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The store held by another process, used through its socket: a running daemon's (a
/// `memreuse plan` run while the daemon holds the store gets the daemon's plans instead of
/// planning everything again; writes are dropped, since the daemon plans every file it
/// watches itself), or a command's that works without the daemon ([`crate::cache_server`];
/// writes go through to it).
pub struct DaemonStore {
    client: std::sync::Mutex<Client>,
    write_through: bool,
}

impl DaemonStore {
    /// A daemon's store: read only.
    pub fn new(connection: Connection) -> DaemonStore {
        DaemonStore {
            client: std::sync::Mutex::new(connection.client),
            write_through: false,
        }
    }

    /// The store another command serves: reads and writes.
    pub fn shared(connection: Connection) -> DaemonStore {
        DaemonStore {
            client: std::sync::Mutex::new(connection.client),
            write_through: true,
        }
    }

    fn request(&self, request: &Request) -> Result<Response, StoreError> {
        self.client
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .request(request)
            .map_err(remote_error)
    }
}

/// The store a command working without the daemon serves on `paths`'s cache socket, if one
/// does (and runs as this user).
pub fn connect_shared_cache(paths: &StatePaths) -> Option<Connection> {
    check_private_dir(&paths.socket_dir).ok()?;
    let mut client = Client::connect(&paths.cache_socket).ok()?;
    client.set_wait(HANDSHAKE_WAIT);
    let hello = client.hello().ok()?;
    client.set_wait(ANSWER_WAIT);
    (hello.protocol == PROTOCOL_VERSION).then_some(Connection { client, hello })
}

fn remote_error(err: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(format!("the cache of another process: {err}"))
}

impl CacheStore for DaemonStore {
    fn get(&self, kind: Kind, key: &Key) -> Result<Option<Bytes>, StoreError> {
        let request = Request::CacheGet {
            kind: kind as u8,
            key: to_hex(&key.0),
        };
        let response = self.request(&request)?;
        match response.body {
            Body::CacheValue(CacheValue { value: None }) => Ok(None),
            Body::CacheValue(CacheValue { value: Some(hex) }) => from_hex(&hex)
                .map(|bytes| Some(Bytes::from(bytes)))
                .ok_or_else(|| remote_error("a value that is not hex")),
            other => Err(remote_error(format!("unexpected answer {other:?}"))),
        }
    }

    fn write_batch(&self, entries: &[(Kind, Key, Vec<u8>)]) -> Result<(), StoreError> {
        if !self.write_through {
            return Ok(());
        }
        let mut rest = entries;
        while !rest.is_empty() {
            // Batches of about MAX_PUT_BYTES, at least one value each.
            let mut bytes = 0;
            let take = rest
                .iter()
                .position(|(_, _, value)| {
                    bytes += value.len();
                    bytes > crate::cache_server::MAX_PUT_BYTES
                })
                .unwrap_or(rest.len())
                .max(1);
            let (batch, after) = rest.split_at(take);
            rest = after;
            let request = Request::CachePut {
                entries: batch
                    .iter()
                    .map(|(kind, key, value)| CacheEntry {
                        kind: *kind as u8,
                        key: to_hex(&key.0),
                        value: to_hex(value),
                    })
                    .collect(),
            };
            match self.request(&request)?.body {
                Body::Stored => {}
                other => return Err(remote_error(format!("unexpected answer {other:?}"))),
            }
        }
        Ok(())
    }

    fn sync(&self) -> Result<(), StoreError> {
        Ok(())
    }

    fn stats(&self) -> Result<StoreStats, StoreError> {
        Err(remote_error("its size is known to the process holding it"))
    }

    fn for_each(&self, _visit: &mut dyn FnMut(Kind, &Key, &[u8])) -> Result<(), StoreError> {
        Err(remote_error("it is not listed through the socket"))
    }

    fn next_generation(&self) -> Result<u64, StoreError> {
        Ok(0)
    }

    fn mark_used(&self, _entries: &[(Kind, Key)], _generation: u64) -> Result<(), StoreError> {
        Ok(())
    }

    fn last_uses(&self) -> Result<LastUses, StoreError> {
        Ok(LastUses::default())
    }

    fn remove_batch(&self, _entries: &[(Kind, Key)]) -> Result<(), StoreError> {
        Err(remote_error("only the process holding it prunes it"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state_dir::{DaemonInfo, open_lock, write_atomically};

    fn info_of(paths: &StatePaths, pid: u32) -> Vec<u8> {
        let info = DaemonInfo {
            pid,
            instance: "test".into(),
            socket: paths.socket.clone(),
            root: paths.state_dir.clone(),
            protocol: PROTOCOL_VERSION,
            build_id: "test".into(),
            started: 0,
        };
        serde_json::to_vec(&info).expect("info encodes")
    }

    /// A daemon that a waiting client starts may take the lock the moment the stopped one
    /// lets go of it; `stop` must see the stopped one gone, not wait out its time on the
    /// successor (`daemon_stop_answers_the_queries_in_flight` in daemon/tests/hostile.rs hit
    /// this 60-second wait).
    #[test]
    fn a_successor_holding_the_lock_means_the_stopped_daemon_is_gone() {
        let dir = tempfile::tempdir().expect("temp dir");
        let paths = StatePaths::new(dir.path());
        paths.prepare().expect("state dir");
        let lock = open_lock(&paths.lock).expect("lock file");
        lock.try_lock().expect("the lock is free");

        write_atomically(&paths.info, &info_of(&paths, 1001)).expect("info written");
        assert!(
            !wait_released(&paths, 1001, Duration::from_millis(100)),
            "the stopping daemon itself still holds the lock"
        );
        write_atomically(&paths.info, &info_of(&paths, 1002)).expect("info written");
        assert!(
            wait_released(&paths, 1001, Duration::from_secs(5)),
            "a successor holds the lock"
        );
        drop(lock);
        std::fs::remove_file(&paths.info).expect("info removed");
        assert!(wait_released(&paths, 1001, Duration::from_secs(5)));
    }
}
