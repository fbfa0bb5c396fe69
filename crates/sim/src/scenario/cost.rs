//! Cost estimate (contract §1.1): a scenario whose cost is beyond what the target can hold is
//! refused before it starts, with the estimate and the limit, never with a crash.
//!
//! # Formula (an estimate, deliberately simple and pessimistic; not a measurement)
//! With `D` = duration in ns and `TICK_NSEC` = (10^9 + HZ/2) / HZ:
//! - ticks: `D / TICK_NSEC × min(cpus, tasks)`;
//! - per task, 4 events per wakeup (wakeup, switch in, switch out, timer or sleep):
//!   `periodic` and `duty`: `D / period`; `bursty`: `D / (max(1 ns, mean run) + mean sleep)`
//!   with the distributions' means of what is drawn (`exp` m → m, `uniform` [lo, hi] →
//!   (lo+hi)/2, `normal` [m, sd] clamped at 0 → m·Φ(m/sd) + sd·φ(m/sd)); a burst is never
//!   shorter than 1 ns, the model's resolution, and a cycle at that resolution costs what it
//!   costs (values below 1 ns are refused when the file is read); `hog`: 0;
//! - `hackbench`: `groups × fds × fds × loops × 2` message events × 4, or fewer when the
//!   messages' CPU cost cannot fit in the run: at most `cpus × D / (2 × msg_us)` messages;
//! - `schbench`: `messengers × (1 + workers) × D / (sleep_us + workers × msg_us + 1 µs)` × 4:
//!   a messenger's round does not wait for its workers (a busy one skips it);
//! - every `timeline` entry: 1 + 8 per task it changes (a set dequeues, reweights, enqueues
//!   and may reschedule), or 8 per CPU for a cgroup.
//!
//! Memory, the sum of: 512 bytes per task; 256 bytes per CPU; 32 bytes per event (the
//! recorded run); 640 bytes per cgroup per CPU (its group entity and runqueue); 4 bytes per
//! task a timeline entry changes; and the report's samples: a wakeup (4 events) gives at most
//! one latency and one preempt-delay sample, so at most one per 2 events, each copied into the
//! task's set, every ancestor cgroup's set and its workload's (8 bytes each:
//! `4 × events × (depth + 2)` with `depth` the deepest cgroup).
//! All arithmetic is integer (saturating) except the `bursty` means, so the decision is the
//! same on every target.

use super::expand::expanded_len;
use super::{Behavior, Dist, Scenario, ScenarioError, Target, WorkloadKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub max_events: u64,
    pub max_memory_bytes: u64,
}

