//! The worker's side of the "inside the scheduler" panels. The decision log, the tree
//! operation log and the key samples are recorded only while the page has their panel open,
//! and what goes out per answer is capped (`insight::MAX_*`), so a closed panel costs one
//! branch per instant and an open one a bounded answer.
//!
//! The decision log is kept here, not in the `Sim`: the core's `fair.log` is drained after
//! every instant, so checkpoints (clones of the `Sim`) never copy it. A rewind restores a
//! checkpoint taken at `upto`, drops what was recorded from `upto` on, and the replay records
//! it again (the run is deterministic), so the log always ends at the current time.

use fairground_sim::engine::Sim;
use fairground_sim::entity::NIL;
use fairground_sim::explain::{why_stint, Decision, Why};
use fairground_sim::measure::counterfactual::{outcome, standard_changes};
use fairground_sim::measure::diverge::flipped_by_clamp;
use fairground_sim::rbtree::{Color, RbOp, RbShape};
use fairground_sim::view::{key_sample, rq_view, KeySample, NodeInfo};

use super::rbreplay::{replay, Step};
use crate::wire::insight::*;
use crate::wire::proto::NONE;

/// Decisions kept; beyond it the oldest half is dropped (the log then starts later).
const MAX_DECISIONS: usize = 200_000;
/// Key samples kept, and the most sent in one answer.
const MAX_SAMPLES: usize = 200_000;
const CHART_POINTS: usize = 1_200;
/// Entries examined per answer when a narrow filter matches rarely.
const MAX_SCAN: usize = 100_000;
/// Closed slices examined to find the stint under a point in time.
const MAX_SLICE_SCAN: usize = 20_000;

#[derive(Default)]
pub struct Insight {
    pub ask: Ask,
    decisions: Vec<Decision>,
    /// Beside each decision: the (nice, latency nice) of its task and of the other party at
    /// that instant, for naming them as the kernel's numbers were computed.
    attrs: Vec<[(i8, i8); 2]>,
    /// The log is complete from here (ns) on.
    log_from: u64,
    samples: Vec<KeySample>,
    samples_from: u64,
    /// The tree ops of the last answer are replay noise (a rewind happened): send none.
    ops_stale: bool,
    /// The trees of the last answer, to replay the operations since on.
    prev_tasks: Option<Tree>,
    prev_latency: Option<Tree>,
}

impl Insight {
    fn recording(&self) -> bool {
        self.ask.log.is_some() || self.ask.why.is_some()
    }

    /// The page changed what it looks at: start (or stop) recording. `upto` = instants before
    /// it are processed. Returns whether recording began for something that covers the past
    /// (the log, or a new chart task): the run should then be replayed from the start.
    pub fn set_ask(&mut self, ask: Ask, sim: &mut Sim, upto: u64) -> bool {
        let was_recording = self.recording();
        let old_chart = self.ask.chart;
        let old_trees = self.ask.trees;
        self.ask = ask;
        if self.recording() && !was_recording {
            self.decisions.clear();
            self.attrs.clear();
            self.log_from = upto;
            sim.fair.enable_log();
        } else if !self.recording() {
            sim.fair.log = None;
            self.decisions = Vec::new();
            self.attrs = Vec::new();
        }
        if self.ask.chart != old_chart {
            self.samples.clear();
            self.samples_from = upto;
            if let Some(t) = self.ask.chart {
                if (t as usize) < sim.tasks.len() {
                    self.samples.push(key_sample(sim, t));
                }
            }
        }
        if self.ask.trees != old_trees {
            self.prev_tasks = None;
            self.prev_latency = None;
            self.restart_ops(sim, old_trees);
        }
        (self.recording() && !was_recording) || (self.ask.chart.is_some() && self.ask.chart != old_chart)
    }

    /// Drop what the core logged of the tree ops of CPU `cpu` (if any), and log the trees asked
    /// for now from here on; the next answer sends them whole.
    fn restart_ops(&mut self, sim: &mut Sim, cpu: Option<u32>) {
        if let Some(c) = cpu {
            if (c as usize) < sim.cpus.len() {
                let _ = sim.fair.take_tree_ops(c);
            }
        }
        self.start_ops(sim);
        self.ops_stale = true;
    }

    fn start_ops(&self, sim: &mut Sim) {
        if let Some(c) = self.ask.trees {
            if (c as usize) < sim.cpus.len() {
                sim.fair.log_tree_ops(c);
            }
        }
    }

