//! Saved experiments, the pure part: each scenario's edits are kept under a key of their own
//! (several scenarios at once, the least recently used evicted first, with a message), in a
//! shape that says which tab wrote it. `page::storage` binds this to localStorage; this part
//! builds natively, so it is tested without a browser.

use serde::{Deserialize, Serialize};

/// Keys of saved experiments start with this; the rest is a digest of the fragment.
pub const PREFIX: &str = "fairground.experiment.";
/// The list of saved experiments, most recently used first.
pub const INDEX_KEY: &str = "fairground.experiments";
/// How many edited experiments are kept at once.
pub const MAX_KEPT: usize = 16;

/// One edited experiment: the fragment it belongs to, the scenario with its edits, the time
/// the user was at, and the tab that wrote it last.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Saved {
    pub hash: String,
    pub text: String,
    pub view_ns: u64,
    #[serde(default)]
    pub tab: String,
}

/// One line of the index.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub key: String,
    /// The fragment, shortened for messages (a share link can be megabytes long).
    pub label: String,
}

/// The saved experiments, most recently used first.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Index {
    pub entries: Vec<Entry>,
}

/// The storage key of the experiment opened at `hash` (FNV-1a 64 of the fragment: keys stay
/// short whatever the fragment's length, and equal fragments share one).
pub fn key_for(hash: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in hash.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{PREFIX}{h:016x}")
}

/// A fragment as a message names it: `#scenario=two-hogs`, or the start of a share link.
pub fn label(hash: &str) -> String {
    if hash.starts_with("#scenario=") || hash.chars().count() <= 40 {
        hash.to_string()
    } else {
        let head: String = hash.chars().take(24).collect();
        format!("{head}… (a shared scenario)")
    }
}

impl Index {
    /// `key` was just saved: move it to the front, and return the entries that no longer fit
    /// (to delete, and to name in a message).
    pub fn touch(&mut self, key: &str, hash: &str) -> Vec<Entry> {
        self.entries.retain(|e| e.key != key);
        self.entries.insert(0, Entry { key: key.to_string(), label: label(hash) });
        if self.entries.len() > MAX_KEPT {
            self.entries.split_off(MAX_KEPT)
        } else {
            Vec::new()
        }
    }

    pub fn remove(&mut self, key: &str) {
        self.entries.retain(|e| e.key != key);
    }

    /// The least recently used entry other than `key`, to evict when storage is full.
    pub fn oldest_except(&self, key: &str) -> Option<Entry> {
        self.entries.iter().rev().find(|e| e.key != key).cloned()
    }
}

/// What a `storage` event from another tab means for the experiment shown here: a message,
/// or None when it is not about it (another key, or this tab's own write).
pub fn other_tab_notice(changed_key: &str, new_value: Option<&str>, shown_hash: &str, my_tab: &str) -> Option<String> {
    if changed_key != key_for(shown_hash) {
        return None;
    }
    match new_value.map(serde_json::from_str::<Saved>) {
        Some(Ok(s)) if s.tab == my_tab => None,
        Some(_) => Some(
            "This scenario was just edited in another tab. Your next change here replaces that tab's edits; reload this page to take them instead.".into(),
        ),
        None => Some("This scenario's saved edits were discarded in another tab.".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_short_stable_and_distinct() {
        let long = format!("#s={}", "A".repeat(1 << 20));
        assert_eq!(key_for("#scenario=two-hogs"), key_for("#scenario=two-hogs"));
        assert_ne!(key_for("#scenario=two-hogs"), key_for("#scenario=nice-0-vs-5"));
        assert_eq!(key_for(&long).len(), PREFIX.len() + 16);
        assert!(label(&long).len() < 60);
        assert_eq!(label("#scenario=two-hogs"), "#scenario=two-hogs");
    }

    #[test]
    fn the_least_recently_used_goes_first() {
        let mut ix = Index::default();
        for i in 0..MAX_KEPT {
            assert!(ix.touch(&format!("k{i}"), &format!("#scenario=s{i}")).is_empty());
        }
        // k0 is used again: k1 is now the oldest, and is the one evicted by a new entry.
        assert!(ix.touch("k0", "#scenario=s0").is_empty());
        let evicted = ix.touch("new", "#scenario=new");
        assert_eq!(evicted, vec![Entry { key: "k1".into(), label: "#scenario=s1".into() }]);
        assert_eq!(ix.entries.len(), MAX_KEPT);
        assert_eq!(ix.entries[0].key, "new");
        assert_eq!(ix.oldest_except("new").map(|e| e.key), Some("k2".to_string()));
    }

    #[test]
    fn another_tab_is_noticed_but_not_this_one() {
        let h = "#scenario=two-hogs";
        let mine = serde_json::to_string(&Saved { hash: h.into(), text: "{}".into(), view_ns: 0, tab: "a".into() }).unwrap();
        let theirs = mine.replace("\"tab\":\"a\"", "\"tab\":\"b\"");
        assert_eq!(other_tab_notice(&key_for(h), Some(&mine), h, "a"), None);
        assert!(other_tab_notice(&key_for(h), Some(&theirs), h, "a").unwrap().contains("another tab"));
        assert!(other_tab_notice(&key_for(h), None, h, "a").unwrap().contains("discarded"));
        assert_eq!(other_tab_notice(&key_for("#scenario=x"), Some(&theirs), h, "a"), None);
    }
}
