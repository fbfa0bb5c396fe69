//! The runqueue's red-black trees as the core holds them (`tasks_timeline`, and
//! `latency_timeline` under v12): shape and colours, the cached leftmost marked, curr beside
//! the tree (it is not in it, as in the kernel), the v12 latency tree beside tasks_timeline,
//! EEVDF deadline / lag / eligibility / slice on each node and V (the zero-lag point) on a key
//! axis. Nodes are keyed by entity and placed with CSS transforms that transition, so a step
//! that rotates the tree moves the nodes into their new places; the step's operations (from the
//! core's rb-tree log) are listed and their nodes highlighted. Large trees switch to a list.

use std::collections::HashMap;
use std::rc::Rc;

use gloo::timers::callback::Timeout;
use yew::prelude::*;

use crate::draw::raster::{css, task_rgb};
use crate::wire::insight::{Node, Tree, Trees};
use crate::wire::proto::{RunInfo, NONE};

/// Above this many nodes the list view is the default (the tree stays available, scrolling).
const LIST_ABOVE: usize = 48;
const COL: f64 = 66.0;
const R: f64 = 15.0;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub trees: Rc<Trees>,
    pub info: Rc<RunInfo>,
    /// While the run plays, answers come every frame: show each tree as it is, no replays.
    pub playing: bool,
    /// The task selected everywhere (its nodes are marked in both trees); a click on a node
    /// selects its task.
    pub selected: Option<u32>,
    pub on_select: Callback<Option<u32>>,
}

fn ms(ns: i64) -> String {
    format!("{:+.2}", ns as f64 / 1e6)
}

fn short(info: &RunInfo, n: &Node) -> String {
    if n.task == NONE {
        return format!("g{}", n.entity);
    }
    let name = info.tasks.get(n.task as usize).map_or_else(|| format!("t{}", n.task), |t| t.name.clone());
    // Workload names share a prefix ("hb/sender16"): keep the end, which tells them apart.
    let n = name.chars().count();
    if n > 9 {
        let s: String = name.chars().skip(n - 8).collect();
        format!("…{s}")
    } else {
        name
    }
}

fn full(info: &RunInfo, n: &Node) -> String {
    if n.task == NONE {
        return format!("group entity {}", n.entity);
    }
    info.tasks.get(n.task as usize).map_or_else(|| format!("task {}", n.task), |t| t.name.clone())
}

/// The key a tree is ordered by, for one node.
fn key_of(t: &Trees, tree: &Tree, n: &Node) -> i64 {
    if tree.name == "latency_timeline" {
        n.latency_key_rel
    } else if t.flavour == "v6.12" {
        n.deadline_rel
    } else {
        n.vruntime_rel
    }
}

fn tooltip(t: &Trees, info: &RunInfo, n: &Node) -> String {
    let mut s = format!("{}: weight {}, vruntime {} ms rel. min_vruntime", full(info, n), n.weight, ms(n.vruntime_rel));
    if t.flavour == "v12" {
        s += &format!(", latency key {} ms{}", ms(n.latency_key_rel), if n.in_latency_tree { "" } else { " (not in latency_timeline)" });
    }
    if t.avg_vruntime.is_some() {
        s += &format!(
            "\ndeadline {} ms rel. V, lag {} ms, {}, slice {:.2} ms{}",
            ms(n.deadline_rel),
            ms(n.lag),
            if n.eligible { "eligible" } else { "not eligible" },
            n.slice as f64 / 1e6,
            if n.delayed { ", delayed dequeue" } else { "" }
        );
        s += &if t.flavour == "v6.6" {
            format!("\nsubtree min_deadline {} ms rel. V", ms(n.augment_rel))
        } else {
            format!("\nsubtree min_vruntime {} ms, min_slice {:.2} ms", ms(n.augment_rel), n.min_slice as f64 / 1e6)
        };
    }
    s
}

/// The lines under a node: its key and weight; under EEVDF deadline, lag and slice (and under
/// v6.6 the vruntime it is keyed by).
fn node_lines(t: &Trees, tree: &Tree, n: &Node) -> Vec<String> {
    if t.avg_vruntime.is_none() || tree.name == "latency_timeline" {
        vec![ms(key_of(t, tree, n)), format!("w {}", n.weight)]
    } else {
        let mut l = vec![format!("d{}", ms(n.deadline_rel)), format!("lag{}", ms(n.lag)), format!("s {:.2}", n.slice as f64 / 1e6)];
        if t.flavour == "v6.6" {
            l.insert(0, format!("v{}", ms(n.vruntime_rel)));
        }
        l
    }
}

