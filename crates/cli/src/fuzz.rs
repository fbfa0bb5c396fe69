//! `fairground fuzz`: the invariant fuzzer as a soak (fairground_sim::fuzz). Runs random
//! scenarios for as long as asked, writes each failing case, shrunk, to a file that
//! `fairground run FILE` replays, and exits 1 if any failed.

use fairground_sim::fuzz::{check_case, failure_file, generate, shrink};
use std::process::ExitCode;
use std::time::{Duration, Instant};

pub const USAGE: &str = "  fuzz [--minutes M | --cases N] [--seed S] [--out DIR]
               the invariant fuzzer: random scenarios over every policy, feature switch,
               1-16 CPUs, cgroups, behaviour, workload and timeline edit, each checked
               after every instant (trees, queued state, counters, pending reschedules)
               and against its no-op-edited, renamed and repeated runs; each failure is
               shrunk and written to DIR (default .) as fuzz-SEED-CASE.json (default:
               --cases 1000, --seed from the clock)";

pub fn fuzz_cmd(args: &[String]) -> ExitCode {
    let mut minutes: Option<f64> = None;
    let mut cases: Option<u64> = None;
    let mut seed: Option<u64> = None;
    let mut out = String::from(".");
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().cloned().ok_or_else(|| format!("{name} needs a value"));
        let r: Result<(), String> = match a.as_str() {
            "--minutes" => value("--minutes").and_then(|v| v.parse().map(|m| minutes = Some(m)).map_err(|_| format!("--minutes: not a number: {v}"))),
            "--cases" => value("--cases").and_then(|v| v.parse().map(|n| cases = Some(n)).map_err(|_| format!("--cases: not a whole number: {v}"))),
            "--seed" => value("--seed").and_then(|v| v.parse().map(|n| seed = Some(n)).map_err(|_| format!("--seed: not a whole number: {v}"))),
            "--out" => value("--out").map(|v| out = v),
            s => Err(format!("unknown argument {}", crate::printable(s))),
        };
        if let Err(e) = r {
            eprintln!("fairground fuzz: {e}\nusage:\n{USAGE}");
            return ExitCode::from(2);
        }
    }
    if minutes.is_some_and(|m| !(m > 0.0 && m <= 7.0 * 24.0 * 60.0)) {
        eprintln!("fairground fuzz: --minutes must be above 0 and at most a week");
        return ExitCode::from(2);
    }
    let seed = seed.unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_secs()));
    let deadline = minutes.map(|m| Instant::now() + Duration::from_secs_f64(m * 60.0));
    let max_cases = if deadline.is_some() { cases.unwrap_or(u64::MAX) } else { cases.unwrap_or(1000) };
    // Panics are caught and reported as failures; keep their default message off the screen.
    std::panic::set_hook(Box::new(|_| {}));
    let start = Instant::now();
    let (mut ran, mut valid, mut failed, mut last_report) = (0u64, 0u64, 0u64, Instant::now());
    eprintln!("fuzz: seed {seed}, {}", deadline.map_or(format!("{max_cases} cases"), |_| format!("{} minutes", minutes.unwrap_or(0.0))));
    while ran < max_cases && deadline.is_none_or(|d| Instant::now() < d) {
        let case = generate(seed, ran);
        match check_case(&case) {
            Ok(Some(_)) => valid += 1,
            Ok(None) => {}
            Err(f) => {
                failed += 1;
                let (small, f) = shrink(&case, &f, 2000);
                let path = format!("{out}/fuzz-{seed}-{ran}.json");
                match std::fs::write(&path, failure_file(&small, &f)) {
                    Ok(()) => eprintln!("fuzz: case {ran}: {} check failed: {} (shrunk case in {path})", f.check, f.message),
                    Err(e) => eprintln!("fuzz: case {ran}: {} check failed: {}; cannot write {path}: {e}", f.check, f.message),
                }
            }
        }
        ran += 1;
        if last_report.elapsed() >= Duration::from_secs(60) {
            last_report = Instant::now();
            let s = start.elapsed().as_secs_f64();
            eprintln!("fuzz: {ran} cases in {s:.0} s ({:.1}/s), {valid} valid, {failed} failed", ran as f64 / s);
        }
    }
    let s = start.elapsed().as_secs_f64().max(1e-9);
    crate::emit(&format!("fuzz: seed {seed}: {ran} cases ({valid} valid) in {s:.1} s, {:.1} cases/s; {failed} failed\n", ran as f64 / s));
    if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
