//! The ftrace export streams: its output is compared, byte for byte, with the exporter as it
//! was when it built the whole trace in memory (kept in `ftrace_reference/` as the reference).

mod ftrace_reference;

use fairground_sim::engine::Sim;
use fairground_sim::interop::run_to_ftrace;
use fairground_sim::parse_scenario;
use fairground_sim::scenario::Validated;

/// Every shipped scenario but the one whose export is 0.76 GB (its 5 million lines take
/// minutes in a debug build).
fn shipped() -> Vec<(String, Validated)> {
    let dir = format!("{}/../../static/scenarios", env!("CARGO_MANIFEST_DIR"));
    let mut paths: Vec<_> = std::fs::read_dir(&dir).expect("scenarios").map(|e| e.expect("entry").path()).collect();
    paths.sort();
    paths
        .into_iter()
        .filter(|p| !p.ends_with("seed004-schbench-vs-hackbench.json"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable");
            let name = p.file_stem().expect("stem").to_string_lossy().into_owned();
            let v = parse_scenario(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, v)
        })
        .collect()
}

fn reference(v: &Validated) -> String {
    let mut sim = Sim::new(v).expect("runs");
    sim.enable_trace();
    sim.run();
    ftrace_reference::to_ftrace(&sim)
}

#[test]
fn the_reference_is_the_exporter_of_today() {
    for (name, v) in shipped() {
        assert!(reference(&v) == run_to_ftrace(&v).expect("runs"), "{name}");
    }
}
