//! Scenario files (contract §1): valid files, refusals with their exact paths, warnings,
//! expansion, cost and round trips.

use fairground_sim::scenario::*;
use serde_json::{json, Value};

const MINIMAL: &str = r#"{ "format": "fairground-scenario/1", "name": "two hogs", "duration_ms": 100,
  "scheduler": { "policy": "cfs-v6.2" },
  "tasks": [ { "name": "hog", "count": 2, "behavior": { "kind": "hog" } } ] }"#;

/// The "All fields" example of contract §1, verbatim (JSONC: comments).
const FULL: &str = include_str!("fixtures/contract-full.jsonc");

fn ok(text: &str) -> Validated {
    match parse_scenario(text) {
        Ok(v) => v,
        Err(e) => panic!("unexpected refusal: {e}\n{text}"),
    }
}

fn err(text: &str) -> ScenarioError {
    match parse_scenario(text) {
        Ok(_) => panic!("accepted, expected a refusal:\n{text}"),
        Err(e) => e,
    }
}

/// The minimal scenario as a Value, to be modified by a test.
fn base() -> Value {
    json!({ "format": "fairground-scenario/1", "name": "t", "duration_ms": 100,
            "scheduler": { "policy": "cfs-v6.2" },
            "tasks": [ { "name": "hog", "count": 2, "behavior": { "kind": "hog" } } ] })
}

fn push_task(v: &mut Value, t: Value) {
    v["tasks"].as_array_mut().expect("tasks array").push(t);
}

fn with(f: impl FnOnce(&mut Value)) -> String {
    let mut v = base();
    f(&mut v);
    v.to_string()
}

/// Refused at `path`, with a message containing `needle`.
fn refused_at(text: &str, path: &str, needle: &str) {
    let e = err(text);
    assert_eq!(e.path, path, "wrong path for {e}\n{text}");
    assert!(e.message.contains(needle), "message {:?} lacks {needle:?}", e.message);
    assert_eq!(e.line, None);
}

#[test]
fn minimal_scenario() {
    let v = ok(MINIMAL);
    let s = &v.scenario;
    assert_eq!(s.name, "two hogs");
    assert_eq!(s.seed, 1);
    assert_eq!(s.duration_ms, 100);
    assert_eq!(s.machine, Machine { cpus: 1, hz: 250, llc_size: None, topology: None, costs: Default::default(), preemption: Preemption::Full });
    assert_eq!(s.scheduler.policy, Policy::CfsV62);
    assert_eq!(s.tasks[0].count, 2);
    assert_eq!(s.tasks[0].behavior, Behavior::Hog);
    assert!(v.warnings.is_empty());
    let names: Vec<_> = expand(s).into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["hog/0", "hog/1"]);
}

#[test]
fn full_contract_example() {
    let v = ok(FULL);
    assert_eq!(v.warnings, Vec::<String>::new());
    let s = &v.scenario;
    assert_eq!(s.description.as_deref(), Some("Markdown shown beside the run"));
    assert_eq!(s.cgroups, vec![Cgroup { name: "bench".into(), parent: None, shares: 1024, latency_nice: -20 }]);
    let t = &s.tasks[0];
    assert_eq!(t.attrs.latency_nice, -20);
    assert_eq!(t.attrs.slice_us, None);
    assert_eq!(t.attrs.cgroup.as_deref(), Some("bench"));
    assert_eq!(t.attrs.cpus, Some(vec![0]));
    assert_eq!(t.behavior, Behavior::Periodic { period_us: 1000, run_us: 50 });
    assert_eq!(
        s.workloads[0].kind,
        WorkloadKind::Hackbench { groups: 4, fds: 20, loops: 100, msg_us: 2, pipe_msgs: 655 }
    );
    assert_eq!(
        s.workloads[1].kind,
        WorkloadKind::Schbench { messengers: 2, workers: 4, sleep_us: 10_000, cputime_us: 10_000, msg_us: 2 }
    );
    assert_eq!(s.timeline[0].at_ns, 500_000_000);
    assert!(!s.timeline[0].at_in_us);
    assert_eq!(s.timeline[1].at_ns, 750_250_000);
    assert!(s.timeline[1].at_in_us);
    assert_eq!(s.timeline[1].target, Target::Cgroup("bench".into()));
    assert_eq!(expand(s).len(), 1 + 160 + 10);
    assert_eq!(expanded_len(s), 171);
    // The same under eevdf-v6.12: accepted, with warnings in document order.
    let v = ok(&FULL.replace("\"latency-nice-v12\",", "\"eevdf-v6.12\","));
    assert_eq!(
        v.warnings,
        [
            "cgroups[0].latency_nice has no kernel meaning under eevdf-v6.12 (mainline never merged latency nice); ignored",
            "tasks[0].latency_nice has no kernel meaning under eevdf-v6.12 (mainline never merged latency nice); \
             ignored — use slice_us for a shorter slice",
        ]
    );
}

