//! `fairground ablate`: which of the switches separating two runs made the difference
//! (fairground_sim::measure::ablate), with the runs spread over threads.

use fairground_sim::measure::ablate::{ablate, preset, Ablation, Figure};
use std::process::ExitCode;

use crate::emit;

pub const USAGE: &str = "  ablate FILE (--a PATH=VALUE... --b PATH=VALUE... | --preset clamps|complete-eevdf)
        --figure KIND:NAME:WHAT [--jobs N] [--json | --csv]
                                take apart the A/B of FILE: run every single change from A
                                towards B and back (every combination up to 8 changes) and rank
                                the changes by how much of the difference in the figure each
                                accounts for, with the pairs that interact; the figure is
                                task|workload|cgroup:NAME:p50|p90|p95|p99|max|mean,
                                workload:NAME:completion, task:NAME:preemptions or
                                task|cgroup:NAME:share; runs on N threads (default: the CPUs)";

fn fail(msg: String) -> ExitCode {
    eprintln!("fairground: {msg}");
    ExitCode::from(2)
}

fn value(v: &Option<serde_json::Value>) -> String {
    v.as_ref().map_or("(default)".to_string(), |x| x.to_string())
}

fn num(x: Option<f64>) -> String {
    // `+ 0.0` turns a negative zero into zero, so "-0.000" is never printed.
    x.map_or("-".into(), |v| format!("{:.3}", v + 0.0))
}

fn text_table(r: &Ablation, figure: &str) -> String {
    let mut s = format!("figure: {}\nA: {}   B: {}   ({} runs)\n\n", crate::printable(figure), num(r.a), num(r.b), r.runs);
    s += &format!("{:<52} {:>14} {:>14} {:>10} {:>10} {:>8}\n", "change", "A", "B", "A+this−A", "B−(B−this)", "share%");
    for e in &r.effects {
        s += &format!(
            "{:<52} {:>14} {:>14} {:>10} {:>10} {:>8}\n",
            crate::printable(&e.switch.path),
            crate::printable(&value(&e.switch.a)),
            crate::printable(&value(&e.switch.b)),
            num(e.forward),
            num(e.backward),
            e.share_pct.map_or("-".into(), |p| format!("{:.1}", p + 0.0))
        );
    }
    if r.interactions.is_empty() {
        s += "\nno interactions";
        s += if r.runs.is_power_of_two() { " (every combination was run)\n" } else { " checked (too many changes to run every combination)\n" };
    } else {
        s += "\ninteractions (joint effect from A vs the sum of the two alone):\n";
        for i in &r.interactions {
            s += &format!("  {} + {}: {:.3} vs {:.3}\n", crate::printable(&i.first), crate::printable(&i.second), i.joint, i.sum);
        }
    }
    s
}

fn csv(r: &Ablation) -> String {
    let q = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    let mut s = String::from("path,a,b,forward,backward,share_pct\n");
    for e in &r.effects {
        s += &format!(
            "{},{},{},{},{},{}\n",
            q(&e.switch.path),
            q(&value(&e.switch.a)),
            q(&value(&e.switch.b)),
            e.forward.map_or(String::new(), |x| x.to_string()),
            e.backward.map_or(String::new(), |x| x.to_string()),
            e.share_pct.map_or(String::new(), |x| x.to_string())
        );
    }
    s
}

pub fn ablate_cmd(args: &[String]) -> ExitCode {
    let mut ab = crate::measure::AbArgs::default();
    let (mut figure, mut jobs, mut json_out, mut csv_out, mut preset_name) = (None, None, false, false, None);
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--json" => json_out = true,
            "--csv" => csv_out = true,
            "--figure" => figure = it.next().cloned(),
            "--preset" => preset_name = it.next().cloned(),
            "--jobs" => match crate::pool::parse_jobs(it.next()) {
                Ok(j) => jobs = Some(j),
                Err(e) => return fail(e),
            },
            s => {
                if let Err(e) = ab.take(s) {
                    return fail(crate::printable(&e));
                }
            }
        }
    }
    let crate::measure::AbArgs { file, mut a, mut b, .. } = ab;
    let Some(file) = file else { return fail("ablate needs a FILE".into()) };
    if let Some(p) = &preset_name {
        let Some((pa, pb)) = preset(p) else { return fail(format!("--preset: {} is not one of clamps, complete-eevdf", crate::printable(p))) };
        a.splice(0..0, pa);
        b.splice(0..0, pb);
    }
    let Some(figure) = figure else { return fail("ablate needs --figure, e.g. --figure task:cyclictest:p99".into()) };
    let figure_text = figure.clone();
    let figure = match Figure::parse(&figure) {
        Ok(f) => f,
        Err(e) => return fail(crate::printable(&e)),
    };
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) => return fail(format!("cannot read {}: {e}", crate::printable(&file))),
    };
    let jobs = jobs.unwrap_or_else(crate::pool::default_jobs);
    let bar = crate::progress::Bar::new("ablate");
    let runner = |texts: &[String]| crate::pool::run_parallel(texts, jobs, |i, n| bar.set(i, n));
    let r = ablate(&text, &a, &b, &figure, &runner);
    bar.finish();
    let r = match r {
        Ok(r) => r,
        Err(e) => return fail(format!("{}: {}", crate::printable(&file), crate::printable(&e.to_string()))),
    };
    if json_out {
        return emit(&(serde_json::to_string_pretty(&r).unwrap_or_default() + "\n"));
    }
    if csv_out {
        return emit(&csv(&r));
    }
    emit(&text_table(&r, &figure_text))
}
