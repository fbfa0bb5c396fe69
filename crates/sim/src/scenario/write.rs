//! Writing a scenario back as contract JSON (share links, reports, the app's editor).
//!
//! The output is plain JSON in the contract's shape and key order. Optional fields at their
//! default are left out (`count: 1`, `nice: 0`, empty `cgroups`, …); `seed`, `machine` and
//! `scheduler` are always written. A timeline entry uses `at_us` or `at_ms` as recorded by
//! `at_in_us`. `parse_value(&to_json(s))` gives back `s`.

use super::{Attrs, Behavior, Dist, FairPolicy, Scenario, SetAttrs, Target, WorkloadKind, FORMAT};
use serde_json::{json, Map, Value};

/// A µs value of a bursty distribution: an integer when it is one (up to 2^53), else a float.
fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() <= 9_007_199_254_740_992.0 {
        // Exact: an integral f64 of at most 2^53 fits an i64.
        json!(x as i64)
    } else {
        serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
    }
}

fn dist(d: &Dist) -> Value {
    match *d {
        Dist::Fixed(x) => number(x),
        Dist::Exp(m) => json!({ "exp": number(m) }),
        Dist::Uniform(lo, hi) => json!({ "uniform": [number(lo), number(hi)] }),
        Dist::Normal(m, sd) => json!({ "normal": [number(m), number(sd)] }),
    }
}

fn behavior(b: &Behavior) -> Value {
    match b {
        Behavior::Hog => json!({ "kind": "hog" }),
        Behavior::Periodic { period_us, run_us } => {
            json!({ "kind": "periodic", "period_us": period_us, "run_us": run_us })
        }
        Behavior::Bursty { run_us, sleep_us } => {
            json!({ "kind": "bursty", "run_us": dist(run_us), "sleep_us": dist(sleep_us) })
        }
        Behavior::Duty { percent, period_us } => json!({ "kind": "duty", "percent": percent, "period_us": period_us }),
        Behavior::Replay { start_us, steps_us } => {
            let steps: Vec<Value> = steps_us.iter().map(|&(s, r)| json!([s, r])).collect();
            if *start_us == 0 {
                json!({ "kind": "replay", "steps_us": steps })
            } else {
                json!({ "kind": "replay", "start_us": start_us, "steps_us": steps })
            }
        }
    }
}

fn attrs(m: &mut Map<String, Value>, a: &Attrs) {
    if a.policy != FairPolicy::Normal {
        m.insert("policy".into(), json!(a.policy.name()));
    }
    if a.nice != 0 {
        m.insert("nice".into(), json!(a.nice));
    }
    if a.latency_nice != 0 {
        m.insert("latency_nice".into(), json!(a.latency_nice));
    }
    if let Some(s) = a.slice_us {
        m.insert("slice_us".into(), json!(s));
    }
    if let Some(c) = &a.cgroup {
        m.insert("cgroup".into(), json!(c));
    }
    if let Some(c) = &a.cpus {
        m.insert("cpus".into(), json!(c));
    }
}

fn set(s: &SetAttrs) -> Value {
    let mut m = Map::new();
    let mut put = |k: &str, v: Option<Value>| {
        if let Some(v) = v {
            m.insert(k.into(), v);
        }
    };
    put("nice", s.nice.map(|x| json!(x)));
    put("latency_nice", s.latency_nice.map(|x| json!(x)));
    put("slice_us", s.slice_us.map(|x| json!(x)));
    put("shares", s.shares.map(|x| json!(x)));
    put("policy", s.policy.map(|p| json!(p.name())));
    Value::Object(m)
}

