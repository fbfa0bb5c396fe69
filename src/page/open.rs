//! Opening what the URL fragment asks for (contract §3): fetch a shipped scenario or decode a
//! shared one. Running it is the worker's job; a refusal comes back from there and the page
//! then falls back to the default scenario (`fallback`).

use gloo::net::http::Request;

use crate::page::logic::{self, IndexEntry, Route, DEFAULT_STEM};

/// A scenario's text ready to run, and what to show about it.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Opened {
    /// The shipped scenario shown (for the picker), if it is one.
    pub stem: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    /// Readable problems: with the fragment, the fetch, or the scenario itself.
    pub errors: Vec<String>,
    /// The scenario text to run; None when nothing could be loaded.
    pub text: Option<String>,
}

/// Open what a fragment asks for. A fragment that cannot be used leaves an error and opens the
/// default scenario instead (contract §3: the app stays usable with its default scenario).
pub async fn open(route: Route, index: Option<Vec<IndexEntry>>) -> Opened {
    let default_entry = index_entry(&index, DEFAULT_STEM);
    match route {
        Route::Default => open_stem(DEFAULT_STEM, default_entry).await,
        Route::Invalid(why) => fallback(format!("{}.", capitalize(&why)), default_entry).await,
        Route::Scenario(stem) => {
            let known = index.as_ref().map_or(true, |ix| ix.iter().any(|e| e.stem == stem));
            if !known {
                let why = format!("There is no shipped scenario named \"{stem}\".");
                return fallback(why, default_entry).await;
            }
            let o = open_stem(&stem, index_entry(&index, &stem)).await;
            if o.text.is_none() && stem != DEFAULT_STEM {
                return fallback(o.errors.join(" "), default_entry).await;
            }
            o
        }
        Route::Shared(data) => match logic::decode_share(&data) {
            Err(why) => fallback(format!("{}.", capitalize(&why)), default_entry).await,
            Ok(text) => {
                let (title, description) = logic::scenario_heading(&text);
                Opened {
                    stem: None,
                    title: Some(title.unwrap_or_else(|| "Shared scenario".into())),
                    description,
                    errors: vec![],
                    text: Some(text),
                }
            }
        },
    }
}

/// The message for a scenario the core refused, naming it.
pub fn refusal(o: &Opened, message: &str) -> String {
    let message = message.trim_end_matches('.');
    match (&o.stem, &o.title) {
        (Some(stem), title) => {
            let name = title.as_deref().unwrap_or(stem);
            format!("The scenario \"{name}\" ({stem}) was not run: {message}.")
        }
        (None, title) => {
            let name = title.as_deref().unwrap_or("Shared scenario");
            format!("The shared scenario \"{name}\" was not run: {message}.")
        }
    }
}

/// Show the default scenario, after `why` (which names the problem).
pub async fn fallback(why: String, default_entry: Option<IndexEntry>) -> Opened {
    let mut errors = vec![format!("{why} Showing the default scenario \"{DEFAULT_STEM}\" instead.")];
    let mut o = open_stem(DEFAULT_STEM, default_entry).await;
    errors.append(&mut o.errors);
    o.errors = errors;
    o
}

pub fn index_entry(index: &Option<Vec<IndexEntry>>, stem: &str) -> Option<IndexEntry> {
    index.as_ref().and_then(|ix| ix.iter().find(|e| e.stem == stem).cloned())
}

async fn open_stem(stem: &str, entry: Option<IndexEntry>) -> Opened {
    let mut o = Opened { stem: Some(stem.to_string()), ..Opened::default() };
    let url = logic::scenario_url(stem);
    let text = match fetch_text(&url).await {
        Ok(t) => t,
        Err(e) => {
            o.errors.push(format!("Could not load the scenario \"{stem}\" ({url}): {e}."));
            return o;
        }
    };
    let (title, description) = logic::scenario_heading(&text);
    let entry_name = entry.as_ref().and_then(|e| e.name.clone());
    let entry_desc = entry.as_ref().and_then(|e| e.description.clone());
    o.title = Some(title.or(entry_name).unwrap_or_else(|| stem.to_string()));
    o.description = description.or(entry_desc);
    o.text = Some(text);
    o
}

pub async fn fetch_text(url: &str) -> Result<String, String> {
    let resp = Request::get(url).send().await.map_err(|e| format!("network error: {e}"))?;
    if !resp.ok() {
        return Err(format!("HTTP {} {}", resp.status(), resp.status_text()));
    }
    resp.text().await.map_err(|e| format!("could not read the response: {e}"))
}

pub fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}