/// Node positions: x by in-order rank, y by depth.
fn layout(tree: &Tree, row: f64) -> (Vec<(f64, f64)>, HashMap<u32, usize>, usize) {
    let index: HashMap<u32, usize> = tree.nodes.iter().enumerate().map(|(i, n)| (n.entity, i)).collect();
    let mut depth = vec![0usize; tree.nodes.len()];
    let mut stack = Vec::new();
    if let Some(&r) = index.get(&tree.root) {
        stack.push((r, 0usize));
    }
    let mut seen = 0;
    let mut max_d = 0;
    while let Some((i, d)) = stack.pop() {
        seen += 1;
        if seen > tree.nodes.len() {
            break; // a malformed message must not loop
        }
        depth[i] = d;
        max_d = max_d.max(d);
        for c in [tree.nodes[i].left, tree.nodes[i].right] {
            if let Some(&j) = index.get(&c) {
                stack.push((j, d + 1));
            }
        }
    }
    let pos = depth.iter().enumerate().map(|(i, &d)| (COL * i as f64 + COL / 2.0, row * d as f64 + 30.0)).collect();
    (pos, index, max_d)
}

fn glyph(t: &Trees, info: &RunInfo, n: &Node, touched: bool, extra: Html) -> Html {
    let ring = css(if n.task == NONE { [140, 140, 140] } else { task_rgb(n.task) });
    let eevdf = t.avg_vruntime.is_some();
    html! {
        <>
            <title>{ tooltip(t, info, n) }</title>
            <circle r={R.to_string()} class={classes!("rb", if n.red { "red" } else { "black" }, touched.then_some("touched"), n.delayed.then_some("delayed"))}
                style={format!("stroke: {ring}")} />
            <text class="label" y="3">{ n.entity }</text>
            <text class="name" y={(R + 10.0).to_string()}>{ short(info, n) }</text>
            if eevdf {
                <circle class={classes!("elig", if n.eligible { "yes" } else { "no" })} cx={(R * 0.8).to_string()} cy={(-R * 0.8).to_string()} r="4" />
            }
            { extra }
        </>
    }
}

/// How a tree is drawn: the selected task (marked in every tree) and what a click on a node does.
struct Pick<'a> {
    selected: Option<u32>,
    on_select: &'a Callback<Option<u32>>,
}