/// Serialize a struct of `Option`s (tunables, features) as an object of the given fields.
fn to_object<T: serde::Serialize>(t: &T) -> Map<String, Value> {
    match serde_json::to_value(t) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

/// The scenario as contract JSON.
pub fn to_json(s: &Scenario) -> Value {
    let mut root = Map::new();
    root.insert("format".into(), json!(FORMAT));
    root.insert("name".into(), json!(s.name));
    if let Some(d) = &s.description {
        root.insert("description".into(), json!(d));
    }
    root.insert("seed".into(), json!(s.seed));
    root.insert("duration_ms".into(), json!(s.duration_ms));
    let mut machine = Map::new();
    machine.insert("cpus".into(), json!(s.machine.cpus));
    machine.insert("hz".into(), json!(s.machine.hz));
    if let Some(l) = s.machine.llc_size {
        machine.insert("llc_size".into(), json!(l));
    }
    if let Some(t) = &s.machine.topology {
        let preset = t.preset.and_then(crate::smp::Topology::preset);
        match &preset {
            Some(p) => machine.insert("topology".into(), json!(p.preset)),
            None => machine.insert(
                "topology".into(),
                json!({ "threads_per_core": t.threads_per_core, "cores_per_llc": t.cores_per_llc, "llcs_per_node": t.llcs_per_node, "nodes": t.nodes }),
            ),
        };
        if !t.distance.is_empty() && preset.is_none_or(|p| p.distance != t.distance) {
            let rows: Vec<&[u32]> = t.distance.chunks(t.nodes as usize).collect();
            machine.insert("distance".into(), json!(rows));
        }
    }
    let c = &s.machine.costs;
    if c.measured {
        machine.insert("costs".into(), json!("measured"));
    } else if !c.is_zero() {
        machine.insert(
            "costs".into(),
            json!({ "switch_ns": c.switch_ns, "wakeup_ns": c.wakeup_ns, "idle_exit_ns": c.idle_exit_ns, "migration_ns": c.migration_ns }),
        );
    }
    if s.machine.preemption != super::model::Preemption::Full {
        machine.insert("preemption".into(), json!(s.machine.preemption.name()));
    }
    root.insert("machine".into(), Value::Object(machine));
    let mut sched = Map::new();
    sched.insert("policy".into(), json!(s.scheduler.policy.name()));
    let tunables = to_object(&s.scheduler.tunables);
    if !tunables.is_empty() {
        sched.insert("tunables".into(), Value::Object(tunables));
    }
    let features = to_object(&s.scheduler.features);
    if !features.is_empty() {
        sched.insert("features".into(), Value::Object(features));
    }
    root.insert("scheduler".into(), Value::Object(sched));
    if !s.cgroups.is_empty() {
        let cgroups: Vec<Value> = s
            .cgroups
            .iter()
            .map(|c| {
                let mut m = Map::new();
                m.insert("name".into(), json!(c.name));
                if let Some(p) = &c.parent {
                    m.insert("parent".into(), json!(p));
                }
                if c.shares != 1024 {
                    m.insert("shares".into(), json!(c.shares));
                }
                if c.latency_nice != 0 {
                    m.insert("latency_nice".into(), json!(c.latency_nice));
                }
                Value::Object(m)
            })
            .collect();
        root.insert("cgroups".into(), Value::Array(cgroups));
    }
    if !s.tasks.is_empty() {
        let tasks: Vec<Value> = s
            .tasks
            .iter()
            .map(|t| {
                let mut m = Map::new();
                m.insert("name".into(), json!(t.name));
                if t.count != 1 {
                    m.insert("count".into(), json!(t.count));
                }
                attrs(&mut m, &t.attrs);
                if t.start_ms != 0 {
                    m.insert("start_ms".into(), json!(t.start_ms));
                }
                if t.stagger_us != 0 {
                    m.insert("stagger_us".into(), json!(t.stagger_us));
                }
                m.insert("behavior".into(), behavior(&t.behavior));
                Value::Object(m)
            })
            .collect();
        root.insert("tasks".into(), Value::Array(tasks));
    }
    if !s.workloads.is_empty() {
        let workloads: Vec<Value> = s
            .workloads
            .iter()
            .map(|w| {
                let mut m = Map::new();
                let params = match w.kind {
                    WorkloadKind::Hackbench { groups, fds, loops, msg_us, pipe_msgs } => {
                        m.insert("kind".into(), json!("hackbench"));
                        json!({ "groups": groups, "fds": fds, "loops": loops, "msg_us": msg_us, "pipe_msgs": pipe_msgs })
                    }
                    WorkloadKind::Schbench { messengers, workers, sleep_us, cputime_us, msg_us } => {
                        m.insert("kind".into(), json!("schbench"));
                        json!({ "messengers": messengers, "workers": workers, "sleep_us": sleep_us,
                                "cputime_us": cputime_us, "msg_us": msg_us })
                    }
                };
                m.insert("name".into(), json!(w.name));
                if w.start_ms != 0 {
                    m.insert("start_ms".into(), json!(w.start_ms));
                }
                attrs(&mut m, &w.attrs);
                if let Value::Object(p) = params {
                    m.extend(p);
                }
                Value::Object(m)
            })
            .collect();
        root.insert("workloads".into(), Value::Array(workloads));
    }
    if !s.timeline.is_empty() {
        let timeline: Vec<Value> = s
            .timeline
            .iter()
            .map(|e| {
                let mut m = Map::new();
                // A time that is not a whole ms (possible only in a scenario built in code) is
                // written in µs rather than rounded.
                if e.at_in_us || e.at_ns % 1_000_000 != 0 {
                    m.insert("at_us".into(), json!(e.at_ns / 1_000));
                } else {
                    m.insert("at_ms".into(), json!(e.at_ns / 1_000_000));
                }
                match &e.target {
                    Target::Task(t) => m.insert("task".into(), json!(t)),
                    Target::Cgroup(c) => m.insert("cgroup".into(), json!(c)),
                };
                m.insert("set".into(), set(&e.set));
                Value::Object(m)
            })
            .collect();
        root.insert("timeline".into(), Value::Array(timeline));
    }
    if let Some(l) = &s.lesson {
        root.insert("lesson".into(), lesson(l));
    }
    Value::Object(root)
}

fn lesson(l: &crate::scenario::Lesson) -> Value {
    use crate::scenario::{Highlight, QuestionKind};
    let steps: Vec<Value> = l
        .steps
        .iter()
        .map(|st| {
            let mut o = Map::new();
            o.insert("text".into(), json!(st.text));
            o.insert("at_us".into(), json!(st.at_ns / 1000));
            if !st.highlight.is_empty() {
                let h: Vec<Value> = st
                    .highlight
                    .iter()
                    .map(|h| match h {
                        Highlight::Task(n) => json!({ "task": n }),
                        Highlight::Cpu(c) => json!({ "cpu": c }),
                        Highlight::Tree(c) => json!({ "tree": c }),
                        Highlight::Decision(d) => json!({ "decision": d }),
                        Highlight::Histogram(n) => json!({ "histogram": n }),
                        Highlight::Switch(n) => json!({ "switch": n }),
                    })
                    .collect();
                o.insert("highlight".into(), Value::Array(h));
            }
            if let Some(q) = &st.question {
                let v = match &q.kind {
                    QuestionKind::NextTask { cpu } => json!({ "ask": q.ask, "kind": "next_task", "cpu": cpu }),
                    QuestionKind::WillPreempt { task } => json!({ "ask": q.ask, "kind": "will_preempt", "task": task }),
                    QuestionKind::Eligible { task } => json!({ "ask": q.ask, "kind": "eligible", "task": task }),
                };
                o.insert("question".into(), v);
            }
            if let Some(h) = &st.hint {
                o.insert("hint".into(), json!(h));
            }
            if !st.tries.is_empty() {
                let t: Vec<Value> = st.tries.iter().map(|t| json!({ "label": t.label, "set": t.set })).collect();
                o.insert("try".into(), Value::Array(t));
            }
            Value::Object(o)
        })
        .collect();
    let mut o = Map::new();
    if let Some(t) = &l.title {
        o.insert("title".into(), json!(t));
    }
    o.insert("steps".into(), Value::Array(steps));
    Value::Object(o)
}
