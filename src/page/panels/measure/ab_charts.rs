//! What an A/B comparison shows besides its tables (wasm32 only): one entity's
//! wakeup-latency histogram under A and B overlaid, and the two runs' timelines one above the
//! other on the same time axis. Zooming (wheel) or panning (drag) either moves both; the
//! cursor line stands at the same instant on both, and what ran there under A and under B is
//! written underneath, so "B's waker ran here, A's waited" can be read off directly.

use std::rc::Rc;

use wasm_bindgen::{Clamped, JsCast};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, HtmlSelectElement, ImageData};
use yew::prelude::*;

use crate::draw::format;
use crate::draw::lod::{Col, Store};
use crate::draw::raster::{draw_lane, LaneGeom};
use crate::wire::ab::{AbTable, AbTraces};
use crate::wire::measure::log2_label;
use crate::wire::proto::NONE;

#[derive(Properties)]
pub struct Props {
    pub ab: Rc<AbTable>,
}

impl PartialEq for Props {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.ab, &other.ab)
    }
}

pub enum Msg {
    Entity(String),
    LogY(bool),
    Wheel(f64, f64),
    Down(f64),
    Move(f64),
    Up,
    Leave,
    Reset,
    /// Zoom both timelines onto the first decision where A and B part.
    ToDivergence,
    Png(&'static str),
}

pub struct AbCharts {
    entity: Option<String>,
    log_y: bool,
    /// The histogram needs drawing again (its set or scale changed); hovering the timelines
    /// redraws them, not it.
    hist_dirty: bool,
    stores: Option<(Store, Store)>,
    /// The window shown: (start, span) in ns.
    win: (f64, f64),
    drag: Option<(f64, f64)>,
    cursor: Option<f64>,
    /// The first decision where A and B part (ns), marked on both timelines.
    divergence: Option<f64>,
    hist: NodeRef,
    canvas_a: NodeRef,
    canvas_b: NodeRef,
    cols: Vec<Col>,
    img: Vec<u8>,
}

const GUTTER: f64 = 64.0;
const AXIS: f64 = 18.0;
const WIDTH: f64 = 760.0;

fn stores(t: &AbTraces) -> (Store, Store) {
    let mut a = Store::new(t.cpus_a as usize);
    t.a.iter().for_each(|s| a.push(s));
    let mut b = Store::new(t.cpus_b as usize);
    t.b.iter().for_each(|s| b.push(s));
    (a, b)
}

fn lane_h(cpus: u32) -> f64 {
    (160.0 / cpus.max(1) as f64).clamp(3.0, 22.0).floor()
}

impl AbCharts {
    fn entity_now(&self, t: &AbTable) -> Option<String> {
        let e = self.entity.as_ref().filter(|e| t.hists.iter().any(|h| &h.name == *e));
        e.cloned().or_else(|| t.focus.clone()).or_else(|| t.hists.first().map(|h| h.name.clone()))
    }

    fn draw_hist(&self, t: &AbTable) {
        let (Some(c), Some(name)) = (self.hist.cast::<HtmlCanvasElement>(), self.entity_now(t)) else { return };
        let Some(h) = t.hists.iter().find(|h| h.name == name) else { return };
        let n = h.a.len().max(h.b.len());
        let labels: Vec<String> = (0..n).map(log2_label).collect();
        let (na, nb) = (h.a.iter().sum::<u64>(), h.b.iter().sum::<u64>());
        let (la, lb) = t.labels();
        let title = format!("{name}: wakeup latency, {la} {na} and {lb} {nb} wakeups");
        crate::draw::charts::draw_hist(&c, &title, &labels, &[(la, &h.a), (lb, &h.b)], self.log_y);
    }