#[test]
fn trailing_commas_and_block_comments() {
    let text = "{ /* a block\n comment */ \"format\": \"fairground-scenario/1\", \"name\": \"x\", \"duration_ms\": 10,\n\
                \"scheduler\": { \"policy\": \"eevdf-v6.6\", },\n\"tasks\": [ { \"name\": \"a\", \"behavior\": { \"kind\": \"hog\", }, }, ], }";
    ok(text);
}

#[test]
fn syntax_error_has_line_and_column() {
    let e = err("{\n  \"format\": \"fairground-scenario/1\",\n  \"name\": \"x\" \"duration_ms\": 1\n}");
    assert_eq!(e.path, "");
    assert_eq!(e.line, Some(3));
    assert_eq!(e.column, Some(15));
    assert!(e.to_string().starts_with("syntax error at line 3, column 15: "), "{e}");
    let e = err("{\"a\": 1,\n\"a\": 2}");
    assert_eq!(e.line, Some(2));
    assert!(e.message.contains("duplicate key \"a\""));
    assert!(err("").line.is_some());
    assert!(err("[1, 2").line.is_some());
}

#[test]
fn refusals_name_their_path() {
    refused_at(&with(|v| v["tasks"][0]["behavior"] = json!({"kind": "periodic", "perod_us": 1, "run_us": 1})),
        "tasks[0].behavior.perod_us", "unknown key \"perod_us\" (expected one of: kind, period_us, run_us)");
    refused_at(&with(|v| v["duration_ms"] = json!(1.0)), "duration_ms", "got 1.0 (not an integer)");
    refused_at(&with(|v| v["duration_ms"] = json!(0)), "duration_ms", "expected an integer in 1..=600000, got 0");
    refused_at(&with(|v| v["duration_ms"] = json!(600_001)), "duration_ms", "1..=600000");
    refused_at(&with(|v| v["seed"] = json!(-1)), "seed", "0..=9007199254740992");
    refused_at(&with(|v| v["machine"] = json!({"cpus": 0})), "machine.cpus", "1..=1024");
    refused_at(&with(|v| v["machine"] = json!({"hz": 200})), "machine.hz", "one of 100, 250, 300, 1000, got 200");
    refused_at(&with(|v| v["machine"] = json!({"cpus": 6, "llc_size": 4})), "machine.llc_size", "divisor");
    refused_at(&with(|v| v["machine"] = json!({"cpus": 6, "llc_size": 0})), "machine.llc_size", "1..=1024");
    refused_at(&with(|v| v["machine"] = json!({"cpu": 6})), "machine.cpu", "unknown key");
    refused_at(&with(|v| v["format"] = json!("fairground-scenario/2")), "format", "fairground-scenario/1");
    refused_at(&with(|v| v["name"] = json!(5)), "name", "expected a string of 1 to 120 characters, got 5");
    refused_at(&with(|v| v["name"] = json!("x".repeat(121))), "name", "1 to 120");
    refused_at(&with(|v| v["tasks"] = json!({})), "tasks", "expected an array, got an object");
    refused_at(&with(|v| v["scheduler"]["policy"] = json!("cfs")), "scheduler.policy", "one of \"cfs-v6.2\"");
    refused_at(&with(|v| v["scheduler"]["tunables"] = json!({"latency_ns": 5})), "scheduler.tunables.latency_ns", "100000..=1000000000");
    refused_at(&with(|v| v["scheduler"]["tunables"] = json!({"tunable_scaling": "exp"})), "scheduler.tunables.tunable_scaling", "\"log\"");
    refused_at(&with(|v| v["scheduler"]["features"] = json!({"start_debit": 1})), "scheduler.features.start_debit", "true or false");
    refused_at(&with(|v| v["scheduler"]["features"] = json!({"start_debt": true})), "scheduler.features.start_debt", "unknown key");
    refused_at(&with(|v| v["bogus"] = json!(1)), "bogus", "unknown key \"bogus\"");
}

