//! rt-app's `suspend`/`resume` and `wait`/`signal`/`broad`, which the model cannot play (it
//! has no waking of one task by another), read as timing: a task that waits on a condition
//! waits for the next wakeup of it, and the tasks that wake it do so at the pace of their own
//! loops. So each wait becomes a sleep that stretches the task's pass to the pace of its
//! wakeups, on an uncontended timeline. Dropping it instead would turn a task that rt-app wakes once a frame
//! into one that runs back to back.

use super::task::{lay_out, Ev, Plan};
use std::collections::BTreeMap;

/// Far beyond any run: a task waiting for a wakeup that never comes.
const FOREVER_US: u64 = 1 << 50;

/// One pass of the task's phases, waits taking no time: µs, or None when a pass never ends
/// (a phase looping for ever).
fn busy_us(p: &Plan) -> Option<u64> {
    let mut one = p.clone();
    one.loops = 1;
    if one.phases.iter().any(|ph| ph.loops < 0) {
        return None;
    }
    lay_out(&one, FOREVER_US).end_us
}

/// How many times one pass does `e`.
fn per_pass(p: &Plan, e: &Ev) -> u64 {
    p.phases.iter().map(|ph| (ph.loops.max(0) as u64).saturating_mul(ph.events.iter().filter(|x| *x == e).count() as u64)).fold(0, u64::saturating_add)
}

/// Replaces every wait of `p` on a condition with a sleep of its µs (absent: dropped).
fn settle(p: &mut Plan, waits: &BTreeMap<String, Option<u64>>) {
    for ph in &mut p.phases {
        ph.events.retain(|e| !matches!(e, Ev::Suspend(c) if waits.get(c).copied().flatten().is_none()));
        for e in &mut ph.events {
            if let Ev::Suspend(c) = e {
                *e = Ev::Sleep(waits.get(c).copied().flatten().unwrap_or(0));
            }
        }
    }
}

/// The event's name in warnings.
fn what(p: &Plan, c: &str) -> String {
    if c == p.name { "suspend".into() } else { format!("wait on {c}") }
}

