//! The import worker's side: files in another program's format made into scenarios, away
//! from the simulation worker so that its bundle (which every visitor loads first) carries
//! no importer: rt-app files, and recorded traces (ftrace text, trace.dat, Perfetto protobuf)
//! with their own run measured for "real beside simulated". Pure Rust but for `endpoint` (the
//! Web Worker itself, wasm32 only, which also fetches a trace's bytes); tested natively.

use fairground_sim::parse_scenario;
use fairground_sim::scenario::{self, Limits};

use crate::wire::import::ImportOutput;
use crate::wire::measure::ImportedTrace;
use crate::wire::proto::{WireSlice, NONE};
use crate::wire::real::{RealFigures, RealTask, RealTrace, MAX_REAL_SLICES};

#[cfg(target_arch = "wasm32")]
pub mod endpoint;

/// Answer an rt-app file; `clock_ms` times it. Never panics on the file: every refusal is
/// `Failed`. (A trace comes as a URL: the endpoint fetches its bytes, then `answer_trace`.)
pub fn answer_rtapp(text: &str, policy: &str, clock_ms: &dyn Fn() -> f64) -> ImportOutput {
    let t0 = clock_ms();
    match import_rtapp(text, policy) {
        Ok(imported) => ImportOutput::Imported { imported, ms: clock_ms() - t0, real: None },
        Err(message) => ImportOutput::Failed { message },
    }
}

/// Answer a trace file's bytes (`name` for the messages); `clock_ms` times the import.
pub fn answer_trace(data: &[u8], name: &str, policy: &str, clock_ms: &dyn Fn() -> f64) -> ImportOutput {
    let t0 = clock_ms();
    match import_trace(data, name, policy) {
        Ok((imported, real)) => ImportOutput::Imported { imported, ms: clock_ms() - t0, real: Some(Box::new(real)) },
        Err(message) => ImportOutput::Failed { message },
    }
}

/// An rt-app file as the CLI's `import-rtapp` reads it, and a check that the scenario it
/// makes is one the simulator accepts within the browser's limits (as for a trace).
pub fn import_rtapp(text: &str, policy: &str) -> Result<ImportedTrace, String> {
    let (json, warnings) = fairground_sim::interop::import_rtapp(text, policy)?;
    let scenario = json.to_string();
    let v = parse_scenario(&scenario).map_err(|e| format!("the scenario made from the file is not valid: {e}"))?;
    scenario::check_cost(&v.scenario, &Limits::BROWSER).map_err(|e| e.to_string())?;
    let tasks = usize::try_from(scenario::expanded_len(&v.scenario)).unwrap_or(usize::MAX);
    Ok(ImportedTrace { scenario, tasks, span_ns: v.scenario.duration_ms.saturating_mul(1_000_000), warnings })
}