#[test]
fn missing_required_keys() {
    refused_at(&with(|v| { v.as_object_mut().unwrap().remove("duration_ms"); }), "", "missing required key \"duration_ms\"");
    refused_at(&with(|v| { v.as_object_mut().unwrap().remove("format"); }), "", "missing required key \"format\"");
    refused_at(&with(|v| v["scheduler"] = json!({})), "scheduler", "missing required key \"policy\"");
    refused_at(&with(|v| v["tasks"][0] = json!({"name": "a"})), "tasks[0]", "missing required key \"behavior\"");
    refused_at(&with(|v| v["tasks"][0]["behavior"] = json!({"kind": "periodic", "run_us": 5})), "tasks[0].behavior", "\"period_us\"");
    refused_at(&with(|v| v["tasks"][0]["behavior"] = json!({"period_us": 5})), "tasks[0].behavior", "\"kind\"");
    refused_at(&with(|v| v["tasks"] = json!([])), "", "at least one task or workload");
    refused_at(&with(|v| v["workloads"] = json!([{"kind": "hackbench", "name": "hb"}])), "workloads[0]", "\"groups\"");
    refused_at(&with(|v| v["workloads"] = json!([{"kind": "schbench", "name": "sb", "messengers": 1}])), "workloads[0]", "\"workers\"");
    refused_at(&with(|v| v["timeline"] = json!([{"task": "hog", "set": {"nice": 1}}])), "timeline[0]", "\"at_ms\" or \"at_us\"");
    refused_at(&with(|v| v["timeline"] = json!([{"at_ms": 1, "set": {"nice": 1}}])), "timeline[0]", "\"task\" or \"cgroup\"");
    refused_at(&with(|v| v["timeline"] = json!([{"at_ms": 1, "task": "hog"}])), "timeline[0]", "\"set\"");
    refused_at(&with(|v| v["cgroups"] = json!([{"shares": 2}])), "cgroups[0]", "\"name\"");
}

#[test]
fn task_field_refusals() {
    refused_at(&with(|v| v["tasks"][0]["name"] = json!("a b")), "tasks[0].name", "A-Z a-z 0-9 _ . -");
    refused_at(&with(|v| v["tasks"][0]["name"] = json!("")), "tasks[0].name", "1 to 32");
    refused_at(&with(|v| v["tasks"][0]["count"] = json!(4097)), "tasks[0].count", "1..=4096");
    refused_at(&with(|v| v["tasks"][0]["nice"] = json!(20)), "tasks[0].nice", "-20..=19");
    refused_at(&with(|v| v["tasks"][0]["latency_nice"] = json!(-21)), "tasks[0].latency_nice", "-20..=19");
    refused_at(&with(|v| v["tasks"][0]["slice_us"] = json!(-1)), "tasks[0].slice_us", "0..=1000000000");
    refused_at(&with(|v| v["tasks"][0]["cgroup"] = json!("nope")), "tasks[0].cgroup", "the name of a cgroup");
    refused_at(&with(|v| v["tasks"][0]["cpus"] = json!([])), "tasks[0].cpus", "non-empty");
    refused_at(&with(|v| { v["machine"] = json!({"cpus": 2}); v["tasks"][0]["cpus"] = json!([0, 2]); }), "tasks[0].cpus[1]", "0..=1");
    refused_at(&with(|v| { v["machine"] = json!({"cpus": 2}); v["tasks"][0]["cpus"] = json!([1, 1]); }), "tasks[0].cpus[1]", "not already listed");
    refused_at(&with(|v| v["tasks"][0]["start_ms"] = json!(101)), "tasks[0].start_ms", "0..=100");
    refused_at(&with(|v| v["tasks"][0]["stagger_us"] = json!(1_000_000_001u64)), "tasks[0].stagger_us", "0..=1000000000");
    refused_at(&with(|v| v["tasks"][0]["behavior"] = json!({"kind": "nap"})), "tasks[0].behavior.kind", "\"periodic\"");
    refused_at(&with(|v| v["tasks"][0]["behavior"] = json!({"kind": "periodic", "period_us": 0, "run_us": 1})), "tasks[0].behavior.period_us", "1..=10000000");
    refused_at(&with(|v| v["tasks"][0]["behavior"] = json!({"kind": "duty", "percent": 101, "period_us": 1})), "tasks[0].behavior.percent", "1..=100");
    refused_at(&with(|v| v["tasks"][0]["behavior"] = json!({"kind": "duty", "percent": 50.5, "period_us": 1})), "tasks[0].behavior.percent", "not an integer");
    refused_at(&with(|v| v["tasks"][0]["behavior"] = json!({"kind": "hog", "run_us": 1})), "tasks[0].behavior.run_us", "expected one of: kind)");
    let bursty = |run: Value, sleep: Value| with(|v| v["tasks"][0]["behavior"] = json!({"kind": "bursty", "run_us": run, "sleep_us": sleep}));
    refused_at(&bursty(json!(-1), json!(1)), "tasks[0].behavior.run_us", "a number of µs");
    refused_at(&bursty(json!(1), json!(10_000_001)), "tasks[0].behavior.sleep_us", "a number of µs");
    refused_at(&bursty(json!({"exp": 0}), json!(1)), "tasks[0].behavior.run_us.exp", "> 0");
    refused_at(&bursty(json!({"uniform": [5, 2]}), json!(1)), "tasks[0].behavior.run_us.uniform[1]", "hi >= lo");
    refused_at(&bursty(json!({"uniform": [5]}), json!(1)), "tasks[0].behavior.run_us.uniform", "two numbers");
    refused_at(&bursty(json!({"normal": [5, -1]}), json!(1)), "tasks[0].behavior.run_us.normal[1]", "0..=10000000");
    refused_at(&bursty(json!({"poisson": 5}), json!(1)), "tasks[0].behavior.run_us.poisson", "unknown key");
    refused_at(&bursty(json!({"exp": 5, "normal": [1, 1]}), json!(1)), "tasks[0].behavior.run_us", "exactly one");
    refused_at(&bursty(json!(0), json!({"uniform": [0, 0]})), "tasks[0].behavior", "never advance");
    ok(&bursty(json!(0), json!({"exp": 3.5})));
    ok(&bursty(json!(2.5), json!({"normal": [100, 30]})));
}

