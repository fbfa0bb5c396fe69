//! rt-app's `suspend`/`resume`, which the model cannot play (it has no waking of one task by
//! another), read as timing: a task that suspends waits, on average, for the next resume of
//! its name, and the tasks that resume it do so at the pace of their own loops. So each
//! `suspend` becomes a sleep that stretches the task's pass to the pace of its resumes, on an
//! uncontended timeline. Dropping it instead would turn a task that rt-app wakes once a frame
//! into one that runs back to back.

use super::task::{lay_out, Ev, Plan};

/// Far beyond any run: a task waiting for a resume that never comes.
const FOREVER_US: u64 = 1 << 50;

/// One pass of the task's phases, suspends taking no time: µs, or None when a pass never ends
/// (a phase looping for ever).
fn busy_us(p: &Plan) -> Option<u64> {
    let mut one = p.clone();
    one.loops = 1;
    if one.phases.iter().any(|ph| ph.loops < 0) {
        return None;
    }
    lay_out(&one, FOREVER_US).end_us
}

/// How many times one pass does what `f` counts.
fn per_pass(p: &Plan, f: impl Fn(&Ev) -> bool) -> u64 {
    p.phases.iter().map(|ph| ph.loops.max(0) as u64 * ph.events.iter().filter(|e| f(e)).count() as u64).sum()
}

/// Replaces every `Suspend` of `p` with a sleep of `wait` µs (none: dropped).
fn settle(p: &mut Plan, wait: Option<u64>) {
    for ph in &mut p.phases {
        ph.events.retain(|e| wait.is_some() || *e != Ev::Suspend);
        for e in &mut ph.events {
            if *e == Ev::Suspend {
                *e = Ev::Sleep(wait.unwrap_or(0));
            }
        }
    }
}

pub fn pace(plans: &mut [&mut Plan], warnings: &mut Vec<String>) {
    let n = plans.len();
    let suspends: Vec<u64> = plans.iter().map(|p| per_pass(p, |e| *e == Ev::Suspend)).collect();
    let busy: Vec<Option<u64>> = plans.iter().map(|p| busy_us(p)).collect();
    // Who resumes whom, how often a pass.
    let resumes: Vec<Vec<(usize, u64)>> = (0..n)
        .map(|x| {
            let name = plans[x].name.clone();
            (0..n).map(|r| (r, per_pass(plans[r], |e| *e == Ev::Resume(name.clone())))).filter(|&(r, k)| k > 0 && r != x).collect()
        })
        .collect();
    // A pass's length once known: the tasks that never suspend first, then the ones all of
    // whose resumers are known, then (for cycles) those with at least one known.
    let mut pass: Vec<Option<f64>> = (0..n).map(|i| if suspends[i] == 0 { busy[i].map(|b| b as f64) } else { None }).collect();
    let mut done: Vec<bool> = (0..n).map(|i| suspends[i] == 0).collect();
    for strict in [true, false] {
        loop {
            let mut moved = false;
            for x in 0..n {
                if done[x] {
                    continue;
                }
                let known: Vec<(usize, u64, f64)> = resumes[x].iter().filter_map(|&(r, k)| pass[r].filter(|l| *l > 0.0).map(|l| (r, k, l))).collect();
                if !resumes[x].is_empty() && (known.is_empty() || strict && known.len() < resumes[x].len()) {
                    continue;
                }
                // A task that waits for ever resumes no one after that: its pace is 0.
                let rate: f64 = known.iter().map(|&(_, k, l)| k as f64 / l).sum();
                if rate == 0.0 && known.len() < resumes[x].len() {
                    continue;
                }
                if rate == 0.0 {
                    let who = if resumes[x].is_empty() { "no task resumes it".to_string() } else { format!("the tasks that resume it ({}) wait for ever themselves", known.iter().map(|&(r, ..)| plans[r].name.as_str()).collect::<Vec<_>>().join(", ")) };
                    warnings.push(format!("{}: suspend: {who}, so under rt-app (which waits on the task's own name, whatever the value says) it waits for ever at its first suspend; so it does here", plans[x].path));
                    settle(plans[x], Some(FOREVER_US));
                    pass[x] = Some(f64::INFINITY);
                    done[x] = true;
                    moved = true;
                    continue;
                }
                let Some(b) = busy[x] else { continue };
                let need = suspends[x] as f64 / rate;
                let wait = ((need - b as f64).max(0.0) / suspends[x] as f64).round() as u64;
                let by: Vec<&str> = known.iter().map(|&(r, ..)| plans[r].name.as_str()).collect();
                let partial = if known.len() < resumes[x].len() { " (those whose own pace is known)" } else { "" };
                warnings.push(format!(
                    "{}: suspend read as a sleep of {wait} µs, the wait for the next resume from {}{partial} at their uncontended pace (rt-app wakes the task at each resume)",
                    plans[x].path,
                    by.join(", ")
                ));
                settle(plans[x], Some(wait));
                pass[x] = Some(need.max(b as f64));
                done[x] = true;
                moved = true;
            }
            if !moved {
                break;
            }
        }
    }
    for x in 0..n {
        if done[x] {
            continue;
        }
        let path = plans[x].path.clone();
        let by: Vec<&str> = resumes[x].iter().map(|&(r, _)| plans[r].name.as_str()).collect();
        warnings.push(format!(
            "{path}: suspend dropped: the tasks that resume it ({}) have no pace of their own to lay it out by (they wait in turn, or a pass of theirs never ends); it runs without waiting, more often than under rt-app",
            by.join(", ")
        ));
        settle(plans[x], None);
    }
}
