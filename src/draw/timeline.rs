//! The per-CPU timeline: a canvas with one lane per CPU, drawn from `lod` columns into one
//! image per frame. Wheel zooms at the cursor (Shift+wheel pans), drag pans, hover shows the
//! slice, click selects its task. The visible window belongs to the page (keys move it too).

use std::cell::RefCell;
use std::rc::Rc;

use gloo::events::{EventListener, EventListenerOptions};
use wasm_bindgen::{Clamped, JsCast};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ImageData, MouseEvent, WheelEvent};
use yew::prelude::*;

use crate::draw::format;
use crate::draw::lod::{Col, Store};
use crate::draw::raster::{draw_lane, LaneGeom};
use crate::wire::proto::{start_why_text, stop_why_text, RunInfo, NONE};

pub const GUTTER: f64 = 64.0;
pub const AXIS: f64 = 20.0;

/// The page's slice store, shared with the timeline (compared by identity).
#[derive(Clone)]
pub struct StoreRef(pub Rc<RefCell<Store>>);

impl PartialEq for StoreRef {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub store: StoreRef,
    /// Bumped whenever the store changes.
    pub version: u64,
    pub info: Rc<RunInfo>,
    pub view_ns: u64,
    /// Per CPU: running task, since, why.
    pub running: Rc<Vec<(u32, u64, u8)>>,
    pub selected: Option<u32>,
    /// Visible window: first ns and span in ns.
    pub win: (f64, f64),
    pub on_window: Callback<(f64, f64)>,
    pub on_select: Callback<Option<u32>>,
    /// A click on a lane at a time (CPU, ns): "why did this run?" (inside the scheduler).
    #[prop_or_default]
    pub on_pick: Callback<(u32, u64)>,
    /// A CPU lane a lesson step points at: outlined.
    #[prop_or_default]
    pub lane_mark: Option<u32>,
    /// Presenter mode: taller lanes and larger labels, to be read from afar.
    #[prop_or_default]
    pub big: bool,
}

/// The lane height for these props (presenter mode allows lanes up to 90 px).
fn lane_h_of(p: &Props) -> f64 {
    let h = lane_height(p.info.cpus, lanes_avail());
    if p.big {
        (lanes_avail() / p.info.cpus.max(1) as f64).floor().clamp(h, 90.0)
    } else {
        h
    }
}

pub enum Msg {
    Down(MouseEvent),
    Move(MouseEvent),
    Up(MouseEvent),
    Leave,
    Wheel(WheelEvent),
    Resize,
}

struct Hover {
    x: f64,
    y: f64,
    lines: Vec<String>,
    task: u32,
}

pub struct Timeline {
    canvas: NodeRef,
    drag: Option<(f64, f64, bool)>,
    hover: Option<Hover>,
    dirty: bool,
    cols: Vec<Col>,
    /// (lane, first column, width, task) of the stretches wide enough to name.
    runs: Vec<(usize, usize, usize, u32)>,
    img: Vec<u8>,
    /// Where the lanes' image is put before it is scaled onto a HiDPI canvas.
    off: Option<HtmlCanvasElement>,
    /// The wheel listener and the canvas it is on (attached again if the canvas is new).
    _wheel: Option<(EventListener, HtmlCanvasElement)>,
    _resize: Option<EventListener>,
}

/// Lane height in CSS pixels for `cpus` lanes sharing `avail` pixels: big lanes for few CPUs,
/// at least 3 px for many (a projector's taller window gets taller lanes).
pub fn lane_height(cpus: u32, avail: f64) -> f64 {
    (avail / cpus.max(1) as f64).floor().clamp(3.0, 36.0)
}

/// Height the lanes may share: under half the window, so the transport and the table stay in
/// view.
fn lanes_avail() -> f64 {
    let h = web_sys::window().and_then(|w| w.inner_height().ok()).and_then(|v| v.as_f64()).unwrap_or(800.0);
    (h * 0.45).clamp(160.0, 900.0)
}

fn device_ratio() -> f64 {
    web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).clamp(1.0, 3.0)
}

impl Timeline {
    fn geometry(&self, ctx: &Context<Self>) -> Option<(HtmlCanvasElement, f64, f64, f64)> {
        let canvas = self.canvas.cast::<HtmlCanvasElement>()?;
        let w = canvas.client_width().max(200) as f64;
        let plot_w = (w - GUTTER).max(10.0);
        let (_, span) = ctx.props().win;
        Some((canvas, w, plot_w, span / plot_w))
    }

    /// What is under the pointer: (lane, time).
    fn locate(&self, ctx: &Context<Self>, x: f64, y: f64) -> Option<(usize, f64)> {
        let p = ctx.props();
        let (_, _, _, npp) = self.geometry(ctx)?;
        if x < GUTTER || y < AXIS {
            return None;
        }
        let lane = ((y - AXIS) / lane_h_of(p)) as usize;
        (lane < p.info.cpus as usize).then(|| (lane, p.win.0 + (x - GUTTER) * npp))
    }