#[test]
fn names_and_references() {
    refused_at(&with(|v| push_task(v, json!({"name": "hog", "behavior": {"kind": "hog"}}))), "tasks[1].name", "not used by an earlier");
    refused_at(&with(|v| v["workloads"] = json!([{"kind": "hackbench", "name": "hog", "groups": 1}])), "workloads[0].name", "not used by an earlier");
    refused_at(&with(|v| v["cgroups"] = json!([{"name": "a"}, {"name": "a"}])), "cgroups[1].name", "not used by an earlier cgroup");
    refused_at(&with(|v| v["cgroups"] = json!([{"name": "a", "parent": "b"}, {"name": "b"}])), "cgroups[0].parent", "parents come before children");
    refused_at(&with(|v| v["cgroups"] = json!([{"name": "a", "parent": "z"}])), "cgroups[0].parent", "earlier cgroup or null");
    refused_at(&with(|v| v["cgroups"] = json!([{"name": "a", "shares": 1}])), "cgroups[0].shares", "2..=262144");
    // A task and a cgroup may share a name (separate namespaces).
    ok(&with(|v| v["cgroups"] = json!([{"name": "hog"}, {"name": "child", "parent": "hog", "shares": 262144}])));
}

#[test]
fn timeline_rules() {
    let tl = |entry: Value| {
        with(|v| {
            v["cgroups"] = json!([{"name": "g"}]);
            v["workloads"] = json!([{"kind": "hackbench", "name": "hb", "groups": 2, "fds": 3}]);
            v["timeline"] = json!([entry]);
        })
    };
    refused_at(&tl(json!({"at_ms": 1, "at_us": 5, "task": "hog", "set": {"nice": 1}})), "timeline[0].at_us", "exactly one of at_ms / at_us");
    refused_at(&tl(json!({"at_ms": 1, "task": "hog", "cgroup": "g", "set": {"nice": 1}})), "timeline[0].cgroup", "exactly one of task / cgroup");
    refused_at(&tl(json!({"at_ms": 1, "task": "hog/2", "set": {"nice": 1}})), "timeline[0].task", "hog/3");
    refused_at(&tl(json!({"at_ms": 1, "task": "hog/01", "set": {"nice": 1}})), "timeline[0].task", "expected the name");
    refused_at(&tl(json!({"at_ms": 1, "task": "hb/sender6", "set": {"nice": 1}})), "timeline[0].task", "expected the name");
    refused_at(&tl(json!({"at_ms": 1, "task": "nobody", "set": {"nice": 1}})), "timeline[0].task", "expected the name");
    refused_at(&tl(json!({"at_ms": 1, "cgroup": "nope", "set": {"shares": 5}})), "timeline[0].cgroup", "the name of a cgroup");
    refused_at(&tl(json!({"at_ms": 1, "cgroup": "g", "set": {"nice": 1}})), "timeline[0].set.nice", "cannot be set on a cgroup (expected one of: shares, latency_nice)");
    refused_at(&tl(json!({"at_ms": 1, "cgroup": "g", "set": {"slice_us": 1}})), "timeline[0].set.slice_us", "cannot be set on a cgroup");
    refused_at(&tl(json!({"at_ms": 1, "task": "hog", "set": {"shares": 100}})), "timeline[0].set.shares", "only be set on a cgroup");
    refused_at(&tl(json!({"at_ms": 1, "task": "hog", "set": {"weight": 1}})), "timeline[0].set.weight", "unknown key");
    refused_at(&tl(json!({"at_ms": 1, "task": "hog", "set": {}})), "timeline[0].set", "non-empty");
    refused_at(&tl(json!({"at_ms": 600_001, "task": "hog", "set": {"nice": 1}})), "timeline[0].at_ms", "0..=600000");
    refused_at(&tl(json!({"at_us": 600_000_001, "task": "hog", "set": {"nice": 1}})), "timeline[0].at_us", "0..=600000000");
    for target in ["hog", "hog/0", "hog/1", "hb", "hb/sender5", "hb/receiver0"] {
        let v = ok(&tl(json!({"at_us": 10, "task": target, "set": {"nice": 1, "slice_us": 50}})));
        let e = &v.scenario.timeline[0];
        assert_eq!(e.at_ns, 10_000);
        assert_eq!(e.set.slice_us, Some(100));
        assert_eq!(e.target, Target::Task(target.into()));
    }
    let v = ok(&tl(json!({"at_ms": 2, "cgroup": "g", "set": {"shares": 2, "latency_nice": 0}})));
    assert_eq!(v.scenario.timeline[0].set, SetAttrs { shares: Some(2), latency_nice: Some(0), ..SetAttrs::default() });
    // An entry at or after the end is accepted with a warning.
    let v = ok(&tl(json!({"at_ms": 100, "task": "hog", "set": {"nice": 1}})));
    assert_eq!(v.warnings, ["timeline[0].at_ms is at or after the end of the run (duration_ms 100); the entry never applies"]);
}

