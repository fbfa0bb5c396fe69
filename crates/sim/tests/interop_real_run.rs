//! A recorded trace's own run (`Imported::real`): CPU time, wakeup latencies and what ran
//! where, measured as the model measures its runs.

use fairground_sim::interop::{import_ftrace, import_trace_bytes, ImportOptions, RealRun};

fn opts() -> ImportOptions {
    ImportOptions { real_run: true, ..ImportOptions::default() }
}

/// Three tasks on two CPUs, every time chosen so that the figures can be read off by hand.
/// CPU 0: a runs from the first event (0 µs) to 300 µs and sleeps; b, woken at 100 µs (asleep
/// since before the trace), runs from 300 µs (200 µs after its wakeup) until a, woken at
/// 1250 µs, preempts it at 1300 µs (50 µs); a sleeps at 2000 µs, b (preempted, not woken) runs
/// again to 3000 µs, the last event. CPU 1: c has been running since before the trace and
/// sleeps at 500 µs; a wakes it at 2500 µs, it runs from 2600 µs (100 µs) to the end.
const TINY: &str = "\
# tracer: nop
       <idle>-0     [000] d..2.     1.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=10 next_prio=120
            a-10    [000] d..2.     1.000100: sched_waking: comm=b pid=11 prio=120 target_cpu=000
            a-10    [000] d..2.     1.000300: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=b next_pid=11 next_prio=120
            c-12    [001] d..2.     1.000500: sched_switch: prev_comm=c prev_pid=12 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
            b-11    [000] d..2.     1.001250: sched_waking: comm=a pid=10 prio=120 target_cpu=000
            b-11    [000] d..2.     1.001260: sched_wakeup: comm=a pid=10 prio=120 target_cpu=000
            b-11    [000] d..2.     1.001300: sched_switch: prev_comm=b prev_pid=11 prev_prio=120 prev_state=R+ ==> next_comm=a next_pid=10 next_prio=120
            a-10    [000] d..2.     1.002000: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=b next_pid=11 next_prio=120
            b-11    [000] d..2.     1.002500: sched_waking: comm=c pid=12 prio=120 target_cpu=001
       <idle>-0     [001] d..2.     1.002600: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=c next_pid=12 next_prio=120
            b-11    [000] d..2.     1.003000: sched_switch: prev_comm=b prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
";

fn task<'a>(run: &'a RealRun, name: &str) -> &'a fairground_sim::interop::RealTask {
    run.tasks.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no task {name}: {:?}", run.tasks))
}

#[test]
fn a_tiny_trace_measures_as_worked_out_by_hand() {
    let imp = import_ftrace(TINY, &opts()).expect("imports");
    let run = imp.real.expect("measured");
    assert_eq!((run.span_ns, run.cpus), (3_000_000, 2));
    // The scenario's tasks first, in its order (pid order), all of them replayed.
    let names: Vec<&str> = run.tasks.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c"]);
    assert!(run.tasks.iter().all(|t| t.in_scenario));
    // a: 0–300 and 1300–2000 µs; woken once (sched_waking at 1250, not again at its
    // sched_wakeup), in at 1300.
    assert_eq!((task(&run, "a").cpu_ns, &task(&run, "a").wakeup_latency_ns[..]), (1_000_000, &[50_000][..]));
    // b: 300–1300 and 2000–3000 µs; its second stint follows a preemption, not a wakeup.
    assert_eq!((task(&run, "b").cpu_ns, &task(&run, "b").wakeup_latency_ns[..]), (2_000_000, &[200_000][..]));
    // c: 0–500 and 2600–3000 µs.
    assert_eq!((task(&run, "c").cpu_ns, &task(&run, "c").wakeup_latency_ns[..]), (900_000, &[100_000][..]));
    // CPU 0 was never idle, CPU 1 busy 900 of the 3000 µs.
    let busy = |cpu: u32| run.slices.iter().filter(|s| s.cpu == cpu).map(|s| s.end_ns - s.start_ns).sum::<u64>();
    assert_eq!((busy(0), busy(1)), (3_000_000, 900_000));
    assert_eq!(run.slices.len(), 6);
    // The replayed tasks' CPU time is what the scenario replays.
    for t in &imp.tasks {
        assert_eq!(t.cpu_ns, task(&run, &t.name).cpu_ns, "{}", t.name);
    }
}

#[test]
fn without_asking_nothing_is_kept() {
    assert!(import_ftrace(TINY, &ImportOptions::default()).expect("imports").real.is_none());
}

const DAT: &[u8] = include_bytes!("fixtures/tracedat/host-6.18-hogs-sleeper.dat");
const TXT: &str = include_str!("fixtures/tracedat/host-6.18-hogs-sleeper.txt");

