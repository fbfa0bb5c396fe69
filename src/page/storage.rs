//! Edited experiments kept across page reloads (localStorage), each scenario under its own key
//! (`saved`), so editing one never erases another's edits; the least recently used are
//! evicted first when too many are kept or the storage is full, and the caller is told.
//! Every failure is returned, to be shown: storage that silently drops work would lose it.

use super::saved::{self, Index, Saved, INDEX_KEY};
use gloo::storage::{LocalStorage, Storage};

/// A random id of this tab, so that another tab's writes can be told from this one's.
pub fn tab_id() -> String {
    format!("{:016x}", (js_sys::Math::random() * 2f64.powi(53)) as u64)
}

fn index() -> Index {
    LocalStorage::get(INDEX_KEY).unwrap_or_default()
}

/// The saved experiment of the fragment `hash`: Ok(None) when there is none, Err when what is
/// stored cannot be read (then it is offered for download, never dropped silently).
pub fn load(hash: &str) -> Result<Option<Saved>, String> {
    let key = saved::key_for(hash);
    let raw = match LocalStorage::raw().get_item(&key) {
        Ok(Some(r)) => r,
        Ok(None) => return Ok(None),
        Err(_) => return Err("this browser's storage cannot be read".into()),
    };
    match serde_json::from_str::<Saved>(&raw) {
        Ok(s) if s.hash == hash => Ok(Some(s)),
        Ok(_) => Ok(None),
        Err(e) => Err(format!("the saved edits cannot be read ({e})")),
    }
}

/// What a save did beyond saving: the experiments evicted to make room (their labels).
pub struct SaveOutcome {
    pub evicted: Vec<String>,
}

/// Save the experiment of `hash`. On a full storage the least recently used other
/// experiments are evicted one by one until it fits; Err names what went wrong.
pub fn save(hash: &str, text: &str, view_ns: u64, tab: &str) -> Result<SaveOutcome, String> {
    let key = saved::key_for(hash);
    let value = serde_json::to_string(&Saved { hash: hash.to_string(), text: text.to_string(), view_ns, tab: tab.to_string() })
        .map_err(|e| e.to_string())?;
    let mut ix = index();
    let mut evicted = Vec::new();
    loop {
        match LocalStorage::raw().set_item(&key, &value) {
            Ok(()) => break,
            Err(e) => {
                let why = e.as_string().or_else(|| js_sys::Reflect::get(&e, &"message".into()).ok().and_then(|m| m.as_string())).unwrap_or_else(|| "storage refused it".into());
                match ix.oldest_except(&key) {
                    Some(old) => {
                        LocalStorage::delete(&old.key);
                        ix.remove(&old.key);
                        evicted.push(old.label);
                    }
                    None => return Err(format!("{why} ({} KB)", value.len() / 1024)),
                }
            }
        }
    }
    for old in ix.touch(&key, hash) {
        LocalStorage::delete(&old.key);
        evicted.push(old.label);
    }
    LocalStorage::set(INDEX_KEY, &ix).map_err(|e| e.to_string())?;
    Ok(SaveOutcome { evicted })
}

pub fn clear(hash: &str) {
    let key = saved::key_for(hash);
    LocalStorage::delete(&key);
    let mut ix = index();
    ix.remove(&key);
    let _ = LocalStorage::set(INDEX_KEY, &ix);
}
