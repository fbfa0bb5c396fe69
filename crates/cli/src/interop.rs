//! `fairground export-ftrace`, `export-perfetto` and `import` (`import-ftrace`): a run as
//! ftrace text or as a Perfetto trace, and a recorded trace as a scenario that replays it.

use fairground_sim::interop::{import_trace, write_ftrace, write_perfetto, ExportError, ImportOptions};
use fairground_sim::{parse_scenario, scenario, Limits};
use std::process::ExitCode;

use crate::printable;

pub const USAGE: &str = "  export-ftrace FILE            run a scenario and print it as ftrace text (Perfetto, trace-cmd)
  export-perfetto FILE          run a scenario and write it as a Perfetto protobuf trace, with the
                                fair class's counters and decisions (> run.pftrace)
  import TRACE [--policy P] [--hz N] [--comm PREFIX]... [--no-pin]
                                read a trace's sched events (ftrace text, trace-cmd's trace.dat or
                                a Perfetto protobuf trace, told apart by content) and print a
                                scenario that replays each task's bursts and sleeps (warnings on
                                stderr); import-ftrace is the same command";

fn read(file: &str) -> Result<String, ExitCode> {
    let r = if file == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s).map(|_| s)
    } else {
        std::fs::read_to_string(file)
    };
    r.map_err(|e| {
        eprintln!("fairground: {}", printable(&format!("cannot read {file}: {e}")));
        ExitCode::from(2)
    })
}

/// Warnings on stderr; the scenario on stdout, once it validates as any file would (the
/// policy and HZ come from the user's options).
fn print_scenario(file: &str, scenario: &serde_json::Value, warnings: &[String]) -> ExitCode {
    for w in warnings {
        eprintln!("fairground: {}", printable(&format!("{file}: {w}")));
    }
    let json = serde_json::to_string_pretty(scenario).unwrap_or_default();
    if let Err(e) = parse_scenario(&json) {
        eprintln!("fairground: {}", printable(&format!("{file}: the scenario built from it is not valid: {e}")));
        return ExitCode::from(2);
    }
    crate::emit(&(json + "\n"))
}

/// `export-ftrace` (`perfetto` false) or `export-perfetto`.
pub fn export(args: &[String], perfetto: bool) -> ExitCode {
    let cmd = if perfetto { "export-perfetto" } else { "export-ftrace" };
    let [file] = args else {
        eprintln!("fairground: {cmd} takes one FILE");
        return ExitCode::from(2);
    };
    let text = match read(file) {
        Ok(t) => t,
        Err(c) => return c,
    };
    let v = match parse_scenario(&text).and_then(|v| scenario::check_cost(&v.scenario, &Limits::NATIVE).map(|_| v)) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("fairground: {}", printable(&format!("{file}: {e}")));
            return ExitCode::from(2);
        }
    };
    // Written as the run goes, so a long run never sits whole in memory.
    let out = std::io::stdout().lock();
    let r = if perfetto { write_perfetto(&v, out) } else { write_ftrace(&v, out) };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`| head`) ends the export quietly, as emit() does.
        Err(ExportError::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fairground: {}", printable(&format!("{file}: {e}")));
            ExitCode::from(if matches!(e, ExportError::Scenario(_)) { 2 } else { 1 })
        }
    }
}

pub fn import(args: &[String]) -> ExitCode {
    let mut opts = ImportOptions::default();
    let mut file = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next().cloned().ok_or_else(|| {
                eprintln!("fairground: {name} needs a value");
                ExitCode::from(2)
            })
        };
        match a.as_str() {
            "--policy" => match value("--policy") {
                Ok(p) => opts.policy = p,
                Err(c) => return c,
            },
            "--hz" => match value("--hz").map(|v| v.parse::<u32>()) {
                Ok(Ok(hz)) => opts.hz = hz,
                Ok(Err(_)) => {
                    eprintln!("fairground: --hz takes a number");
                    return ExitCode::from(2);
                }
                Err(c) => return c,
            },
            "--comm" => match value("--comm") {
                Ok(c) => opts.comms.push(c),
                Err(c) => return c,
            },
            "--no-pin" => opts.pin_observed = false,
            s if s.starts_with('-') && s != "-" => {
                eprintln!("fairground: unknown option {}", printable(s));
                return ExitCode::from(2);
            }
            s => file = Some(s.to_string()),
        }
    }
    let Some(file) = file else {
        eprintln!("fairground: import needs a TRACE file");
        return ExitCode::from(2);
    };
    let input: Box<dyn std::io::Read> = if file == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        match std::fs::File::open(&file) {
            Ok(f) => Box::new(f),
            Err(e) => {
                eprintln!("fairground: {}", printable(&format!("cannot read {file}: {e}")));
                return ExitCode::from(2);
            }
        }
    };
    match import_trace(input, &opts) {
        Ok((_, imp)) => print_scenario(&file, &imp.scenario, &imp.warnings),
        Err(e) => {
            eprintln!("fairground: {}", printable(&format!("{file}: {e}")));
            ExitCode::from(2)
        }
    }
}

pub const USAGE_RTAPP: &str = "  import-rtapp FILE [--policy P]  read an rt-app workload (rt-app's JSON as json-c reads it: comments, trailing commas, bare and repeated keys) as a scenario
  export-rtapp FILE             write a scenario's tasks as an rt-app workload";

pub fn import_rtapp(args: &[String]) -> ExitCode {
    let (file, policy) = match args {
        [f] => (f, "eevdf-v6.12"),
        [f, flag, p] if flag == "--policy" => (f, p.as_str()),
        _ => {
            eprintln!("fairground: import-rtapp FILE [--policy P]");
            return ExitCode::from(2);
        }
    };
    let text = match read(file) {
        Ok(t) => t,
        Err(c) => return c,
    };
    match fairground_sim::interop::import_rtapp(&text, policy) {
        Ok((scenario, warnings)) => print_scenario(file, &scenario, &warnings),
        Err(e) => {
            eprintln!("fairground: {}", printable(&format!("{file}: {e}")));
            ExitCode::from(2)
        }
    }
}

pub fn export_rtapp(args: &[String]) -> ExitCode {
    let [file] = args else {
        eprintln!("fairground: export-rtapp takes one FILE");
        return ExitCode::from(2);
    };
    let text = match read(file) {
        Ok(t) => t,
        Err(c) => return c,
    };
    match parse_scenario(&text) {
        Ok(v) => {
            let (out, warnings) = fairground_sim::interop::export_rtapp(&v.scenario);
            for w in &warnings {
                eprintln!("fairground: {}", printable(&format!("{file}: {w}")));
            }
            crate::emit(&(serde_json::to_string_pretty(&out).unwrap_or_default() + "\n"))
        }
        Err(e) => {
            eprintln!("fairground: {}", printable(&format!("{file}: {e}")));
            ExitCode::from(2)
        }
    }
}
