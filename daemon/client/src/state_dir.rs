//! Where a daemon's files live in the state dir, and `daemon.json`.
//!
//! ```text
//! <state dir>/daemon.lock   held (flock) by the daemon for its whole life: the liveness test
//!             spawn.lock    held by a client while it starts a daemon: exactly one starts
//!             daemon.sock   the socket (mode 0600); elsewhere when this path is too long
//!                           (see [`StatePaths::new`])
//!             daemon.json   pid, socket, protocol, build id, start time: written atomically
//!                           once the socket listens
//!             cache.sock    the store's socket while a command working without the daemon
//!                           holds it (see `cache_server`); beside daemon.sock
//!             logs/         the daemon's log, rotated daily
//!             cache/        the store (sled), opened only under daemon.lock
//! ```
//!
//! Trust: the state dir and the socket's directory are 0700 and owned by this user
//! ([`prepare_private_dir`] makes them so, [`check_private_dir`] tests it), so nobody else can
//! put a socket where a client looks; the client also checks the peer's uid
//! ([`peer_uid`]) before it believes an answer. Files are created 0600 whatever the umask.

use std::fs::File;
use std::io;
use std::os::unix::fs::{
    DirBuilderExt as _, MetadataExt as _, OpenOptionsExt as _, PermissionsExt as _,
};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug)]
pub struct StatePaths {
    pub state_dir: PathBuf,
    pub lock: PathBuf,
    pub spawn_lock: PathBuf,
    pub socket: PathBuf,
    /// Where a command that holds the store without a daemon serves it to the others.
    pub cache_socket: PathBuf,
    /// The directory holding the sockets: the state dir, or a private per-user directory.
    pub socket_dir: PathBuf,
    pub info: PathBuf,
    pub logs: PathBuf,
    pub stderr: PathBuf,
}

/// `sockaddr_un` holds 108 bytes on Linux, the terminating NUL included.
const MAX_SOCKET_PATH: usize = 100;

impl StatePaths {
    /// The socket is `<state dir>/daemon.sock` when that path fits in a `sockaddr_un`; a deep
    /// state dir uses `$XDG_RUNTIME_DIR/memreuse/<digest>.sock` instead, or without
    /// `XDG_RUNTIME_DIR` `<temp dir>/memreuse-<uid>/<digest>.sock`: always inside a directory
    /// only this user can enter, never a bare name in a shared directory.
    pub fn new(state_dir: &Path) -> StatePaths {
        let socket = state_dir.join("daemon.sock");
        let (socket_dir, socket, cache_socket) = if socket.as_os_str().len() <= MAX_SOCKET_PATH {
            (
                state_dir.to_path_buf(),
                socket,
                state_dir.join("cache.sock"),
            )
        } else {
            // Named after the state dir, so two workspaces never share a socket.
            let digest = blake3::hash(state_dir.as_os_str().as_encoded_bytes()).to_hex();
            let dir = runtime_dir();
            let socket = dir.join(format!("{}.sock", &digest[..16]));
            let cache_socket = dir.join(format!("{}.cache.sock", &digest[..16]));
            (dir, socket, cache_socket)
        };
        StatePaths {
            state_dir: state_dir.to_path_buf(),
            lock: state_dir.join("daemon.lock"),
            spawn_lock: state_dir.join("spawn.lock"),
            socket,
            cache_socket,
            socket_dir,
            info: state_dir.join("daemon.json"),
            logs: state_dir.join("logs"),
            stderr: state_dir.join("daemon.stderr"),
        }
    }

    pub fn read_info(&self) -> Option<DaemonInfo> {
        serde_json::from_slice(&std::fs::read(&self.info).ok()?).ok()
    }

    /// Creates the state dir and the socket's directory private to this user (or makes
    /// existing ones so), and checks that they are.
    pub fn prepare(&self) -> Result<(), Untrusted> {
        prepare_private_dir(&self.state_dir)?;
        prepare_private_dir(&self.socket_dir)
    }
}

fn runtime_dir() -> PathBuf {
    match std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir).join("memreuse"),
        None => std::env::temp_dir().join(format!("memreuse-{}", effective_uid())),
    }
}

pub fn effective_uid() -> u32 {
    // SAFETY: geteuid only reads the process's credentials.
    unsafe { libc::geteuid() }
}

/// Why a directory or a peer is not trusted with the daemon's socket.
#[derive(Debug, thiserror::Error)]
pub enum Untrusted {
    #[error(
        "{path} is not private to this user ({why}); refusing to use a daemon socket in it \
         (remove it, or point XDG_RUNTIME_DIR or --state-dir elsewhere)"
    )]
    Directory { path: PathBuf, why: String },
    #[error("cannot create {path}: {source}")]
    Create { path: PathBuf, source: io::Error },
    #[error(
        "the process listening on {socket} runs as uid {peer}, not as this user (uid {me}); \
         refusing to trust its answers"
    )]
    Peer { socket: PathBuf, peer: u32, me: u32 },
    #[error("cannot check who listens on {socket}: {source}")]
    PeerUnknown { socket: PathBuf, source: io::Error },
}

/// Creates `dir` (and its parents) with mode 0700 whatever the umask; an existing `dir`
/// owned by this user is made 0700. Then checks it ([`check_private_dir`]).
pub fn prepare_private_dir(dir: &Path) -> Result<(), Untrusted> {
    let create = |source| Untrusted::Create {
        path: dir.to_path_buf(),
        source,
    };
    match std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
    {
        Ok(()) => {}
        Err(err) => return Err(create(err)),
    }
    // `symlink_metadata`: a symlink planted in place of the directory is refused below.
    let meta = std::fs::symlink_metadata(dir).map_err(create)?;
    if meta.is_dir() && meta.uid() == effective_uid() && meta.mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(create)?;
    }
    check_private_dir(dir)
}