#[test]
fn at_most_10000_tasks() {
    let big = json!({"name": "x", "count": 4096, "behavior": {"kind": "hog"}});
    refused_at(&with(|v| v["tasks"] = json!([big, {"name": "y", "count": 4096, "behavior": {"kind": "hog"}},
        {"name": "z", "count": 2000, "behavior": {"kind": "hog"}}])), "tasks", "at most 10000");
    refused_at(&with(|v| v["workloads"] = json!([{"kind": "schbench", "name": "sb", "messengers": 10, "workers": 1000}])),
        "workloads", "at most 10000");
    // Exactly 10000 is fine: 2 + 4096 + 4096 + 1806.
    ok(&with(|v| {
        push_task(v, json!({"name": "y", "count": 4096, "behavior": {"kind": "hog"}}));
        push_task(v, json!({"name": "z", "count": 4096, "behavior": {"kind": "hog"}}));
        push_task(v, json!({"name": "w", "count": 1806, "behavior": {"kind": "hog"}}));
    }));
}

#[test]
fn variant_with_explicit_clamp_wakeup_is_an_error_under_any_policy() {
    for policy in ["cfs-v6.2", "latency-nice-v12", "eevdf-v6.6", "eevdf-v6.12"] {
        for (a, b) in [("wakeup_preempt_variant", "latency_max_clamp_wakeup"), ("latency_max_clamp_wakeup", "wakeup_preempt_variant")] {
            let text = with(|v| {
                v["scheduler"]["policy"] = json!(policy);
                let mut f = serde_json::Map::new();
                for k in [a, b] {
                    f.insert(k.into(), if k == "wakeup_preempt_variant" { json!("min-vruntime") } else { json!(true) });
                }
                v["scheduler"]["features"] = Value::Object(f);
            });
            refused_at(&text, "scheduler.features.latency_max_clamp_wakeup", "replaces the wakeup clamp");
        }
    }
    ok(&with(|v| { v["scheduler"]["policy"] = json!("latency-nice-v12");
        v["scheduler"]["features"] = json!({"wakeup_preempt_variant": "v12", "latency_max_clamp_wakeup": true}); }));
    ok(&with(|v| { v["scheduler"]["policy"] = json!("latency-nice-v12");
        v["scheduler"]["features"] = json!({"wakeup_preempt_variant": "min-vruntime-signed", "latency_max_clamp_wakeup": false}); }));
}

#[test]
fn warnings_for_knobs_that_do_not_apply() {
    let v = ok(&with(|v| {
        v["scheduler"] = json!({"policy": "cfs-v6.2",
            "tunables": {"base_slice_ns": 3000000, "latency_ns": 6000000},
            "features": {"latency_list": true, "place_lag": false, "next_buddy": true}});
        v["cgroups"] = json!([{"name": "g", "latency_nice": 5}]);
        v["tasks"][0]["slice_us"] = json!(3000);
        v["tasks"][0]["latency_nice"] = json!(-5);
    }));
    assert_eq!(v.warnings, [
        "scheduler.tunables.base_slice_ns does not apply to cfs-v6.2; ignored",
        "scheduler.features.latency_list does not apply to cfs-v6.2; ignored",
        "scheduler.features.place_lag does not apply to cfs-v6.2; ignored",
        "tasks[0].slice_us has no kernel meaning under cfs-v6.2 (custom slices arrived in eevdf-v6.12); ignored",
        "tasks[0].latency_nice has no kernel meaning under cfs-v6.2 (latency nice is the unmerged v12 patch set); ignored",
        // `cgroups` was added after `tasks`, so it comes later in the document.
        "cgroups[0].latency_nice has no kernel meaning under cfs-v6.2 (latency nice is the unmerged v12 patch set); ignored",
    ]);
    // Kept as written, so the scenario can be run under another policy.
    assert_eq!(v.scenario.scheduler.features.latency_list, Some(true));
    assert_eq!(v.scenario.scheduler.tunables.base_slice_ns, Some(3_000_000));
    let v = ok(&with(|v| {
        v["scheduler"]["policy"] = json!("eevdf-v6.12");
        v["tasks"][0]["slice_us"] = json!(3000);
        v["tasks"][0]["latency_nice"] = json!(0);
    }));
    assert!(v.warnings.is_empty());
    let v = ok(&with(|v| {
        v["scheduler"]["policy"] = json!("eevdf-v6.6");
        v["tasks"][0]["latency_nice"] = json!(-20);
    }));
    assert_eq!(v.warnings, ["tasks[0].latency_nice has no kernel meaning under eevdf-v6.6 (mainline never merged \
        latency nice); ignored — use slice_us for a shorter slice"]);
}

