//! CSV exports: every latency sample of a run, and the tables of comparisons and sweeps.

use super::compare::Row;
use super::sweep::SweepPoint;
use serde_json::Value;
use crate::engine::Sim;

fn field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// `task,kind,ns` for every wakeup-latency and preempt-delay sample, in the order they happened
/// per task.
pub fn samples_csv(sim: &Sim) -> String {
    let mut out = String::from("task,kind,ns\n");
    for t in &sim.tasks {
        let name = field(&t.name);
        for &x in &t.stats.wakeup_latency {
            out.push_str(&format!("{name},wakeup_latency,{x}\n"));
        }
        for &x in &t.stats.preempt_delay {
            out.push_str(&format!("{name},preempt_delay,{x}\n"));
        }
    }
    out
}

/// An A/B table.
pub fn rows_csv(rows: &[Row]) -> String {
    let mut out = String::from("name,figure,a,b,change_pct\n");
    let f = |x: Option<f64>| x.map_or(String::new(), |v| v.to_string());
    for r in rows {
        out.push_str(&format!("{},{},{},{},{}\n", field(&r.name), field(&r.figure), f(r.a), f(r.b), f(r.change_pct)));
    }
    out
}

/// A sweep: one line per point and task, then per point and workload (its own figures, e.g. a
/// schbench's workers; `cpu_ns` empty), with the wakeup-latency percentiles in ns. A sweep with
/// a second parameter has its value first, in a `by` column.
pub fn sweep_csv(points: &[SweepPoint]) -> String {
    let two = points.iter().any(|p| p.by.is_some());
    let mut out = String::from(if two { "by," } else { "" });
    out.push_str("value,task,cpu_ns,wakeups,p50,p75,p90,p95,p99,p995,p999,max\n");
    let o = |x: Option<u64>| x.map_or(String::new(), |v| v.to_string());
    for p in points {
        let tasks = p.report.tasks.iter().map(|t| (&t.name, Some(t.cpu_ns), &t.wakeup_latency_ns));
        let workloads = p.report.workloads.iter().map(|w| (&w.name, None, &w.wakeup_latency_ns));
        for (name, cpu_ns, l) in tasks.chain(workloads) {
            if two {
                out.push_str(&field(&p.by.as_ref().map_or(String::new(), Value::to_string)));
                out.push(',');
            }
            out.push_str(&format!(
                "{},{},{},{},{},{},{},{},{},{},{},{}\n",
                field(&p.value.to_string()),
                field(name),
                o(cpu_ns),
                l.count,
                o(l.p50),
                o(l.p75),
                o(l.p90),
                o(l.p95),
                o(l.p99),
                o(l.p995),
                o(l.p999),
                o(l.max)
            ));
        }
    }
    out
}
