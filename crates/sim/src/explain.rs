//! The decision log (issue 8): every wakeup-preemption check, tick-preemption check and pick,
//! with the numbers the kernel used, and for the v12 clamps whether they bound and whether
//! the outcome would have been different without them. Off by default (`Fair::log` is None);
//! the app turns it on. `describe()` puts an entry in plain words.

use crate::entity::NIL;

/// What was decided, with its numbers (ns of virtual time unless said otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// CFS / v12 `wakeup_preempt_entity(curr, se)` at a wakeup.
    CfsWakeup {
        vdiff: i64,
        /// `wakeup_gran(se)`: the wakeup granularity in the wakee's virtual time.
        wakeup_gran: i64,
        /// v12 `wakeup_latency_gran()`, after its own clamp; 0 under v6.2.
        offset: i64,
        /// The offset before `min(offset, get_latency_max())`.
        offset_unclamped: i64,
        /// The granularity compared with vdiff, after the wakeup clamp.
        gran: i64,
        /// `gran` before `min(gran, get_latency_max())`.
        gran_unclamped: i64,
        latency_max: i64,
        verdict: i32,
        /// The verdict with neither clamp applied.
        verdict_unclamped: i32,
        /// The entities compared were group entities (the tasks are below them).
        via_groups: bool,
        /// v12: curr's and the wakee's own latency offsets (0 under v6.2), for the
        /// counterfactuals (`measure::counterfactual`).
        curr_offset: i64,
        wakee_offset: i64,
    },
    /// CFS / v12 `check_preempt_tick()`.
    CfsTick {
        delta_exec: u64,
        ideal_runtime: u64,
        /// curr's vruntime minus the leftmost's (0 when not compared).
        delta: i64,
        offset: i64,
        latency_max: u64,
        /// v12's `delta > get_latency_max()` trigger fired (and ideal_runtime alone did not).
        by_latency_max: bool,
        /// The vruntime comparison was made (curr ran at least min_granularity, a leftmost
        /// was queued, and under v12 delta reached the offset).
        compared: bool,
        /// `sched_slice()`'s inputs, for the counterfactuals: the period, curr's weight, its
        /// cfs_rq's load weight, and the floor (min_granularity, or the idle one).
        period: u64,
        weight: u64,
        rq_weight: u64,
        min_gran: u64,
        /// curr is below a group entity (its slice is scaled at every level).
        via_groups: bool,
    },
    /// EEVDF wakeup: the wakee preempts if it is what `pick_eevdf()` would now choose.
    EevdfWakeup {
        wakee_lag: i64,
        wakee_deadline_rel: i64,
        wakee_eligible: bool,
        curr_deadline_rel: i64,
        curr_eligible: bool,
        /// RUN_TO_PARITY: curr still on the request it was picked with.
        curr_protected: bool,
        /// v6.12 PREEMPT_SHORT lifted that protection.
        preempt_short: bool,
        picked: u32,
        /// The earliest deadline among the other eligible entities (neither curr nor the
        /// wakee), relative to V; `NO_DEADLINE` when there is none.
        others_deadline_rel: i64,
        /// The entities compared are the tasks themselves (not group entities above them).
        tasks_compared: bool,
        /// The slices of the two entities' requests, and the wakee's weight.
        wakee_slice: u64,
        curr_slice: u64,
        wakee_weight: u64,
    },
    /// EEVDF tick: whether curr used up its request (vruntime reached the deadline). Both
    /// relative to V after the tick's update_curr(); the deadline is the one compared, before
    /// a new request replaced it. `slice` and `weight` are the request's.
    EevdfTick {
        used_up: bool,
        vruntime_rel: i64,
        deadline_rel: i64,
        slice: u64,
        weight: u64,
        /// curr was running to parity (vlag == deadline, set at its pick) before the tick,
        /// and is eligible after it: v6.12's `did_preempt_short()` reschedules an
        /// unprotected, ineligible curr.
        protected: bool,
        eligible: bool,
        /// A reschedule was already asked for in this instant.
        pending: bool,
        /// eevdf-v6.18: `protected` is `protect_slice()` after the tick (vruntime before
        /// vprot), which update_curr() reschedules without.
        v618: bool,
    },
    /// A pick by `__schedule()`: `prev` (NIL if idle) → `task`, at the task's own cfs_rq.
    Pick {
        prev: u32,
        key_rel: i64,
        lag: i64,
        eligible: bool,
        eevdf: bool,
        /// The rule of `pick_next_entity()` / `pick_eevdf()` that chose it.
        from: PickFrom,
        /// The entity the pick would have been without the rule that chose: tasks_timeline's
        /// leftmost without the buddies, the buddies' choice without v12's latency tree,
        /// `pick_eevdf()` without NEXT_BUDDY or RUN_TO_PARITY; NIL when that is the pick itself.
        instead: u32,
        /// Entities queued at that cfs_rq when it picked (curr included), and how many of
        /// them were eligible (EEVDF; all under CFS).
        queued: u16,
        eligible_count: u16,
    },
}