    /// After each processed instant.
    #[inline]
    pub fn after_instant(&mut self, sim: &mut Sim) {
        if let Some(log) = sim.fair.log.as_mut() {
            if !log.is_empty() {
                let of = |t: u32| sim.tasks.get(t as usize).map_or((0, 0), |x| (x.nice as i8, x.latency_nice as i8));
                self.attrs.extend(log.iter().map(|d| [of(d.task), of(d.other)]));
                self.decisions.append(log);
                if self.decisions.len() > MAX_DECISIONS {
                    self.decisions.drain(..MAX_DECISIONS / 2);
                    self.attrs.drain(..MAX_DECISIONS / 2);
                    self.log_from = self.decisions.first().map_or(sim.now, |d| d.at_ns);
                }
            }
        }
        if let Some(t) = self.ask.chart {
            if (t as usize) < sim.tasks.len() {
                let s = key_sample(sim, t);
                let same = self.samples.last().is_some_and(|l| {
                    l.vruntime_rel == s.vruntime_rel && l.lag == s.lag && l.deadline_rel == s.deadline_rel && l.on_rq == s.on_rq
                });
                if !same {
                    self.samples.push(s);
                    if self.samples.len() > MAX_SAMPLES {
                        self.samples.drain(..MAX_SAMPLES / 2);
                        self.samples_from = self.samples.first().map_or(sim.now, |s| s.at_ns);
                    }
                }
            }
        }
    }

    /// A checkpoint taken when instants before `upto` were processed was restored into `sim`.
    pub fn restored(&mut self, sim: &mut Sim, upto: u64) {
        let keep = self.decisions.partition_point(|d| d.at_ns < upto);
        self.decisions.truncate(keep);
        self.attrs.truncate(keep);
        self.log_from = self.log_from.min(upto);
        sim.fair.log = self.recording().then(Vec::new);
        let keep = self.samples.partition_point(|s| s.at_ns < upto);
        self.samples.truncate(keep);
        self.samples_from = self.samples_from.min(upto);
        self.restart_ops(sim, self.ask.trees);
    }

    /// The panels' part of an answer, or None when no panel is open.
    pub fn answer(&mut self, sim: &mut Sim, view_ns: u64) -> Option<Box<crate::wire::insight::Insight>> {
        if self.ask == Ask::default() {
            return None;
        }
        let mut out = crate::wire::insight::Insight::default();
        if let Some(cpu) = self.ask.trees {
            if (cpu as usize) < sim.cpus.len() {
                let (ops_t, ops_l) = sim.fair.take_tree_ops(cpu);
                let stale = std::mem::take(&mut self.ops_stale);
                let mut t = trees(sim, cpu);
                if !stale {
                    (t.tasks.ops, t.tasks.ops_dropped) = ops(sim, &ops_t);
                    animate(&mut t.tasks, self.prev_tasks.as_ref(), &ops_t);
                    if let Some(l) = t.latency.as_mut() {
                        (l.ops, l.ops_dropped) = ops(sim, &ops_l);
                        animate(l, self.prev_latency.as_ref(), &ops_l);
                    }
                }
                self.prev_tasks = Some(plain(&t.tasks));
                self.prev_latency = t.latency.as_ref().map(plain);
                out.trees = Some(t);
            }
        }
        if let Some(f) = &self.ask.log {
            out.log = Some(self.page(sim, f));
        }
        if let Some((cpu, at)) = self.ask.why {
            out.why = Some(self.why(sim, cpu, at.min(view_ns)));
        }
        if let Some(task) = self.ask.chart {
            out.chart = Some(self.chart(sim, task));
        }
        Some(Box::new(out))
    }

    fn page(&self, sim: &Sim, f: &LogFilter) -> LogPage {
        let kinds = if f.kinds == 0 { KIND_ALL } else { f.kinds };
        let mut entries = Vec::new();
        let mut truncated = false;
        for (scanned, (d, a)) in self.decisions.iter().zip(&self.attrs).rev().enumerate() {
            if scanned >= MAX_SCAN {
                truncated = true;
                break;
            }
            let ok = kind(d) & kinds != 0
                && f.cpu.is_none_or(|c| c == d.cpu)
                && f.task.is_none_or(|t| t == d.task || t == d.other)
                && (!f.clamp_only || clamp_decided(sim, d));
            if ok {
                entries.push(entry(sim, d, a));
                if entries.len() >= MAX_ENTRIES {
                    break;
                }
            }
        }
        entries.reverse();
        LogPage { entries, recorded: self.decisions.len() as u64, from_ns: self.log_from, truncated }
    }