fn view_tree(t: &Trees, info: &RunInfo, tree: &Tree, list: bool, pick: &Pick) -> Html {
    let touched: Vec<u32> = tree.ops.iter().flat_map(|o| o.entities.iter().copied()).collect();
    let leftmost_task = tree.nodes.iter().find(|n| n.entity == tree.leftmost).map(|n| full(info, n)).unwrap_or_default();
    let eevdf = t.avg_vruntime.is_some();
    let body = if list {
        html! {
            <div class="table-wrap tree-list">
                <table class="num-table">
                    <thead><tr>
                        <th>{ "#" }</th><th>{ "task" }</th><th>{ "colour" }</th><th class="num">{ "key (ms)" }</th><th class="num">{ "weight" }</th>
                        if eevdf { <th class="num">{ "deadline" }</th><th class="num">{ "lag" }</th><th>{ "eligible" }</th><th class="num">{ "slice" }</th><th>{ "delayed" }</th> }
                    </tr></thead>
                    <tbody>
                        { for tree.nodes.iter().enumerate().map(|(i, n)| html! {
                            <tr class={classes!((n.entity == tree.leftmost).then_some("leftmost"), touched.contains(&n.entity).then_some("touched"), (pick.selected == Some(n.task)).then_some("selected"))}>
                                <td class="num">{ i }</td>
                                <td><span class="swatch" style={format!("background: {}", css(task_rgb(n.task)))}></span>{ full(info, n) }
                                    if n.entity == tree.leftmost { <em>{ " (leftmost)" }</em> }</td>
                                <td>{ if n.red { "red" } else { "black" } }</td>
                                <td class="num">{ ms(key_of(t, tree, n)) }</td>
                                <td class="num">{ n.weight }</td>
                                if eevdf {
                                    <td class="num">{ ms(n.deadline_rel) }</td><td class="num">{ ms(n.lag) }</td>
                                    <td>{ if n.eligible { "yes" } else { "no" } }</td><td class="num">{ format!("{:.2}", n.slice as f64 / 1e6) }</td>
                                    <td>{ if n.delayed { "yes" } else { "" } }</td>
                                }
                            </tr>
                        }) }
                    </tbody>
                </table>
            </div>
        }
    } else {
        let lines_of = |n: &Node| node_lines(t, tree, n);
        let n_lines = if !eevdf || tree.name == "latency_timeline" { 2 } else if t.flavour == "v6.6" { 4 } else { 3 };
        let row = 2.0 * R + 27.0 + 11.0 * n_lines as f64;
        let (pos, index, max_d) = layout(tree, row);
        let w = (COL * tree.nodes.len().max(1) as f64).max(COL * 2.0);
        let h = row * (max_d as f64 + 1.0) + 24.0;
        let edges = tree.nodes.iter().enumerate().flat_map(|(i, n)| {
            [n.left, n.right].into_iter().filter_map(|c| index.get(&c).copied()).map(move |j| (i, j, tree.nodes[j].entity)).collect::<Vec<_>>()
        });
        html! {
            <div class="tree-scroll">
                <svg class="rbtree" width={w.to_string()} height={h.to_string()} viewBox={format!("0 0 {w} {h}")}>
                    { for edges.map(|(i, j, child)| {
                        let ((x1, y1), (x2, y2)) = (pos[i], pos[j]);
                        html! { <path key={format!("e{child}")} class="edge" style={format!("d: path('M {x1} {y1} L {x2} {y2}')")} /> }
                    }) }
                    { for tree.nodes.iter().enumerate().map(|(i, n)| {
                        let (x, y) = pos[i];
                        let lines = lines_of(n);
                        let extra = html! {
                            <>
                            { for lines.iter().enumerate().map(|(k, l)| html! { <text class="key" y={(R + 21.0 + 11.0 * k as f64).to_string()}>{ l }</text> }) }
                            if n.entity == tree.leftmost {
                                <text class="leftmost-mark" y={(-R - 4.0).to_string()}>{ "leftmost" }</text>
                            }
                            </>
                        };
                        html! {
                            <g key={format!("n{}", n.entity)} onclick={pick.on_select.reform({ let task = n.task; move |_| (task != NONE).then_some(task) })}
                                class={classes!("node", (n.entity == tree.leftmost).then_some("leftmost"), (pick.selected == Some(n.task)).then_some("selected"))}
                                data-entity={n.entity.to_string()} style={format!("transform: translate({x}px, {y}px)")}>
                                { glyph(t, info, n, touched.contains(&n.entity), extra) }
                            </g>
                        }
                    }) }
                </svg>
            </div>
        }
    };
    html! {
        <figure class="tree" id={format!("tree-{}", if tree.name == "latency_timeline" { "latency" } else { "tasks" })}
            data-nodes={tree.nodes.len().to_string()} data-leftmost={leftmost_task.clone()}>
            <figcaption>
                <code>{ &tree.name }</code>{ format!(" keyed by {} — {} node{}", tree.key, tree.nodes.len(), if tree.nodes.len() == 1 { "" } else { "s" }) }
                if !leftmost_task.is_empty() { { format!("; leftmost (cached): {leftmost_task}") } }
            </figcaption>
            { body }
            if tree.nodes.is_empty() && tree.name == "latency_timeline" {
                <p class="hint">{ "Empty: only latency-sensitive entities (latency nice < 0) wait here, and only after a wakeup or a preemption before min_granularity (__enqueue_latency, v12 8/8)." }</p>
            }
            if !tree.ops.is_empty() {
                <ol class="ops" aria-label="This step's tree operations">
                    if tree.ops_dropped > 0 { <li class="muted">{ format!("… {} earlier operations", tree.ops_dropped) }</li> }
                    { for tree.ops.iter().map(|o| html! { <li class={classes!(o.rotation.then_some("rotation"))}>{ &o.text }</li> }) }
                </ol>
            }
        </figure>
    }
}

