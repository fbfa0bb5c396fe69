//! The ftrace export streams: its output is compared, byte for byte, with the exporter as it
//! was when it built the whole trace in memory (kept in `ftrace_reference/` as the reference).
//! They differ only where that one paired a task's wakeups with the wrong latency samples
//! (it counted them CPU by CPU, and counted none for a stint preempted within the instant it
//! began), which put wakeups before the sleep they end; there every line is the same but the
//! wakeups' times, which now fall between the sleep and the run.

mod ftrace_reference;

use fairground_sim::engine::trace::StartWhy;
use fairground_sim::engine::Sim;
use fairground_sim::interop::{run_to_ftrace, to_ftrace, write_ftrace};
use fairground_sim::parse_scenario;
use fairground_sim::scenario::Validated;

/// Every shipped scenario but the two seed004 ones, whose 0.75 and 5.1 million lines take
/// from 20 s to minutes here in a debug build (seed000, seed003 and hackbench-8cpu have the
/// same multi-CPU pairings). The reference exporter predates `machine.costs` (it takes a
/// wakeup latency to end where the stint begins, not after its switch), so it is compared on
/// the scenarios without their costs; `shipped_as_is` keeps them.
fn shipped() -> Vec<(String, Validated)> {
    scenarios(false)
}

fn shipped_as_is() -> Vec<(String, Validated)> {
    scenarios(true)
}

fn scenarios(costs: bool) -> Vec<(String, Validated)> {
    let dir = format!("{}/../../static/scenarios", env!("CARGO_MANIFEST_DIR"));
    let mut paths: Vec<_> = std::fs::read_dir(&dir).expect("scenarios").map(|e| e.expect("entry").path()).collect();
    paths.sort();
    paths
        .into_iter()
        .filter(|p| !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("seed004-")))
        .map(|p| {
            let mut text = std::fs::read_to_string(&p).expect("readable");
            // (Only the seed scenarios carry costs, and they are plain JSON.)
            if !costs && text.contains("\"costs\"") {
                let mut v: serde_json::Value = serde_json::from_str(&text).expect("json");
                if let Some(m) = v["machine"].as_object_mut() {
                    m.remove("costs");
                }
                text = v.to_string();
            }
            let name = p.file_stem().expect("stem").to_string_lossy().into_owned();
            let v = parse_scenario(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, v)
        })
        .collect()
}

fn recorded(v: &Validated) -> Sim {
    let mut sim = Sim::new(v).expect("runs");
    sim.enable_trace();
    sim.run();
    sim
}

/// Per task, (its wakeup stints in time order and as the reference counted them, CPU by CPU,
/// agree) and (each recorded latency has its stint: none began and ended within an instant).
fn pairing(sim: &Sim) -> (bool, bool) {
    let tr = sim.trace.as_ref().expect("recorded");
    let mut stints: Vec<Vec<(u32, u64)>> = vec![Vec::new(); sim.tasks.len()];
    let open = tr.open.iter().enumerate().filter_map(|(c, o)| o.map(|o| (c as u32, o.task, o.start_ns, o.start_why)));
    for (cpu, task, start, why) in tr.slices.iter().map(|s| (s.cpu, s.task, s.start_ns, s.start_why)).chain(open) {
        if why == StartWhy::Wakeup {
            stints[task as usize].push((cpu, start));
        }
    }
    let mut by_cpu = true;
    let mut whole = true;
    for (t, st) in stints.iter_mut().enumerate() {
        whole &= st.len() == sim.tasks[t].stats.wakeup_latency.len();
        st.sort_unstable();
        by_cpu &= st.windows(2).all(|w| w[0].1 < w[1].1);
    }
    (by_cpu, whole)
}