    fn why(&self, sim: &Sim, cpu: u32, at: u64) -> WhyRan {
        let mut w = WhyRan { cpu, task: NONE, ..Default::default() };
        let Some(tr) = sim.trace.as_ref() else {
            w.note = Some("no trace is recorded".into());
            return w;
        };
        if cpu as usize >= sim.cpus.len() {
            w.note = Some(format!("there is no CPU {cpu}"));
            return w;
        }
        // Slices are closed in time order: the first of this CPU ending after `at`.
        let i = tr.slices.partition_point(|s| s.end_ns <= at);
        let closed = tr.slices[i..].iter().take(MAX_SLICE_SCAN).find(|s| s.cpu == cpu).filter(|s| s.start_ns <= at);
        let stint = match closed {
            Some(s) => Some((s.task, s.start_ns, Some(s.end_ns))),
            None => tr.open.get(cpu as usize).copied().flatten().filter(|o| o.start_ns <= at).map(|o| (o.task, o.start_ns, None)),
        };
        let Some((task, start, end)) = stint else {
            w.note = Some(format!("CPU {cpu} was idle then"));
            return w;
        };
        (w.task, w.start_ns, w.end_ns) = (task, start, end);
        let ws = why_stint(&self.decisions, cpu, start, end.unwrap_or(u64::MAX));
        let described = |d: Decision| {
            // Find its attributes: among the decisions of its instant, the equal one.
            let i = self.decisions.partition_point(|x| x.at_ns < d.at_ns);
            let k = self.decisions[i..].iter().position(|x| *x == d).map_or(usize::MAX, |k| i + k);
            entry(sim, &d, self.attrs.get(k).unwrap_or(&[(0, 0); 2]))
        };
        w.pick = ws.pick.map(described);
        w.started_by = ws.started_by.map(described);
        w.ended_by = ws.ended_by.map(described);
        if start < self.log_from {
            w.note = Some(format!(
                "the decision log starts at {} µs: go back before {} µs and step again to record this stint's start",
                self.log_from / 1000,
                start / 1000
            ));
        } else if w.ended_by.is_none() && end.is_some() {
            w.note = Some("no check asked for the switch at its end: the task slept, or its run ended".into());
        }
        w
    }

    fn chart(&self, sim: &Sim, task: u32) -> Chart {
        let n = self.samples.len();
        let stride = n.div_ceil(CHART_POINTS).max(1);
        let mut samples: Vec<_> =
            self.samples.iter().step_by(stride).map(|s| (s.at_ns, s.vruntime_rel, s.lag, s.deadline_rel, s.on_rq)).collect();
        if let Some(l) = self.samples.last() {
            if samples.last().map(|s| s.0) != Some(l.at_ns) {
                samples.push((l.at_ns, l.vruntime_rel, l.lag, l.deadline_rel, l.on_rq));
            }
        }
        Chart { task, eevdf: sim.fair.eevdf.is_some(), samples, from_ns: self.samples_from }
    }
}

fn kind(d: &Decision) -> u8 {
    match d.why {
        Why::Pick { .. } => KIND_PICK,
        Why::CfsWakeup { .. } | Why::EevdfWakeup { .. } => KIND_WAKEUP,
        Why::CfsTick { .. } | Why::EevdfTick { .. } => KIND_TICK,
    }
}

fn name(sim: &Sim, t: u32) -> String {
    match sim.tasks.get(t as usize) {
        Some(task) => task.name.clone(),
        None if t == NIL => "idle".into(),
        None => format!("group entity {t}"),
    }
}

/// A task's name, with its nice and (v12) latency nice when not 0, as they were then.
fn name_with(sim: &Sim, t: u32, (nice, lat): (i8, i8)) -> String {
    let mut s = name(sim, t);
    let mut attrs = Vec::new();
    if nice != 0 {
        attrs.push(format!("nice {nice}"));
    }
    if lat != 0 && sim.fair.v12 {
        attrs.push(format!("latency nice {lat}"));
    }
    if !attrs.is_empty() && (t as usize) < sim.tasks.len() {
        s += &format!(" ({})", attrs.join(", "));
    }
    s
}

