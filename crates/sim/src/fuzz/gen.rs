//! Random scenarios for the invariant fuzzer, and the two metamorphic variants of one: the
//! same scenario under other names, and with edits that change nothing.

use crate::rng::Rng;
use serde_json::{json, Map, Value};

const POLICIES: [&str; 5] = ["cfs-v6.2", "latency-nice-v12", "eevdf-v6.6", "eevdf-v6.12", "eevdf-v6.18"];

struct G(Rng);

impl G {
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.0.next_u64() % n
        }
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
    fn nice(&mut self) -> i64 {
        if self.chance(40) {
            0
        } else {
            self.range(-20, 19)
        }
    }
}

/// The features a policy's kernel has, each set at random (or left at its default).
fn features(g: &mut G, policy: &str) -> Value {
    let mut f = Map::new();
    let flag = |g: &mut G, f: &mut Map<String, Value>, k: &str| {
        if g.chance(50) {
            f.insert(k.into(), Value::Bool(g.chance(50)));
        }
    };
    for k in ["next_buddy", "wakeup_preemption", "update_cfs_group_enqueue", "update_cfs_group_dequeue"] {
        flag(g, &mut f, k);
    }
    match policy {
        "cfs-v6.2" | "latency-nice-v12" => {
            for k in ["gentle_fair_sleepers", "start_debit", "last_buddy", "ideal_runtime_cap"] {
                flag(g, &mut f, k);
            }
            if policy == "latency-nice-v12" {
                for k in ["latency_list", "latency_max_clamp_tick"] {
                    flag(g, &mut f, k);
                }
                if g.chance(50) {
                    f.insert("latency_max_clamp_offset".into(), json!(*g.pick(&["always", "relative", "off"])));
                }
                let variant = *g.pick(&["v12", "v12", "min-vruntime", "min-vruntime-signed"]);
                f.insert("wakeup_preempt_variant".into(), json!(variant));
                if variant == "v12" {
                    flag(g, &mut f, "latency_max_clamp_wakeup");
                }
            }
        }
        _ => {
            for k in ["place_lag", "place_deadline_initial", "run_to_parity"] {
                flag(g, &mut f, k);
            }
            if policy == "eevdf-v6.12" {
                for k in ["place_rel_deadline", "preempt_short", "delay_dequeue", "delay_zero", "respect_slice", "run_to_parity_wakeup"] {
                    flag(g, &mut f, k);
                }
            }
            if policy == "eevdf-v6.18" {
                for k in ["place_rel_deadline", "preempt_short", "delay_dequeue", "delay_zero", "pick_buddy", "next_buddy"] {
                    flag(g, &mut f, k);
                }
            }
        }
    }
    Value::Object(f)
}

fn dist(g: &mut G, mean: i64) -> Value {
    match g.below(4) {
        0 => json!(g.range(1, mean)),
        1 => json!({ "exp": g.range(1, mean) }),
        2 => {
            let lo = g.range(0, mean);
            json!({ "uniform": [lo, lo + g.range(1, mean)] })
        }
        _ => json!({ "normal": [g.range(1, mean), g.range(0, mean / 2 + 1)] }),
    }
}

fn behavior(g: &mut G) -> Value {
    match g.below(5) {
        0 => json!({ "kind": "hog" }),
        1 => {
            let period = g.range(200, 20_000);
            json!({ "kind": "periodic", "period_us": period, "run_us": g.range(1, period) })
        }
        2 => json!({ "kind": "bursty", "run_us": dist(g, 3000), "sleep_us": dist(g, 6000) }),
        3 => json!({ "kind": "duty", "percent": g.range(1, 100), "period_us": g.range(500, 20_000) }),
        _ => {
            let steps: Vec<Value> = (0..g.range(1, 6)).map(|_| json!([g.range(0, 5000), g.range(1, 5000)])).collect();
            json!({ "kind": "replay", "start_us": g.range(0, 3000), "steps_us": steps })
        }
    }
}

