//! One task's keys over time (the "inside the scheduler" key chart): vruntime relative to its
//! runqueue's min_vruntime, and under EEVDF its lag and deadline relative to V. The worker
//! samples them at every instant while the chart is open and sends at most ~1200 points; this
//! draws them as SVG polylines.

use std::rc::Rc;

use yew::prelude::*;

use crate::draw::format;
use crate::wire::insight::Chart;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub chart: Rc<Chart>,
    pub name: String,
    pub view_ns: u64,
}

/// One sample as the worker sends it: (at_ns, vruntime_rel, lag, deadline_rel, on_rq).
type Sample = (u64, i64, i64, i64, bool);
type Series = (&'static str, &'static str, fn(&Sample) -> i64);

const W: f64 = 720.0;
const H: f64 = 200.0;
const PAD: f64 = 36.0;

#[function_component(KeyChart)]
pub fn key_chart(p: &Props) -> Html {
    let c = &*p.chart;
    if c.samples.len() < 2 {
        return html! { <p class="status" id="chart-empty">{ "not enough samples yet: step or play" }</p> };
    }
    let t0 = c.samples.first().map_or(0, |s| s.0);
    let t1 = c.samples.last().map_or(1, |s| s.0).max(p.view_ns).max(t0 + 1);
    let series: Vec<Series> = if c.eevdf {
        vec![
            ("vruntime − min_vruntime", "s-vr", |s| s.1),
            ("lag (V − vruntime)", "s-lag", |s| s.2),
            ("deadline − V", "s-dl", |s| s.3),
        ]
    } else {
        vec![("vruntime − min_vruntime", "s-vr", |s| s.1)]
    };
    let (mut lo, mut hi) = (0i64, 0i64);
    for s in &c.samples {
        for (_, _, f) in &series {
            lo = lo.min(f(s));
            hi = hi.max(f(s));
        }
    }
    let span = ((hi - lo) as f64).max(1e5);
    let x = |t: u64| PAD + t.saturating_sub(t0) as f64 / (t1 - t0) as f64 * (W - PAD - 8.0);
    let y = |v: i64| 8.0 + (hi - v) as f64 / span * (H - 28.0);
    let cursor = x(p.view_ns.clamp(t0, t1));
    html! {
        <figure class="keychart" data-samples={c.samples.len().to_string()}>
            <figcaption>{ format!("{}: keys over time, ms (sampled at each event from {})", p.name, format::fmt_time(c.from_ns)) }</figcaption>
            <svg width={W.to_string()} height={H.to_string()} viewBox={format!("0 0 {W} {H}")}>
                <line class="axis" x1={PAD.to_string()} x2={(W - 8.0).to_string()} y1={y(0).to_string()} y2={y(0).to_string()} />
                <text class="tick" x="2" y={(y(hi) + 4.0).to_string()}>{ format!("{:.2}", hi as f64 / 1e6) }</text>
                <text class="tick" x="2" y={(y(lo) + 4.0).to_string()}>{ format!("{:.2}", lo as f64 / 1e6) }</text>
                <text class="tick" x={PAD.to_string()} y={(H - 4.0).to_string()}>{ format::fmt_time(t0) }</text>
                <text class="tick end" x={(W - 8.0).to_string()} y={(H - 4.0).to_string()}>{ format::fmt_time(t1) }</text>
                { for series.iter().map(|(_, class, f)| {
                    // A step line: a key holds its value until the next sample.
                    let mut pts = String::new();
                    let mut prev: Option<f64> = None;
                    for s in &c.samples {
                        let (px, py) = (x(s.0), y(f(s)));
                        if let Some(yp) = prev {
                            pts += &format!("{px:.1},{yp:.1} ");
                        }
                        pts += &format!("{px:.1},{py:.1} ");
                        prev = Some(py);
                    }
                    html! { <polyline class={classes!("series", *class)} points={pts} /> }
                }) }
                <line class="cursor" x1={cursor.to_string()} x2={cursor.to_string()} y1="0" y2={(H - 16.0).to_string()} />
            </svg>
            <p class="legend">
                { for series.iter().map(|(label, class, _)| html! { <span class={classes!("key", *class)}>{ *label }</span> }) }
            </p>
        </figure>
    }
}
