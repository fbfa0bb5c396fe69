//! The import worker's side: files in another program's format made into scenarios, away
//! from the simulation worker so that its bundle (which every visitor loads first) carries
//! no importer: rt-app files and ftrace texts (whose reader shares its code with the binary
//! trace formats' readers). Pure Rust but for `endpoint` (the Web Worker itself, wasm32 only);
//! tested natively.

use fairground_sim::parse_scenario;
use fairground_sim::scenario::{self, Limits};

use crate::wire::import::{ImportInput, ImportOutput};
use crate::wire::measure::ImportedTrace;

#[cfg(target_arch = "wasm32")]
pub mod endpoint;

/// Answer one request; `clock_ms` times it. Never panics on the file: every refusal is
/// `Failed`.
pub fn answer(input: ImportInput, clock_ms: &dyn Fn() -> f64) -> ImportOutput {
    let t0 = clock_ms();
    let out = match input {
        ImportInput::RtApp { text, policy } => import_rtapp(&text, &policy),
        ImportInput::Trace { text, policy } => import_trace(&text, &policy),
    };
    match out {
        Ok(imported) => ImportOutput::Imported { imported, ms: clock_ms() - t0 },
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

/// Read an ftrace text as the CLI's `import-ftrace` does (each task pinned to the CPUs it was
/// seen on, HZ 250), and check that the scenario it makes is one the simulator accepts.
pub fn import_trace(text: &str, policy: &str) -> Result<ImportedTrace, String> {
    let opts = fairground_sim::interop::ImportOptions { policy: policy.to_string(), ..Default::default() };
    let imp = fairground_sim::interop::import_ftrace(text, &opts)?;
    let scenario = imp.scenario.to_string();
    let v = parse_scenario(&scenario).map_err(|e| format!("the scenario made from the trace is not valid: {e}"))?;
    scenario::check_cost(&v.scenario, &Limits::BROWSER).map_err(|e| e.to_string())?;
    Ok(ImportedTrace { scenario, tasks: imp.tasks.len(), span_ns: imp.end_ns.saturating_sub(imp.start_ns), warnings: imp.warnings })
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
        let out = answer(ImportInput::RtApp { text: "{ \"tasks\": {} }".into(), policy: "cfs-v6.2".into() }, &|| 0.0);
        assert!(matches!(&out, ImportOutput::Failed { message } if !message.is_empty()), "{out:?}");
        let e = import_rtapp(DECODER, "bogus-policy").expect_err("an unknown policy");
        assert!(e.contains("bogus-policy"), "{e}");
    }

    #[test]
    fn a_real_trace_imports_as_a_scenario_the_simulator_runs() {
        let trace = include_str!("../../../crates/sim/tests/fixtures/ftrace/host-6.18-hogs-periodic.txt");
        let imp = import_trace(trace, "eevdf-v6.12").unwrap_or_else(|e| panic!("refused: {e}"));
        assert!(imp.tasks >= 2 && imp.span_ns > 0, "{} tasks over {} ns", imp.tasks, imp.span_ns);
        let v = fairground_sim::parse_scenario(&imp.scenario).unwrap_or_else(|e| panic!("invalid: {e}"));
        assert_eq!(v.scenario.scheduler.policy.name(), "eevdf-v6.12");
        assert!(import_trace("not a trace at all\n", "eevdf-v6.12").is_err());
        let e = import_trace(trace, "bogus-policy").unwrap_err();
        assert!(e.contains("bogus-policy"), "{e}");
    }
}