    fn draw_lanes(&mut self, canvas: &HtmlCanvasElement, which: usize, label: &str, t: &AbTraces) {
        let Some((sa, sb)) = &self.stores else { return };
        let (store, cpus) = if which == 0 { (sa, t.cpus_a) } else { (sb, t.cpus_b) };
        let lh = lane_h(cpus);
        let h = AXIS + lh * cpus as f64;
        canvas.set_width(WIDTH as u32);
        canvas.set_height(h as u32);
        let Some(g) = canvas.get_context("2d").ok().flatten().and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok()) else { return };
        let pw = (WIDTH - GUTTER) as usize;
        let ph = lh as usize * cpus as usize;
        self.img.clear();
        self.img.resize(pw * ph.max(1) * 4, 255);
        let npp = self.win.1 / pw as f64;
        let gap = usize::from(lh >= 8.0);
        for lane in 0..cpus as usize {
            store.columns(lane, self.win.0, npp, pw, None, &mut self.cols);
            draw_lane(&mut self.img, pw, 0, &LaneGeom { y: lane * lh as usize + gap, h: lh as usize - gap }, &self.cols, None, usize::MAX);
        }
        g.set_fill_style_str("#ffffff");
        g.fill_rect(0.0, 0.0, WIDTH, h);
        if let Ok(data) = ImageData::new_with_u8_clamped_array_and_sh(Clamped(&self.img), pw as u32, ph.max(1) as u32) {
            let _ = g.put_image_data(&data, GUTTER, AXIS);
        }
        g.set_fill_style_str("#1d232b");
        g.set_font("bold 12px sans-serif");
        let _ = g.fill_text(label, 4.0, 13.0);
        g.set_font("10px sans-serif");
        let every = (12.0 / lh).ceil().max(1.0) as usize;
        for lane in (0..cpus as usize).step_by(every) {
            let _ = g.fill_text(&format!("CPU {lane}"), 4.0, AXIS + lh * (lane as f64 + 0.5) + 3.0);
        }
        let step = format::nice_step(npp * 90.0);
        let mut x = (self.win.0 / step).ceil() * step;
        while x < self.win.0 + self.win.1 {
            let px = GUTTER + (x - self.win.0) / npp;
            let _ = g.fill_text(&format::fmt_time(x as u64), px + 2.0, 12.0);
            g.fill_rect(px, AXIS - 4.0, 1.0, 4.0);
            x += step;
        }
        if let Some(at) = self.divergence {
            // Where the two runs first decide differently: a dashed dark line on both.
            let px = GUTTER + (at - self.win.0) / npp;
            if px >= GUTTER && px <= WIDTH {
                g.set_fill_style_str("#1d232b");
                let mut y = AXIS;
                while y < h {
                    g.fill_rect(px - 1.0, y, 2.0, 4.0);
                    y += 7.0;
                }
            }
        }
        if let Some(c) = self.cursor {
            let px = GUTTER + (c - self.win.0) / npp;
            g.set_fill_style_str("#c0392b");
            g.fill_rect(px - 0.5, AXIS, 1.5, h - AXIS);
        }
    }
}

/// The time of the first decision at which A and B part, if the worker found one.
fn first_divergence(t: &AbTable) -> Option<f64> {
    t.why.as_ref().and_then(|w| w.divergences.first()).map(|d| d.0 as f64)
}

/// The pointer's x in the canvas's own pixels (the page may show it narrower, max-width 100%).
fn x_of(e: &MouseEvent) -> f64 {
    let shown = e.target().and_then(|t| t.dyn_into::<HtmlCanvasElement>().ok()).map_or(WIDTH, |c| c.client_width().max(1) as f64);
    e.offset_x() as f64 * WIDTH / shown
}

impl AbCharts {
    /// The time under pixel `x` of a timeline canvas.
    fn time_at(&self, x: f64) -> f64 {
        self.win.0 + (x - GUTTER).max(0.0) * self.win.1 / (WIDTH - GUTTER)
    }

    /// What ran on each CPU at the cursor, under A and under B.
    fn at_cursor(&self, t: &AbTraces) -> Option<(String, String)> {
        let c = self.cursor?;
        let (sa, sb) = self.stores.as_ref()?;
        let say = |s: &Store, names: &[String]| {
            (0..s.lanes.len())
                .map(|l| match s.slice_at(l, c as u64) {
                    Some(i) => {
                        let task = s.lanes[l].task[i];
                        let name = if task == NONE { "idle".into() } else { names.get(task as usize).cloned().unwrap_or_else(|| format!("task {task}")) };
                        format!("CPU {l}: {name}")
                    }
                    None => format!("CPU {l}: idle"),
                })
                .collect::<Vec<_>>()
                .join(" · ")
        };
        Some((say(sa, &t.tasks_a), say(sb, &t.tasks_b)))
    }
}