/// Fields every task and workload can carry: nice, latency nice, slice, cgroup, affinity.
fn attrs(g: &mut G, o: &mut Map<String, Value>, cpus: i64, cgroups: &[String], duration: i64) {
    if g.chance(60) {
        o.insert("nice".into(), json!(g.nice()));
    }
    if g.chance(40) {
        o.insert("latency_nice".into(), json!(g.nice()));
    }
    if g.chance(25) {
        o.insert("slice_us".into(), json!(*g.pick(&[0, 50, 100, 300, 750, 3000, 20_000, 200_000])));
    }
    if g.chance(20) {
        o.insert("policy".into(), json!(*g.pick(&["normal", "batch", "idle"])));
    }
    if !cgroups.is_empty() && g.chance(60) {
        o.insert("cgroup".into(), json!(g.pick(cgroups).clone()));
    }
    if cpus > 1 && g.chance(30) {
        let mut set: Vec<i64> = (0..cpus).filter(|_| g.chance(50)).collect();
        if set.is_empty() {
            set.push(g.range(0, cpus - 1));
        }
        o.insert("cpus".into(), json!(set));
    }
    if g.chance(40) {
        o.insert("start_ms".into(), json!(g.range(0, duration / 2)));
    }
}

/// One random scenario, a JSON object; `case` numbers the stream of a soak.
pub fn generate(seed: u64, case: u64) -> Value {
    let mut g = G(Rng::new(seed, case));
    let policy = *g.pick(&POLICIES);
    let cpus = if g.chance(50) { 1 } else { g.range(2, 16) };
    let duration = g.range(3, 120);
    let mut machine = Map::new();
    machine.insert("cpus".into(), json!(cpus));
    machine.insert("hz".into(), json!(*g.pick(&[100, 250, 300, 1000])));
    if cpus > 1 && g.chance(30) {
        let divisors: Vec<i64> = (1..=cpus).filter(|d| cpus % d == 0).collect();
        machine.insert("llc_size".into(), json!(*g.pick(&divisors)));
    } else if cpus > 1 && g.chance(30) {
        // A random shape: threads × cores × LLCs × nodes = cpus, and a symmetric SLIT table.
        let mut rest = cpus;
        let mut factor = |g: &mut G, most: i64| {
            let ds: Vec<i64> = (1..=rest.min(most)).filter(|d| rest % d == 0).collect();
            let d = *g.pick(&ds);
            rest /= d;
            d
        };
        let (t, c, l) = (factor(&mut g, 8), factor(&mut g, 1024), factor(&mut g, 1024));
        let n = rest;
        machine.insert("topology".into(), json!({ "threads_per_core": t, "cores_per_llc": c, "llcs_per_node": l, "nodes": n }));
        if n > 1 && g.chance(50) {
            let mut d = vec![vec![10i64; n as usize]; n as usize];
            for i in 0..n as usize {
                for j in i + 1..n as usize {
                    let x = *g.pick(&[12, 20, 20, 21, 32, 40]);
                    d[i][j] = x;
                    d[j][i] = x;
                }
            }
            machine.insert("distance".into(), json!(d));
        }
    }
    if policy == "eevdf-v6.18" && g.chance(50) {
        machine.insert("preemption".into(), json!(*g.pick(&["none", "voluntary", "full", "lazy", "lazy"])));
    }
    if g.chance(25) {
        machine.insert(
            "costs".into(),
            if g.chance(30) {
                json!("measured")
            } else {
                let mut ns = || *g.pick(&[0, 0, 1, 500, 3000, 20_000]);
                json!({ "switch_ns": ns(), "wakeup_ns": ns(), "idle_exit_ns": ns(), "migration_ns": ns() })
            },
        );
    }
    let mut cgroups = Vec::new();
    let mut cg_names: Vec<String> = Vec::new();
    if g.chance(50) {
        for i in 0..g.range(1, 4) {
            let mut c = Map::new();
            let name = format!("g{i}");
            c.insert("name".into(), json!(name));
            if !cg_names.is_empty() && g.chance(50) {
                c.insert("parent".into(), json!(g.pick(&cg_names).clone()));
            }
            if g.chance(60) {
                c.insert("shares".into(), json!(*g.pick(&[2, 100, 512, 1024, 2048, 10_000, 262_144])));
            }
            if g.chance(30) {
                c.insert("latency_nice".into(), json!(g.nice()));
            }
            cg_names.push(name);
            cgroups.push(Value::Object(c));
        }
    }
    let mut tasks = Vec::new();
    let mut targets: Vec<String> = Vec::new();
    for i in 0..g.range(1, 5) {
        let mut t = Map::new();
        let name = format!("t{i}");
        let count = if g.chance(60) { 1 } else { g.range(2, 4) };
        t.insert("name".into(), json!(name));
        if count > 1 {
            t.insert("count".into(), json!(count));
            if g.chance(50) {
                t.insert("stagger_us".into(), json!(g.range(1, 3000)));
            }
            targets.push(format!("{name}/{}", g.range(0, count - 1)));
        }
        attrs(&mut g, &mut t, cpus, &cg_names, duration);
        t.insert("behavior".into(), behavior(&mut g));
        targets.push(name);
        tasks.push(Value::Object(t));
    }
    let mut workloads = Vec::new();
    if g.chance(30) {
        for i in 0..g.range(1, 2) {
            let mut w = Map::new();
            let name = format!("w{i}");
            if g.chance(50) {
                w.insert("kind".into(), json!("hackbench"));
                w.insert("groups".into(), json!(g.range(1, 2)));
                w.insert("fds".into(), json!(g.range(1, 4)));
                w.insert("loops".into(), json!(g.range(1, 40)));
                w.insert("msg_us".into(), json!(g.range(0, 20)));
                w.insert("pipe_msgs".into(), json!(g.range(1, 8)));
            } else {
                w.insert("kind".into(), json!("schbench"));
                w.insert("messengers".into(), json!(g.range(1, 2)));
                w.insert("workers".into(), json!(g.range(1, 4)));
                w.insert("sleep_us".into(), json!(g.range(0, 5000)));
                w.insert("cputime_us".into(), json!(g.range(0, 5000)));
                w.insert("msg_us".into(), json!(g.range(0, 20)));
            }
            w.insert("name".into(), json!(name));
            attrs(&mut g, &mut w, cpus, &cg_names, duration);
            targets.push(name);
            workloads.push(Value::Object(w));
        }
    }
    let mut timeline = Vec::new();
    for _ in 0..g.range(0, 12) {
        let mut e = Map::new();
        e.insert("at_us".into(), json!(g.range(0, duration * 1000 - 1)));
        let mut set = Map::new();
        if !cg_names.is_empty() && g.chance(20) {
            e.insert("cgroup".into(), json!(g.pick(&cg_names).clone()));
            if g.chance(50) {
                set.insert("shares".into(), json!(*g.pick(&[2, 300, 1024, 5000])));
            } else {
                set.insert("latency_nice".into(), json!(g.nice()));
            }
        } else {
            e.insert("task".into(), json!(g.pick(&targets).clone()));
            match g.below(5) {
                0 => {
                    set.insert("nice".into(), json!(g.nice()));
                }
                1 => {
                    set.insert("latency_nice".into(), json!(g.nice()));
                }
                2 => {
                    set.insert("slice_us".into(), json!(*g.pick(&[0, 100, 750, 3000, 50_000])));
                }
                3 => {
                    set.insert("nice".into(), json!(g.nice()));
                    set.insert("latency_nice".into(), json!(g.nice()));
                }
                _ => {
                    // sched_setscheduler() between the fair class's policies mid-run.
                    set.insert("policy".into(), json!(*g.pick(&["normal", "batch", "idle"])));
                }
            }
        }
        e.insert("set".into(), Value::Object(set));
        timeline.push(Value::Object(e));
    }
    let mut s = Map::new();
    s.insert("format".into(), json!("fairground-scenario/1"));
    s.insert("name".into(), json!(format!("fuzz {seed}/{case}")));
    s.insert("seed".into(), json!(g.range(0, 1 << 20)));
    s.insert("duration_ms".into(), json!(duration));
    s.insert("machine".into(), Value::Object(machine));
    s.insert("scheduler".into(), json!({ "policy": policy, "features": features(&mut g, policy) }));
    if !cgroups.is_empty() {
        s.insert("cgroups".into(), Value::Array(cgroups));
    }
    s.insert("tasks".into(), Value::Array(tasks));
    if !workloads.is_empty() {
        s.insert("workloads".into(), Value::Array(workloads));
    }
    if !timeline.is_empty() {
        s.insert("timeline".into(), Value::Array(timeline));
    }
    Value::Object(s)
}