    fn describe(&self, ctx: &Context<Self>, lane: usize, t: f64) -> Option<(u32, Vec<String>)> {
        let p = ctx.props();
        if t < 0.0 || t as u64 > p.view_ns {
            return None;
        }
        let t = t as u64;
        let name = |i: u32| p.info.tasks.get(i as usize).map_or_else(|| format!("task {i}"), |x| x.name.clone());
        let store = p.store.0.borrow();
        if let Some(i) = store.slice_at(lane, t) {
            let l = &store.lanes[lane];
            let (s, e, why, other) = (l.start[i], l.end[i], l.why[i], l.other[i]);
            let mut stop = stop_why_text(why & 15).to_string();
            if other != NONE {
                stop = format!("{stop} {}", name(other));
            }
            return Some((
                l.task[i],
                vec![
                    format!("{} on CPU {lane}", name(l.task[i])),
                    format!("from {} for {}", format::fmt_time(s), format::fmt_time(e - s)),
                    format!("started: {}", start_why_text(why >> 4)),
                    format!("stopped: {stop}"),
                ],
            ));
        }
        let &(task, since, why) = p.running.get(lane)?;
        (task != NONE && since <= t).then(|| {
            (
                task,
                vec![
                    format!("{} on CPU {lane}", name(task)),
                    format!("from {}, running for {} so far", format::fmt_time(since), format::fmt_time(p.view_ns - since)),
                    format!("started: {}", start_why_text(why)),
                ],
            )
        })
    }

    fn offscreen(&mut self) -> Option<HtmlCanvasElement> {
        if self.off.is_none() {
            let doc = web_sys::window()?.document()?;
            self.off = doc.create_element("canvas").ok()?.dyn_into::<HtmlCanvasElement>().ok();
        }
        self.off.clone()
    }