impl Component for AbCharts {
    type Message = Msg;
    type Properties = Props;

    fn create(ctx: &Context<Self>) -> Self {
        let span = ctx.props().ab.traces.as_ref().map_or(1.0, |t| t.duration_ns.max(1) as f64);
        AbCharts {
            entity: None,
            log_y: true,
            hist_dirty: true,
            stores: None,
            win: (0.0, span),
            drag: None,
            cursor: None,
            divergence: first_divergence(&ctx.props().ab),
            hist: NodeRef::default(),
            canvas_a: NodeRef::default(),
            canvas_b: NodeRef::default(),
            cols: Vec::new(),
            img: Vec::new(),
        }
    }

    fn changed(&mut self, ctx: &Context<Self>, _old: &Props) -> bool {
        self.stores = None;
        self.cursor = None;
        self.divergence = first_divergence(&ctx.props().ab);
        self.hist_dirty = true;
        self.win = (0.0, ctx.props().ab.traces.as_ref().map_or(1.0, |t| t.duration_ns.max(1) as f64));
        true
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        let d = ctx.props().ab.traces.as_ref().map_or(1.0, |t| t.duration_ns.max(1) as f64);
        match msg {
            Msg::Entity(e) => {
                self.entity = Some(e);
                self.hist_dirty = true;
            }
            Msg::LogY(on) => {
                self.log_y = on;
                self.hist_dirty = true;
            }
            Msg::Wheel(x, dy) => {
                // Zoom around the instant under the pointer, on both timelines at once.
                let at = self.time_at(x);
                let k = if dy > 0.0 { 1.25 } else { 0.8 };
                let span = (self.win.1 * k).clamp(10_000.0, d);
                let t0 = (at - (at - self.win.0) * span / self.win.1).clamp(0.0, d - span);
                self.win = (t0, span);
            }
            Msg::Down(x) => self.drag = Some((x, self.win.0)),
            Msg::Move(x) => {
                if let Some((x0, t0)) = self.drag {
                    let dt = (x - x0) * self.win.1 / (WIDTH - GUTTER);
                    self.win.0 = (t0 - dt).clamp(0.0, (d - self.win.1).max(0.0));
                }
                self.cursor = (x >= GUTTER).then(|| self.time_at(x));
            }
            Msg::Up => self.drag = None,
            Msg::Leave => {
                self.drag = None;
                self.cursor = None;
            }
            Msg::Reset => self.win = (0.0, d),
            Msg::ToDivergence => {
                if let Some(at) = first_divergence(&ctx.props().ab) {
                    // A window of a fiftieth of the run (at least 2 ms), the divergence a fifth in.
                    let span = (d / 50.0).max(2e6).min(d);
                    self.win = ((at - span * 0.2).max(0.0).min(d - span), span);
                }
            }
            Msg::Png(which) => {
                let r = match which {
                    "hist" => &self.hist,
                    "a" => &self.canvas_a,
                    _ => &self.canvas_b,
                };
                // A failed download leaves the page as it is; the figures stay on screen.
                let _ = crate::page::export_web::save_canvas_png(r, &format!("ab-{which}.png"));
                return false;
            }
        }
        true
    }

