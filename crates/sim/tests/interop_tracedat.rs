//! trace-cmd's binary trace.dat, recorded on this project's 6.18 host (fixtures/tracedat/README):
//! the version 7 file, its version 6 conversion and its `trace-cmd report -N -t` text import to
//! the same scenario; the workload it recorded is found in it; a broken file is an error that
//! names the byte.

use fairground_sim::interop::{import_ftrace, import_trace, tracedat::import_tracedat, ImportOptions, TraceFormat};

const V7: &[u8] = include_bytes!("fixtures/tracedat/host-6.18-hogs-sleeper.dat");
const V6: &[u8] = include_bytes!("fixtures/tracedat/host-6.18-hogs-sleeper.v6.dat");
const TEXT: &str = include_str!("fixtures/tracedat/host-6.18-hogs-sleeper.txt");

fn without_description(mut v: serde_json::Value) -> serde_json::Value {
    v["description"] = serde_json::Value::Null;
    v
}

#[test]
fn binary_and_text_import_to_the_same_scenario() {
    let opts = ImportOptions::default();
    let (f, v7) = import_trace(V7, &opts).expect("v7 imports");
    assert_eq!(f, TraceFormat::TraceDat);
    let v6 = import_tracedat(V6, &opts).expect("v6 imports");
    let text = import_ftrace(TEXT, &opts).expect("text imports");
    assert_eq!(v7.tasks, text.tasks);
    assert_eq!(v6.tasks, v7.tasks);
    assert_eq!(without_description(v7.scenario.clone()), without_description(text.scenario));
    assert_eq!(v7.warnings, text.warnings);
}

/// work.sh: `sh` busy loops at nice 0 and nice 5 for 1 s, and a python3 sleeping 10 ms 90
/// times, beside whatever else ran (a compiler).
#[test]
fn the_recorded_workload_is_in_it() {
    let imp = import_tracedat(V7, &ImportOptions::default()).expect("imports");
    let loops: Vec<_> = imp.tasks.iter().filter(|t| t.comm == "sh" && t.steps.len() == 1).collect();
    let n0 = loops.iter().find(|t| t.nice == 0).expect("the nice-0 loop");
    let n5 = loops.iter().find(|t| t.nice == 5).expect("the nice-5 loop");
    // Never asleep: one burst each. Where they share a CPU the weights are 1024 against 335,
    // so the nice-0 loop gets more than twice the other's CPU time, and at most the second.
    assert!(n0.cpu_ns > 2 * n5.cpu_ns && n0.cpu_ns <= 1_000_000_000, "{} vs {}", n0.cpu_ns, n5.cpu_ns);
    // Each of the 90 sleeps ends a burst.
    let sleeper = imp.tasks.iter().filter(|t| t.comm == "python3").max_by_key(|t| t.steps.len()).expect("python3");
    assert!(sleeper.steps.len() >= 90 && sleeper.wakeups >= 90, "{} bursts", sleeper.steps.len());
    assert!(imp.end_ns - imp.start_ns > 1_000_000_000, "over a second recorded");
}

#[test]
fn a_broken_file_is_an_error_naming_the_byte() {
    let opts = ImportOptions::default();
    for cut in [12, 40, 200, V7.len() / 2] {
        let e = import_tracedat(&V7[..cut], &opts).expect_err("cut");
        assert!(e.contains("byte "), "cut at {cut}: {e}");
    }
    let mut bad = V7.to_vec();
    bad[10] = b'9';
    let e = import_tracedat(&bad, &opts).expect_err("version 9");
    assert!(e.contains("version 9"), "{e}");
}

/// The same recording in Perfetto's form (fixtures/tracedat/host-6.18-hogs-sleeper.pftrace:
/// its own events as full FtraceEvents in per-CPU bundles, made from the text by
/// `interop::perfetto::ftrace_text_to_perfetto`, as no Perfetto recorder runs here) imports to
/// the same scenario as the trace.dat and its text. `FAIRGROUND_BLESS=1` rewrites the file.
#[test]
fn the_perfetto_form_of_the_recording_imports_to_the_same_scenario() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tracedat/host-6.18-hogs-sleeper.pftrace");
    let made = fairground_sim::interop::perfetto::ftrace_text_to_perfetto(TEXT, "6.18.44-fc-v1045").expect("converts");
    if std::env::var_os("FAIRGROUND_BLESS").is_some() {
        std::fs::write(path, &made).expect("write the fixture");
    }
    let committed = std::fs::read(path).expect("the committed Perfetto form");
    assert_eq!(committed, made, "the fixture is the conversion of the text (bless to rewrite)");
    let opts = ImportOptions::default();
    let (f, p) = import_trace(committed.as_slice(), &opts).expect("the Perfetto form imports");
    assert_eq!(f, TraceFormat::Perfetto);
    let (_, v7) = import_trace(V7, &opts).expect("v7 imports");
    assert_eq!(p.tasks.len(), v7.tasks.len());
    for (a, b) in p.tasks.iter().zip(&v7.tasks) {
        assert_eq!(a, b, "task {} from the Perfetto form against the trace.dat", b.name);
    }
    assert_eq!(without_description(p.scenario), without_description(v7.scenario));
}