/// Whether `dir` is a real directory (not a symlink), owned by this user, that nobody else
/// may enter (no group or other permission bits).
pub fn check_private_dir(dir: &Path) -> Result<(), Untrusted> {
    let refuse = |why: String| Untrusted::Directory {
        path: dir.to_path_buf(),
        why,
    };
    let meta = std::fs::symlink_metadata(dir).map_err(|e| refuse(e.to_string()))?;
    if !meta.is_dir() {
        return Err(refuse("not a directory".into()));
    }
    if meta.uid() != effective_uid() {
        return Err(refuse(format!("owned by uid {}", meta.uid())));
    }
    if meta.mode() & 0o077 != 0 {
        return Err(refuse(format!("mode {:o}", meta.mode() & 0o777)));
    }
    Ok(())
}

/// The uid of the process at the other end of a Unix socket, from the kernel.
pub fn peer_uid(stream: &std::os::unix::net::UnixStream) -> io::Result<u32> {
    use std::os::fd::AsRawFd as _;
    let fd = stream.as_raw_fd();
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let mut cred = libc::ucred {
            pid: 0,
            uid: 0,
            gid: 0,
        };
        let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
        // SAFETY: `cred` and `len` are valid for writes of the sizes given.
        let rc = unsafe {
            libc::getsockopt(
                fd,
                libc::SOL_SOCKET,
                libc::SO_PEERCRED,
                (&raw mut cred).cast(),
                &raw mut len,
            )
        };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(cred.uid)
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let (mut uid, mut gid) = (0, 0);
        // SAFETY: `uid` and `gid` are valid for writes.
        if unsafe { libc::getpeereid(fd, &mut uid, &mut gid) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(uid)
    }
}

/// `daemon.json`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DaemonInfo {
    pub pid: u32,
    pub instance: String,
    pub socket: PathBuf,
    pub root: PathBuf,
    pub protocol: u32,
    pub build_id: String,
    /// Seconds since the Unix epoch.
    pub started: u64,
}

/// Opens (creating) a lock file; the lock itself is taken by the caller.
pub fn open_lock(path: &Path) -> io::Result<File> {
    File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(path)
}

/// Whether some process holds `daemon.lock` (a daemon, or a CLI working in-process).
pub fn lock_held(paths: &StatePaths) -> io::Result<bool> {
    let file = open_lock(&paths.lock)?;
    match file.try_lock() {
        Ok(()) => Ok(false),
        Err(std::fs::TryLockError::WouldBlock) => Ok(true),
        Err(std::fs::TryLockError::Error(err)) => Err(err),
    }
}

/// Writes `bytes` to `path` through a temporary file and a rename, so readers see the old
/// contents or the new, never a part.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp-{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let mut file = File::options()
        .create(true)
        .truncate(true)
        .write(true)
        .mode(0o600)
        .open(&tmp)?;
    io::Write::write_all(&mut file, bytes)?;
    drop(file);
    std::fs::rename(&tmp, path)
}

/// The build id of the daemon executable at `exe`: a digest of the file's identity (device,
/// inode, size, modification time). A rebuilt or reinstalled binary gets a new id; the
/// client computes it for the binary it would start and compares it with the running
/// daemon's, without reading the binary.
pub fn build_id(exe: &Path) -> io::Result<String> {
    let meta = std::fs::metadata(exe)?;
    let identity = format!(
        "{} {} {} {} {}",
        meta.dev(),
        meta.ino(),
        meta.size(),
        meta.mtime(),
        meta.mtime_nsec()
    );
    let digest = blake3::hash(identity.as_bytes()).to_hex();
    Ok(format!("{}-{}", env!("CARGO_PKG_VERSION"), &digest[..16]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_state_dirs_put_the_socket_elsewhere() {
        let short = StatePaths::new(Path::new("/tmp/s"));
        assert_eq!(short.socket, Path::new("/tmp/s/daemon.sock"));
        let deep = PathBuf::from(format!("/tmp/{}", "d".repeat(120)));
        let long = StatePaths::new(&deep);
        assert!(
            long.socket.as_os_str().len() < 108,
            "{}",
            long.socket.display()
        );
        assert_ne!(long.socket, StatePaths::new(&deep.join("x")).socket);
        assert_eq!(long.socket.parent(), Some(long.socket_dir.as_path()));
        assert_ne!(
            long.socket_dir,
            std::env::temp_dir(),
            "never a bare name in /tmp"
        );
    }

    #[test]
    fn private_dirs_are_made_0700_and_loose_ones_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let fresh = dir.path().join("a/b");
        prepare_private_dir(&fresh).expect("created");
        let mode = std::fs::metadata(&fresh).expect("meta").mode() & 0o777;
        assert_eq!(mode, 0o700);
        std::fs::set_permissions(&fresh, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        assert!(matches!(
            check_private_dir(&fresh),
            Err(Untrusted::Directory { .. })
        ));
        prepare_private_dir(&fresh).expect("an own loose dir is tightened");
        check_private_dir(&fresh).expect("private now");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&fresh, &link).expect("symlink");
        assert!(check_private_dir(&link).is_err(), "a symlink is refused");
    }
}
