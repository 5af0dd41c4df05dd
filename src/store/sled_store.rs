//! The on-disk [`CacheStore`]: one sled database.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::{Bytes, BytesInner, CacheStore, Key, Kind, StoreError, StoreStats};

pub struct SledStore {
    db: sled::Db,
    /// One tree per [`Kind`].
    plans: sled::Tree,
    files: sled::Tree,
    stamps: sled::Tree,
    /// `[kind] ++ key` → the generation that last used the entry (big-endian u64), and
    /// [`GENERATION`] → the last generation handed out.
    recency: sled::Tree,
}

const GENERATION: &[u8] = b"generation";

fn recency_key(kind: Kind, key: &Key) -> [u8; 33] {
    let mut bytes = [0; 33];
    bytes[0] = kind as u8;
    bytes[1..].copy_from_slice(&key.0);
    bytes
}

fn generation_of(value: &[u8]) -> Option<u64> {
    Some(u64::from_be_bytes(value.try_into().ok()?))
}

/// A store that opened, and whether it had to be rebuilt to do so.
pub struct Opened {
    pub store: SledStore,
    /// The damaged store was moved here and an empty one created; the text says why.
    pub moved_aside: Option<(PathBuf, String)>,
}

/// How long `open` waits for a lock that a store dropped a moment ago may still hold: sled
/// releases its file lock from a background thread after the database is dropped, so an
/// immediate reopen (a daemon restart, a CLI run just after one) can find it still taken.
const LOCK_RELEASE_WAIT: Duration = Duration::from_secs(2);

impl SledStore {
    /// Opens the store at `path`, waiting up to [`LOCK_RELEASE_WAIT`] for a lock held by a
    /// store that is shutting down; a lock still held after that is an error.
    pub fn open(path: &Path) -> Result<SledStore, StoreError> {
        let deadline = Instant::now() + LOCK_RELEASE_WAIT;
        let mut pause = Duration::from_millis(5);
        loop {
            match SledStore::open_once(path) {
                Err(err) if is_lock_conflict(&err) && Instant::now() + pause < deadline => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(200));
                }
                result => return result,
            }
        }
    }

    fn open_once(path: &Path) -> Result<SledStore, StoreError> {
        // Writes are flushed explicitly after each batch; a background flusher would only add
        // I/O between batches. Values are read once per run, so a small page cache does; the
        // default (1 GB) mostly costs fresh, zeroed memory on large cold runs.
        let db = sled::Config::new()
            .path(path)
            .flush_every_ms(None)
            .cache_capacity(64 << 20)
            .open()
            .map_err(to_store_error)?;
        let tree = |kind: Kind| db.open_tree(tree_name(kind)).map_err(to_store_error);
        let (plans, files, stamps) = (tree(Kind::Plan)?, tree(Kind::File)?, tree(Kind::Stamp)?);
        // Stores written before the per-kind trees kept every value in the default tree.
        if !db.is_empty() {
            db.clear().map_err(to_store_error)?;
        }
        let recency = db.open_tree("recency").map_err(to_store_error)?;
        Ok(SledStore {
            db,
            plans,
            files,
            stamps,
            recency,
        })
    }

    fn tree(&self, kind: Kind) -> &sled::Tree {
        match kind {
            Kind::Plan => &self.plans,
            Kind::File => &self.files,
            Kind::Stamp => &self.stamps,
        }
    }

    /// Opens the store at `path`; one that will not open (damaged, or written by an
    /// incompatible version) is moved aside to `<path>.bad-<unix time>` and rebuilt empty.
    /// Another process holding the store is an error, never a reason to move it.
    pub fn open_or_rebuild(path: &Path) -> Result<Opened, StoreError> {
        let reason = match SledStore::open(path) {
            Ok(store) => {
                return Ok(Opened {
                    store,
                    moved_aside: None,
                });
            }
            Err(err) if is_lock_conflict(&err) => return Err(err),
            Err(err) => err.to_string(),
        };
        let stamp = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let mut aside = path.as_os_str().to_owned();
        aside.push(format!(".bad-{stamp}"));
        let aside = PathBuf::from(aside);
        std::fs::rename(path, &aside)?;
        Ok(Opened {
            store: SledStore::open(path)?,
            moved_aside: Some((aside, reason)),
        })
    }
}

fn tree_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Plan => "plans",
        Kind::File => "files",
        Kind::Stamp => "stamps",
    }
}

/// sled reports a held lock as a plain I/O error with this text.
fn is_lock_conflict(err: &StoreError) -> bool {
    matches!(err, StoreError::Backend(text) if text.contains("could not acquire lock"))
}

fn to_store_error(err: sled::Error) -> StoreError {
    match err {
        sled::Error::Io(io) if io.kind() != std::io::ErrorKind::Other => StoreError::Io(io),
        other => StoreError::Backend(other.to_string()),
    }
}