/// Wakeups that do not fall between the sleep they end and the run they lead to, per pid in
/// the file's order. A task woken at the instant it sleeps has its wakeup printed first
/// (wakeups come before switches at one instant), then that switch out.
fn misplaced_wakeups(trace: &str) -> usize {
    // Per pid: (µs as printed, 0 switch out / 1 wakeup / 2 switch in, slept).
    let mut per_pid: std::collections::BTreeMap<i64, Vec<(u64, u8, bool)>> = Default::default();
    let field = |l: &str, k: &str| -> Option<String> { l.split_whitespace().find_map(|t| t.strip_prefix(k)).map(str::to_string) };
    for l in trace.lines().filter(|l| !l.starts_with('#')) {
        let ts = l.split_whitespace().find(|t| t.ends_with(':') && t.contains('.')).expect("a timestamp");
        let (sec, us) = ts.trim_end_matches(':').split_once('.').expect("sec.us");
        let ts: u64 = sec.parse::<u64>().expect("sec") * 1_000_000 + us.parse::<u64>().expect("us");
        let pid = |k: &str| field(l, k).and_then(|p| p.parse::<i64>().ok()).expect("pid");
        if l.contains("sched_switch:") {
            let slept = field(l, "prev_state=").as_deref() == Some("S");
            per_pid.entry(pid("prev_pid=")).or_default().push((ts, 0, slept));
            per_pid.entry(pid("next_pid=")).or_default().push((ts, 2, false));
        } else if l.contains("sched_waking:") {
            per_pid.entry(pid("pid=")).or_default().push((ts, 1, false));
        }
    }
    let mut bad = 0;
    for (_, evs) in per_pid.into_iter().filter(|(p, _)| *p != 0) {
        // Asleep since when (None: not seen asleep), and whether seen at all.
        let (mut asleep, mut seen) = (None::<u64>, false);
        let mut i = 0;
        while i < evs.len() {
            let (ts, class, slept) = evs[i];
            match class {
                0 if slept => asleep = Some(ts),
                1 => {
                    let sleeps_now = evs.get(i + 1).is_some_and(|&(t, c, s)| t == ts && c == 0 && s);
                    if sleeps_now {
                        i += 1;
                    } else if seen && asleep.is_none_or(|s| s > ts) {
                        bad += 1;
                    }
                    asleep = None;
                }
                _ => asleep = None,
            }
            seen = true;
            i += 1;
        }
    }
    bad
}

#[test]
fn the_stream_is_todays_export_but_for_misplaced_wakeups() {
    let mut differ = Vec::new();
    for (name, v) in shipped() {
        let sim = recorded(&v);
        let old = ftrace_reference::to_ftrace(&sim);
        let new = run_to_ftrace(&v).expect("runs");
        assert_eq!(misplaced_wakeups(&new), 0, "{name}");
        let (by_cpu, whole) = pairing(&sim);
        // A run kept whole (the app's export) gives the stream's lines, unless a stint began
        // and was preempted within one instant: that leaves no slice to pair its latency with.
        if whole {
            assert!(to_ftrace(&sim) == new, "{name}: a run kept whole");
        }
        if by_cpu && whole {
            assert!(new == old, "{name}: byte for byte");
            continue;
        }
        assert!(misplaced_wakeups(&old) > 0, "{name}: the reference misplaced wakeups");
        differ.push(name.clone());
        // The same switches in the same order, the same wakeups but for their times (and the
        // task shown running when they came).
        let switches = |t: &str| t.lines().filter(|l| l.contains("sched_switch:")).map(str::to_string).collect::<Vec<_>>();
        assert!(switches(&new) == switches(&old), "{name}: switches");
        let wakes = |t: &str| {
            let mut w: Vec<String> = t.lines().filter(|l| l.contains("sched_wak")).map(|l| l.split_once(": ").expect("event").1.to_string()).collect();
            w.sort_unstable();
            w
        };
        assert!(wakes(&new) == wakes(&old), "{name}: wakeups");
        let head = |t: &str| t.lines().take_while(|l| l.starts_with('#')).map(str::to_string).collect::<Vec<_>>();
        assert_eq!(head(&new), head(&old), "{name}: header");
    }
    // The multi-CPU runs whose tasks wake on more than one CPU (seed000-which-clamp is the
    // seed000 workload again); the others, byte for byte.
    assert_eq!(differ, ["hackbench-8cpu", "seed000-group-clamp", "seed000-which-clamp", "seed003-hackbench-eevdf"]);
}

/// With costs, a wakeup's latency runs past the switch to the stint's first useful
/// instruction; the wakeup is still printed where the task was woken, between its sleep and
/// its run, and the whole-run export agrees with the stream.
#[test]
fn with_costs_wakeups_stay_between_the_sleep_and_the_run() {
    let mut with_costs = 0;
    for (name, v) in shipped_as_is() {
        with_costs += usize::from(v.scenario.machine.costs != Default::default());
        let sim = recorded(&v);
        let new = run_to_ftrace(&v).expect("runs");
        assert_eq!(misplaced_wakeups(&new), 0, "{name}");
        if pairing(&sim).1 {
            assert!(to_ftrace(&sim) == new, "{name}: a run kept whole");
        }
    }
    assert!(with_costs >= 4, "the seed scenarios carry measured costs");
}

/// A closed pipe stops the export at once, with the error, instead of running to the end.
#[test]
fn a_write_error_stops_the_export() {
    struct Fails(usize);
    impl std::io::Write for Fails {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0 += 1;
            if b.is_empty() {
                return Ok(0);
            }
            Err(std::io::Error::new(std::io::ErrorKind::BrokenPipe, "closed"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let (_, v) = shipped().into_iter().find(|(n, _)| n == "hackbench-8cpu").expect("shipped");
    let mut w = Fails(0);
    let e = write_ftrace(&v, &mut w).expect_err("fails");
    assert!(e.to_string().contains("cannot write the trace"), "{e}");
    // The first write fails; the buffer tries once more as it is dropped.
    assert!(w.0 <= 2, "{} writes tried", w.0);
}