    fn draw(&mut self, ctx: &Context<Self>) {
        let p = ctx.props();
        let Some((canvas, w, plot_w, npp)) = self.geometry(ctx) else { return };
        let started = js_sys::Date::now();
        let perf = web_sys::window().and_then(|w| w.performance());
        let t_start = perf.as_ref().map_or(started, |p| p.now());
        let cpus = p.info.cpus as usize;
        let lane_h = lane_h_of(p);
        let h = AXIS + lane_h * cpus as f64;
        // The canvas has device pixels (crisp text on HiDPI screens and projectors); drawing is
        // in CSS pixels through a scale, and the lanes' image is scaled up without smoothing.
        let dpr = device_ratio();
        let (dw, dh) = ((w * dpr).round() as u32, (h * dpr).round() as u32);
        if canvas.width() != dw {
            canvas.set_width(dw);
        }
        if canvas.height() != dh {
            canvas.set_height(dh);
        }
        // Only when it changes: a style change makes the browser lay the page out again.
        let style = format!("height: {h}px");
        if canvas.get_attribute("style").as_deref() != Some(style.as_str()) {
            let _ = canvas.set_attribute("style", &style);
        }
        let Some(ctx2d) = canvas
            .get_context("2d")
            .ok()
            .flatten()
            .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
        else {
            return;
        };
        let (pw, ph) = (plot_w as usize, (lane_h as usize) * cpus);
        self.img.clear();
        self.img.resize(pw * ph * 4, 255);
        let gap = if lane_h >= 8.0 { 2 } else if lane_h >= 5.0 { 1 } else { 0 };
        let (t0, span) = p.win;
        self.runs.clear();
        let future_from = if (p.view_ns as f64) < t0 { 0 } else { ((p.view_ns as f64 - t0) / npp).ceil().max(0.0) as usize };
        {
            let store = p.store.0.borrow();
            for lane in 0..cpus {
                let open = p.running.get(lane).and_then(|&(task, since, _)| (task != NONE).then_some((task, since, p.view_ns)));
                store.columns(lane, t0, npp, pw, open, &mut self.cols);
                let g = LaneGeom { y: lane * lane_h as usize + gap, h: lane_h as usize - gap };
                draw_lane(&mut self.img, pw, 0, &g, &self.cols, p.selected, future_from);
                if lane_h >= 12.0 {
                    crate::draw::raster::solo_runs(&self.cols, lane, &mut self.runs);
                }
            }
        }
        let _ = ctx2d.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
        ctx2d.set_fill_style_str("#ffffff");
        ctx2d.fill_rect(0.0, 0.0, w, h);
        if let Ok(data) = ImageData::new_with_u8_clamped_array_and_sh(Clamped(&self.img), pw as u32, ph.max(1) as u32) {
            if dpr == 1.0 {
                let _ = ctx2d.put_image_data(&data, GUTTER, AXIS);
            } else if let Some(off) = self.offscreen() {
                off.set_width(pw as u32);
                off.set_height(ph.max(1) as u32);
                if let Some(octx) = off.get_context("2d").ok().flatten().and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok()) {
                    let _ = octx.put_image_data(&data, 0.0, 0.0);
                    ctx2d.set_image_smoothing_enabled(false);
                    let _ = ctx2d.draw_image_with_html_canvas_element_and_dw_and_dh(&off, GUTTER, AXIS, pw as f64, ph as f64);
                }
            }
        }
        // Task names inside the slices wide enough to hold them, white on a dark edge so they
        // read on every colour of the palette.
        ctx2d.set_font(if p.big { "bold 14px system-ui, sans-serif" } else { "11px system-ui, sans-serif" });
        ctx2d.set_text_align("center");
        ctx2d.set_text_baseline("middle");
        ctx2d.set_line_width(3.0);
        ctx2d.set_stroke_style_str("rgba(0,0,0,0.55)");
        ctx2d.set_fill_style_str("#ffffff");
        for &(lane, x, len, task) in &self.runs {
            let Some(name) = p.info.tasks.get(task as usize).map(|t| t.name.as_str()) else { continue };
            let fits = ctx2d.measure_text(name).map_or(false, |m| m.width() + 8.0 <= len as f64);
            if fits {
                let (cx, cy) = (GUTTER + x as f64 + len as f64 / 2.0, AXIS + lane_h * (lane as f64 + 0.5));
                let _ = ctx2d.stroke_text(name, cx, cy);
                let _ = ctx2d.fill_text(name, cx, cy);
            }
        }
        // Lane labels.
        ctx2d.set_fill_style_str("#3a4450");
        ctx2d.set_font(if p.big { "bold 15px system-ui, sans-serif" } else { "11px system-ui, sans-serif" });
        ctx2d.set_text_align("right");
        ctx2d.set_text_baseline("middle");
        let every = (12.0 / lane_h).ceil().max(1.0) as usize;
        for lane in (0..cpus).step_by(every) {
            let _ = ctx2d.fill_text(&format!("CPU {lane}"), GUTTER - 6.0, AXIS + lane_h * (lane as f64 + 0.5));
        }
        // Time axis.
        let step = format::nice_step(npp * 90.0);
        ctx2d.set_text_align("left");
        ctx2d.set_stroke_style_str("#9aa3ad");
        ctx2d.set_line_width(1.0);
        let first = (t0 / step).ceil() * step;
        let mut t = first;
        let mut n = 0;
        while t < t0 + span && n < 200 {
            let x = GUTTER + (t - t0) / npp;
            ctx2d.begin_path();
            ctx2d.move_to(x.floor() + 0.5, AXIS - 5.0);
            ctx2d.line_to(x.floor() + 0.5, AXIS);
            ctx2d.stroke();
            let _ = ctx2d.fill_text(&format::fmt_time(t.max(0.0) as u64), x + 3.0, AXIS / 2.0);
            t += step;
            n += 1;
        }
        if let Some(l) = p.lane_mark.filter(|&l| (l as usize) < cpus) {
            ctx2d.set_stroke_style_str("#f0b400");
            ctx2d.set_line_width(3.0);
            ctx2d.stroke_rect(1.5, AXIS + lane_h * l as f64 + 0.5, w - 3.0, lane_h - 1.0);
        }
        // The current time.
        let xn = GUTTER + (p.view_ns as f64 - t0) / npp;
        if xn >= GUTTER && xn <= w {
            ctx2d.set_stroke_style_str("#c0392b");
            ctx2d.set_line_width(2.0);
            ctx2d.begin_path();
            ctx2d.move_to(xn, 2.0);
            ctx2d.line_to(xn, h);
            ctx2d.stroke();
        }
        let t_end = perf.as_ref().map_or_else(js_sys::Date::now, |p| p.now());
        let _ = canvas.set_attribute("data-draw-ms", &format!("{:.3}", t_end - t_start));
        let _ = canvas.set_attribute("data-slices", &p.store.0.borrow().total().to_string());
        let _ = canvas.set_attribute("data-lane-mark", &p.lane_mark.map_or_else(String::new, |l| l.to_string()));
    }
}

impl Component for Timeline {
    type Message = Msg;
    type Properties = Props;

    fn create(_ctx: &Context<Self>) -> Self {
        Timeline {
            canvas: NodeRef::default(),
            drag: None,
            hover: None,
            dirty: true,
            cols: Vec::new(),
            runs: Vec::new(),
            img: Vec::new(),
            off: None,
            _wheel: None,
            _resize: None,
        }
    }

