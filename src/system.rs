//! Where text comes from: the database never touches the file system itself; a [`System`]
//! feeds it text (ARCHITECTURE.md, Invariants). `OsSystem` reads the disk, `MemorySystem`
//! serves tests.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::RwLock;

pub trait System: Send + Sync {
    fn read_to_string(&self, path: &Path) -> io::Result<String>;
    /// What the file looks like now, if this system can tell without reading it; `None`
    /// means its text must always be read.
    fn metadata(&self, path: &Path) -> io::Result<Option<FileMeta>>;
    /// Now, on the clock file times are taken from (nanoseconds since the Unix epoch).
    fn now_ns(&self) -> i128;
}

/// Metadata that changes whenever a file's text does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileMeta {
    pub len: u64,
    pub modified_ns: i128,
    pub changed_ns: i128,
    pub inode: u64,
}

/// Text that is not UTF-8, and where: the first bad byte, by line and column (both from 1,
/// columns in characters) and byte offset. The CLI and the daemon report it alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{line}:{col}: not UTF-8 text (byte 0x{byte:02x} at offset {offset}); kernel files must be UTF-8"
)]
pub struct NotUtf8 {
    pub line: usize,
    pub col: usize,
    pub offset: usize,
    pub byte: u8,
}

/// `bytes` as text, or where it stops being UTF-8.
pub fn decode_utf8(bytes: Vec<u8>) -> Result<String, NotUtf8> {
    String::from_utf8(bytes).map_err(|err| {
        let bytes = err.as_bytes();
        let offset = err.utf8_error().valid_up_to();
        // Valid up to `offset` by definition.
        let before = std::str::from_utf8(&bytes[..offset]).unwrap_or("");
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        NotUtf8 {
            line: before.matches('\n').count() + 1,
            col: before[line_start..].chars().count() + 1,
            offset,
            byte: bytes[offset],
        }
    })
}

/// The real file system.
pub struct OsSystem;

impl System for OsSystem {
    fn read_to_string(&self, path: &Path) -> io::Result<String> {
        decode_utf8(std::fs::read(path)?)
            .map_err(|err| io::Error::new(io::ErrorKind::InvalidData, err))
    }

    #[cfg(unix)]
    fn metadata(&self, path: &Path) -> io::Result<Option<FileMeta>> {
        use std::os::unix::fs::MetadataExt as _;
        let m = std::fs::metadata(path)?;
        let ns = |secs: i64, nanos: i64| i128::from(secs) * 1_000_000_000 + i128::from(nanos);
        Ok(Some(FileMeta {
            len: m.len(),
            modified_ns: ns(m.mtime(), m.mtime_nsec()),
            changed_ns: ns(m.ctime(), m.ctime_nsec()),
            inode: m.ino(),
        }))
    }

    #[cfg(not(unix))]
    fn metadata(&self, _: &Path) -> io::Result<Option<FileMeta>> {
        Ok(None)
    }

    fn now_ns(&self) -> i128 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i128)
    }
}

/// Files held in memory; they have no metadata, so their text is always read.
#[derive(Default)]
pub struct MemorySystem {
    files: RwLock<BTreeMap<PathBuf, String>>,
}

impl MemorySystem {
    pub fn write(&self, path: impl Into<PathBuf>, text: impl Into<String>) {
        self.files
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(path.into(), text.into());
    }
}

impl System for MemorySystem {
    fn read_to_string(&self, path: &Path) -> io::Result<String> {
        let files = self.files.read().unwrap_or_else(|p| p.into_inner());
        files
            .get(path)
            .cloned()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, path.display().to_string()))
    }

    fn metadata(&self, _: &Path) -> io::Result<Option<FileMeta>> {
        Ok(None)
    }

    fn now_ns(&self) -> i128 {
        0
    }
}

#[cfg(test)]
mod utf8_tests {
    use super::*;

    #[test]
    fn text_that_is_not_utf8_is_located() {
        let err = decode_utf8(b"ab\ncd\xc3\xa9x\xffy".to_vec()).expect_err("not UTF-8");
        assert_eq!(
            err,
            NotUtf8 {
                line: 2,
                col: 5,
                offset: 8,
                byte: 0xff
            }
        );
        assert!(
            err.to_string()
                .starts_with("2:5: not UTF-8 text (byte 0xff at offset 8)")
        );
        assert_eq!(decode_utf8(b"ok".to_vec()).as_deref(), Ok("ok"));
    }
}
