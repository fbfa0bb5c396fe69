//! Perfetto protobuf export and import: the packets decode with Perfetto's field numbers and
//! carry the same sched events as the ftrace text export (the same run, the decision log on or
//! not); the fair class's counters and decisions are there; a run survives export → import →
//! replay as the ftrace-text round trip does; broken files are errors naming the byte.

use fairground_sim::engine::Sim;
use fairground_sim::interop::perfetto::proto::{Trace, TYPE_COUNTER, TYPE_INSTANT};
use fairground_sim::interop::{import_ftrace, import_perfetto, import_trace, run_to_ftrace, run_to_perfetto, ImportOptions, TraceFormat};
use fairground_sim::parse_scenario;
use prost::Message;

fn shipped(stem: &str) -> String {
    std::fs::read_to_string(format!("{}/../../static/scenarios/{stem}.json", env!("CARGO_MANIFEST_DIR"))).expect("shipped")
}

fn run_value(v: &serde_json::Value) -> fairground_sim::report::Report {
    let val = parse_scenario(&v.to_string()).unwrap_or_else(|e| panic!("refused: {e}"));
    let mut s = Sim::new(&val).unwrap_or_else(|e| panic!("refused: {e}"));
    s.run();
    s.report()
}

/// (µs, CPU, event, pid) of every sched event, sorted: the text prints µs, so ns are cut to µs.
fn text_events(text: &str) -> Vec<(u64, u32, String, i64)> {
    let mut out = Vec::new();
    for l in text.lines().filter(|l| !l.starts_with('#')) {
        let (head, rest) = l.split_once(']').expect("a CPU field");
        let cpu: u32 = head.rsplit_once('[').expect("[").1.parse().expect("cpu");
        let mut toks = rest.split_whitespace();
        toks.next(); // flags
        let ts = toks.next().expect("ts").trim_end_matches(':');
        let (s, us) = ts.split_once('.').expect("s.us");
        let us = s.parse::<u64>().expect("s") * 1_000_000 + us.parse::<u64>().expect("us");
        let ev = toks.next().expect("event").trim_end_matches(':').to_string();
        let key = if ev == "sched_switch" { "next_pid=" } else { "pid=" };
        let pid = rest.split_whitespace().find_map(|t| t.strip_prefix(key)).expect("pid").parse().expect("pid");
        out.push((us, cpu, ev, pid));
    }
    out.sort();
    out
}

fn proto_events(t: &Trace) -> Vec<(u64, u32, String, i64)> {
    let mut out = Vec::new();
    for p in &t.packet {
        let Some(b) = &p.ftrace_events else { continue };
        let cpu = b.cpu.expect("bundle cpu");
        for e in &b.event {
            let us = e.timestamp.expect("ts") / 1000;
            let (name, pid) = if let Some(s) = &e.sched_switch {
                ("sched_switch", s.next_pid)
            } else if let Some(w) = &e.sched_waking {
                ("sched_waking", w.pid)
            } else if let Some(w) = &e.sched_wakeup {
                ("sched_wakeup", w.pid)
            } else if let Some(w) = &e.sched_wakeup_new {
                ("sched_wakeup_new", w.pid)
            } else {
                panic!("an event of another kind")
            };
            out.push((us, cpu, name.to_string(), i64::from(pid.expect("pid"))));
        }
    }
    out.sort();
    out
}

#[test]
fn the_sched_events_are_those_of_the_ftrace_export() {
    // Under each policy family: the decision log the Perfetto export turns on must not change
    // the run, so the events are the text export's to the µs.
    for stem in ["mixed-behaviours", "clamp-lesson", "lesson-3-eevdf-lag"] {
        let v = parse_scenario(&shipped(stem)).expect("valid");
        let text = run_to_ftrace(&v).expect("runs");
        let bytes = run_to_perfetto(&v).expect("runs");
        let trace = Trace::decode(bytes.as_slice()).expect("a Trace");
        let (a, b) = (text_events(&text), proto_events(&trace));
        assert!(!a.is_empty());
        assert_eq!(a, b, "{stem}: the same sched events");
    }
}