impl CacheStore for SledStore {
    fn get(&self, kind: Kind, key: &Key) -> Result<Option<Bytes>, StoreError> {
        let value = self.tree(kind).get(key.0).map_err(to_store_error)?;
        Ok(value.map(|v| Bytes(BytesInner::Sled(v))))
    }

    fn write_batch(&self, entries: &[(Kind, Key, Vec<u8>)]) -> Result<(), StoreError> {
        for kind in Kind::ALL {
            // In key order, each of sled's leaf pages fills once instead of being rewritten
            // for every random insert that lands in it: several times less written for a
            // cold run.
            let mut sorted: Vec<&(Kind, Key, Vec<u8>)> =
                entries.iter().filter(|(k, _, _)| *k == kind).collect();
            if sorted.is_empty() {
                continue;
            }
            sorted.sort_unstable_by_key(|(_, key, _)| *key);
            let mut batch = sled::Batch::default();
            for (_, key, value) in sorted {
                batch.insert(&key.0, value.as_slice());
            }
            self.tree(kind).apply_batch(batch).map_err(to_store_error)?;
        }
        Ok(())
    }

    fn sync(&self) -> Result<(), StoreError> {
        self.db.flush().map_err(to_store_error)?;
        Ok(())
    }

    fn stats(&self) -> Result<StoreStats, StoreError> {
        Ok(StoreStats {
            entries: Kind::ALL.iter().map(|&k| self.tree(k).len() as u64).sum(),
            bytes_on_disk: self.db.size_on_disk().map_err(to_store_error)?,
        })
    }

    fn next_generation(&self) -> Result<u64, StoreError> {
        let previous = self
            .recency
            .fetch_and_update(GENERATION, |old| {
                let next = old.and_then(generation_of).unwrap_or(0) + 1;
                Some(next.to_be_bytes().to_vec())
            })
            .map_err(to_store_error)?;
        Ok(previous.as_deref().and_then(generation_of).unwrap_or(0) + 1)
    }

    fn mark_used(&self, entries: &[(Kind, Key)], generation: u64) -> Result<(), StoreError> {
        let mut batch = sled::Batch::default();
        for (kind, key) in entries {
            batch.insert(&recency_key(*kind, key)[..], &generation.to_be_bytes()[..]);
        }
        self.recency.apply_batch(batch).map_err(to_store_error)
    }

    fn last_used(&self, kind: Kind, key: &Key) -> Result<Option<u64>, StoreError> {
        let value = self
            .recency
            .get(recency_key(kind, key))
            .map_err(to_store_error)?;
        Ok(value.as_deref().and_then(generation_of))
    }

    fn remove_batch(&self, entries: &[(Kind, Key)]) -> Result<(), StoreError> {
        for kind in Kind::ALL {
            let mut batch = sled::Batch::default();
            for (_, key) in entries.iter().filter(|(k, _)| *k == kind) {
                batch.remove(&key.0);
            }
            self.tree(kind).apply_batch(batch).map_err(to_store_error)?;
        }
        let mut batch = sled::Batch::default();
        for (kind, key) in entries {
            batch.remove(&recency_key(*kind, key)[..]);
        }
        self.recency.apply_batch(batch).map_err(to_store_error)
    }

    fn for_each(&self, visit: &mut dyn FnMut(Kind, &Key, &[u8])) -> Result<(), StoreError> {
        for kind in Kind::ALL {
            for entry in self.tree(kind).iter() {
                let (key, value) = entry.map_err(to_store_error)?;
                let Ok(key) = <[u8; 32]>::try_from(key.as_ref()) else {
                    continue;
                };
                visit(kind, &Key(key), &value);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A store released while another open waits for it opens (as after a restart, when
    /// sled lets go of its lock a moment after the old database was dropped).
    #[test]
    fn a_store_released_while_waiting_opens() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("cache");
        let held = SledStore::open(&path).expect("opens");
        let releaser = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            drop(held);
        });
        let reopened = SledStore::open(&path);
        releaser.join().expect("the releasing thread ends");
        assert!(
            reopened.is_ok(),
            "waits for the lock instead of failing at once"
        );
    }

    #[test]
    fn a_store_held_open_is_still_an_error() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("cache");
        let _held = SledStore::open(&path).expect("opens");
        let second = SledStore::open_or_rebuild(&path);
        assert!(
            matches!(&second, Err(err) if is_lock_conflict(err)),
            "a held store must not open twice, nor be moved aside"
        );
        assert!(!dir.path().read_dir().expect("dir").any(|e| {
            e.expect("entry")
                .file_name()
                .to_string_lossy()
                .contains(".bad-")
        }));
    }
}
