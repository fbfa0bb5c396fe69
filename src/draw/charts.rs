//! Charts drawn with plotters on a canvas (wasm32 only): histograms (one run's, or A and B
//! overlaid) and a sweep's percentiles against the swept value. Pure drawing: the figures
//! come from the worker; a chart that cannot be drawn (no 2D context) leaves the canvas blank
//! and the same numbers stay on the page as tables.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters_canvas::CanvasBackend;
use web_sys::HtmlCanvasElement;

/// Colour-blind-safe pair (Okabe–Ito blue and vermillion) for A and B, then more series.
pub const SERIES: [RGBColor; 6] =
    [RGBColor(0, 114, 178), RGBColor(213, 94, 0), RGBColor(0, 158, 115), RGBColor(204, 121, 167), RGBColor(86, 180, 233), RGBColor(0, 0, 0)];

/// Presenter mode enlarges the page's type by 140 %; a chart's text, drawn in canvas pixels,
/// follows it so a projector's back row reads the axes too.
fn type_scale() -> f64 {
    let present = web_sys::window().and_then(|w| w.document()).and_then(|d| d.body()).is_some_and(|b| b.class_name().split(' ').any(|c| c == "present"));
    if present {
        1.4
    } else {
        1.0
    }
}

/// Font size `px` at the page's scale.
fn px(px: f64, k: f64) -> u32 {
    (px * k).round() as u32
}

/// Give `canvas` the width its row leaves it (the row's width less that of the siblings beside
/// it, as a table of percentiles beside a histogram; siblings above or below take none), between
/// 480 and 1600 px: a chart takes a projector's width instead of the size it was written with.
fn fit_width(canvas: &HtmlCanvasElement) {
    use wasm_bindgen::JsCast;
    let Some(row) = canvas.parent_element() else { return };
    let (top, bottom) = (canvas.offset_top(), canvas.offset_top() + canvas.offset_height());
    let mut others = 0;
    let kids = row.children();
    for i in 0..kids.length() {
        let Some(k) = kids.item(i).and_then(|k| k.dyn_into::<web_sys::HtmlElement>().ok()) else { continue };
        let beside = k.offset_top() < bottom && k.offset_top() + k.offset_height() > top;
        if beside && k.get_attribute("id") != canvas.get_attribute("id") {
            others += k.client_width() + 16;
        }
    }
    let avail = row.client_width() - others;
    if avail > 0 {
        let w = (avail as u32).clamp(480, 1600);
        if w != canvas.width() {
            canvas.set_width(w);
        }
    }
}

fn area(canvas: &HtmlCanvasElement) -> Option<DrawingArea<CanvasBackend, Shift>> {
    fit_width(canvas);
    let root = CanvasBackend::with_canvas_object(canvas.clone())?.into_drawing_area();
    root.fill(&WHITE).ok()?;
    Some(root)
}

/// Bars per bucket, one series per (name, counts); two series are drawn half-transparent on
/// top of each other, so where A and B differ shows as a single colour. With `log_y` the count
/// axis is logarithmic (a bucket of 3 next to one of 190 000 stays readable).
pub fn draw_hist(canvas: &HtmlCanvasElement, title: &str, labels: &[String], series: &[(&str, &[u64])], log_y: bool) {
    let _ = try_hist(canvas, title, labels, series, log_y);
}