#[test]
fn first_error_in_document_order() {
    // Two errors: the earlier one in the text wins, whatever the schema order.
    let text = r#"{"format": "fairground-scenario/1", "name": "x", "tasks": [{"name": "a", "nice": 99, "behavior": {"kind": "hog"}}],
        "duration_ms": 0, "scheduler": {"policy": "cfs-v6.2"}}"#;
    refused_at(text, "tasks[0].nice", "-20..=19");
    let text = r#"{"format": "fairground-scenario/1", "duration_ms": 0, "name": "x", "tasks": [{"name": "a", "nice": 99, "behavior": {"kind": "hog"}}],
        "scheduler": {"policy": "cfs-v6.2"}}"#;
    refused_at(text, "duration_ms", "1..=600000");
    // A reference is checked where it stands even when what it refers to comes later.
    let text = r#"{"format": "fairground-scenario/1", "name": "x", "duration_ms": 10,
        "tasks": [{"name": "a", "cpus": [3], "behavior": {"kind": "hog"}}],
        "scheduler": {"policy": "cfs-v6.2"}, "machine": {"cpus": 2}, "seed": -4}"#;
    refused_at(text, "tasks[0].cpus[0]", "0..=1");
    let text = r#"{"format": "fairground-scenario/1", "name": "x", "duration_ms": 10,
        "timeline": [{"at_ms": 1, "task": "a", "set": {"nice": 1}}],
        "tasks": [{"name": "a", "cgroup": "g", "behavior": {"kind": "hog"}}], "cgroups": [{"name": "g"}],
        "scheduler": {"policy": "cfs-v6.2"}}"#;
    ok(text);
    // Inside an object, a bad value precedes a missing key.
    refused_at(&with(|v| v["tasks"][0] = json!({"name": "a b"})), "tasks[0].name", "A-Z");
}

#[test]
fn slice_clamping() {
    for (given, stored) in [(json!(50), Some(100)), (json!(200_000), Some(100_000)), (json!(3000), Some(3000)),
        (json!(0), None), (json!(null), None), (json!(1), Some(100)), (json!(1_000_000_000), Some(100_000))] {
        let v = ok(&with(|v| { v["scheduler"]["policy"] = json!("eevdf-v6.12"); v["tasks"][0]["slice_us"] = given.clone(); }));
        assert_eq!(v.scenario.tasks[0].attrs.slice_us, stored, "{given}");
    }
}

#[test]
fn expansion_order_and_start_times() {
    let v = ok(&with(|v| {
        v["tasks"][0]["count"] = json!(3);
        v["tasks"][0]["start_ms"] = json!(5);
        v["tasks"][0]["stagger_us"] = json!(250);
        push_task(v, json!({"name": "one", "behavior": {"kind": "hog"}}));
        v["workloads"] = json!([{"kind": "hackbench", "name": "hb", "groups": 2, "fds": 2, "start_ms": 7, "nice": 3},
                                {"kind": "schbench", "name": "sb", "messengers": 2, "workers": 2}]);
    }));
    let e = expand(&v.scenario);
    let names: Vec<&str> = e.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["hog/0", "hog/1", "hog/2", "one",
        "hb/sender0", "hb/sender1", "hb/sender2", "hb/sender3",
        "hb/receiver0", "hb/receiver1", "hb/receiver2", "hb/receiver3",
        "sb/messenger0", "sb/messenger1", "sb/worker0", "sb/worker1", "sb/worker2", "sb/worker3"]);
    assert_eq!(e[0].start_ns, 5_000_000);
    assert_eq!(e[2].start_ns, 5_000_000 + 2 * 250_000);
    assert_eq!(e[2].origin, Origin::Task { spec: 0, instance: 2 });
    assert_eq!(e[4].start_ns, 7_000_000);
    assert_eq!(e[4].attrs.nice, 3);
    assert_eq!(e[4].behavior, None);
    assert_eq!(e[9].origin, Origin::Workload { spec: 0, role: "receiver", index: 1 });
    assert_eq!(e[17].origin, Origin::Workload { spec: 1, role: "worker", index: 3 });
    assert_eq!(expanded_len(&v.scenario), e.len() as u64);
    let s = &v.scenario;
    assert_eq!(target_tasks(s, &e, "hog"), [0, 1, 2]);
    assert_eq!(target_tasks(s, &e, "hog/1"), [1]);
    assert_eq!(target_tasks(s, &e, "one"), [3]);
    assert_eq!(target_tasks(s, &e, "hb/receiver0"), [8]);
    assert_eq!(target_tasks(s, &e, "sb"), (12..18).collect::<Vec<_>>());
}

