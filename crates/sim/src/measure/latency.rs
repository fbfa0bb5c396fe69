//! The delay table of `perf sched latency`, per task, the way reviewers read scheduler
//! patches: runtime, switches, average and maximum delay (the wait from becoming runnable,
//! by a wakeup or a preemption, to running), and when the maximum happened.

use crate::engine::Sim;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DelayRow {
    pub task: String,
    pub runtime_ns: u64,
    pub switches: u64,
    /// Delays counted: wakeups and preemptions that ran again.
    pub delays: u64,
    pub avg_delay_ns: Option<u64>,
    pub max_delay_ns: u64,
    /// When the longest wait ended (the task ran), in ns of the run.
    pub max_delay_at_ns: u64,
}

/// The table of a finished run, longest maximum delay first (ties: task order), as
/// `perf sched latency --sort max` prints it.
pub fn delay_table(sim: &Sim) -> Vec<DelayRow> {
    let mut rows: Vec<DelayRow> = sim
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let s = &t.stats;
            let n = (s.wakeup_latency.len() + s.preempt_delay.len()) as u64;
            let sum: u128 = s.wakeup_latency.iter().chain(&s.preempt_delay).map(|&x| u128::from(x)).sum();
            DelayRow {
                task: t.name.clone(),
                runtime_ns: sim.fair.ents[i].sum_exec_runtime,
                switches: s.switches,
                delays: n,
                avg_delay_ns: (n > 0).then(|| (sum / u128::from(n)) as u64),
                max_delay_ns: s.max_delay,
                max_delay_at_ns: s.max_delay_at,
            }
        })
        .collect();
    rows.sort_by_key(|r| std::cmp::Reverse(r.max_delay_ns));
    rows
}

/// The table as fixed-width text in perf's units (ms), for a mail.
pub fn delay_text(rows: &[DelayRow], title: &str) -> String {
    let rule = "-".repeat(110);
    let mut s = format!("{title}\n {rule}\n  {:<32} | {:>12} | {:>9} | {:>13} | {:>13} | {:>16} |\n {rule}\n", "Task", "Runtime ms", "Switches", "Avg delay ms", "Max delay ms", "Max delay at s");
    for r in rows {
        s += &format!(
            "  {:<32} | {:>12.3} | {:>9} | {:>13} | {:>13.3} | {:>16.6} |\n",
            r.task,
            r.runtime_ns as f64 / 1e6,
            r.switches,
            r.avg_delay_ns.map_or("-".to_string(), |a| format!("{:.3}", a as f64 / 1e6)),
            r.max_delay_ns as f64 / 1e6,
            r.max_delay_at_ns as f64 / 1e9
        );
    }
    s + &format!(" {rule}\n")
}
