//! The scheduler panel's knobs (contract §1.2): which tunables and features exist, their
//! defaults per policy, a one-line explanation of each, and reading/writing them in the
//! scenario's JSON. The panel changes the scenario; the core decides what the knobs do.

use serde_json::{Map, Value};

pub const POLICIES: [&str; 5] = ["cfs-v6.2", "latency-nice-v12", "eevdf-v6.6", "eevdf-v6.12", "eevdf-v6.18"];

/// One line per policy of `POLICIES`: what it is, or what it adds to the one before.
pub const POLICY_SUMMARIES: [&str; 5] = [
    "CFS as in Linux 6.2: vruntime, sched_latency periods, wakeup granularity.",
    "CFS with the latency-nice patches v12: latency offsets, the latency tree and its clamps.",
    "EEVDF as first merged (6.6): eligibility by lag, virtual deadlines, run to parity.",
    "EEVDF 6.12: deadline-keyed tree, custom slices, PREEMPT_SHORT, delayed dequeue.",
    "EEVDF 6.18 (as 6.18.44): run to parity limited to the shortest queued slice, the reworked wakeup check, PICK_BUDDY, 0.70 ms slice, lazy preemption.",
];

/// A feature's values: a switch, or one of a few strings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Bool,
    Choice(&'static [&'static str]),
}

