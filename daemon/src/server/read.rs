//! Reading kernel files off a tree anyone may have put anything in: only regular files are
//! read, up to a size limit; nothing here can block on a FIFO, read a device, or follow a
//! symlink out of the root.

use std::io::Read as _;
use std::os::unix::fs::{FileTypeExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};

/// The default of `--max-file-bytes`: far above any real IR dump.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// What reading a path gave.
#[derive(Debug)]
pub enum Read {
    Text(String),
    /// Nothing there (any more), or a symlink leading out of the root: not a kernel file.
    Gone,
    /// Not read, for a reason the user should see (a FIFO, a device, too large).
    Refused(String),
    Failed(std::io::Error),
}

/// Reads `path` (below `root`, canonical) if it is a regular file of at most `max` bytes
/// of UTF-8 text.
pub fn read_kernel(path: &Path, root: &Path, max: u64) -> Read {
    let target = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => match path.canonicalize() {
            Ok(target) if target.starts_with(root) => target,
            Ok(_) => return Read::Gone,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Read::Gone,
            Err(err) => return Read::Failed(err),
        },
        Ok(_) => path.to_path_buf(),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Read::Gone,
        Err(err) => return Read::Failed(err),
    };
    match std::fs::metadata(&target) {
        Ok(meta) if !meta.is_file() => return Read::Refused(not_regular(&meta.file_type())),
        Ok(meta) if meta.len() > max => return Read::Refused(too_large(meta.len(), max)),
        Ok(_) => {}
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Read::Gone,
        Err(err) => return Read::Failed(err),
    }
    // Non-blocking and without following a symlink: what was checked above may have been
    // replaced by a FIFO or a link since; the checks are repeated on what was opened.
    let opened = std::fs::File::options()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_NOCTTY)
        .open(&target);
    let file = match opened {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Read::Gone,
        Err(err) if err.raw_os_error() == Some(libc::ELOOP) => return Read::Gone,
        Err(err) => return Read::Failed(err),
    };
    match file.metadata() {
        Ok(meta) if !meta.is_file() => return Read::Refused(not_regular(&meta.file_type())),
        Ok(meta) if meta.len() > max => return Read::Refused(too_large(meta.len(), max)),
        Ok(_) => {}
        Err(err) => return Read::Failed(err),
    }
    let mut bytes = Vec::new();
    // A file still growing is cut at the limit, and refused.
    if let Err(err) = file.take(max + 1).read_to_end(&mut bytes) {
        return Read::Failed(err);
    }
    if bytes.len() as u64 > max {
        return Read::Refused(too_large(bytes.len() as u64, max));
    }
    match memreuse::system::decode_utf8(bytes) {
        Ok(text) => Read::Text(text),
        Err(err) => Read::Refused(err.to_string()),
    }
}

fn not_regular(kind: &std::fs::FileType) -> String {
    let what = if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    };
    format!("it is {what}, not a regular file")
}

fn too_large(len: u64, max: u64) -> String {
    format!("{len} bytes, more than the limit of {max} (max_file_bytes in memreuse.toml)")
}

/// Paths the writer refused to read, and why, for queries to report.
pub type Refusals = std::collections::BTreeMap<PathBuf, String>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_inside_the_root_are_read() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().canonicalize().expect("canonical");
        std::fs::write(root.join("a.py"), "text").expect("write");
        assert!(
            matches!(read_kernel(&root.join("a.py"), &root, 100), Read::Text(t) if t == "text")
        );
        assert!(matches!(
            read_kernel(&root.join("a.py"), &root, 3),
            Read::Refused(why) if why.contains("limit of 3")
        ));
        let fifo = root.join("f.py");
        let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).expect("path");
        // SAFETY: `name` is a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        assert!(
            matches!(read_kernel(&fifo, &root, 100), Read::Refused(why) if why.contains("FIFO"))
        );
        std::os::unix::fs::symlink("/dev/zero", root.join("z.py")).expect("symlink");
        assert!(matches!(
            read_kernel(&root.join("z.py"), &root, 100),
            Read::Gone
        ));
        std::os::unix::fs::symlink(root.join("a.py"), root.join("in.py")).expect("symlink");
        assert!(matches!(
            read_kernel(&root.join("in.py"), &root, 100),
            Read::Text(_)
        ));
        assert!(matches!(
            read_kernel(&root.join("none.py"), &root, 100),
            Read::Gone
        ));
    }
}
