//! The runqlat-style histogram drawn on a canvas (wasm32 only): one bar per log2 bucket of µs,
//! labelled as runqlat labels its rows ("4 -> 7"), so the PNG reads like the tool's output.

use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use crate::measure_host::LogHist;

/// runqlat's label of bucket `i`: [0, 1) µs is "0 -> 0", then [2^(i-1), 2^i) is "lo -> hi-1".
pub fn bucket_label(i: usize) -> String {
    if i == 0 {
        "0 -> 0".into()
    } else {
        let lo = 1u64 << (i - 1);
        format!("{lo} -> {}", (lo << 1) - 1)
    }
}

pub fn draw(canvas: &HtmlCanvasElement, h: &LogHist) {
    let Some(g) = canvas.get_context("2d").ok().flatten().and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok()) else { return };
    let (w, ht) = (canvas.width() as f64, canvas.height() as f64);
    g.set_fill_style_str("#ffffff");
    g.fill_rect(0.0, 0.0, w, ht);
    let (left, right, top, bottom) = (56.0, 48.0, 28.0, 70.0);
    let n = h.counts.len().max(1);
    let max = h.counts.iter().copied().max().unwrap_or(0).max(1) as f64;
    let total: u64 = h.counts.iter().sum();
    g.set_fill_style_str("#1d232b");
    g.set_font("13px sans-serif");
    let _ = g.fill_text(&format!("{}: wakeup latency, {} wakeups (count per bucket of µs)", h.task, total), left, 18.0);
    // Axes and the count scale.
    g.set_stroke_style_str("#8a939e");
    g.begin_path();
    g.move_to(left, top);
    g.line_to(left, ht - bottom);
    g.line_to(w - right, ht - bottom);
    g.stroke();
    g.set_font("11px sans-serif");
    for k in 0..=4 {
        let v = max * k as f64 / 4.0;
        let y = ht - bottom - (ht - bottom - top) * k as f64 / 4.0;
        let _ = g.fill_text(&format!("{v:.0}"), 4.0, y + 4.0);
    }
    let slot = (w - left - right) / n as f64;
    for (i, &c) in h.counts.iter().enumerate() {
        // A bucket with any sample stays visible next to one with thousands.
        let bh = if c == 0 { 0.0 } else { ((ht - bottom - top) * c as f64 / max).max(2.0) };
        let x = left + slot * i as f64;
        g.set_fill_style_str("#0072b2");
        g.fill_rect(x + slot * 0.12, ht - bottom - bh, slot * 0.76, bh);
        // Bucket labels, turned so that wide ranges still fit under narrow bars.
        g.save();
        let _ = g.translate(x + slot * 0.5, ht - bottom + 6.0);
        let _ = g.rotate(std::f64::consts::FRAC_PI_4);
        g.set_fill_style_str("#1d232b");
        let _ = g.fill_text(&bucket_label(i), 0.0, 4.0);
        g.restore();
    }
}