pub struct Knob {
    pub key: &'static str,
    pub kind: Kind,
    /// Default under each of `POLICIES`; None = not used by that policy.
    pub defaults: [Option<&'static str>; 5],
    pub what: &'static str,
}

const T: Option<&str> = Some("true");
const F: Option<&str> = Some("false");
const N: Option<&str> = None;

/// Every feature of contract §1.2, the three get_latency_max() clamps first.
pub const FEATURES: &[Knob] = &[
    Knob { key: "latency_max_clamp_tick", kind: Kind::Bool, defaults: [N, T, N, N, N],
        what: "check_preempt_tick(): also resched when curr's vruntime lead (delta) exceeds get_latency_max()." },
    Knob { key: "latency_max_clamp_offset", kind: Kind::Choice(&["always", "relative", "off"]), defaults: [N, Some("always"), N, N, N],
        what: "wakeup_latency_gran(): cap the latency-offset difference at get_latency_max(): always (v12), only when an offset is negative (relative), or never." },
    Knob { key: "latency_max_clamp_wakeup", kind: Kind::Bool, defaults: [N, T, N, N, N],
        what: "wakeup_preempt_entity(): gran = min(gran, get_latency_max()). Not applied with the min-vruntime variants." },
    Knob { key: "wakeup_preempt_variant", kind: Kind::Choice(&["v12", "min-vruntime", "min-vruntime-signed"]), defaults: [N, Some("v12"), N, N, N],
        what: "The thread's follow-ups: preempt when min_vruntime − se.vruntime > get_latency_max() (unsigned as posted, or with the s64 cast)." },
    Knob { key: "latency_list", kind: Kind::Bool, defaults: [N, T, N, N, N],
        what: "v12 8/8: the latency_timeline rb-tree lets tasks with a negative latency offset jump the queue at pick." },
    Knob { key: "ideal_runtime_cap", kind: Kind::Bool, defaults: [F, F, N, N, N],
        what: "ideal_runtime = min(slice, latency), as tip commit 79ba1e607d68; off is v6.2 as the testers ran it." },
    Knob { key: "gentle_fair_sleepers", kind: Kind::Bool, defaults: [T, T, N, N, N],
        what: "place_entity(): a waking sleeper gets half a latency period of credit instead of a whole one." },
    Knob { key: "start_debit", kind: Kind::Bool, defaults: [T, T, N, N, N],
        what: "place_entity(): a new task starts one vslice behind, so forking gives no free run." },
    Knob { key: "last_buddy", kind: Kind::Bool, defaults: [T, T, N, N, N],
        what: "Give the CPU back to the task a wakeup preempted, when fair enough." },
    Knob { key: "next_buddy", kind: Kind::Bool, defaults: [F, F, F, F, F],
        what: "Prefer the task that just woke at the next pick." },
    Knob { key: "wakeup_preemption", kind: Kind::Bool, defaults: [T, T, T, T, T],
        what: "A waking task may preempt the running one at all." },
    Knob { key: "update_cfs_group_enqueue", kind: Kind::Bool, defaults: [T, T, T, T, T],
        what: "update_cfs_group() in the enqueue path: group entity weights follow their shares." },
    Knob { key: "update_cfs_group_dequeue", kind: Kind::Bool, defaults: [T, T, T, T, T],
        what: "update_cfs_group() in the dequeue path." },
    Knob { key: "place_lag", kind: Kind::Bool, defaults: [N, N, T, T, T],
        what: "place_entity(): a task keeps its lag across a sleep." },
    Knob { key: "place_deadline_initial", kind: Kind::Bool, defaults: [N, N, T, T, T],
        what: "A new task starts with half a slice to its first deadline." },
    Knob { key: "place_rel_deadline", kind: Kind::Bool, defaults: [N, N, N, T, T],
        what: "Keep a task's deadline relative across a migration or requeue." },
    Knob { key: "run_to_parity", kind: Kind::Bool, defaults: [N, N, T, T, T],
        what: "Let curr run until it reaches its deadline before picking the next eligible task (6.18: at most the shortest queued slice)." },
    Knob { key: "preempt_short", kind: Kind::Bool, defaults: [N, N, N, T, T],
        what: "A waking task with a shorter slice may preempt curr before curr's slice is used up." },
    Knob { key: "delay_dequeue", kind: Kind::Bool, defaults: [N, N, N, T, T],
        what: "A task sleeping with negative lag stays queued (delayed) until it is eligible." },
    Knob { key: "delay_zero", kind: Kind::Bool, defaults: [N, N, N, T, T],
        what: "A delayed task's positive lag is clipped to 0 when it is finally dequeued." },
    Knob { key: "pick_buddy", kind: Kind::Bool, defaults: [N, N, N, N, T],
        what: "pick_next_entity() takes the next buddy (a cgroup dequeue's, or NEXT_BUDDY's) when it is eligible (6.14)." },
    Knob { key: "respect_slice", kind: Kind::Bool, defaults: [N, N, N, F, N],
        what: "The 2024 RFC (never merged): curr keeps the CPU until its request is used up; turn run_to_parity off for the RFC's tree." },
    Knob { key: "run_to_parity_wakeup", kind: Kind::Bool, defaults: [N, N, N, F, N],
        what: "The 2024 RFC (never merged): a wakeup does not test curr's eligibility while curr is on its first request." },
];

pub struct Tunable {
    pub key: &'static str,
    /// Normalized (1-CPU) default under each policy; None = not used.
    pub defaults: [Option<u64>; 5],
    pub what: &'static str,
}

pub const TUNABLES: &[Tunable] = &[
    Tunable { key: "latency_ns", defaults: [Some(6_000_000), Some(6_000_000), None, None, None],
        what: "sysctl_sched_latency: the period in which every runnable task should run once." },
    Tunable { key: "min_granularity_ns", defaults: [Some(750_000), Some(750_000), None, None, None],
        what: "sysctl_sched_min_granularity: the shortest slice." },
    Tunable { key: "wakeup_granularity_ns", defaults: [Some(1_000_000), Some(1_000_000), None, None, None],
        what: "sysctl_sched_wakeup_granularity: how far ahead a waking task must be to preempt." },
    Tunable { key: "sched_nr_latency", defaults: [Some(8), Some(8), None, None, None],
        what: "Tasks beyond which the period stretches to nr × min_granularity." },
    Tunable { key: "base_slice_ns", defaults: [None, None, Some(750_000), Some(750_000), Some(700_000)],
        what: "sysctl_sched_base_slice: EEVDF's request size." },
];

pub const SCALINGS: [&str; 3] = ["none", "linear", "log"];

pub fn policy_index(policy: &str) -> usize {
    POLICIES.iter().position(|p| *p == policy).unwrap_or(0)
}

fn scheduler(doc: &mut Value) -> Option<&mut Map<String, Value>> {
    doc.as_object_mut()?.entry("scheduler").or_insert_with(|| Value::Object(Map::new())).as_object_mut()
}

fn section<'a>(doc: &'a mut Value, name: &str) -> Option<&'a mut Map<String, Value>> {
    scheduler(doc)?.entry(name).or_insert_with(|| Value::Object(Map::new())).as_object_mut()
}