/// Every entity (queued and curr) on the vruntime axis, with V drawn under EEVDF: eligible
/// entities are those at or left of V (weighted, as `entity_eligible()` decides).
fn view_axis(t: &Trees, info: &RunInfo) -> Html {
    let mut pts: Vec<&Node> = t.tasks.nodes.iter().collect();
    if let Some(c) = &t.curr {
        pts.push(c);
    }
    if pts.is_empty() {
        return html! {};
    }
    let mut lo = pts.iter().map(|n| n.vruntime_rel).min().unwrap_or(0).min(0);
    let mut hi = pts.iter().map(|n| n.vruntime_rel).max().unwrap_or(0).max(0);
    if let Some(a) = t.avg_rel {
        lo = lo.min(a);
        hi = hi.max(a);
    }
    let span = ((hi - lo) as f64).max(1e5);
    let w = 640.0;
    let x = |v: i64| 44.0 + (v - lo) as f64 / span * (w - 88.0);
    html! {
        <svg class="key-axis" id="key-axis" width={w.to_string()} height="58" viewBox={format!("0 0 {w} 58")}>
            <line class="axis" x1="36" y1="30" x2={(w - 36.0).to_string()} y2="30" />
            <line class="zero" x1={x(0).to_string()} y1="18" x2={x(0).to_string()} y2="42" />
            <text class="tick" x={x(0).to_string()} y="54">{ "min_vruntime" }</text>
            if let Some(a) = t.avg_rel {
                <line class="vline" id="v-line" x1={x(a).to_string()} y1="4" x2={x(a).to_string()} y2="44" />
                <text class="vlabel" x={x(a).to_string()} y="12">{ format!("V (zero lag) {} ms", ms(a)) }</text>
            }
            { for pts.iter().map(|n| html! {
                <circle class={classes!("pt", (t.avg_rel.is_some() && !n.eligible).then_some("inelig"))} cx={x(n.vruntime_rel).to_string()} cy="30" r="5"
                    style={format!("fill: {}", css(task_rgb(n.task)))}><title>{ format!("{}: vruntime {} ms", full(info, n), ms(n.vruntime_rel)) }</title></circle>
            }) }
        </svg>
    }
}

/// How long each intermediate tree of a step stays on screen (the CSS transitions take 0.6 s).
const FRAME_MS: u32 = 900;

/// `tree` as it was after frame `k` of its step: nodes in in-order (found by walking from the
/// root), keys from the nodes after the step or, for nodes erased later in it, from `gone`.
fn tree_at(tree: &Tree, k: usize) -> Option<Tree> {
    let f = tree.frames.get(k)?;
    let links: HashMap<u32, (bool, u32, u32)> = f.nodes.iter().map(|&(id, red, l, r)| (id, (red, l, r))).collect();
    let info = |id: u32| tree.nodes.iter().chain(tree.gone.iter()).find(|n| n.entity == id).cloned();
    let mut order = Vec::with_capacity(f.nodes.len());
    let mut stack = Vec::new();
    let mut cur = f.root;
    // In-order walk, bounded by the node count so a malformed message cannot loop.
    while (cur != NONE || !stack.is_empty()) && order.len() <= f.nodes.len() {
        while let Some(&(_, l, _)) = links.get(&cur) {
            stack.push(cur);
            if stack.len() > f.nodes.len() {
                return None;
            }
            cur = l;
        }
        let Some(id) = stack.pop() else { break };
        order.push(id);
        cur = links.get(&id).map_or(NONE, |x| x.2);
    }
    let nodes = order
        .iter()
        .filter_map(|&id| {
            let (red, left, right) = links.get(&id).copied()?;
            let mut n = info(id)?;
            (n.red, n.left, n.right) = (red, left, right);
            Some(n)
        })
        .collect::<Vec<_>>();
    let op = tree.ops.get(f.op as usize).cloned();
    Some(Tree {
        root: f.root,
        leftmost: nodes.first().map_or(NONE, |n| n.entity),
        nodes,
        ops: op.into_iter().collect(),
        frames: Vec::new(),
        gone: Vec::new(),
        ..tree.clone()
    })
}

pub enum Msg {
    Flip,
    Next,
    Replay,
}

pub struct TreesView {
    list: Option<bool>,
    /// The intermediate tree shown (None: the tree after the step).
    frame: Option<usize>,
    timer: Option<Timeout>,
}

impl TreesView {
    fn frames(p: &Props) -> usize {
        p.trees.tasks.frames.len().max(p.trees.latency.as_ref().map_or(0, |l| l.frames.len()))
    }

    fn start(&mut self, ctx: &Context<Self>) {
        self.timer = None;
        self.frame = None;
        if Self::frames(ctx.props()) > 1 && !ctx.props().playing {
            self.frame = Some(0);
            let link = ctx.link().clone();
            self.timer = Some(Timeout::new(FRAME_MS, move || link.send_message(Msg::Next)));
        }
    }
}

