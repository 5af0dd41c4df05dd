//! An in-memory [`CacheStore`], for tests and for runs that want no disk.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use super::entry::{Bytes, BytesInner, CacheStore, Key, Kind, LastUses, StoreError, StoreStats};

type Values = BTreeMap<(Kind, Key), Arc<[u8]>>;

/// The generation that last used each entry, and the last generation handed out.
type Recency = (BTreeMap<(Kind, Key), u64>, u64);

/// Cloning shares the contents, so a test can keep a handle to a store it gave away.
#[derive(Clone, Default)]
pub struct MemoryStore {
    map: Arc<RwLock<Values>>,
    recency: Arc<RwLock<Recency>>,
}

impl MemoryStore {
    /// Replaces a stored value's bytes (tests corrupt values this way).
    pub fn overwrite(&self, kind: Kind, key: Key, bytes: Vec<u8>) {
        self.map
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert((kind, key), bytes.into());
    }

    pub fn keys(&self) -> Vec<(Kind, Key)> {
        let map = self.map.read().unwrap_or_else(|p| p.into_inner());
        map.keys().copied().collect()
    }
}

impl CacheStore for MemoryStore {
    fn get(&self, kind: Kind, key: &Key) -> Result<Option<Bytes>, StoreError> {
        let map = self.map.read().unwrap_or_else(|p| p.into_inner());
        Ok(map
            .get(&(kind, *key))
            .map(|v| Bytes(BytesInner::Shared(v.clone()))))
    }

    fn write_batch(&self, entries: &[(Kind, Key, Vec<u8>)]) -> Result<(), StoreError> {
        let mut map = self.map.write().unwrap_or_else(|p| p.into_inner());
        for (kind, key, value) in entries {
            map.insert((*kind, *key), value.as_slice().into());
        }
        Ok(())
    }

    fn sync(&self) -> Result<(), StoreError> {
        Ok(())
    }

    fn stats(&self) -> Result<StoreStats, StoreError> {
        let map = self.map.read().unwrap_or_else(|p| p.into_inner());
        Ok(StoreStats {
            entries: map.len() as u64,
            bytes_on_disk: 0,
        })
    }

    fn next_generation(&self) -> Result<u64, StoreError> {
        let mut recency = self.recency.write().unwrap_or_else(|p| p.into_inner());
        recency.1 += 1;
        Ok(recency.1)
    }

    fn mark_used(&self, entries: &[(Kind, Key)], generation: u64) -> Result<(), StoreError> {
        let mut recency = self.recency.write().unwrap_or_else(|p| p.into_inner());
        for entry in entries {
            recency.0.insert(*entry, generation);
        }
        Ok(())
    }

    fn last_uses(&self) -> Result<LastUses, StoreError> {
        let recency = self.recency.read().unwrap_or_else(|p| p.into_inner());
        Ok(recency
            .0
            .iter()
            .map(|(entry, last)| (*entry, *last))
            .collect())
    }

    fn remove_batch(&self, entries: &[(Kind, Key)]) -> Result<(), StoreError> {
        let mut map = self.map.write().unwrap_or_else(|p| p.into_inner());
        let mut recency = self.recency.write().unwrap_or_else(|p| p.into_inner());
        for entry in entries {
            map.remove(entry);
            recency.0.remove(entry);
        }
        Ok(())
    }

    fn for_each(&self, visit: &mut dyn FnMut(Kind, &Key, &[u8])) -> Result<(), StoreError> {
        let map = self.map.read().unwrap_or_else(|p| p.into_inner());
        for ((kind, key), value) in map.iter() {
            visit(*kind, key, value);
        }
        Ok(())
    }
}