impl Limits {
    pub const NATIVE: Limits = Limits { max_events: 4_000_000_000, max_memory_bytes: 8 << 30 };
    pub const BROWSER: Limits = Limits { max_events: 400_000_000, max_memory_bytes: 1 << 30 };
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CostEstimate {
    pub events: u64,
    pub memory_bytes: u64,
}

const EVENTS_PER_WAKEUP: u128 = 4;

/// The mean of what `Rng::draw_ns` draws from `d`, in µs (a normal is clamped at 0).
fn mean_us(d: &Dist) -> f64 {
    match *d {
        Dist::Fixed(x) | Dist::Exp(x) => x,
        Dist::Uniform(lo, hi) => (lo + hi) / 2.0,
        Dist::Normal(m, sd) if sd > 0.0 => {
            // E[max(0, X)] for X ~ N(m, sd²): m·Φ(m/sd) + sd·φ(m/sd).
            let z = m / sd;
            let cdf = 0.5 * libm::erfc(-z / std::f64::consts::SQRT_2);
            let pdf = libm::exp(-0.5 * z * z) / (2.0 * std::f64::consts::PI).sqrt();
            (m * cdf + sd * pdf).max(0.0)
        }
        Dist::Normal(m, _) => m.max(0.0),
    }
}

/// Wakeups of one task over `d` ns.
fn wakeups(b: &Behavior, d: u128) -> u128 {
    match b {
        Behavior::Hog => 0,
        Behavior::Periodic { period_us, .. } | Behavior::Duty { period_us, .. } => {
            d / (u128::from(*period_us) * 1000).max(1)
        }
        Behavior::Bursty { run_us, sleep_us } => {
            // A burst takes at least 1 ns (`draw_ns(..).max(1)`); a sleep may take 0.
            let cycle_ns = (mean_us(run_us) * 1000.0).max(1.0) + mean_us(sleep_us) * 1000.0;
            // `as` saturates; cycle_ns is at most 2·10^10. Floor, so the count rounds up.
            d / (libm::floor(cycle_ns) as u128).max(1)
        }
        Behavior::Replay { steps_us, .. } => steps_us.len() as u128,
    }
}

/// Estimated scheduler events and memory of a run of `s`.
pub fn estimate(s: &Scenario) -> CostEstimate {
    let d = u128::from(s.duration_ms) * 1_000_000;
    let hz = u128::from(s.machine.hz.max(1));
    let tick = (1_000_000_000 + hz / 2) / hz;
    let ntasks = u128::from(expanded_len(s));
    let cpus = u128::from(s.machine.cpus);
    let mut events = d / tick * cpus.min(ntasks);
    for t in &s.tasks {
        events += u128::from(t.count) * wakeups(&t.behavior, d) * EVENTS_PER_WAKEUP;
    }
    for w in &s.workloads {
        events += match w.kind {
            WorkloadKind::Hackbench { groups, fds, loops, msg_us, .. } => {
                let messages = u128::from(groups) * u128::from(fds) * u128::from(fds) * u128::from(loops);
                // A message costs msg_us to write and again to read, so no more than
                // cpus × D / (2 · msg_us) of them can pass within the run.
                let within = match u128::from(msg_us) * 1000 {
                    0 => messages,
                    m => messages.min(cpus * d / (2 * m) + 1),
                };
                within * 2 * EVENTS_PER_WAKEUP
            }
            WorkloadKind::Schbench { messengers, workers, sleep_us, msg_us, .. } => {
                // A messenger does not wait for its workers: a busy worker skips the round. So a
                // round is as short as the messenger's sleep and its messages, and each round
                // wakes the messenger and tries each of its workers.
                let round_ns = (u128::from(sleep_us) + u128::from(workers) * u128::from(msg_us) + 1) * 1000;
                u128::from(messengers) * (1 + u128::from(workers)) * (d / round_ns) * EVENTS_PER_WAKEUP
            }
        };
    }
    // Tasks each timeline entry changes, by name (an expanded name is one task).
    let mut sizes: std::collections::HashMap<&str, u128> = std::collections::HashMap::new();
    for t in &s.tasks {
        sizes.entry(t.name.as_str()).or_insert(u128::from(t.count));
    }
    for w in &s.workloads {
        let n = super::expand::workload_roles(&w.kind).iter().map(|(_, c)| u128::from(*c)).sum();
        sizes.entry(w.name.as_str()).or_insert(n);
    }
    let mut changed = 0u128;
    for e in &s.timeline {
        let n = match &e.target {
            Target::Task(name) if name.contains('/') => 1,
            Target::Task(name) => sizes.get(name.as_str()).copied().unwrap_or(1),
            Target::Cgroup(_) => cpus,
        };
        changed += n;
        events += 1 + 8 * n;
    }
    let depth = cgroup_depth(s);
    let groups = s.cgroups.len() as u128;
    let memory = 512 * ntasks + 256 * cpus + 32 * events + 640 * groups * cpus + 4 * changed + 4 * events * (depth + 2);
    let sat = |x: u128| u64::try_from(x).unwrap_or(u64::MAX);
    CostEstimate { events: sat(events), memory_bytes: sat(memory) }
}

/// The depth of the deepest cgroup (a root child has depth 1; 0 without cgroups).
fn cgroup_depth(s: &Scenario) -> u128 {
    let mut depth: std::collections::HashMap<&str, u128> = std::collections::HashMap::new();
    let mut max = 0;
    // Parents come before children (validated), so one pass suffices.
    for c in &s.cgroups {
        let d = c.parent.as_deref().and_then(|p| depth.get(p)).copied().unwrap_or(0) + 1;
        depth.insert(c.name.as_str(), d);
        max = max.max(d);
    }
    max
}

/// `x` with two significant digits, rounded up when `up` (else down): `5.2e9`, `4e9`, `950`.
/// (Also the sweep's cost message, so both read alike.)
pub(crate) fn sci(x: u64, up: bool) -> String {
    if x < 10_000 {
        return x.to_string();
    }
    let e = x.ilog10() - 1;
    let p = 10u64.pow(e);
    let top = if up { x.div_ceil(p) } else { x / p };
    // Rounding up may carry to 100 (e.g. 9.95e9 → 10e9).
    let (top, e) = if top >= 100 { (top / 10, e + 1) } else { (top, e) };
    let exp = e + 1;
    if top % 10 == 0 { format!("{}e{exp}", top / 10) } else { format!("{}.{}e{exp}", top / 10, top % 10) }
}

/// Bytes in GiB or MiB with one decimal (rounded up when `up`).
fn bytes(x: u64, unit: u64, name: &str, up: bool) -> String {
    let tenths = u128::from(x) * 10;
    let u = u128::from(unit);
    let t = if up { tenths.div_ceil(u) } else { tenths / u };
    if t % 10 == 0 { format!("{} {name}", t / 10) } else { format!("{}.{} {name}", t / 10, t % 10) }
}

/// Refuse a scenario whose estimate exceeds `l` (error path "": the whole scenario).
pub fn check_cost(s: &Scenario, l: &Limits) -> Result<CostEstimate, ScenarioError> {
    let c = estimate(s);
    const HINT: &str = "shorten duration_ms or reduce tasks";
    if c.events > l.max_events {
        return Err(ScenarioError::at(
            "",
            format!(
                "estimated {} scheduler events exceeds the limit of {} for this target; {HINT}",
                sci(c.events, true),
                sci(l.max_events, false)
            ),
        ));
    }
    if c.memory_bytes > l.max_memory_bytes {
        let (unit, name) = if l.max_memory_bytes >= 1 << 30 { (1u64 << 30, "GiB") } else { (1 << 20, "MiB") };
        return Err(ScenarioError::at(
            "",
            format!(
                "estimated {} of memory for the recorded run exceeds the limit of {} for this target; {HINT}",
                bytes(c.memory_bytes, unit, name, true),
                bytes(l.max_memory_bytes, unit, name, false)
            ),
        ));
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sci_format() {
        assert_eq!(sci(950, true), "950");
        assert_eq!(sci(4_000_000_000, false), "4e9");
        assert_eq!(sci(5_210_000_000, true), "5.3e9");
        assert_eq!(sci(5_200_000_000, true), "5.2e9");
        assert_eq!(sci(4_000_000_001, true), "4.1e9");
        assert_eq!(sci(9_950_000_000, true), "1e10");
        assert_eq!(sci(u64::MAX, true), "1.9e19");
    }

    #[test]
    fn bytes_format() {
        assert_eq!(bytes(8 << 30, 1 << 30, "GiB", false), "8 GiB");
        assert_eq!(bytes((8 << 30) + 1, 1 << 30, "GiB", true), "8.1 GiB");
    }
}