impl Component for TreesView {
    type Message = Msg;
    type Properties = Props;

    fn create(ctx: &Context<Self>) -> Self {
        let mut v = TreesView { list: None, frame: None, timer: None };
        v.start(ctx);
        v
    }

    fn changed(&mut self, ctx: &Context<Self>, _old: &Props) -> bool {
        self.start(ctx);
        true
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Flip => {
                let big = ctx.props().trees.tasks.nodes.len() > LIST_ABOVE;
                self.list = Some(!self.list.unwrap_or(big));
            }
            Msg::Replay => self.start(ctx),
            Msg::Next => {
                let n = Self::frames(ctx.props());
                self.frame = self.frame.map(|k| k + 1).filter(|&k| k < n);
                self.timer = self.frame.map(|_| {
                    let link = ctx.link().clone();
                    Timeout::new(FRAME_MS, move || link.send_message(Msg::Next))
                });
            }
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let p = ctx.props();
        let t = &*p.trees;
        let link = ctx.link();
        let list = self.list.unwrap_or(t.tasks.nodes.len() > LIST_ABOVE);
        let at = |tree: &Tree| -> Option<Tree> { if list { None } else { self.frame.and_then(|k| tree_at(tree, k)) } };
        let tasks_now = at(&t.tasks);
        let latency_now = t.latency.as_ref().map(at);
        let n = Self::frames(p);
        let pick = Pick { selected: p.selected, on_select: &p.on_select };
        html! {
            <div class="trees" id="trees" data-flavour={t.flavour.clone()} data-nr-running={t.nr_running.to_string()}
                data-frames={n.to_string()} data-animating={self.frame.is_some().to_string()}>
                <p class="hint">
                    // min_vruntime is a u64 that init_cfs_rq() starts at −2^20 ns, so that it wraps
                    // early; read as signed, as the kernel's comparisons read it, it is near 0.
                    { format!("CPU {}: nr_running {}, min_vruntime {:.3} ms", t.cpu, t.nr_running, t.min_vruntime as i64 as f64 / 1e6) }
                    if let Some(v) = t.avg_vruntime { { format!(", V = avg_vruntime {:.3} ms", v as i64 as f64 / 1e6) } }
                    { ". " }
                    <span class="legend">
                        { "Keys in ms relative to min_vruntime" }
                        if t.avg_vruntime.is_some() { { " (deadline and lag relative to V; a green dot is eligible, a dashed ring a delayed dequeue)" } }
                        { ". Ring colour = the task's colour on the timeline, so an entity in both trees is the same colour. " }
                    </span>
                    <button id="tree-mode" class="small" onclick={link.callback(|_| Msg::Flip)}>{ if list { "show as a tree" } else { "show as a list" } }</button>
                    if n > 1 && !list {
                        { " " }
                        <button id="tree-replay" class="small" onclick={link.callback(|_| Msg::Replay)}>
                            { match self.frame { Some(k) => format!("operation {} of {n}…", k + 1), None => format!("▶ replay this step's {n} operations") } }
                        </button>
                    }
                </p>
                <div class="tree-row">
                    <figure class="curr" id="tree-curr" data-task={t.curr.as_ref().map(|c| full(&p.info, c)).unwrap_or_default()}>
                        <figcaption>{ "curr (not in the tree)" }</figcaption>
                        if let Some(c) = &t.curr {
                            <svg width="90" height="110" viewBox="-45 -24 90 110">
                                <g class="node">{ glyph(t, &p.info, c, false, html! {
                                    { for node_lines(t, &t.tasks, c).iter().enumerate().map(|(k, l)| html! {
                                        <text class="key" y={(R + 21.0 + 11.0 * k as f64).to_string()}>{ l }</text>
                                    }) }
                                }) }</g>
                            </svg>
                        } else {
                            <p class="muted">{ "none" }</p>
                        }
                    </figure>
                    { view_tree(t, &p.info, tasks_now.as_ref().unwrap_or(&t.tasks), list, &pick) }
                    if let (Some(l), Some(now)) = (&t.latency, latency_now) {
                        { view_tree(t, &p.info, now.as_ref().unwrap_or(l), list, &pick) }
                    }
                </div>
                { view_axis(t, &p.info) }
            </div>
        }
    }
}