/// `EevdfWakeup::others_deadline_rel` when no other entity is eligible.
pub const NO_DEADLINE: i64 = i64::MAX;

/// What the last `pick_next_entity()` chose between, kept by the fair class while the log
/// records (the pick's own state is gone once the picked entity leaves the tree).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PickNote {
    pub from: PickFrom,
    pub instead: u32,
    pub queued: u16,
    pub eligible_count: u16,
}

impl Default for PickNote {
    fn default() -> Self {
        PickNote {
            from: PickFrom::Leftmost,
            instead: NIL,
            queued: 0,
            eligible_count: 0,
        }
    }
}

/// Which rule of the pick chose the entity, in the kernel's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PickFrom {
    /// CFS: the leftmost of tasks_timeline (the smallest vruntime).
    #[default]
    Leftmost,
    /// CFS: curr, left of the tree's leftmost (group levels).
    Curr,
    /// CFS: the second entity, because the leftmost was the skip buddy (`yield_task_fair()`).
    Second,
    /// The next buddy (CFS: a wakee that asked for it, not unfair to the leftmost; EEVDF:
    /// NEXT_BUDDY, eligible).
    NextBuddy,
    /// CFS: the last buddy, the task a wakeup preempted, given the CPU back.
    LastBuddy,
    /// v12: the first of latency_timeline, within wakeup_gran of the pick without it.
    LatencyTree,
    /// EEVDF: curr kept to the end of its request (RUN_TO_PARITY), or by the RFCs' rules.
    RunToParity,
    /// EEVDF: the earliest eligible virtual deadline (`pick_eevdf()`'s search).
    EarliestDeadline,
}

impl PickFrom {
    /// The rule in a few words, for the log.
    pub fn label(self) -> &'static str {
        match self {
            PickFrom::Leftmost => "the leftmost of tasks_timeline",
            PickFrom::Curr => "curr, left of tasks_timeline's leftmost",
            PickFrom::Second => "the second of tasks_timeline (the leftmost is the skip buddy)",
            PickFrom::NextBuddy => "the next buddy",
            PickFrom::LastBuddy => "the last buddy (the task a wakeup preempted)",
            PickFrom::LatencyTree => "the first of latency_timeline",
            PickFrom::RunToParity => "curr, running to parity",
            PickFrom::EarliestDeadline => "the earliest eligible deadline",
        }
    }
}

/// Where a decision is taken: the core function, its file and line (declared beside it with
/// `decision_site!`, so they follow the code), and the fair.c function it models.
#[derive(Debug, PartialEq, Eq)]
pub struct Site {
    pub file: &'static str,
    pub line: u32,
    pub function: &'static str,
    pub models: &'static str,
}

/// A `Site` at this file and line.
#[macro_export]
macro_rules! decision_site {
    ($function:expr, $models:expr) => {
        $crate::explain::Site { file: file!(), line: line!(), function: $function, models: $models }
    };
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    pub at_ns: u64,
    pub cpu: u32,
    /// The task decided about: the wakee, the running task at a tick, the task picked.
    pub task: u32,
    /// The other party: the running task at a wakeup; NIL otherwise.
    pub other: u32,
    /// Preempted / rescheduled / (for a pick) always true.
    pub outcome: bool,
    pub why: Why,
    pub site: &'static Site,
}

