//! `fairground domains`: the scheduling domains the kernel builds on a scenario's machine
//! (contract §4), without running it.

use std::process::ExitCode;

use crate::emit;

pub const USAGE: &str = "  domains FILE [--json]         the sched domains of the scenario's machine (machine.topology),
                                as 6.18.44's build_sched_domains() builds them: per CPU, per level,
                                the span, flags, imbalance_pct, intervals and groups that
                                /sys/kernel/debug/sched/domains shows";

fn fail(msg: String) -> ExitCode {
    eprintln!("fairground: {msg}");
    ExitCode::from(2)
}

pub fn domains_cmd(args: &[String]) -> ExitCode {
    let (mut file, mut json_out) = (None, false);
    for a in args {
        match a.as_str() {
            "--json" => json_out = true,
            s if !s.starts_with('-') && file.is_none() => file = Some(s.to_string()),
            s => return fail(format!("domains: unknown argument {}", crate::printable(s))),
        }
    }
    let Some(file) = file else { return fail("domains needs a FILE".into()) };
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) => return fail(format!("cannot read {}: {e}", crate::printable(&file))),
    };
    let v = match fairground_sim::parse_scenario(&text) {
        Ok(v) => v,
        Err(e) => return fail(format!("{}: {}", crate::printable(&file), crate::printable(&e.to_string()))),
    };
    let table = fairground_sim::smp::Domains::build(&v.scenario.machine.shape()).table();
    if json_out {
        return match serde_json::to_string_pretty(&table) {
            Ok(s) => emit(&(s + "\n")),
            Err(e) => fail(format!("cannot write the domains: {e}")),
        };
    }
    emit(&table.text())
}