/// The scenario's value of a scheduler setting: `section` is "tunables" or "features".
pub fn get(doc: &Value, sect: &str, key: &str) -> Option<Value> {
    doc.get("scheduler")?.get(sect)?.get(key).cloned()
}

pub fn policy(doc: &Value) -> String {
    doc.get("scheduler").and_then(|s| s.get("policy")).and_then(|p| p.as_str()).unwrap_or("cfs-v6.2").to_string()
}

/// Set the policy (tunables and features that do not apply are kept: the core ignores them
/// with a warning, so one scenario runs under every policy).
pub fn set_policy(doc: &mut Value, p: &str) -> Result<(), String> {
    scheduler(doc).ok_or("the scenario is not a JSON object")?.insert("policy".into(), Value::String(p.into()));
    Ok(())
}

/// Set (or with `None`, remove) a tunable or feature.
pub fn set(doc: &mut Value, sect: &str, key: &str, v: Option<Value>) -> Result<(), String> {
    let m = section(doc, sect).ok_or("the scenario is not a JSON object")?;
    match v {
        Some(v) => {
            m.insert(key.into(), v);
        }
        None => {
            m.remove(key);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_clamps_come_first_and_every_contract_feature_is_listed() {
        assert_eq!(FEATURES[0].key, "latency_max_clamp_tick");
        assert_eq!(FEATURES[1].key, "latency_max_clamp_offset");
        assert_eq!(FEATURES[2].key, "latency_max_clamp_wakeup");
        assert_eq!(FEATURES.len(), 23, "the contract's 20, the two RFC features of eevdf-v6.12 and eevdf-v6.18's pick_buddy");
        for f in FEATURES {
            assert!(!f.what.is_empty());
        }
    }

    #[test]
    fn every_listed_knob_is_accepted_by_the_core() {
        // Each feature set to its default under a policy that uses it parses (no unknown key).
        for (pi, p) in POLICIES.iter().enumerate() {
            for f in FEATURES {
                let Some(d) = f.defaults[pi] else { continue };
                let v: Value = match f.kind {
                    Kind::Bool => json!(d == "true"),
                    Kind::Choice(_) => json!(d),
                };
                let mut doc = json!({ "format": "fairground-scenario/1", "name": "k", "duration_ms": 1,
                    "scheduler": { "policy": "cfs-v6.2" }, "tasks": [ { "name": "h", "behavior": { "kind": "hog" } } ] });
                set_policy(&mut doc, p).unwrap();
                set(&mut doc, "features", f.key, Some(v)).unwrap();
                fairground_sim::scenario::parse_value(&doc).unwrap_or_else(|e| panic!("{p} {}: {e}", f.key));
            }
            for t in TUNABLES {
                let mut doc = json!({ "format": "fairground-scenario/1", "name": "k", "duration_ms": 1,
                    "scheduler": { "policy": p }, "tasks": [ { "name": "h", "behavior": { "kind": "hog" } } ] });
                set(&mut doc, "tunables", t.key, Some(json!(t.defaults[pi].or(t.defaults[0]).or(t.defaults[2]).unwrap_or(1)))).unwrap();
                fairground_sim::scenario::parse_value(&doc).unwrap_or_else(|e| panic!("{p} {}: {e}", t.key));
            }
        }
    }

    #[test]
    fn set_and_remove() {
        let mut doc = json!({ "scheduler": { "policy": "cfs-v6.2" } });
        set(&mut doc, "features", "start_debit", Some(json!(false))).unwrap();
        assert_eq!(get(&doc, "features", "start_debit"), Some(json!(false)));
        set(&mut doc, "features", "start_debit", None).unwrap();
        assert_eq!(get(&doc, "features", "start_debit"), None);
        set_policy(&mut doc, "eevdf-v6.6").unwrap();
        assert_eq!(policy(&doc), "eevdf-v6.6");
    }
}