pub fn pace(plans: &mut [&mut Plan], warnings: &mut Vec<String>) {
    let n = plans.len();
    let busy: Vec<Option<u64>> = plans.iter().map(|p| busy_us(p)).collect();
    // Each task's conditions, with its waits a pass on each and who wakes them how often.
    type Waker = (usize, u64);
    let conds: Vec<Vec<(String, u64, Vec<Waker>)>> = (0..n)
        .map(|x| {
            let mut cs: Vec<String> = plans[x].phases.iter().flat_map(|ph| ph.events.iter()).filter_map(|e| if let Ev::Suspend(c) = e { Some(c.clone()) } else { None }).collect();
            cs.sort();
            cs.dedup();
            cs.into_iter()
                .map(|c| {
                    let k = per_pass(plans[x], &Ev::Suspend(c.clone()));
                    let by = (0..n).filter(|&r| r != x).map(|r| (r, per_pass(plans[r], &Ev::Resume(c.clone())))).filter(|w| w.1 > 0).collect();
                    (c, k, by)
                })
                .collect()
        })
        .collect();
    // A pass's length once known: the tasks that never wait first, then those all of whose
    // wakers are known, then (for cycles) those with at least one known per condition.
    let mut pass: Vec<Option<f64>> = (0..n).map(|i| if conds[i].is_empty() { busy[i].map(|b| b as f64) } else { None }).collect();
    let mut done: Vec<bool> = (0..n).map(|i| conds[i].is_empty()).collect();
    for strict in [true, false] {
        loop {
            let mut moved = false;
            for x in 0..n {
                if done[x] {
                    continue;
                }
                // Per condition: its rate of wakeups, None when not known yet.
                let mut rates = Vec::new();
                for (c, k, by) in &conds[x] {
                    let known: Vec<&Waker> = by.iter().filter(|&&(r, _)| pass[r].is_some_and(|l| l > 0.0)).collect();
                    let all = known.len() == by.len();
                    let rate: f64 = known.iter().map(|&&(r, m)| m as f64 / pass[r].unwrap_or(f64::INFINITY)).sum();
                    // A waker that waits for ever wakes no one after that: its pace is 0.
                    let ok = all || !strict && rate > 0.0;
                    rates.push(ok.then_some((c, *k, rate, known.iter().map(|&&(r, _)| plans[r].name.clone()).collect::<Vec<_>>())));
                }
                // In a cycle of waiters, the conditions with no known pace are dropped and
                // the task is paced by the others, when it has any.
                let cut: Vec<&String> = conds[x].iter().zip(&rates).filter(|(_, r)| r.is_none()).map(|((c, ..), _)| c).collect();
                if strict && !cut.is_empty() || cut.len() == rates.len() {
                    continue;
                }
                let rates: Vec<_> = rates.into_iter().flatten().collect();
                let path = plans[x].path.clone();
                let mut waits = BTreeMap::new();
                for c in cut {
                    let by: Vec<&str> = conds[x].iter().filter(|cd| cd.0 == *c).flat_map(|cd| cd.2.iter().map(|&(r, _)| plans[r].name.as_str())).collect();
                    warnings.push(format!(
                        "{path}: {} dropped: what wakes it ({}) waits in turn, with no pace of its own to lay it out by; the task runs more often than under rt-app",
                        what(plans[x], c),
                        by.join(", ")
                    ));
                    waits.insert(c.clone(), None);
                }
                if let Some((c, ..)) = rates.iter().find(|r| r.2 == 0.0) {
                    let w = what(plans[x], c);
                    warnings.push(format!(
                        "{path}: {w}: no running task wakes it, so under rt-app it waits for ever there (suspend waits on the task's own name, whatever its value); so it does here"
                    ));
                    for r in &rates {
                        waits.insert(r.0.clone(), Some(if r.2 == 0.0 { FOREVER_US } else { 0 }));
                    }
                    settle(plans[x], &waits);
                    pass[x] = Some(f64::INFINITY);
                } else {
                    let Some(b) = busy[x] else { continue };
                    let need: f64 = rates.iter().map(|r| r.1 as f64 / r.2).sum();
                    let extra = (need - b as f64).max(0.0);
                    for (c, k, rate, by) in &rates {
                        // The extra time shared among the waits by how long each waits.
                        let w = (extra * (1.0 / rate) / need).round() as u64;
                        warnings.push(format!(
                            "{path}: {} ({k} a pass) read as a sleep of {w} µs, the wait for the next wakeup from {} at their uncontended pace (under rt-app it wakes at each one)",
                            what(plans[x], c),
                            by.join(", ")
                        ));
                        waits.insert(c.to_string(), Some(w));
                    }
                    settle(plans[x], &waits);
                    pass[x] = Some(need.max(b as f64));
                }
                done[x] = true;
                moved = true;
            }
            if !moved {
                break;
            }
        }
    }
    // Tasks left that only wake each other pass a turn round: each waits while the others
    // run, so a round lasts as long as all their passes together (the tutorial's ping-pong).
    let mut group: Vec<usize> = (0..n).collect();
    fn root(g: &mut [usize], mut i: usize) -> usize {
        while g[i] != i {
            g[i] = g[g[i]];
            i = g[i];
        }
        i
    }
    for x in (0..n).filter(|&x| !done[x]) {
        for (_, _, by) in &conds[x] {
            for &(r, _) in by {
                let (a, b) = (root(&mut group, x), root(&mut group, r));
                group[a] = b;
            }
        }
    }
    let mut rings: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for x in 0..n {
        let g = root(&mut group, x);
        rings.entry(g).or_default().push(x);
    }
    let rings: Vec<Vec<usize>> = rings.into_values().filter(|m| m.len() > 1 && m.iter().all(|&x| !done[x] && busy[x].is_some())).collect();
    for ring in &rings {
        let round: u64 = ring.iter().map(|&x| busy[x].unwrap_or(0)).fold(0, u64::saturating_add);
        let names: Vec<String> = ring.iter().map(|&x| plans[x].name.clone()).collect();
        for &x in ring {
            let waits_a_pass: u64 = conds[x].iter().map(|c| c.1).sum();
            let w = (round - busy[x].unwrap_or(0)) / waits_a_pass.max(1);
            let mut waits = BTreeMap::new();
            for (c, ..) in &conds[x] {
                warnings.push(format!(
                    "{}: {} read as a sleep of {w} µs: {} wake each other in turn, so each waits while the others run (uncontended)",
                    plans[x].path,
                    what(plans[x], c),
                    names.join(", ")
                ));
                waits.insert(c.clone(), Some(w));
            }
            settle(plans[x], &waits);
            done[x] = true;
        }
    }
    for x in 0..n {
        if done[x] {
            continue;
        }
        let mut waits = BTreeMap::new();
        for (c, _, by) in &conds[x] {
            let by: Vec<&str> = by.iter().map(|&(r, _)| plans[r].name.as_str()).collect();
            warnings.push(format!(
                "{}: {} dropped: what wakes it ({}) has no pace of its own to lay it out by (it waits in turn, or a pass never ends); the task runs without waiting, more often than under rt-app",
                plans[x].path,
                what(plans[x], c),
                by.join(", ")
            ));
            waits.insert(c.clone(), None);
        }
        settle(plans[x], &waits);
    }
}