/// A v12 clamp site flipped this check (the same test as the whole run's counts).
fn clamp_decided(sim: &Sim, d: &Decision) -> bool {
    sim.fair.v12 && flipped_by_clamp(d, sim.fair.cfg.feat.latency_max_clamp_wakeup)
}

/// Under a wakeup or tick check, the changes that would have turned it the other way
/// (`measure::counterfactual`).
fn whatif(sim: &Sim, d: &Decision) -> Vec<String> {
    let (who, yes, no) = match d.why {
        Why::CfsWakeup { .. } | Why::EevdfWakeup { .. } => {
            ("wakee", "preempts", "does not preempt")
        }
        Why::CfsTick { .. } | Why::EevdfTick { .. } => ("curr", "rescheduled", "keeps the CPU"),
        Why::Pick { .. } => return Vec::new(),
    };
    standard_changes(&sim.fair, d)
        .into_iter()
        .filter_map(|c| {
            let v = outcome(&sim.fair, d, c)?;
            (v != d.outcome).then(|| format!("{} → {}", c.label_for(who), if v { yes } else { no }))
        })
        .collect()
}

pub(crate) fn entry(sim: &Sim, d: &Decision, attrs: &[(i8, i8); 2]) -> Entry {
    let clamp_decided = clamp_decided(sim, d);
    Entry {
        at_ns: d.at_ns,
        cpu: d.cpu,
        task: if d.task == NIL { NONE } else { d.task },
        kind: kind(d),
        outcome: d.outcome,
        clamp_decided,
        whatif: whatif(sim, d),
        source: format!("{}:{}", d.site.file, d.site.line),
        models: format!("{} models {}", d.site.function, d.site.models),
        text: d.describe(&|t| {
            if t == d.task {
                name_with(sim, t, attrs[0])
            } else if t == d.other {
                name_with(sim, t, attrs[1])
            } else {
                name(sim, t)
            }
        }),
    }
}

fn node(info: &NodeInfo, red: bool, left: u32, right: u32, min_slice: u64) -> Node {
    Node {
        entity: info.entity,
        task: if info.task == NIL { NONE } else { info.task },
        red,
        left,
        right,
        weight: info.weight,
        vruntime_rel: info.vruntime_rel,
        latency_key_rel: info.latency_key_rel,
        in_latency_tree: info.in_latency_tree,
        deadline_rel: info.deadline_rel,
        lag: info.lag,
        eligible: info.eligible,
        slice: info.slice,
        delayed: info.delayed,
        augment_rel: info.augment_rel,
        min_slice,
    }
}

fn nil(x: u32) -> u32 {
    if x == NIL {
        NONE
    } else {
        x
    }
}

/// The trees of CPU `cpu` now, from the core's `rq_view`.
pub(crate) fn trees(sim: &Sim, cpu: u32) -> Trees {
    use fairground_sim::eevdf::Version;
    let f = &sim.fair;
    let v = rq_view(f, cpu);
    let min_slice = |e: u32| f.ents.get(e as usize).map_or(0, |x| x.min_slice);
    let nodes_of = |shape: &RbShape, latency: bool| -> Vec<Node> {
        shape
            .nodes
            .iter()
            .map(|&(id, color, l, r)| {
                // A latency_timeline entity is queued in tasks_timeline too (v12 8/8): its keys
                // come from there. Should that ever not hold, show the node with zero keys
                // rather than fail.
                let info = v.tasks_nodes.iter().find(|n| n.entity == id).copied().unwrap_or(NodeInfo {
                    entity: id,
                    task: if (id as usize) < sim.tasks.len() { id } else { NIL },
                    weight: 0,
                    vruntime_rel: 0,
                    latency_key_rel: 0,
                    in_latency_tree: latency,
                    deadline_rel: 0,
                    lag: 0,
                    eligible: true,
                    slice: 0,
                    delayed: false,
                    augment_rel: 0,
                });
                node(&info, color == Color::Red, nil(l), nil(r), min_slice(id))
            })
            .collect()
    };
    let (flavour, key) = match f.eevdf {
        Some(Version::V66) => ("v6.6", "vruntime (augmented with the subtree's min_deadline)"),
        Some(_) => ("v6.12", "deadline (augmented with the subtree's min_vruntime and min_slice)"),
        None if f.v12 => ("v12", "vruntime"),
        None => ("cfs", "vruntime"),
    };
    let tasks = Tree {
        name: "tasks_timeline".into(),
        key: key.into(),
        root: nil(v.tasks_timeline.root),
        leftmost: nil(v.tasks_timeline.leftmost),
        nodes: nodes_of(&v.tasks_timeline, false),
        ..Default::default()
    };
    let latency = f.v12.then(|| Tree {
        name: "latency_timeline".into(),
        key: "vruntime + latency_offset".into(),
        root: nil(v.latency_timeline.root),
        leftmost: nil(v.latency_timeline.leftmost),
        nodes: nodes_of(&v.latency_timeline, true),
        ..Default::default()
    });
    Trees {
        cpu,
        flavour: flavour.into(),
        nr_running: v.nr_running,
        min_vruntime: v.min_vruntime,
        avg_vruntime: v.avg_vruntime,
        avg_rel: v.avg_vruntime.map(|a| a.wrapping_sub(v.min_vruntime) as i64),
        curr: v.curr.as_ref().map(|c| node(c, false, NONE, NONE, min_slice(c.entity))),
        tasks,
        latency,
    }
}