/// Read a recorded trace of any format the CLI's `import` reads (each task pinned to the CPUs
/// it was seen on, HZ 250), check that the scenario it makes is one the simulator accepts, and
/// measure the trace's own run.
pub fn import_trace(data: &[u8], name: &str, policy: &str) -> Result<(ImportedTrace, RealTrace), String> {
    let opts = fairground_sim::interop::ImportOptions { policy: policy.to_string(), real_run: true, ..Default::default() };
    let (format, imp) = fairground_sim::interop::import_trace_bytes(data, &opts)?;
    let scenario = imp.scenario.to_string();
    let v = parse_scenario(&scenario).map_err(|e| format!("the scenario made from the trace is not valid: {e}"))?;
    scenario::check_cost(&v.scenario, &Limits::BROWSER).map_err(|e| e.to_string())?;
    let run = imp.real.unwrap_or_default();
    let figures = RealFigures {
        file: name.to_string(),
        format: format.name().to_string(),
        span_ns: run.span_ns,
        cpus: run.cpus,
        tasks: run
            .tasks
            .into_iter()
            .map(|t| RealTask { name: t.name, in_scenario: t.in_scenario, cpu_ns: t.cpu_ns, wakeup_latency_ns: t.wakeup_latency_ns })
            .collect(),
        warnings: imp.warnings.clone(),
    };
    // The slices are drawn as the model's are: the same record, with no reason to start or stop
    // (a trace says what ran, not why).
    let slices = (run.slices.len() <= MAX_REAL_SLICES).then(|| {
        run.slices.iter().map(|s| WireSlice { cpu: s.cpu, task: s.task, start_ns: s.start_ns, end_ns: s.end_ns, why: 0, other: NONE }).collect()
    });
    let imported = ImportedTrace { scenario, tasks: imp.tasks.len(), span_ns: imp.end_ns.saturating_sub(imp.start_ns), warnings: imp.warnings };
    Ok((imported, RealTrace { figures, slices }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The end-to-end tests' fixture: comments, trailing commas, a repeated "run".
    const DECODER: &str = include_str!("../../../tests/e2e/fixtures/rtapp-decoder.json");

    #[test]
    fn an_rtapp_file_becomes_a_checked_scenario_with_its_warnings() {
        let imp = import_rtapp(DECODER, "eevdf-v6.12").unwrap_or_else(|e| panic!("refused: {e}"));
        let v = parse_scenario(&imp.scenario).unwrap_or_else(|e| panic!("invalid: {e}"));
        let names: Vec<&str> = v.scenario.tasks.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["decoder", "build"]);
        // The decoder's two runs are one event after the other in each period: 3 + 1 ms.
        // 4 ms of a 16 ms period, from the start as rt-app runs it: a duty of 25 %.
        assert_eq!(v.scenario.tasks[0].behavior, fairground_sim::scenario::Behavior::Duty { percent: 25, period_us: 16_000 });
        assert_eq!((imp.tasks, imp.span_ns), (3, 2_000_000_000));
        assert!(imp.warnings.iter().any(|w| w.starts_with("global: calibration, logdir ignored")), "{:?}", imp.warnings);
        assert!(imp.warnings.iter().any(|w| w.starts_with("tasks.decoder: run + timer read as duty 25%")), "{:?}", imp.warnings);
    }

    #[test]
    fn a_broken_file_is_refused_naming_line_and_column() {
        let broken = "{\n  \"tasks\" : {\n    \"t\" : { \"run\" : 1000 \"sleep\" : 1000 }\n  }\n}\n";
        let e = import_rtapp(broken, "eevdf-v6.12").expect_err("a missing comma");
        assert!(e.contains("line 3, column 26"), "{e}");
        let out = answer_rtapp("{ \"tasks\": {} }", "cfs-v6.2", &|| 0.0);
        assert!(matches!(&out, ImportOutput::Failed { message } if !message.is_empty()), "{out:?}");
        let e = import_rtapp(DECODER, "bogus-policy").expect_err("an unknown policy");
        assert!(e.contains("bogus-policy"), "{e}");
    }

    #[test]
    fn a_real_trace_imports_as_a_scenario_the_simulator_runs() {
        let trace = include_str!("../../../crates/sim/tests/fixtures/ftrace/host-6.18-hogs-periodic.txt");
        let (imp, real) = import_trace(trace.as_bytes(), "t.txt", "eevdf-v6.12").unwrap_or_else(|e| panic!("refused: {e}"));
        assert!(imp.tasks >= 2 && imp.span_ns > 0, "{} tasks over {} ns", imp.tasks, imp.span_ns);
        let v = fairground_sim::parse_scenario(&imp.scenario).unwrap_or_else(|e| panic!("invalid: {e}"));
        assert_eq!(v.scenario.scheduler.policy.name(), "eevdf-v6.12");
        assert_eq!((real.figures.format.as_str(), real.figures.span_ns), ("ftrace text", imp.span_ns));
        assert!(import_trace(b"not a trace at all\n", "x", "eevdf-v6.12").is_err());
        let e = import_trace(trace.as_bytes(), "t.txt", "bogus-policy").unwrap_err();
        assert!(e.contains("bogus-policy"), "{e}");
    }

    #[test]
    fn a_trace_dat_imports_with_its_own_run_measured() {
        let dat = include_bytes!("../../../crates/sim/tests/fixtures/tracedat/host-6.18-hogs-sleeper.dat");
        let (imp, real) = import_trace(dat, "host.dat", "eevdf-v6.18").unwrap_or_else(|e| panic!("refused: {e}"));
        assert_eq!(real.figures.format, "a trace-cmd trace.dat");
        // The scenario's tasks come first in the real run, in the scenario's order, so that a
        // task has the same index (and colour) in both timelines.
        let v = fairground_sim::parse_scenario(&imp.scenario).unwrap_or_else(|e| panic!("invalid: {e}"));
        let names: Vec<&str> = v.scenario.tasks.iter().map(|t| t.name.as_str()).collect();
        let real_names: Vec<&str> = real.figures.tasks.iter().take(names.len()).map(|t| t.name.as_str()).collect();
        assert_eq!(real_names, names);
        let slices = real.slices.expect("a small trace's slices are sent");
        let tasks = real.figures.tasks.len() as u32;
        assert!(slices.iter().all(|s| s.cpu < real.figures.cpus && s.task < tasks && s.start_ns < s.end_ns && s.end_ns <= real.figures.span_ns));
        // A trace.dat cut short is an error naming where, and the worker answers Failed.
        let out = answer_trace(&dat[..dat.len() / 2], "cut.dat", "eevdf-v6.12", &|| 0.0);
        assert!(matches!(&out, ImportOutput::Failed { message } if message.contains("byte")), "{out:?}");
    }
}