#[test]
fn counters_and_decisions_are_on_their_tracks() {
    let v = parse_scenario(&shipped("clamp-lesson")).expect("valid");
    assert_eq!(v.scenario.scheduler.policy.name(), "latency-nice-v12");
    let trace = Trace::decode(run_to_perfetto(&v).expect("runs").as_slice()).expect("a Trace");
    let names: std::collections::BTreeMap<u64, String> =
        trace.packet.iter().filter_map(|p| p.track_descriptor.as_ref()).map(|d| (d.uuid.expect("uuid"), d.name.clone().unwrap_or_default())).collect();
    // Every task has its thread track and, under v12, a latency offset counter.
    let ntasks = names.values().filter(|n| n.ends_with(" vruntime - min_vruntime")).count();
    assert!(ntasks >= 2);
    assert_eq!(names.values().filter(|n| n.ends_with(" latency offset")).count(), ntasks);
    assert!(!names.values().any(|n| n.contains("deadline")), "no EEVDF deadline under v12");
    let mut counted = std::collections::BTreeSet::new();
    let mut picks = 0;
    for p in &trace.packet {
        let Some(e) = &p.track_event else { continue };
        let track = &names[&e.track_uuid.expect("track")];
        assert!(p.timestamp.is_some() && p.trusted_packet_sequence_id.is_some());
        match e.r#type {
            Some(TYPE_COUNTER) => {
                assert!(e.counter_value.is_some());
                counted.insert(track.rsplit_once(' ').map_or(track.clone(), |x| x.1.to_string()));
            }
            Some(TYPE_INSTANT) if e.name.as_deref() == Some("pick") => {
                picks += 1;
                let args: Vec<_> = e.debug_annotations.iter().filter_map(|a| a.name.as_deref()).collect();
                assert!(args.contains(&"task") && args.contains(&"key_rel") && args.contains(&"what"), "{args:?}");
            }
            _ => {}
        }
    }
    for c in ["min_vruntime", "weight", "nr_running", "offset", "util_avg"] {
        assert!(counted.iter().any(|n| n.ends_with(c)), "{c} counted: {counted:?}");
    }
    // Each stint begins with a pick, so there are at least as many picks as switches in.
    let switches = proto_events(&trace).iter().filter(|e| e.2 == "sched_switch" && e.3 != 0).count();
    assert!(picks >= switches, "{picks} picks for {switches} switches in");
}

fn round_trip(stem: &str) {
    let v = parse_scenario(&shipped(stem)).expect("valid");
    let mut sim = Sim::new(&v).expect("runs");
    sim.run();
    let original = sim.report();
    let opts = ImportOptions { policy: v.scenario.scheduler.policy.name().into(), hz: v.scenario.machine.hz, ..ImportOptions::default() };
    let bytes = run_to_perfetto(&v).expect("runs");
    let imp = import_perfetto(bytes.as_slice(), &opts).expect("imports");
    assert!(imp.warnings.is_empty(), "{:?}", imp.warnings);
    let via_text = import_ftrace(&run_to_ftrace(&v).expect("runs"), &opts).expect("imports");
    assert_eq!(imp.end_ns, via_text.end_ns, "{stem}: the run's end is carried");
    let replay = run_value(&imp.scenario);
    for ((t, o), x) in original.tasks.iter().zip(&imp.tasks).zip(&via_text.tasks) {
        assert_eq!((&o.name, o.wakeups, &o.cpus), (&x.name, x.wakeups, &x.cpus), "{stem}: as the text import reads it");
        let r = replay.tasks.iter().find(|y| y.name == o.name).expect("replayed task");
        let err = (r.cpu_ns as f64 - t.cpu_ns as f64).abs() / (t.cpu_ns as f64).max(1.0);
        assert!(err < 0.01, "{stem}: {} CPU {} replayed as {}", t.name, t.cpu_ns, r.cpu_ns);
        assert_eq!(o.wakeups, t.wakeups, "{stem}: {} wakeups seen in the trace", t.name);
        assert_eq!(r.wakeups, t.wakeups, "{stem}: {} wakeups replayed", t.name);
    }
}

#[test]
fn export_import_replay_reproduces_cpu_time_and_wakeups() {
    round_trip("two-hogs");
    round_trip("nice-0-vs-5");
    round_trip("mixed-behaviours");
}

#[test]
fn the_format_is_told_by_content() {
    let v = parse_scenario(&shipped("two-hogs")).expect("valid");
    let opts = ImportOptions::default();
    let (f, _) = import_trace(run_to_perfetto(&v).expect("runs").as_slice(), &opts).expect("imports");
    assert_eq!(f, TraceFormat::Perfetto);
    let (f, _) = import_trace(run_to_ftrace(&v).expect("runs").as_bytes(), &opts).expect("imports");
    assert_eq!(f, TraceFormat::FtraceText);
}

#[test]
fn broken_protobuf_is_an_error_naming_the_byte() {
    let v = parse_scenario(&shipped("two-hogs")).expect("valid");
    let bytes = run_to_perfetto(&v).expect("runs");
    let opts = ImportOptions::default();
    // Cut in the middle of a packet: the error says where the cut field began.
    let e = import_perfetto(&bytes[..bytes.len() - 3], &opts).expect_err("cut");
    assert!(e.contains("byte ") && e.contains("ends inside"), "{e}");
    // A wire type protobuf does not have (7).
    let e = import_perfetto(&[0x0F, 1, 2][..], &opts).expect_err("garbage");
    assert!(e.starts_with("byte 0:") && e.contains("wire type 7"), "{e}");
    // A packet whose bytes are not a TracePacket (field 1 as a 64-bit value inside).
    let e = import_perfetto(&[0x0A, 0x02, 0x09, 0x01][..], &opts).expect_err("bad packet");
    assert!(e.contains("packet 1 at byte 0"), "{e}");
    // No sched events at all.
    let e = import_perfetto(&[][..], &opts).expect_err("empty");
    assert!(e.contains("no sched_switch"), "{e}");
}

