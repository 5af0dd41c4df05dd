//! The wire protocol between `memreuse` and `memreused`: one JSON object per line over a Unix
//! socket, requests from the client, one response per request.
//!
//! The first request of a connection should be [`Request::Hello`]; the daemon answers it with
//! its protocol version and build id, and the client gives up on a daemon that does not match.
//! Every response carries the daemon's instance id and the revision it answered at. Lines are
//! bounded ([`MAX_REQUEST_LINE`], [`MAX_RESPONSE_LINE`]) so a bad peer cannot make either side
//! buffer without limit.
//!
//! This module holds plain data: it knows nothing of sockets.

use std::io::BufRead;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Bumped on every incompatible change of the types below.
pub const PROTOCOL_VERSION: u32 = 3;

/// Longest request line the daemon reads (requests are small).
pub const MAX_REQUEST_LINE: usize = 64 * 1024;
/// Longest response line the client reads (a query answer holds one file's plan).
pub const MAX_RESPONSE_LINE: usize = 64 * 1024 * 1024;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "method", rename_all = "snake_case")]
pub enum Request {
    Hello {
        protocol: u32,
    },
    /// The plan of one file, or of one function of it.
    Query {
        /// Absolute path of the file.
        path: PathBuf,
        function: Option<String>,
        /// Answer from the current revision without waiting for changes made before the
        /// request to be seen.
        stale_ok: bool,
        /// Render diagnostics with ANSI colours (the client's `--color`).
        #[serde(default)]
        color: bool,
    },
    /// Why two tiles of a function do or do not share a buffer.
    Explain {
        path: PathBuf,
        function: String,
        first: String,
        second: String,
        stale_ok: bool,
        #[serde(default)]
        color: bool,
    },
    Status,
    /// One value of the daemon's cache (a `memreuse plan` reading through the daemon, which
    /// holds the store): `kind` is the [`memreuse::store::Kind`] number, `key` hex.
    CacheGet {
        kind: u8,
        key: String,
    },
    /// Values for the cache, written through to the store by the process that holds it (a
    /// `memreuse` command working in-process, [`crate::cache_server`]); a daemon, which
    /// plans every file itself, refuses them.
    CachePut {
        entries: Vec<CacheEntry>,
    },
    /// Serve the memory viewer (started on first ask, then kept): answers its URL.
    View,
    /// Stop the daemon (it answers first).
    Shutdown,
}

/// One value of [`Request::CachePut`]: the [`memreuse::store::Kind`] number, key and value
/// in hex.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CacheEntry {
    pub kind: u8,
    pub key: String,
    pub value: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Response {
    /// Identifies one run of the daemon.
    pub instance: String,
    /// The revision of the daemon's inputs the answer was computed at.
    pub revision: u64,
    #[serde(flatten)]
    pub body: Body,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Body {
    Hello(Hello),
    Query(Answer),
    Explain(Answer),
    Status(Box<Status>),
    CacheValue(CacheValue),
    /// The values of a [`Request::CachePut`] are stored.
    Stored,
    View(ViewUrl),
    ShuttingDown,
    Error(ErrorReply),
}

/// The answer to [`Request::View`]: where the viewer listens, its token in the query.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ViewUrl {
    /// `http://127.0.0.1:PORT/?token=TOKEN`.
    pub url: String,
}

/// The answer to [`Request::CacheGet`]: the stored bytes, hex, if any.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CacheValue {
    pub value: Option<String>,
}

/// Lower-case hex of `bytes`.
pub fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 15)] as char);
    }
    out
}

/// The bytes of lower-case or upper-case hex; `None` when it is not hex.
pub fn from_hex(text: &str) -> Option<Vec<u8>> {
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(2) {
        return None;
    }
    bytes
        .chunks(2)
        .map(|pair| Some(digit(pair[0])? << 4 | digit(pair[1])?))
        .collect()
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Hello {
    pub protocol: u32,
    /// Identifies the exact daemon executable ([`crate::state_dir::build_id`]).
    pub build_id: String,
    pub pid: u32,
    pub root: PathBuf,
}

/// The answer to a query (or an explain): what to print, and whether it reports errors.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Answer {
    /// The plan document (docs/json.md) of the file, holding the asked function only when one
    /// was named; `None` when nothing planned (the file did not parse, say).
    pub document: Option<serde_json::Value>,
    /// Text for standard output: the explanation (explain only).
    pub text: String,
    /// Rendered diagnostics (with `file:line:col` and snippets), for standard error.
    pub diagnostics: String,
    /// The input or the plan has errors (exit code 1).
    pub failed: bool,
}

/// Why a request failed.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ErrorReply {
    pub code: ErrorCode,
    pub message: String,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The request did not parse or was too long.
    BadRequest,
    /// The request names something the daemon does not serve (a path outside the root,
    /// a file it does not track).
    Refused,
    /// The daemon is stopping.
    ShuttingDown,
    /// Something failed inside the daemon.
    Internal,
}