#[test]
fn cost_estimate_and_refusal() {
    let v = ok(MINIMAL);
    let c = check_cost(&v.scenario, &Limits::BROWSER).unwrap();
    // 100 ms at HZ 250 = 25 ticks on 1 CPU; hogs do not wake.
    assert_eq!(c.events, 25);
    // Tasks, the CPU, the recorded events, and the samples those events can leave (one per
    // two events, in the task's set and its workload's: no cgroups).
    assert_eq!(c.memory_bytes, 2 * 512 + 256 + 32 * 25 + 4 * 25 * 2);
    let v = ok(&with(|v| {
        v["duration_ms"] = json!(600_000);
        v["tasks"][0] = json!({"name": "p", "count": 4096, "behavior": {"kind": "periodic", "period_us": 1, "run_us": 1}});
    }));
    let e = check_cost(&v.scenario, &Limits::NATIVE).unwrap_err();
    assert_eq!(e.path, "");
    assert!(e.message.starts_with("estimated "), "{e}");
    assert!(e.message.contains("exceeds the limit of 4e9 for this target; shorten duration_ms or reduce tasks"), "{e}");
    let tight = Limits { max_events: u64::MAX, max_memory_bytes: 1000 };
    let e = check_cost(&ok(MINIMAL).scenario, &tight).unwrap_err();
    assert!(e.message.contains("of memory for the recorded run exceeds the limit of"), "{e}");
}

fn roundtrip(text: &str) {
    let a = ok(text);
    let json = to_json(&a.scenario);
    let b = match parse_value(&json) {
        Ok(b) => b,
        Err(e) => panic!("to_json output refused: {e}\n{json:#}"),
    };
    assert_eq!(a.scenario, b.scenario, "{json:#}");
    assert_eq!(a.warnings, b.warnings);
    // Plain JSON text too.
    assert_eq!(ok(&json.to_string()).scenario, a.scenario);
}

#[test]
fn round_trips() {
    roundtrip(MINIMAL);
    roundtrip(FULL);
    roundtrip(&FULL.replace("\"latency-nice-v12\",", "\"eevdf-v6.12\","));
    roundtrip(&with(|v| {
        v["description"] = json!("d");
        v["seed"] = json!(9_007_199_254_740_992u64);
        v["machine"] = json!({"cpus": 8, "hz": 1000, "llc_size": 4});
        v["scheduler"] = json!({"policy": "latency-nice-v12",
            "tunables": {"latency_ns": 3000000, "min_granularity_ns": 100000, "wakeup_granularity_ns": 0,
                         "sched_nr_latency": 3, "base_slice_ns": 500000, "tunable_scaling": "linear"},
            "features": {"latency_max_clamp_offset": "relative", "wakeup_preempt_variant": "min-vruntime-signed",
                         "latency_max_clamp_wakeup": false, "delay_zero": true, "gentle_fair_sleepers": false}});
        v["cgroups"] = json!([{"name": "a", "shares": 2}, {"name": "b", "parent": "a", "latency_nice": 19}]);
        v["tasks"][0] = json!({"name": "h", "count": 3, "nice": -20, "latency_nice": 19, "slice_us": 50,
            "cgroup": "b", "cpus": [7, 0], "start_ms": 100, "stagger_us": 1000000000,
            "behavior": {"kind": "bursty", "run_us": {"uniform": [0.5, 7]}, "sleep_us": {"normal": [100, 12.25]}}});
        push_task(v, json!({"name": "e", "behavior": {"kind": "bursty", "run_us": {"exp": 0.001}, "sleep_us": 1e7}}));
        push_task(v, json!({"name": "d", "behavior": {"kind": "duty", "percent": 100, "period_us": 10000000}}));
        push_task(v, json!({"name": "p", "behavior": {"kind": "periodic", "period_us": 7, "run_us": 10000000}}));
        v["workloads"] = json!([{"kind": "hackbench", "name": "hb", "groups": 1, "fds": 1, "loops": 1, "msg_us": 0,
            "pipe_msgs": 1, "cgroup": "a", "cpus": [1], "slice_us": 0, "start_ms": 3},
            {"kind": "schbench", "name": "sb", "messengers": 1, "workers": 1, "sleep_us": 0, "cputime_us": 0, "msg_us": 1}]);
        v["timeline"] = json!([{"at_us": 0, "task": "h/2", "set": {"slice_us": 0}},
            {"at_ms": 99, "cgroup": "b", "set": {"shares": 262144}},
            {"at_us": 1, "task": "sb/worker0", "set": {"nice": 5, "latency_nice": -3, "slice_us": null}}]);
    }));
}

