//! The timeline for slides: "Export PNG" (the canvas as drawn, with a title line and a legend
//! of the task colours) and "Record animation" (frames of the canvas as the view moves, saved
//! as an animated PNG by `draw::apng`).

use wasm_bindgen::{JsCast, JsValue};

use super::{now_ms, App};

/// A recording takes a frame at most this often (and only when the view has moved); each
/// frame is shown this long in the animation.
const FRAME_EVERY_MS: f64 = 100.0;
/// A recording stops and is saved at this many frames, or this many bytes of pixels.
const MAX_FRAMES: usize = 300;
const MAX_FRAME_BYTES: usize = 128 << 20;

/// Frames of the timeline canvas being recorded for an animated PNG.
#[derive(Default)]
pub struct Recording {
    w: u32,
    h: u32,
    pub frames: Vec<Vec<u8>>,
    bytes: usize,
    last_ms: f64,
    last_view: Option<u64>,
}

impl App {
    /// Take a frame of the timeline canvas if the view moved (a size change starts afresh:
    /// an animation has one size).
    pub(super) fn capture(&mut self) {
        let view = self.progress.view_ns;
        let now = now_ms();
        let Some(r) = self.teach.rec.as_mut() else { return };
        if r.last_view == Some(view) || now - r.last_ms < FRAME_EVERY_MS {
            return;
        }
        let Some((w, h, px)) = canvas_pixels() else { return };
        if (w, h) != (r.w, r.h) {
            r.frames.clear();
            r.bytes = 0;
            (r.w, r.h) = (w, h);
        }
        r.bytes += px.len();
        r.frames.push(px);
        r.last_ms = now;
        r.last_view = Some(view);
        if r.frames.len() >= MAX_FRAMES || r.bytes >= MAX_FRAME_BYTES {
            if let Some(r) = self.teach.rec.take() {
                self.save_recording(r);
                self.notice = Some(format!("The recording reached {MAX_FRAMES} frames (or {} MB) and was saved.", MAX_FRAME_BYTES >> 20));
            }
        }
    }

    pub(super) fn save_recording(&mut self, r: Recording) {
        let saved = crate::draw::apng::encode(r.w, r.h, &r.frames, FRAME_EVERY_MS as u16).and_then(|png| {
            use base64::Engine as _;
            let url = format!("data:image/png;base64,{}", base64::engine::general_purpose::STANDARD.encode(png));
            download(&url, "fairground-timeline-animation.png")
        });
        if let Err(e) = saved {
            self.notice = Some(format!("The animation could not be made: {e}"));
        }
    }

    /// The timeline as a PNG, titled with the scenario, its policy and CPUs and the time shown.
    pub(super) fn export_timeline_png(&mut self) {
        let title = self.info.as_ref().map_or_else(String::new, |i| {
            format!("{} — {}, {} CPU{} — at {}", i.name, i.policy, i.cpus, if i.cpus == 1 { "" } else { "s" }, crate::draw::format::fmt_time(self.progress.view_ns))
        });
        let legend: Vec<String> = self.info.as_ref().map(|i| i.tasks.iter().map(|t| t.name.clone()).collect()).unwrap_or_default();
        if let Err(e) = export_png(&title, &legend) {
            self.notice = Some(format!("The PNG could not be made: {e}"));
        }
    }
}

/// The timeline as drawn, for a slide: a title line above it (scenario, policy, time) and a
/// legend of the tasks' colours below, so the picture explains itself away from the page.
fn export_png(title: &str, legend: &[String]) -> Result<(), String> {
    let doc = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let canvas = doc
        .get_element_by_id("timeline")
        .and_then(|e| e.dyn_into::<web_sys::HtmlCanvasElement>().ok())
        .ok_or("there is no timeline on the page")?;
    let (w, h) = (canvas.width(), canvas.height());
    // Device pixels per CSS pixel, as the timeline was drawn: the text scales with it.
    let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).max(1.0);
    let (line, pad) = (18.0 * dpr, 8.0 * dpr);
    // Legend entries flow left to right, as many rows as they need.
    let entry_w = 150.0 * dpr;
    let per_row = ((f64::from(w) - 2.0 * pad) / entry_w).floor().max(1.0) as usize;
    let rows = legend.len().div_ceil(per_row);
    let top = line + 2.0 * pad;
    let out_h = f64::from(h) + top + rows as f64 * line + 2.0 * pad;
    let out = doc.create_element("canvas").map_err(|e| js_text(&e))?.dyn_into::<web_sys::HtmlCanvasElement>().map_err(|_| "not a canvas".to_string())?;
    out.set_width(w);
    out.set_height(out_h.ceil() as u32);
    let cx = out
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<web_sys::CanvasRenderingContext2d>().ok())
        .ok_or("the browser gave no 2D canvas")?;
    cx.set_fill_style_str("#ffffff");
    cx.fill_rect(0.0, 0.0, f64::from(w), out_h);
    cx.set_fill_style_str("#1d232b");
    cx.set_font(&format!("bold {}px system-ui, sans-serif", (14.0 * dpr).round()));
    cx.set_text_baseline("middle");
    cx.fill_text(title, pad, pad + line / 2.0).map_err(|e| js_text(&e))?;
    cx.draw_image_with_html_canvas_element(&canvas, 0.0, top).map_err(|e| js_text(&e))?;
    cx.set_font(&format!("{}px system-ui, sans-serif", (12.0 * dpr).round()));
    for (k, name) in legend.iter().enumerate() {
        let (x, y) = (pad + (k % per_row) as f64 * entry_w, f64::from(h) + top + pad + (k / per_row) as f64 * line);
        let [r, g, b] = crate::draw::raster::task_rgb(k as u32);
        cx.set_fill_style_str(&format!("rgb({r},{g},{b})"));
        cx.fill_rect(x, y + line * 0.2, line * 0.6, line * 0.6);
        cx.set_fill_style_str("#1d232b");
        cx.fill_text(name, x + line * 0.85, y + line / 2.0).map_err(|e| js_text(&e))?;
    }
    let url = out.to_data_url_with_type("image/png").map_err(|e| js_text(&e))?;
    download(&url, "fairground-timeline.png")
}

fn download(url: &str, name: &str) -> Result<(), String> {
    let doc = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let a = doc.create_element("a").map_err(|e| js_text(&e))?;
    a.set_attribute("href", url).map_err(|e| js_text(&e))?;
    a.set_attribute("download", name).map_err(|e| js_text(&e))?;
    a.dyn_into::<web_sys::HtmlElement>().map_err(|_| "not an element".to_string())?.click();
    Ok(())
}

/// The timeline canvas's pixels (device pixels, RGBA).
fn canvas_pixels() -> Option<(u32, u32, Vec<u8>)> {
    let doc = web_sys::window()?.document()?;
    let canvas = doc.get_element_by_id("timeline")?.dyn_into::<web_sys::HtmlCanvasElement>().ok()?;
    let (w, h) = (canvas.width(), canvas.height());
    if w == 0 || h == 0 {
        return None;
    }
    let c2 = canvas.get_context("2d").ok()??.dyn_into::<web_sys::CanvasRenderingContext2d>().ok()?;
    let data = c2.get_image_data(0.0, 0.0, w as f64, h as f64).ok()?;
    Some((w, h, data.data().0))
}

fn js_text(v: &JsValue) -> String {
    v.as_string().unwrap_or_else(|| format!("{v:?}"))
}