pub(crate) fn ms(x: i64) -> String {
    format!("{:.3} ms", x as f64 / 1e6)
}

/// A vruntime or deadline relative to V (`avg_vruntime()`), written as the point it is:
/// "V + 0.900 ms", "V − 0.154 ms", "V"; a bare number would not say what it is measured from.
fn rel_v(x: i64) -> String {
    match x {
        0 => "V".to_string(),
        x if x < 0 => format!("V − {}", ms(x.saturating_neg())),
        x => format!("V + {}", ms(x)),
    }
}

impl Decision {
    /// The entry in plain words, naming tasks with `name`.
    pub fn describe(&self, name: &dyn Fn(u32) -> String) -> String {
        let who = |t: u32| if t == NIL { "idle".to_string() } else { name(t) };
        let (t, o) = (who(self.task), who(self.other));
        match self.why {
            Why::CfsWakeup { vdiff, wakeup_gran, offset, offset_unclamped, gran, gran_unclamped, latency_max, verdict, verdict_unclamped, via_groups, .. } => {
                let groups = if via_groups { " (compared through their group entities)" } else { "" };
                let cmp = if verdict == 1 { ">" } else { "≤" };
                let mut s = format!(
                    "{t} woke; vdiff {} {cmp} gran {} (wakeup_gran {} + latency offset {}",
                    ms(vdiff),
                    ms(gran),
                    ms(wakeup_gran),
                    ms(offset)
                );
                if offset != offset_unclamped {
                    s += &format!(", clamped from {}", ms(offset_unclamped));
                }
                if gran != gran_unclamped {
                    s += &format!("; clamped to get_latency_max {}", ms(latency_max));
                }
                s += ")";
                s += &match verdict {
                    1 => format!(" → preempts {o}{groups}"),
                    0 => format!(" → does not preempt {o}{groups}"),
                    _ => format!(" → not ahead of {o}{groups}: no preemption"),
                };
                if (verdict == 1) != (verdict_unclamped == 1) {
                    s += if verdict == 1 { "; without the clamp it would not have" } else { "; without the clamp it would have" };
                }
                s
            }
            Why::CfsTick { delta_exec, ideal_runtime, delta, offset, latency_max, by_latency_max, .. } => {
                if !self.outcome {
                    format!("tick: {t} ran {} of its {} slice; keeps the CPU", ms(delta_exec as i64), ms(ideal_runtime as i64))
                } else if by_latency_max {
                    format!(
                        "tick: {t} is {} ahead of the leftmost (offset {}), beyond get_latency_max {} → rescheduled; without the clamp it would have kept the CPU",
                        ms(delta),
                        ms(offset),
                        ms(latency_max as i64)
                    )
                } else if delta_exec > ideal_runtime {
                    format!("tick: {t} ran {} > its slice {} → rescheduled", ms(delta_exec as i64), ms(ideal_runtime as i64))
                } else {
                    format!("tick: {t} is {} ahead of the leftmost, more than its slice {} → rescheduled", ms(delta), ms(ideal_runtime as i64))
                }
            }
            Why::EevdfWakeup { wakee_lag, wakee_deadline_rel, wakee_eligible, curr_deadline_rel, curr_eligible, curr_protected, preempt_short, picked, .. } => {
                let mut s = format!(
                    "{t} woke with lag {} ({}), deadline {} vs {o}'s {} ({})",
                    ms(wakee_lag),
                    if wakee_eligible { "eligible" } else { "not eligible" },
                    rel_v(wakee_deadline_rel),
                    rel_v(curr_deadline_rel),
                    if curr_eligible { "eligible" } else { "not eligible" }
                );
                if preempt_short {
                    s += "; PREEMPT_SHORT: shorter slice, lifts run-to-parity";
                } else if curr_protected && curr_eligible {
                    s += &format!("; {o} runs to parity");
                }
                s += &if self.outcome {
                    format!(" → pick_eevdf() now chooses {t}: preempts {o}")
                } else {
                    format!(" → pick_eevdf() still chooses {}: no preemption", who(picked))
                };
                s
            }
            Why::EevdfTick { used_up, vruntime_rel, deadline_rel, pending, v618, .. } => {
                let before = ms(deadline_rel - vruntime_rel);
                if used_up {
                    format!(
                        "tick: {t} used up its request (vruntime {} reached the deadline {}) → new deadline, rescheduled",
                        rel_v(vruntime_rel),
                        rel_v(deadline_rel)
                    )
                } else if !self.outcome {
                    format!("tick: {t} is {before} before its deadline; keeps the CPU")
                } else if pending {
                    format!("tick: {t} is {before} before its deadline; a reschedule was already asked for in this instant")
                } else if v618 {
                    format!("tick: {t} is {before} before its deadline, but past its protected slice (vruntime reached vprot; update_curr(), v6.18) → rescheduled")
                } else {
                    format!("tick: {t} is {before} before its deadline, but no longer runs to parity and is not eligible (did_preempt_short(), v6.12) → rescheduled")
                }
            }
            Why::Pick { prev, key_rel, lag, eligible, eevdf, from, instead, queued, eligible_count } => {
                let after = if prev == NIL {
                    "idle".to_string()
                } else {
                    who(prev)
                };
                let mut s = format!("pick: {t} after {after}: {}", from.label());
                if eevdf {
                    s += &format!(
                        " (lag {}, {}; {eligible_count} of {queued} queued eligible)",
                        ms(lag),
                        if eligible { "eligible" } else { "not eligible" }
                    );
                    if instead != NIL {
                        s += &format!("; without it pick_eevdf() chooses {}", who(instead));
                    }
                } else {
                    // A waker placed by the sleeper credit sits below min_vruntime: "3.000 ms
                    // below" reads better than "-3.000 ms above".
                    let at = match key_rel {
                        0 => "at".to_string(),
                        k if k < 0 => format!("{} below", ms(k.saturating_neg())),
                        k => format!("{} above", ms(k)),
                    };
                    s += &format!(" (vruntime {at} min_vruntime; {queued} queued)");
                    if instead != NIL {
                        s += &match from {
                            PickFrom::Second => {
                                format!(" instead of the leftmost {}", who(instead))
                            }
                            PickFrom::LatencyTree => format!(
                                ", within wakeup_gran of {}, the pick without it",
                                who(instead)
                            ),
                            _ => format!(", within wakeup_gran of the leftmost {}", who(instead)),
                        };
                    }
                }
                s
            }
        }
    }
}