/// Perfetto's recorder writes sched_switch and sched_waking in the compact form by default.
#[test]
fn compact_sched_bundles_are_read() {
    use fairground_sim::interop::perfetto::proto::{CompactSched, FtraceEvent, FtraceEventBundle, SchedSwitch, TracePacket};
    // CPU 0: a (pid 100) switched in at 1 µs from idle, out asleep at 1001 µs for b (101);
    // a woken at 2001 µs; b preempted at 3001 µs for a (a full event after the compact ones).
    let compact = CompactSched {
        intern_table: vec!["a".into(), "b".into()],
        switch_timestamp: vec![1_000, 1_000_000],
        switch_prev_state: vec![0, 1],
        switch_next_pid: vec![100, 101],
        switch_next_prio: vec![120, 120],
        switch_next_comm_index: vec![0, 1],
        waking_timestamp: vec![2_001_000],
        waking_pid: vec![100],
        waking_target_cpu: vec![0],
        waking_prio: vec![120],
        waking_comm_index: vec![0],
    };
    let sw = SchedSwitch {
        prev_comm: Some("b".into()),
        prev_pid: Some(101),
        prev_prio: Some(120),
        prev_state: Some(0x100),
        next_comm: Some("a".into()),
        next_pid: Some(100),
        next_prio: Some(120),
    };
    let full = FtraceEvent { timestamp: Some(3_001_000), pid: Some(101), sched_switch: Some(sw), ..Default::default() };
    let bundle = FtraceEventBundle { cpu: Some(0), event: vec![full], lost_events: None, compact_sched: Some(compact) };
    let bytes = Trace { packet: vec![TracePacket { ftrace_events: Some(bundle), ..Default::default() }] }.encode_to_vec();
    let imp = import_perfetto(bytes.as_slice(), &ImportOptions::default()).expect("imports");
    let task = |c: &str| imp.tasks.iter().find(|t| t.comm == c).expect(c);
    let (a, b) = (task("a"), task("b"));
    // a: 1000 µs of running, one wakeup after 1000 µs asleep, then on the CPU as the trace
    // ends (a last burst of the 1 ns floor).
    assert_eq!((a.wakeups, a.steps.clone()), (1, vec![(0, 1_000_000), (1_000_000, 1)]));
    // b: ran from 1001 µs to its preemption at 3001 µs, never asleep.
    assert_eq!((b.wakeups, b.cpu_ns), (0, 2_000_000));
    assert_eq!(imp.end_ns - imp.start_ns, 3_000_000);
}

/// Each CPU's `util_avg` counter follows PELT's root runqueue: written when it changed after
/// an instant, so its last value on each CPU is what the report gives at the end of the run.
/// It is the raw average, the sum of what its tasks (blocked ones too) carry, which can pass
/// one CPU's 1024 where tasks arrive with their first utilisation; the kernel clamps it only
/// where it reads it (`cpu_util()`).
#[test]
fn each_cpus_util_avg_counter_ends_at_the_reports() {
    let text = shipped("hackbench-8cpu");
    let v = parse_scenario(&text).expect("valid");
    let report = run_value(&serde_json::from_str(&text).expect("json"));
    let trace = Trace::decode(run_to_perfetto(&v).expect("runs").as_slice()).expect("a Trace");
    let names: std::collections::BTreeMap<u64, String> =
        trace.packet.iter().filter_map(|p| p.track_descriptor.as_ref()).map(|d| (d.uuid.expect("uuid"), d.name.clone().unwrap_or_default())).collect();
    let mut last = vec![None; report.cpus.len()];
    for p in &trace.packet {
        let Some(e) = &p.track_event else { continue };
        let track = &names[&e.track_uuid.expect("track")];
        let Some(cpu) = track.strip_prefix("CPU ").and_then(|r| r.strip_suffix(" util_avg")).and_then(|c| c.parse::<usize>().ok()) else { continue };
        let v = e.counter_value.expect("a value");
        assert!(v >= 0, "CPU {cpu}: {v}");
        last[cpu] = Some(v);
    }
    for (c, cpu) in report.cpus.iter().enumerate() {
        assert_eq!(last[c], Some(cpu.util_avg as i64), "CPU {c}");
    }
}