/// Trees with at most this many nodes, and steps of at most MAX_OPS operations, are animated.
const ANIMATE_NODES: usize = 64;

/// The tree's structure and node keys, without the operations (what the next step starts from).
fn plain(t: &Tree) -> Tree {
    Tree { ops: Vec::new(), frames: Vec::new(), gone: Vec::new(), ..t.clone() }
}

/// Replay `log` from `prev` into `t.frames`, when small enough and consistent.
fn animate(t: &mut Tree, prev: Option<&Tree>, log: &[RbOp]) {
    let Some(prev) = prev else { return };
    if log.is_empty() || log.len() > MAX_OPS || t.nodes.len().max(prev.nodes.len()) > ANIMATE_NODES {
        return;
    }
    let shape = |tr: &Tree| tr.nodes.iter().map(|n| (n.entity, n.red, n.left, n.right)).collect::<Vec<_>>();
    let steps: Vec<Step> = log
        .iter()
        .map(|op| match *op {
            RbOp::Insert { id, parent, left } => Step::Insert { id, parent: nil(parent), left },
            RbOp::Erase { id } => Step::Erase { id },
            RbOp::RotateLeft { id } => Step::RotateLeft { id },
            RbOp::RotateRight { id } => Step::RotateRight { id },
            RbOp::Recolor { id, color } => Step::Recolor { id, red: color == Color::Red },
            RbOp::Replace { old, new } => Step::Replace { old, new },
        })
        .collect();
    if let Some(frames) = replay((prev.root, &shape(prev)), &steps, (t.root, &shape(t))) {
        t.frames = frames;
        t.gone = prev.nodes.iter().filter(|p| t.nodes.iter().all(|n| n.entity != p.entity)).cloned().collect();
    }
}

/// The operations in words, the latest MAX_OPS of them.
fn ops(sim: &Sim, log: &[RbOp]) -> (Vec<Op>, u64) {
    let skip = log.len().saturating_sub(MAX_OPS);
    let n = |e: u32| if e == NIL { "the root".to_string() } else { name(sim, e) };
    let out = log[skip..]
        .iter()
        .map(|op| match *op {
            RbOp::Insert { id, parent, left } => Op {
                text: if parent == NIL {
                    format!("insert {} as the root", n(id))
                } else {
                    format!("insert {} as the {} child of {}", n(id), if left { "left" } else { "right" }, n(parent))
                },
                entities: vec![id],
                rotation: false,
            },
            RbOp::Erase { id } => Op { text: format!("erase {}", n(id)), entities: vec![id], rotation: false },
            RbOp::RotateLeft { id } => Op { text: format!("rotate left about {}", n(id)), entities: vec![id], rotation: true },
            RbOp::RotateRight { id } => Op { text: format!("rotate right about {}", n(id)), entities: vec![id], rotation: true },
            RbOp::Recolor { id, color } => Op {
                text: format!("recolour {} {}", n(id), if color == Color::Red { "red" } else { "black" }),
                entities: vec![id],
                rotation: false,
            },
            RbOp::Replace { old, new } => Op { text: format!("replace {} by its successor {}", n(old), n(new)), entities: vec![old, new], rotation: false },
        })
        .collect();
    (out, skip as u64)
}

#[cfg(test)]
#[path = "insight_tests.rs"]
mod tests;