impl crate::cfs::Fair {
    /// Start recording decisions.
    pub fn enable_log(&mut self) {
        if self.log.is_none() {
            self.log = Some(Vec::new());
        }
    }

    #[inline]
    pub(crate) fn record(&mut self, d: Decision) {
        if let Some(l) = self.log.as_mut() {
            l.push(d);
        }
    }

    /// The task below an entity, for naming (a group entity's currently running task is not
    /// tracked, so a group entity names itself by NIL).
    #[inline]
    pub(crate) fn task_of(&self, se: u32) -> u32 {
        if self.ents[se as usize].is_task() {
            se
        } else {
            NIL
        }
    }
}

/// "Why did this run?" for a stint of `cpu` over [start_ns, end_ns): the pick that began it
/// and the check that caused that pick (a tick or a wakeup that asked for the switch, if any),
/// and the check that ended it (None when the task went to sleep or the run ended). `log`
/// is in time order, as recorded.
pub fn why_stint(log: &[Decision], cpu: u32, start_ns: u64, end_ns: u64) -> WhyStint {
    let at = |t: u64| {
        let lo = log.partition_point(|d| d.at_ns < t);
        let hi = log.partition_point(|d| d.at_ns <= t);
        log[lo..hi].iter().filter(move |d| d.cpu == cpu)
    };
    let cause = |t: u64| at(t).find(|d| d.outcome && !matches!(d.why, Why::Pick { .. })).copied();
    WhyStint {
        pick: at(start_ns).find(|d| matches!(d.why, Why::Pick { .. })).copied(),
        started_by: cause(start_ns),
        ended_by: cause(end_ns),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WhyStint {
    pub pick: Option<Decision>,
    pub started_by: Option<Decision>,
    pub ended_by: Option<Decision>,
}