    fn rendered(&mut self, ctx: &Context<Self>, _first: bool) {
        let ab = ctx.props().ab.clone();
        if self.hist_dirty {
            self.draw_hist(&ab);
            self.hist_dirty = false;
        }
        let Some(t) = &ab.traces else { return };
        if self.stores.is_none() {
            self.stores = Some(stores(t));
        }
        let (la, lb) = ab.labels();
        for (i, (r, label)) in [(self.canvas_a.clone(), la), (self.canvas_b.clone(), lb)].into_iter().enumerate() {
            if let Some(c) = r.cast::<HtmlCanvasElement>() {
                self.draw_lanes(&c, i, label, t);
            }
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let ab = &ctx.props().ab;
        let entity = self.entity_now(ab);
        let (la, lb) = ab.labels();
        // Two of these can be on the page (an A/B, and the real run beside the model).
        let pre = if ab.real.is_some() { "real-" } else { "ab-" };
        let id = |s: &str| format!("{pre}{s}");
        let wheel = link.callback(move |e: WheelEvent| {
            e.prevent_default();
            Msg::Wheel(x_of(&e), e.delta_y())
        });
        let down = link.callback(move |e: MouseEvent| Msg::Down(x_of(&e)));
        let mv = link.callback(move |e: MouseEvent| Msg::Move(x_of(&e)));
        let up = link.callback(|_: MouseEvent| Msg::Up);
        let leave = link.callback(|_: MouseEvent| Msg::Leave);
        let lane = |r: &NodeRef, id: &str, aria: &str| html! {
            <canvas id={id.to_string()} class="ab-lanes" ref={r.clone()} aria-label={aria.to_string()}
                onwheel={wheel.clone()} onmousedown={down.clone()} onmousemove={mv.clone()} onmouseup={up.clone()} onmouseleave={leave.clone()} />
        };
        html! {
            <div id={id("charts")} class="ab-charts">
                <h5>{ format!("Histograms, {la} and {lb} overlaid") }</h5>
                <div class="ab-choose">
                    <label for={id("hist-entity")}>{ "Of" }</label>
                    <select id={id("hist-entity")} onchange={link.callback(|e: Event| Msg::Entity(e.target_unchecked_into::<HtmlSelectElement>().value()))}>
                        { for ab.hists.iter().map(|h| html! { <option selected={Some(&h.name) == entity.as_ref()} value={h.name.clone()}>{ &h.name }</option> }) }
                    </select>
                    <label><input id={id("hist-log")} type="checkbox" checked={self.log_y}
                        onchange={link.callback(|e: Event| Msg::LogY(e.target_unchecked_into::<web_sys::HtmlInputElement>().checked()))} />{ " log scale" }</label>
                    <button id={format!("btn-{pre}hist-png")} class="small" onclick={link.callback(|_| Msg::Png("hist"))}>{ "PNG" }</button>
                </div>
                <canvas id={id("hist-canvas")} ref={self.hist.clone()} width="760" height="300" data-entity={entity.clone().unwrap_or_default()}
                    aria-label={format!("Wakeup-latency histograms of {la} and {lb}, overlaid")} />
                <h5>{ format!("Timelines, {la} above {lb}") }</h5>
                if let Some(t) = &ab.traces {
                    <p class="hint">{ "Wheel to zoom, drag to pan: both move together. " }
                        <button id={format!("btn-{pre}reset")} class="ghost small" onclick={link.callback(|_| Msg::Reset)}>{ "Whole run" }</button>
                        if let Some(at) = self.divergence {
                            { " " }
                            <button id="btn-ab-divergence" class="ghost small" data-at-ns={format!("{at:.0}")}
                                title="Zoom both timelines onto the first decision where A and B part (the dashed dark line)"
                                onclick={link.callback(|_| Msg::ToDivergence)}>{ format!("First divergence, at {}", format::fmt_time(at as u64)) }</button>
                        }
                        <button id={format!("btn-{pre}lanes-png")} class="ghost small" onclick={link.callback(|_| Msg::Png("a"))}>{ format!("PNG of {la}") }</button>
                        <button class="ghost small" onclick={link.callback(|_| Msg::Png("b"))}>{ format!("PNG of {lb}") }</button>
                        { format!(" {} from {}", format::fmt_time(self.win.1 as u64), format::fmt_time(self.win.0 as u64)) }</p>
                    { lane(&self.canvas_a, &id("lanes-a"), &format!("Timeline of {la}")) }
                    { lane(&self.canvas_b, &id("lanes-b"), &format!("Timeline of {lb}")) }
                    <p id={id("cursor")} class="hint" data-slices-a={t.a.len().to_string()} data-slices-b={t.b.len().to_string()}>
                        if let Some((a, b)) = self.at_cursor(t) {
                            { format!("At {}: ", format::fmt_time(self.cursor.unwrap_or(0.0) as u64)) }<br />
                            { format!("{la} — {a}") }<br />{ format!("{lb} — {b}") }
                        } else {
                            { format!("Point at a timeline to see what ran at that instant under {la} and under {lb}.") }
                        }
                    </p>
                } else {
                    <p class="hint">{ "These runs are too long to send both timelines to the page; shorten duration_ms to see them side by side." }</p>
                }
            </div>
        }
    }
}