#[test]
fn the_recorded_run_measures_the_same_from_trace_dat_and_its_text() {
    let (_, dat) = import_trace_bytes(DAT, &opts()).expect("trace.dat imports");
    let (_, txt) = import_trace_bytes(TXT.as_bytes(), &opts()).expect("text imports");
    let run = dat.real.expect("measured");
    assert_eq!(Some(&run), txt.real.as_ref(), "the same events, the same run");
    assert_eq!(run.span_ns, dat.end_ns - dat.start_ns);
    // Nothing runs twice at once on a CPU, and no CPU is busier than the trace is long.
    for cpu in 0..run.cpus {
        let mut on: Vec<_> = run.slices.iter().filter(|s| s.cpu == cpu).map(|s| (s.start_ns, s.end_ns)).collect();
        on.sort_unstable();
        assert!(on.windows(2).all(|w| w[0].1 <= w[1].0), "CPU {cpu}: overlapping stints");
        assert!(on.iter().map(|s| s.1 - s.0).sum::<u64>() <= run.span_ns, "CPU {cpu}");
    }
    let total: u64 = run.tasks.iter().map(|t| t.cpu_ns).sum();
    assert_eq!(total, run.slices.iter().map(|s| s.end_ns - s.start_ns).sum::<u64>());
    assert!(total <= u64::from(run.cpus) * run.span_ns);
    // The two busy loops (sh at nice 0 and 5, `timeout 1`) ran at most their second each,
    // and where they shared a CPU the nice-0 one got about three times the other's share
    // (weights 1024 and 335): more than twice its CPU time.
    let sh: Vec<&fairground_sim::interop::ObservedTask> = dat.tasks.iter().filter(|t| t.comm == "sh").collect();
    let n0 = task(&run, &sh.iter().find(|t| t.nice == 0).expect("sh at nice 0").name).cpu_ns;
    let n5 = task(&run, &sh.iter().find(|t| t.nice == 5).expect("sh at nice 5").name).cpu_ns;
    assert!(n0 <= 1_000_000_000 && n0 > 2 * n5, "{n0} vs {n5}");
    // Every task the scenario replays is there, first, in the scenario's order.
    let replayed: Vec<&str> = dat.tasks.iter().map(|t| t.name.as_str()).collect();
    let first: Vec<&str> = run.tasks.iter().take(replayed.len()).map(|t| t.name.as_str()).collect();
    assert_eq!(first, replayed);
    assert!(run.tasks[replayed.len()..].iter().all(|t| !t.in_scenario));
    // The sleeper (python3, 90 sleeps of 10 ms) woke at least 90 times, and each of those
    // wakeups got it onto a CPU within the trace: a latency each.
    let sleeper = dat.tasks.iter().find(|t| t.comm == "python3").expect("the sleeper");
    let lat = &task(&run, &sleeper.name).wakeup_latency_ns;
    assert!(lat.len() >= 90, "{} latencies", lat.len());
    // A latency is shorter than the sleeper's 10 ms period: it woke every period.
    assert!(lat.iter().all(|&l| l < 10_000_000), "{lat:?}");
}

/// a is switched in at 0 µs, and at 300 µs the trace shows b switched in from idle: a's switch
/// out is missing (events lost without a mark, as in the recorded fixture). a woken at 2000 µs
/// runs 2100–2500 µs.
const MISSED: &str = "\
       <idle>-0     [000] d..2.     1.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=10 next_prio=120
       <idle>-0     [000] d..2.     1.000300: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=b next_pid=11 next_prio=120
            b-11    [000] d..2.     1.001000: sched_switch: prev_comm=b prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
       <idle>-0     [000] d..2.     1.002000: sched_waking: comm=a pid=10 prio=120 target_cpu=000
       <idle>-0     [000] d..2.     1.002100: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=10 next_prio=120
            a-10    [000] d..2.     1.002500: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
";

#[test]
fn a_switch_out_the_trace_missed_ends_the_stint_at_the_next_switch() {
    let imp = import_ftrace(MISSED, &opts()).expect("imports");
    let a = imp.tasks.iter().find(|t| t.name == "a").expect("a");
    // Read as asleep from 300 µs: a burst of 300 µs, then a sleep to its wakeup at 2000 µs and
    // a burst of 400 µs; not one burst running on under b for the whole trace.
    assert_eq!((&a.steps[..], a.wakeups, a.cpu_ns), (&[(0, 300_000), (1_700_000, 400_000)][..], 1, 700_000));
    assert!(imp.warnings.iter().any(|w| w.starts_with("1 switches out were not in the trace")), "{:?}", imp.warnings);
    let run = imp.real.expect("measured");
    assert_eq!((task(&run, "a").cpu_ns, &task(&run, "a").wakeup_latency_ns[..]), (700_000, &[100_000][..]));
    assert_eq!(task(&run, "b").cpu_ns, 700_000);
}

#[test]
fn a_task_first_seen_leaving_a_cpu_ran_there_since_its_previous_switch() {
    // c is switched in on CPU 0 at 0 µs and out at 200 µs; d, never seen before, leaves CPU 0 at
    // 500 µs: it ran from 200 µs (not from the trace's start, when c was there).
    let trace = "\
       <idle>-0     [000] d..2.     1.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=c next_pid=12 next_prio=120
            c-12    [000] d..2.     1.000200: sched_switch: prev_comm=c prev_pid=12 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
            d-13    [000] d..2.     1.000500: sched_switch: prev_comm=d prev_pid=13 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
";
    let imp = import_ftrace(trace, &opts()).expect("imports");
    let d = imp.tasks.iter().find(|t| t.name == "d").expect("d");
    assert_eq!((d.start_ns, &d.steps[..]), (200_000, &[(0, 300_000)][..]));
    assert_eq!(task(imp.real.as_ref().expect("measured"), "d").cpu_ns, 300_000);
}
