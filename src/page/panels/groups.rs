//! The group panel (CONFIG_FAIR_GROUP_SCHED's per-CPU group entities, `calc_group_shares`):
//! each task group's entity on every CPU with its weight now, and a sparkline of its weights
//! over the run so far, sampled by the worker at fixed intervals (`worker/host/groups.rs`).
//! Shown only for scenarios with cgroups.

use yew::prelude::*;

use crate::draw::format;
use crate::page::app::App;
use crate::wire::proto::{GroupsInfo, NONE};

/// Most CPU columns shown; the sparkline still draws every CPU's line up to this many.
const MAX_CPUS: usize = 16;
const SPARK_W: f64 = 180.0;
const SPARK_H: f64 = 34.0;

impl App {
    pub(crate) fn view_groups(&self) -> Html {
        let t = &self.teach;
        if !t.has_groups {
            return html! {};
        }
        let Some(g) = &t.groups else {
            return html! {
                <section id="groups" class="groups-panel" data-samples="0">
                    <h3>{ "Task groups" }</h3>
                    <p class="hint">{ "Play or step the run to see each group's entity per CPU and its weight." }</p>
                </section>
            };
        };
        let cpus = g.now.first().map_or(0, Vec::len);
        let shown = cpus.min(MAX_CPUS);
        html! {
            <section id="groups" class="groups-panel" data-samples={g.sample_ns.len().to_string()}>
                <h3>{ "Task groups: the group entity on each CPU" }</h3>
                <p class="hint">{ "Weight of each group's entity (se->load.weight, unscaled, as /proc/sched_debug prints it); bold while it is queued. Hover a cell for the load averages. The line shows each CPU's weight over the run so far." }</p>
                if shown < cpus {
                    <p class="hint">{ format!("Showing the first {shown} of {cpus} CPUs.") }</p>
                }
                <div class="table-wrap">
                <table id="groups-table">
                    <thead>
                        <tr>
                            <th>{ "Group" }</th>
                            { for (0..shown).map(|c| html! { <th class="num">{ format!("CPU {c}") }</th> }) }
                            <th>{ "Weight over time" }</th>
                        </tr>
                    </thead>
                    <tbody>
                        { for (0..g.names.len()).map(|i| view_group(g, i, shown, cpus)) }
                    </tbody>
                </table>
                </div>
            </section>
        }
    }
}

fn depth(g: &GroupsInfo, mut i: usize) -> usize {
    let mut d = 0;
    while let Some(&p) = g.parents.get(i) {
        if p == NONE || d > g.names.len() {
            break;
        }
        i = p as usize;
        d += 1;
    }
    d
}

fn view_group(g: &GroupsInfo, i: usize, shown: usize, cpus: usize) -> Html {
    let path = {
        let mut names = vec![g.names[i].clone()];
        let mut j = i;
        while let Some(&p) = g.parents.get(j) {
            if p == NONE || names.len() > g.names.len() {
                break;
            }
            j = p as usize;
            names.push(g.names.get(j).cloned().unwrap_or_default());
        }
        names.reverse();
        format!("/{}", names.join("/"))
    };
    let indent = format!("padding-left: {}em", 0.6 + depth(g, i) as f64 * 1.2);
    let row = g.now.get(i).cloned().unwrap_or_default();
    html! {
        <tr data-group={g.names[i].clone()}>
            <td class="name" style={indent}>{ path }</td>
            { for row.iter().take(shown).enumerate().map(|(c, s)| {
                let title = format!("CPU {c}: weight {}, load_avg {}, its runqueue's load_avg {}, {} task(s) below", s.weight, s.se_load_avg, s.rq_load_avg, s.h_nr_running);
                html! {
                    <td class={classes!("num", "w", s.on_rq.then_some("queued"))} data-cpu={c.to_string()} {title}>{ format::fmt_int(s.weight) }</td>
                }
            }) }
            <td class="spark-cell">{ sparkline(g, i, cpus.min(MAX_CPUS), cpus) }<span class="hint range">{ range(g, i, cpus) }</span></td>
        </tr>
    }
}

/// The lowest and highest weight so far on any CPU: sampled, and now (the view may stand
/// between two samples, after a change the samples have not caught yet).
fn range(g: &GroupsInfo, i: usize, cpus: usize) -> String {
    let sampled = g.weights.iter().flat_map(|w| w.iter().skip(i * cpus).take(cpus).copied());
    let now = g.now.get(i).into_iter().flatten().map(|c| c.weight.min(u32::MAX as u64) as u32);
    let all = sampled.chain(now);
    match all.fold(None, |m: Option<(u32, u32)>, x| Some(m.map_or((x, x), |(lo, hi)| (lo.min(x), hi.max(x))))) {
        Some((lo, hi)) => format!("{lo}–{hi}"),
        None => String::new(),
    }
}

/// One polyline per CPU: the group's weight at each sample, on a scale shared by its CPUs.
fn sparkline(g: &GroupsInfo, i: usize, lines: usize, cpus: usize) -> Html {
    let n = g.sample_ns.len();
    if n < 2 || cpus == 0 {
        return html! { <span class="hint">{ "–" }</span> };
    }
    let at = |s: usize, c: usize| g.weights.get(s).and_then(|w| w.get(i * cpus + c)).copied().unwrap_or(0) as f64;
    let max = (0..n).flat_map(|s| (0..lines).map(move |c| (s, c))).map(|(s, c)| at(s, c)).fold(1.0, f64::max);
    let (t0, t1) = (g.sample_ns[0] as f64, g.sample_ns[n - 1] as f64);
    let x = |s: usize| (g.sample_ns[s] as f64 - t0) / (t1 - t0).max(1.0) * SPARK_W;
    let y = |v: f64| SPARK_H - 1.0 - v / max * (SPARK_H - 2.0);
    html! {
        <svg class="spark" width={SPARK_W.to_string()} height={SPARK_H.to_string()} viewBox={format!("0 0 {SPARK_W} {SPARK_H}")}
            role="img" aria-label={format!("weight of {} over time, up to {}", g.names[i], max)}>
            { for (0..lines).map(|c| {
                let pts: String = (0..n).map(|s| format!("{:.1},{:.1} ", x(s), y(at(s, c)))).collect();
                let hue = (c * 360 / lines.max(1)) as u32;
                html! { <polyline points={pts} fill="none" stroke={format!("hsl({hue} 55% 40%)")} stroke-width="1" stroke-opacity="0.8" /> }
            }) }
        </svg>
    }
}
