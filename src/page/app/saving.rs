//! Keeping the user's work (wasm32 only): each scenario's edits under its own key, restored
//! when its fragment opens; every storage failure said; saved edits that no longer open
//! offered for download or discard; another tab's edits to the same scenario noticed; and a
//! run the core stopped reported with the change that came before.

use super::{current_hash, App, Origin};
use crate::draw::format;
use crate::page::open::Opened;
use crate::page::{saved, storage};
use yew::prelude::*;

impl App {
    /// Put the saved edits of the fragment being opened in place of its scenario, keeping the
    /// fragment's own text in case they no longer open.
    pub(super) fn restore_saved(&mut self, opened: &mut Opened) {
        self.fragment_text = opened.text.clone();
        if opened.text.is_none() || !opened.errors.is_empty() {
            return;
        }
        match storage::load(&current_hash()) {
            Ok(Some(s)) => {
                opened.text = Some(s.text);
                self.resume_ns = Some(s.view_ns);
                self.restored = true;
            }
            Ok(None) => {}
            Err(why) => {
                let raw = web_sys::window()
                    .and_then(|w| w.local_storage().ok().flatten())
                    .and_then(|st| st.get_item(&saved::key_for(&current_hash())).ok().flatten())
                    .unwrap_or_default();
                self.saved_error = Some((format!("Your saved edits of this scenario cannot be opened: {why}."), raw));
            }
        }
    }

    /// The core refused the restored edits: keep them on offer, and open the fragment's own
    /// scenario instead.
    pub(super) fn saved_refused(&mut self, ctx: &Context<Self>, message: String) {
        let text = storage::load(&current_hash()).ok().flatten().map(|s| s.text);
        self.saved_error = Some((
            format!("Your saved edits of this scenario no longer open: {message}. The scenario is shown without them."),
            text.unwrap_or_default(),
        ));
        self.restored = false;
        self.resume_ns = None;
        match self.fragment_text.clone() {
            Some(t) => self.load(ctx, t, Origin::Fragment),
            None => self.loading = false,
        }
    }

    /// Keep an edited experiment (and where the user is in it) for the next visit; say when
    /// it could not be kept, and which older experiments made room for it.
    pub(super) fn save_view(&mut self) {
        let (true, Some(text)) = (self.edited(), self.text.clone()) else { return };
        // The address names a scenario whose opening is under way: the run shown is not its.
        if current_hash() != self.run_hash {
            return;
        }
        let said = match storage::save(&self.run_hash, &text, self.progress.view_ns, &self.tab) {
            Ok(o) if o.evicted.is_empty() => None,
            Ok(o) => Some(format!("To make room for these edits, the saved edits of {} were dropped.", o.evicted.join(", "))),
            Err(why) => Some(format!(
                "Your edits could not be saved in this browser ({why}): a reload would lose them. Use Share to keep them as a link."
            )),
        };
        if let Some(said) = said {
            self.notice = Some(match self.notice.take() {
                Some(n) => format!("{n} {said}"),
                None => said,
            });
        }
    }

    /// A `storage` event: another tab saved or discarded edits of the scenario shown here.
    pub(super) fn storage_changed(&mut self, key: &str, value: Option<&str>) -> bool {
        match saved::other_tab_notice(key, value, &current_hash(), &self.tab) {
            Some(n) => {
                self.notice = Some(n);
                true
            }
            None => false,
        }
    }

    pub(super) fn download_saved(&mut self) {
        let Some((_, text)) = &self.saved_error else { return };
        let name = format!("fairground-saved-{}.json", self.opened.stem.as_deref().unwrap_or("scenario"));
        match crate::page::export_web::save_text(&name, "application/json", text) {
            // The object URL must outlive the download the browser queued.
            Ok(url) => std::mem::forget(url),
            Err(e) => self.notice = Some(format!("The download failed: {e}")),
        }
    }

    /// "The run stopped at T: why", with the last timeline change at or before T, which is
    /// most often what led there.
    pub(super) fn stop_report(&self, at_ns: u64, why: &str) -> String {
        let last = self.text.as_deref().and_then(|t| last_change_before(t, at_ns));
        // The core's message starts with the time, which the sentence below already gives.
        let why = why.strip_prefix("the run stopped at ").and_then(|w| w.split_once(" ns: ")).map_or(why, |(_, w)| w);
        let mut s = format!("The run stopped at {} and cannot go further: {why}.", format::fmt_time(at_ns));
        match last {
            Some(c) => s += &format!(" The last change before then: {c}."),
            None => s += " No change of the timeline came before it: the scenario itself leads there.",
        }
        s + " Earlier times still work; share the scenario to report it."
    }
}

/// The last timeline entry at or before `at_ns`, in words: "hog/1 nice 1 at 1 µs".
fn last_change_before(text: &str, at_ns: u64) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    let mut best: Option<(u64, String)> = None;
    for e in v.get("timeline")?.as_array()? {
        let at = e.get("at_us").and_then(|x| x.as_u64()).map(|u| u * 1000).or_else(|| e.get("at_ms").and_then(|x| x.as_u64()).map(|m| m * 1_000_000))?;
        if at > at_ns || best.as_ref().is_some_and(|(b, _)| *b > at) {
            continue;
        }
        let who = e.get("task").or_else(|| e.get("cgroup")).and_then(|x| x.as_str()).unwrap_or("?");
        let set = e.get("set").and_then(|x| x.as_object()).map(|o| o.iter().map(|(k, x)| format!("{} {x}", k.replace('_', " "))).collect::<Vec<_>>().join(", ")).unwrap_or_default();
        best = Some((at, format!("{who} {set} at {}", format::fmt_time(at))));
    }
    best.map(|(_, s)| s)
}
