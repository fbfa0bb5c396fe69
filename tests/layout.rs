//! The one-way rules of the web app's layout (docs/architecture.md), checked on the source:
//! - `page/` and `draw/` never refer to the worker's modules (`crate::worker::…`);
//! - `worker/` never refers to the page's or the drawing's (`crate::page::…`, `crate::draw::…`);
//! - `draw/` never refers to the page's (the page draws with it, not the other way round);
//! - `wire/` refers to none of the three: both sides use it, it uses neither.
//!
//! A reference is `crate::ROOM`, `fairground_app::ROOM`, or a `super::` chain that climbs out
//! to the crate root and goes down into ROOM; comments count too (a path in a comment is
//! usually a path in code about to be written). A `#[path]` attribute that leaves its folder is
//! refused, since it could bring another room's file in.

use std::fs;
use std::path::{Path, PathBuf};

/// The rooms a file under `room/` must not refer to.
fn forbidden(room: &str) -> &'static [&'static str] {
    match room {
        "page" => &["worker"],
        "draw" => &["worker", "page"],
        "worker" => &["page", "draw"],
        "wire" => &["worker", "page", "draw"],
        _ => &[],
    }
}

/// The module path of a file from its path under `src/` (`page/panels/inside/mod.rs` →
/// page, panels, inside).
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" && stem != "main" {
        parts.push(stem.to_string());
    }
    parts
}

/// The room a path written at position `at` of `text` names, if it reaches the crate root:
/// `crate::X`, `fairground_app::X`, or enough `super::` to climb out of `module`.
fn rooms_named(text: &str, module: &[String]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let ident = |s: &str| s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>();
    for root in ["crate::", "fairground_app::"] {
        for (i, _) in text.match_indices(root) {
            let before = text[..i].chars().next_back();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
                continue; // `$crate::`, `my_crate::`
            }
            out.push((i, ident(&text[i + root.len()..])));
        }
    }
    let mut i = 0;
    while let Some(j) = text[i..].find("super::") {
        let start = i + j;
        let prev = text[..start].chars().next_back();
        let mut n = 0;
        let mut k = start;
        while text[k..].starts_with("super::") {
            n += 1;
            k += "super::".len();
        }
        if !prev.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') && n >= module.len() {
            out.push((start, ident(&text[k..])));
        }
        i = k;
    }
    out
}

/// Every breach of the rules in one file's text: (line, what it refers to).
fn breaches(rel: &Path, text: &str) -> Vec<(usize, String)> {
    let module = module_path(rel);
    let Some(room) = module.first() else { return Vec::new() };
    let no = forbidden(room);
    let line_of = |at: usize| text[..at].matches('\n').count() + 1;
    let mut out: Vec<(usize, String)> =
        rooms_named(text, &module).into_iter().filter(|(_, r)| no.contains(&r.as_str())).map(|(at, r)| (line_of(at), format!("{room} refers to {r}"))).collect();
    for (at, _) in text.match_indices("#[path") {
        let attr = &text[at..text[at..].find(']').map_or(text.len(), |e| at + e)];
        if attr.contains("..") {
            out.push((line_of(at), format!("{room} includes a file from elsewhere: {attr}]")));
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).expect("read src/") {
        let p = e.expect("dir entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn the_page_and_the_worker_only_meet_in_wire() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut found = Vec::new();
    let mut checked = 0;
    for f in &files {
        let rel = f.strip_prefix(&src).expect("under src/");
        if module_path(rel).first().is_some_and(|r| !forbidden(r).is_empty()) {
            checked += 1;
        }
        let text = fs::read_to_string(f).expect("read a source file");
        found.extend(breaches(rel, &text).into_iter().map(|(line, what)| format!("src/{}:{line}: {what}", rel.display())));
    }
    assert!(checked >= 40, "only {checked} files found in the rooms: has src/ moved?");
    for room in ["wire", "worker", "page", "draw"] {
        assert!(src.join(room).join("mod.rs").is_file(), "src/{room}/mod.rs is missing");
    }
    assert!(found.is_empty(), "the one-way rules of docs/architecture.md are broken:\n{}", found.join("\n"));
}

#[test]
fn the_checker_finds_what_breaks_the_rules() {
    let p = Path::new;
    // The breaches the rules are about.
    assert_eq!(breaches(p("page/app/mod.rs"), "use crate::worker::endpoint::SimWorker;").len(), 1);
    assert_eq!(breaches(p("draw/timeline.rs"), "x\nuse crate::page::logic;").first().map(|b| b.0), Some(2));
    assert_eq!(breaches(p("draw/timeline.rs"), "let h = crate::worker::host::Host::load(t);").len(), 1);
    assert_eq!(breaches(p("worker/measure/ab.rs"), "use crate::draw::lod::Store;").len(), 1);
    assert_eq!(breaches(p("worker/host/mod.rs"), "fn f() { crate::page::logic::fmt_time(1); }").len(), 1);
    assert_eq!(breaches(p("wire/proto.rs"), "Measure(crate::worker::measure::Request),").len(), 1);
    assert_eq!(breaches(p("page/links.rs"), "use fairground_app::worker::host;").len(), 1);
    // Climbing out with super:: counts once it reaches the crate root.
    assert_eq!(breaches(p("page/panels/inside/trees.rs"), "use super::super::super::super::worker::host;").len(), 1);
    assert!(breaches(p("page/panels/inside/trees.rs"), "use super::super::super::logic;").is_empty());
    assert_eq!(breaches(p("page/panels/inside/mod.rs"), "use super::super::super::worker::host;").len(), 1);
    assert_eq!(breaches(p("worker/measure/mod.rs"), "#[path = \"../../page/logic.rs\"] mod l;").len(), 1);
    // What is allowed.
    assert!(breaches(p("page/app/mod.rs"), "use crate::wire::proto::Input; use crate::draw::lod::Store;").is_empty());
    assert!(breaches(p("worker/host/mod.rs"), "use crate::wire::proto::*; use super::Host; macro_rules! m { () => { $crate::worker::x } }").is_empty());
    assert!(breaches(p("worker/host/insight.rs"), "#[path = \"insight_tests.rs\"] mod tests;").is_empty());
    assert!(breaches(p("lib.rs"), "pub mod worker; use crate::page::app;").is_empty());
}