/// Map every task, workload and cgroup name (and every reference to one) to another name.
pub fn rename(case: &Value) -> Value {
    let map = |n: &str| -> String {
        match n.split_once('/') {
            Some((base, idx)) => format!("R{base}.x/{idx}"),
            None => format!("R{n}.x"),
        }
    };
    let mut c = case.clone();
    let Some(o) = c.as_object_mut() else { return c };
    for k in ["tasks", "workloads", "cgroups"] {
        if let Some(Value::Array(xs)) = o.get_mut(k) {
            for x in xs {
                if let Some(x) = x.as_object_mut() {
                    for f in ["name", "cgroup", "parent"] {
                        if let Some(Value::String(n)) = x.get_mut(f) {
                            *n = map(n);
                        }
                    }
                }
            }
        }
    }
    if let Some(Value::Array(xs)) = o.get_mut("timeline") {
        for x in xs {
            if let Some(x) = x.as_object_mut() {
                for f in ["task", "cgroup"] {
                    if let Some(Value::String(n)) = x.get_mut(f) {
                        // A workload's task is named "<workload>/<role><i>": only the workload part maps.
                        *n = map(n);
                    }
                }
            }
        }
    }
    c
}

/// The case with timeline entries that change nothing: each task whose nice no edit touches
/// is set to its own nice, and keys the policy's kernel lacks are set to anything. `None` when
/// no such entry can be made.
pub fn with_noop_edits(case: &Value) -> Option<Value> {
    let o = case.as_object()?;
    let policy = o.get("scheduler")?.get("policy")?.as_str()?.to_string();
    let duration = o.get("duration_ms")?.as_i64()?;
    let edited: Vec<&str> = o
        .get("timeline")
        .and_then(Value::as_array)
        .map(|t| {
            t.iter()
                .filter(|e| e.get("set").and_then(|s| s.get("nice")).is_some())
                .filter_map(|e| e.get("task").and_then(Value::as_str))
                .map(|n| n.split('/').next().unwrap_or(n))
                .collect()
        })
        .unwrap_or_default();
    let mut extra = Vec::new();
    let mut g = G(Rng::new(duration as u64, 7));
    for t in o.get("tasks")?.as_array()? {
        let name = t.get("name")?.as_str()?;
        let at = |g: &mut G| g.range(0, duration * 1000 - 1);
        if !edited.contains(&name) {
            let nice = t.get("nice").and_then(Value::as_i64).unwrap_or(0);
            extra.push(json!({ "at_us": at(&mut g), "task": name, "set": { "nice": nice } }));
        }
        if policy != "latency-nice-v12" {
            extra.push(json!({ "at_us": at(&mut g), "task": name, "set": { "latency_nice": g.nice() } }));
        }
        if policy != "eevdf-v6.12" && policy != "eevdf-v6.18" {
            extra.push(json!({ "at_us": at(&mut g), "task": name, "set": { "slice_us": 3000 } }));
        }
    }
    if extra.is_empty() {
        return None;
    }
    let mut c = case.clone();
    let co = c.as_object_mut()?;
    match co.get_mut("timeline") {
        Some(Value::Array(t)) => t.extend(extra),
        _ => {
            co.insert("timeline".into(), Value::Array(extra));
        }
    }
    Some(c)
}
