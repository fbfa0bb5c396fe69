//! The panels of the page, one module each: what to ask the worker and how to show its
//! answers. A panel keeps no scheduling logic; every figure comes from the worker.

pub(crate) mod groups;
pub(crate) mod inside;
pub(crate) mod lesson;
pub(crate) mod scheduler;
pub(crate) mod measure;
pub(crate) mod start;
pub(crate) mod sweep;
pub(crate) mod tasks;

/// What a lesson step asks the screen to show: its highlights (`"tree"`, `"decision"`,
/// `"histogram"`, …) and whether to scroll to the first. Each new request has a new `seq`,
/// so a panel acts on it once.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Stage {
    pub seq: u32,
    pub items: Vec<(String, String)>,
    pub scroll: bool,
}

/// Scroll the element with this id into view (a lesson chip takes the class to it).
/// Bring `id` into view by its bottom edge: what was just added at the end of a column (a
/// step's before/after figures) shows without pushing what is above it off the screen.
pub(crate) fn scroll_to_end(id: &str) {
    if let Some(e) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(id)) {
        e.scroll_into_view_with_bool(false);
    }
}

pub(crate) fn scroll_to(id: &str) {
    if let Some(e) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(id)) {
        e.scroll_into_view();
    }
}
