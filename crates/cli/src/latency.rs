//! `fairground latency`: the delay table of `perf sched latency` for a scenario's run.

use fairground_sim::measure::latency::{delay_table, delay_text};
use fairground_sim::Limits;
use std::process::ExitCode;

use crate::emit;

pub const USAGE: &str = "  latency FILE [--json]         each task's runtime, switches, average and maximum delay (the
                                wait to run after a wakeup or a preemption) and when the maximum
                                ended, longest first, as `perf sched latency --sort max` prints";

fn fail(msg: String) -> ExitCode {
    eprintln!("fairground: {msg}");
    ExitCode::from(2)
}

pub fn latency_cmd(args: &[String]) -> ExitCode {
    let (mut file, mut json_out) = (None, false);
    for a in args {
        match a.as_str() {
            "--json" => json_out = true,
            s if !s.starts_with('-') && file.is_none() => file = Some(s.to_string()),
            s => return fail(format!("latency: unknown argument {}", crate::printable(s))),
        }
    }
    let Some(file) = file else { return fail("latency needs a FILE".into()) };
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) => return fail(format!("cannot read {}: {e}", crate::printable(&file))),
    };
    let sim = match fairground_sim::run_to_end(&text, &Limits::NATIVE, false) {
        Ok(s) => s,
        Err(e) => return fail(format!("{}: {}", crate::printable(&file), crate::printable(&e.to_string()))),
    };
    let rows = delay_table(&sim);
    if json_out {
        return emit(&(serde_json::to_string_pretty(&rows).unwrap_or_default() + "\n"));
    }
    let rows: Vec<_> = rows.into_iter().map(|mut r| {
        r.task = crate::printable(&r.task);
        r
    }).collect();
    emit(&delay_text(&rows, &crate::printable(&sim.name)))
}
