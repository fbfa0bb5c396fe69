//! The edited experiment kept across page reloads (localStorage): the fragment it belongs to,
//! the scenario with its edits, and the time the user was at.

use gloo::storage::{LocalStorage, Storage};
use serde::{Deserialize, Serialize};

const KEY: &str = "fairground.experiment";

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Saved {
    pub hash: String,
    pub text: String,
    pub view_ns: u64,
}

pub fn load() -> Option<Saved> {
    LocalStorage::get(KEY).ok()
}

/// Best effort: a full or disabled storage only loses the convenience.
pub fn save(hash: &str, text: &str, view_ns: u64) {
    let _ = LocalStorage::set(KEY, Saved { hash: hash.to_string(), text: text.to_string(), view_ns });
}

pub fn clear() {
    LocalStorage::delete(KEY);
}