#[test]
fn static_scenarios_parse() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../static/scenarios");
    let Ok(entries) = std::fs::read_dir(&dir) else { return };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json")).collect();
    paths.sort();
    for p in paths {
        let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        if let Err(e) = parse_scenario(&text) {
            panic!("{}: {e}", p.display());
        }
    }
}

/// `machine.topology` and `machine.distance` (contract §4): a shape whose product is not
/// `machine.cpus` is refused naming the four numbers and their product; `llc_size` beside a
/// topology, a distance table of the wrong size, a distance of a node to itself other than 10
/// or one not the same both ways are refused at their own paths; presets by name.
#[test]
fn machine_topology() {
    let topo = |m: Value| with(|v| v["machine"] = m);
    refused_at(
        &topo(json!({"cpus": 16, "topology": {"threads_per_core": 2, "cores_per_llc": 4, "llcs_per_node": 1, "nodes": 3}})),
        "machine.topology",
        "expected threads_per_core × cores_per_llc × llcs_per_node × nodes to equal machine.cpus (16), got 2 × 4 × 1 × 3 = 24",
    );
    refused_at(&topo(json!({"cpus": 16, "topology": {"threads_per_core": 2, "cores_per_llc": 8, "nodes": 1}})), "machine.topology", "missing required key \"llcs_per_node\"");
    refused_at(&topo(json!({"cpus": 16, "topology": {"threads_per_core": 0, "cores_per_llc": 8, "llcs_per_node": 1, "nodes": 2}})), "machine.topology.threads_per_core", "1..=8");
    refused_at(&topo(json!({"cpus": 16, "topology": {"threads": 2}})), "machine.topology.threads", "unknown key");
    refused_at(&topo(json!({"cpus": 16, "topology": "epyc"})), "machine.topology", "\"host-2\", \"power-96\", \"epyc-256\"");
    refused_at(&topo(json!({"cpus": 96, "topology": "epyc-256"})), "machine.topology", "= 256");
    refused_at(&topo(json!({"cpus": 4, "llc_size": 2, "topology": {"threads_per_core": 1, "cores_per_llc": 2, "llcs_per_node": 1, "nodes": 2}})), "machine.llc_size", "not both");
    let two = json!({"threads_per_core": 1, "cores_per_llc": 2, "llcs_per_node": 1, "nodes": 2});
    refused_at(&topo(json!({"cpus": 4, "topology": two, "distance": [[10, 20]]})), "machine.distance", "a 2 × 2 table");
    refused_at(&topo(json!({"cpus": 4, "topology": two, "distance": [[10, 20], [20]]})), "machine.distance[1]", "expected 2 distances");
    refused_at(&topo(json!({"cpus": 4, "topology": two, "distance": [[10, 20], [21, 10]]})), "machine.distance[0][1]", "the same distance both ways");
    refused_at(&topo(json!({"cpus": 4, "topology": two, "distance": [[12, 20], [20, 10]]})), "machine.distance[0][0]", "expected 10");
    refused_at(&topo(json!({"cpus": 4, "topology": two, "distance": [[10, 10], [10, 10]]})), "machine.distance[0][1]", "from 11 to 255");
    refused_at(&topo(json!({"cpus": 4, "distance": [[10]]})), "machine.distance", "expected machine.topology beside");

    let v = ok(&topo(json!({"cpus": 4, "topology": two, "distance": [[10, 32], [32, 10]]})));
    let t = v.scenario.machine.topology.clone().expect("topology");
    assert_eq!((t.nodes, t.distance(0, 1), t.preset), (2, 32, None));
    let back = to_json(&v.scenario);
    assert_eq!(back["machine"]["topology"], two);
    assert_eq!(back["machine"]["distance"], json!([[10, 32], [32, 10]]));

    let v = ok(&topo(json!({"cpus": 256, "topology": "epyc-256"})));
    let back = to_json(&v.scenario);
    assert_eq!(back["machine"]["topology"], "epyc-256");
    assert!(back["machine"].get("distance").is_none(), "the preset's own distances are not repeated");
    assert_eq!(ok(&back.to_string()).scenario.machine, v.scenario.machine);
    let v = ok(&topo(json!({"cpus": 256, "topology": "epyc-256", "distance": [[10, 21], [21, 10]]})));
    let back = to_json(&v.scenario);
    assert_eq!(back["machine"]["distance"], json!([[10, 21], [21, 10]]));
    assert_eq!(ok(&back.to_string()).scenario.machine.topology.expect("topology").node_reclaim_distance, 32);
}