fn try_hist(canvas: &HtmlCanvasElement, title: &str, labels: &[String], series: &[(&str, &[u64])], log_y: bool) -> Option<()> {
    let root = area(canvas)?;
    let k = type_scale();
    let n = labels.len().max(series.iter().map(|s| s.1.len()).max().unwrap_or(0)).max(1);
    let top = series.iter().flat_map(|s| s.1.iter().copied()).max().unwrap_or(0).max(1) as f64;
    // On a log axis the bars stand on 0.5 (10^-0.3), so a bucket of one sample shows.
    let y: fn(f64) -> f64 = if log_y { f64::log10 } else { |v| v };
    // Two series overlaid carry a legend in the upper right: headroom keeps it off the bars.
    let room = if series.len() > 1 { 1.3 } else { 1.08 };
    let (floor, y_top) = if log_y { (-0.3, top.log10() + if series.len() > 1 { 0.5 } else { 0.15 }) } else { (0.0, top * room) };
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", px(15.0, k)))
        .margin(8)
        // Room for the bucket labels written downwards from under the axis ("4096 -> 8191" is
        // about 75 px of 11 px type) and the axis title below them.
        .x_label_area_size(px(100.0, k))
        .y_label_area_size(px(64.0, k))
        .build_cartesian_2d(0f64..n as f64, floor..y_top)
        .ok()?;
    // At most about 24 bucket labels, under whole buckets.
    let every = n.div_ceil(24).max(1);
    let count = |v: &f64| super::format::count_tick(*v, log_y);
    chart
        .configure_mesh()
        .disable_x_mesh()
        .max_light_lines(0)
        .x_labels(n * 2 + 1)
        .x_label_formatter(&|_: &f64| String::new())
        .y_label_formatter(&count)
        .y_labels(if log_y { ((y_top - floor) * 4.0).ceil() as usize + 1 } else { 6 })
        .y_label_style(("sans-serif", px(11.0, k)))
        .axis_desc_style(("sans-serif", px(12.0, k)))
        .x_desc("bucket (µs)")
        .y_desc(if log_y { "samples (log scale)" } else { "samples" })
        .draw()
        .ok()?;
    // The bucket labels, written downwards from just under the axis. Plotters' own x labels
    // are centred on their tick whatever their style says, so a label turned a quarter stood
    // half above the axis, over the bars.
    let down = ("sans-serif", px(11.0, k)).into_font().transform(FontTransform::Rotate90).into_text_style(&root).pos(Pos::new(HPos::Left, VPos::Center));
    for (i, l) in labels.iter().enumerate().step_by(every) {
        let (x, y) = chart.backend_coord(&(i as f64 + 0.5, floor));
        root.draw_text(l, &down, (x, y + px(8.0, k) as i32)).ok()?;
    }
    let alpha = if series.len() > 1 { 0.5 } else { 0.9 };
    for (k, (name, counts)) in series.iter().enumerate() {
        let c = SERIES[k % SERIES.len()];
        let bars = counts.iter().enumerate().filter(|(_, &v)| v > 0).map(move |(i, &v)| {
            // A bucket with any sample stays visible beside one with thousands.
            let h = y(v as f64).max(floor + (y_top - floor) * 0.008);
            Rectangle::new([(i as f64 + 0.12, floor), (i as f64 + 0.88, h)], c.mix(alpha).filled())
        });
        chart.draw_series(bars).ok()?.label(*name).legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], c.mix(alpha).filled()));
    }
    if series.len() > 1 {
        chart.configure_series_labels().position(SeriesLabelPosition::UpperRight).background_style(WHITE.mix(0.85)).border_style(BLACK).draw().ok()?;
    }
    root.present().ok()
}

/// Lines of `series` (name, one value per x, None where the point has no samples) against
/// `xs`, in the order the sweep ran them (a category axis: values may be text, as policies).
pub fn draw_lines(canvas: &HtmlCanvasElement, title: &str, x_desc: &str, y_desc: &str, xs: &[String], series: &[(String, Vec<Option<f64>>)]) {
    let _ = try_lines(canvas, title, x_desc, y_desc, xs, series);
}

fn try_lines(canvas: &HtmlCanvasElement, title: &str, x_desc: &str, y_desc: &str, xs: &[String], series: &[(String, Vec<Option<f64>>)]) -> Option<()> {
    let root = area(canvas)?;
    let k = type_scale();
    let n = xs.len().max(1);
    let top = series.iter().flat_map(|s| s.1.iter().flatten().copied()).fold(0f64, f64::max);
    let top = if top > 0.0 { top * 1.08 } else { 1.0 };
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", px(15.0, k)))
        .margin(10)
        .x_label_area_size(px(40.0, k))
        .y_label_area_size(px(64.0, k))
        .build_cartesian_2d(-0.5f64..n as f64 - 0.5, 0f64..top)
        .ok()?;
    // About 20 labels at most, on whole points.
    let every = n.div_ceil(20).max(1);
    let label = |x: &f64| {
        let i = x.round();
        if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize).is_multiple_of(every) { xs.get(i as usize).cloned().unwrap_or_default() } else { String::new() }
    };
    chart
        .configure_mesh()
        .x_labels(n.min(200) * 2 + 1)
        .max_light_lines(0)
        .x_label_formatter(&label)
        .label_style(("sans-serif", px(12.0, k)))
        .axis_desc_style(("sans-serif", px(12.0, k)))
        .x_desc(x_desc)
        .y_desc(y_desc)
        .draw()
        .ok()?;
    for (k, (name, ys)) in series.iter().enumerate() {
        let c = SERIES[k % SERIES.len()];
        // A point without samples breaks the line rather than dropping it to zero.
        let mut runs: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
        for (i, y) in ys.iter().enumerate() {
            match y {
                Some(y) => runs.last_mut()?.push((i as f64, *y)),
                None if !runs.last()?.is_empty() => runs.push(Vec::new()),
                None => {}
            }
        }
        for run in &runs {
            chart.draw_series(LineSeries::new(run.iter().copied(), c.stroke_width(2))).ok()?;
        }
        chart
            .draw_series(runs.iter().flatten().map(|&p| Circle::new(p, 3, c.filled())))
            .ok()?
            .label(name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2)));
    }
    chart.configure_series_labels().position(SeriesLabelPosition::UpperRight).background_style(WHITE.mix(0.85)).border_style(BLACK).draw().ok()?;
    root.present().ok()
}
