//! Where a daemon's files live in the state dir, and `daemon.json`.
//!
//! ```text
//! <state dir>/daemon.lock   held (flock) by the daemon for its whole life: the liveness test
//!             spawn.lock    held by a client while it starts a daemon: exactly one starts
//!             daemon.sock   the socket (mode 0600); elsewhere when this path is too long
//!             daemon.json   pid, socket, protocol, build id, start time: written atomically
//!                           once the socket listens
//!             logs/         the daemon's log, rotated daily
//!             cache/        the store (sled), opened only under daemon.lock
//! ```

use std::fs::File;
use std::io;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug)]
pub struct Layout {
    pub state_dir: PathBuf,
    pub lock: PathBuf,
    pub spawn_lock: PathBuf,
    pub socket: PathBuf,
    pub info: PathBuf,
    pub logs: PathBuf,
    pub stderr: PathBuf,
}

/// `sockaddr_un` holds 108 bytes on Linux, the terminating NUL included.
const MAX_SOCKET_PATH: usize = 100;

impl Layout {
    pub fn new(state_dir: &Path) -> Layout {
        let socket = state_dir.join("daemon.sock");
        let socket = if socket.as_os_str().len() <= MAX_SOCKET_PATH {
            socket
        } else {
            // A deep state dir cannot hold a socket: use a per-user directory instead,
            // named after the state dir so two workspaces never share it.
            let digest = blake3::hash(state_dir.as_os_str().as_encoded_bytes()).to_hex();
            runtime_dir().join(format!("memreuse-{}.sock", &digest[..16]))
        };
        Layout {
            state_dir: state_dir.to_path_buf(),
            lock: state_dir.join("daemon.lock"),
            spawn_lock: state_dir.join("spawn.lock"),
            socket,
            info: state_dir.join("daemon.json"),
            logs: state_dir.join("logs"),
            stderr: state_dir.join("daemon.stderr"),
        }
    }

    pub fn read_info(&self) -> Option<DaemonInfo> {
        serde_json::from_slice(&std::fs::read(&self.info).ok()?).ok()
    }
}

fn runtime_dir() -> PathBuf {
    std::env::var_os("XDG_RUNTIME_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir)
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
        .open(path)
}

/// Whether some process holds `daemon.lock` (a daemon, or a CLI working in-process).
pub fn lock_held(layout: &Layout) -> io::Result<bool> {
    let file = open_lock(&layout.lock)?;
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
    std::fs::write(&tmp, bytes)?;
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
        let short = Layout::new(Path::new("/tmp/s"));
        assert_eq!(short.socket, Path::new("/tmp/s/daemon.sock"));
        let deep = PathBuf::from(format!("/tmp/{}", "d".repeat(120)));
        let long = Layout::new(&deep);
        assert!(
            long.socket.as_os_str().len() < 108,
            "{}",
            long.socket.display()
        );
        assert_ne!(long.socket, Layout::new(&deep.join("x")).socket);
    }
}
