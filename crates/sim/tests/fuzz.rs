//! The invariant fuzzer, a bounded number of cases (`fairground fuzz` soaks for longer): every
//! random scenario keeps every invariant after every instant, runs the same twice, and is
//! unchanged by renaming and by no-op edits. A failure prints its shrunk scenario.

use fairground_sim::fuzz::{check_case, failure_file, generate, shrink};

fn soak(seed: u64, cases: u64) -> u64 {
    let mut ran = 0;
    for i in 0..cases {
        let case = generate(seed, i);
        match check_case(&case) {
            Ok(Some(_)) => ran += 1,
            Ok(None) => {}
            Err(f) => {
                let (small, f) = shrink(&case, &f, 400);
                panic!("case {seed}/{i}: {} check failed: {}\n{}", f.check, f.message, failure_file(&small, &f));
            }
        }
    }
    ran
}

#[test]
fn random_scenarios_keep_every_invariant() {
    let ran = soak(1, 300);
    assert!(ran >= 200, "only {ran} of 300 generated scenarios were valid: the generator drifted from the format");
}

/// The checks can fail: a corrupted run is caught.
#[test]
fn the_invariant_checks_catch_a_corrupted_run() {
    use fairground_sim::engine::Sim;
    let v = fairground_sim::parse_scenario(
        r#"{"format": "fairground-scenario/1", "name": "c", "duration_ms": 20, "scheduler": {"policy": "eevdf-v6.12"},
            "tasks": [{"name": "h", "count": 3, "behavior": {"kind": "hog"}}]}"#,
    )
    .expect("valid");
    let mut sim = Sim::new(&v).expect("builds");
    for _ in 0..5 {
        sim.step_instant();
    }
    assert_eq!(fairground_sim::fuzz::invariants::check(&sim), Ok(()));
    let mut bad = sim.clone();
    bad.fair.cfs_rqs[0].nr_running += 1;
    assert!(fairground_sim::fuzz::invariants::check(&bad).unwrap_err().contains("nr_running"));
    let mut bad = sim.clone();
    bad.tasks[0].stats.wakeup_preemptions = bad.tasks[0].stats.wakeups + 1;
    assert!(fairground_sim::fuzz::invariants::check(&bad).unwrap_err().contains("wakeup preemptions"));
    let mut bad = sim.clone();
    bad.fair.resched[0] = Some(fairground_sim::cfs::ReschedCause::Tick);
    assert!(fairground_sim::fuzz::invariants::check(&bad).unwrap_err().contains("pending"));
    let mut bad = sim;
    let waiting = (0..3).find(|&i| bad.cpus[0].curr != i).expect("a waiting task");
    bad.fair.ents[waiting as usize].on_rq = false;
    assert!(fairground_sim::fuzz::invariants::check(&bad).is_err());
}