/// `memreuse daemon status`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Status {
    pub pid: u32,
    pub root: PathBuf,
    pub state_dir: PathBuf,
    pub build_id: String,
    /// What it plans with now: backend and planner names (the rest is in `settings`).
    pub backend: String,
    pub planner: String,
    pub settings: SettingsStatus,
    /// How it watches the tree: notify's backend (`inotify` on Linux).
    pub watch_backend: String,
    pub uptime_seconds: f64,
    /// The initial scan: files planned so far of the files found (`done == total` when over).
    pub scan: Progress,
    /// Files waiting to be planned (0 when every file's plan is computed or stored).
    #[serde(default)]
    pub pending_files: usize,
    pub files: usize,
    pub functions: usize,
    /// Directories watched, and the system's limit on watches (inotify `max_user_watches`).
    pub watches: usize,
    pub watch_limit: Option<u64>,
    pub rescans: Vec<Rescan>,
    /// Lookups in the persistent store since the daemon started.
    pub cache: memreuse::store::Counters,
    pub store_entries: u64,
    pub store_bytes: u64,
    /// Resident memory of the daemon, in bytes.
    pub rss_bytes: Option<u64>,
    pub last_error: Option<String>,
    /// The memory viewer's address (with its token), once `memreuse view` started it.
    #[serde(default)]
    pub viewer_url: Option<String>,
}

/// The settings the daemon plans with: the root's `memreuse.toml` (read again whenever it
/// changes) under the daemon's command-line flags.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct SettingsStatus {
    /// The `memreuse.toml` read, when the root has one.
    pub file: Option<PathBuf>,
    /// Seconds since the settings in force were read.
    pub loaded_seconds_ago: f64,
    /// The capacity of every space whose capacity is known, in bytes.
    pub capacities: Vec<SpaceCapacity>,
    /// Files larger than this are not read.
    pub max_file_bytes: u64,
    /// Why the last change of `memreuse.toml` was not taken (the settings before stay).
    pub error: Option<String>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct SpaceCapacity {
    pub space: String,
    pub bytes: i64,
}

#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Progress {
    pub done: usize,
    pub total: usize,
    pub finished: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Rescan {
    /// Seconds since the daemon started.
    pub at_seconds: f64,
    pub reason: String,
}

#[derive(Debug, thiserror::Error)]
pub enum LineError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("line longer than {0} bytes")]
    TooLong(usize),
    #[error("connection closed")]
    Closed,
}

/// Reads one `\n`-terminated line of at most `max` bytes into `buf` (cleared first).
pub fn read_line(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    max: usize,
) -> Result<(), LineError> {
    buf.clear();
    let mut limited = std::io::Read::take(reader, max as u64 + 1);
    let n = limited.read_until(b'\n', buf)?;
    if n == 0 {
        return Err(LineError::Closed);
    }
    if buf.last() != Some(&b'\n') {
        return Err(if n > max {
            LineError::TooLong(max)
        } else {
            LineError::Closed
        });
    }
    buf.pop();
    Ok(())
}

/// `value` as one line of JSON, newline included.
pub fn to_line(value: &impl Serialize) -> Vec<u8> {
    // Serializing these types cannot fail: they hold no maps with non-string keys.
    let mut line = serde_json::to_vec(value).unwrap_or_else(|_| b"{}".to_vec());
    line.push(b'\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_round_trip_as_one_line() {
        let request = Request::Query {
            path: "/k/a.py".into(),
            function: Some("main".into()),
            stale_ok: false,
            color: true,
        };
        let line = to_line(&request);
        assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
        let back: Request = serde_json::from_slice(&line).expect("parses");
        assert_eq!(back, request);
    }

    #[test]
    fn lines_are_bounded() {
        let mut buf = Vec::new();
        let mut long = std::io::Cursor::new(vec![b'x'; 100]);
        assert!(matches!(
            read_line(&mut long, &mut buf, 10),
            Err(LineError::TooLong(10))
        ));
        let mut two = std::io::Cursor::new(b"ab\ncd\n".to_vec());
        read_line(&mut two, &mut buf, 10).expect("first line");
        assert_eq!(buf, b"ab");
        read_line(&mut two, &mut buf, 10).expect("second line");
        assert_eq!(buf, b"cd");
        assert!(matches!(
            read_line(&mut two, &mut buf, 10),
            Err(LineError::Closed)
        ));
    }
}

#[cfg(test)]
mod hex_tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_refuses_what_is_not_hex() {
        let bytes: Vec<u8> = (0..=255).collect();
        assert_eq!(from_hex(&to_hex(&bytes)), Some(bytes));
        assert_eq!(to_hex(&[0x0f, 0xa0]), "0fa0");
        assert_eq!(from_hex("0FA0"), Some(vec![0x0f, 0xa0]));
        assert_eq!(from_hex("abc"), None);
        assert_eq!(from_hex("zz"), None);
    }
}