    fn changed(&mut self, _ctx: &Context<Self>, _old: &Props) -> bool {
        self.dirty = true;
        true
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        let p = ctx.props();
        match msg {
            Msg::Resize => {
                self.dirty = true;
                true
            }
            Msg::Wheel(e) => {
                let Some((_, _, _, npp)) = self.geometry(ctx) else { return false };
                let (t0, span) = p.win;
                let (dx, dy) = (e.delta_x(), e.delta_y());
                if e.shift_key() || dx.abs() > dy.abs() {
                    let d = if dx.abs() > dy.abs() { dx } else { dy };
                    p.on_window.emit((t0 + d * npp, span));
                } else {
                    let x = (e.offset_x() as f64 - GUTTER).max(0.0);
                    let tc = t0 + x * npp;
                    let f = (dy * 0.002).exp();
                    p.on_window.emit((tc - (tc - t0) * f, span * f));
                }
                false
            }
            Msg::Down(e) => {
                if e.button() == 0 {
                    self.drag = Some((e.offset_x() as f64, p.win.0, false));
                }
                false
            }
            Msg::Move(e) => {
                let (x, y) = (e.offset_x() as f64, e.offset_y() as f64);
                if let Some((x0, t0, moved)) = self.drag {
                    if (x - x0).abs() > 3.0 || moved {
                        self.drag = Some((x0, t0, true));
                        if let Some((_, _, _, npp)) = self.geometry(ctx) {
                            p.on_window.emit((t0 - (x - x0) * npp, p.win.1));
                        }
                        self.hover = None;
                        return true;
                    }
                }
                self.hover = self
                    .locate(ctx, x, y)
                    .and_then(|(lane, t)| self.describe(ctx, lane, t))
                    .map(|(task, lines)| Hover { x, y, lines, task });
                true
            }
            Msg::Up(e) => {
                let drag = self.drag.take();
                if matches!(drag, Some((_, _, false))) {
                    let (x, y) = (e.offset_x() as f64, e.offset_y() as f64);
                    let at = self.locate(ctx, x, y);
                    let hit = at.and_then(|(lane, t)| self.describe(ctx, lane, t)).map(|(task, _)| task);
                    if let (Some((lane, t)), Some(_)) = (at, hit) {
                        p.on_pick.emit((lane as u32, t.max(0.0) as u64));
                    }
                    p.on_select.emit(hit);
                }
                false
            }
            Msg::Leave => {
                self.drag = None;
                self.hover = None;
                true
            }
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let p = ctx.props();
        // The tooltip element is always there (hidden when unused), so the canvas beside it is
        // never re-created by a change in the number of children.
        let (style, swatch, lines, hidden) = match &self.hover {
            Some(h) => (
                format!("left: {}px; top: {}px;", h.x + 14.0, h.y + 14.0),
                format!("background: {}", crate::draw::raster::css(crate::draw::raster::task_rgb(h.task))),
                h.lines.clone(),
                false,
            ),
            None => (String::new(), String::new(), Vec::new(), true),
        };
        html! {
            <div class="timeline-wrap">
                <canvas id="timeline" ref={self.canvas.clone()}
                    data-cpus={p.info.cpus.to_string()}
                    aria-label="Per-CPU timeline: one lane per CPU, a colour per task"
                    onmousedown={link.callback(Msg::Down)}
                    onmousemove={link.callback(Msg::Move)}
                    onmouseup={link.callback(Msg::Up)}
                    onmouseleave={link.callback(|_| Msg::Leave)}
                ></canvas>
                <div id={if hidden { "timeline-tooltip-idle" } else { "timeline-tooltip" }} class="tooltip" {style} role="tooltip" {hidden}>
                    <span class="swatch" style={swatch}></span>
                    { for lines.iter().map(|l| html! { <div>{ l }</div> }) }
                </div>
            </div>
        }
    }

    fn rendered(&mut self, ctx: &Context<Self>, first: bool) {
        if let Some(c) = self.canvas.cast::<HtmlCanvasElement>() {
            if self._wheel.as_ref().map_or(true, |(_, on)| on != &c) {
                let link = ctx.link().clone();
                let l = EventListener::new_with_options(&c, "wheel", EventListenerOptions::enable_prevent_default(), move |e| {
                    if let Some(e) = e.dyn_ref::<WheelEvent>() {
                        e.prevent_default();
                        link.send_message(Msg::Wheel(e.clone()));
                    }
                });
                self._wheel = Some((l, c));
            }
        }
        if first {
            if let Some(w) = web_sys::window() {
                let link = ctx.link().clone();
                self._resize = Some(EventListener::new(&w, "resize", move |_| link.send_message(Msg::Resize)));
            }
        }
        // Redraw after a change, or if the canvas element is new (it then has no drawing).
        let blank = self.canvas.cast::<HtmlCanvasElement>().is_some_and(|c| !c.has_attribute("data-draw-ms"));
        if self.dirty || blank {
            self.dirty = false;
            self.draw(ctx);
        }
    }
}
