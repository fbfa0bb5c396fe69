//! One line of ftrace text, as `/sys/kernel/tracing/trace` and `trace-cmd report` print the
//! sched events (include/trace/events/sched.h):
//!
//! ```text
//!             bash-2142    [000] d..2.  3012.042370: sched_switch: prev_comm=bash prev_pid=2142 prev_prio=120 prev_state=R ==> next_comm=bash next_pid=2145 next_prio=120
//!      eevdf_probe-2146    [001] d.s4.  3012.043896: sched_wakeup: comm=eevdf_probe pid=2147 prio=120 target_cpu=000
//! ```

/// The sched events this module reads and writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    Switch { prev_comm: String, prev_pid: i64, prev_prio: i64, prev_state: String, next_comm: String, next_pid: i64, next_prio: i64 },
    /// `sched_waking`, `sched_wakeup` and `sched_wakeup_new` share one format.
    Wake { kind: WakeKind, comm: String, pid: i64, prio: i64, target_cpu: u32 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WakeKind {
    Waking,
    Wakeup,
    WakeupNew,
}

impl WakeKind {
    pub fn name(self) -> &'static str {
        match self {
            WakeKind::Waking => "sched_waking",
            WakeKind::Wakeup => "sched_wakeup",
            WakeKind::WakeupNew => "sched_wakeup_new",
        }
    }
}

/// A parsed line: when, on which CPU, what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub ts_ns: u64,
    pub cpu: u32,
    pub event: Event,
}

/// What a line is, when it is not a sched event this module reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Other {
    /// A comment, a blank line, or trace-cmd's header.
    Ignorable,
    /// "CPU:1 [LOST 12 EVENTS]" (trace-cmd) or "##### CPU 1 buffer started ####" (tracefs):
    /// events of this CPU are missing before this point.
    Lost { cpu: u32 },
    /// Another event (the name), or a line that could not be read (why).
    Skipped(String),
}

/// The timestamp as printed, seconds with up to 9 decimals, in ns.
fn parse_ts(s: &str) -> Option<u64> {
    let (sec, frac) = s.split_once('.').unwrap_or((s, ""));
    if sec.is_empty() || !sec.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) || frac.len() > 9 {
        return None;
    }
    let sec: u64 = sec.parse().ok()?;
    let mut ns: u64 = if frac.is_empty() { 0 } else { frac.parse().ok()? };
    for _ in frac.len()..9 {
        ns *= 10;
    }
    sec.checked_mul(1_000_000_000)?.checked_add(ns)
}

/// The value of `key=` in `fields`, up to the next of `following` keys (values such as a
/// comm may hold spaces, so a space does not end them).
fn field<'a>(fields: &'a str, key: &str, following: &[&str]) -> Option<&'a str> {
    let start = find_key(fields, key)? + key.len() + 1;
    let rest = &fields[start..];
    let end = following.iter().filter_map(|k| find_key(rest, k).map(|i| i.saturating_sub(1))).min().unwrap_or(rest.len());
    Some(rest[..end].trim_end())
}

/// Where `key=` starts as a whole key (at the start or after a space).
fn find_key(s: &str, key: &str) -> Option<usize> {
    let pat = format!("{key}=");
    let mut from = 0;
    while let Some(i) = s[from..].find(&pat) {
        let at = from + i;
        if at == 0 || s.as_bytes()[at - 1] == b' ' {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

fn num(fields: &str, key: &str, following: &[&str]) -> Result<i64, String> {
    let v = field(fields, key, following).ok_or_else(|| format!("no {key}="))?;
    v.trim().parse().map_err(|_| format!("{key}={v} is not a number"))
}

/// Read one line.
pub fn parse(line: &str) -> Result<Line, Other> {
    let t = line.trim();
    if t.is_empty() || t.starts_with('#') && !t.starts_with("#####") {
        return Err(Other::Ignorable);
    }
    if let Some(rest) = t.strip_prefix("##### CPU ") {
        let cpu = rest.split_whitespace().next().and_then(|c| c.parse().ok());
        return cpu.map_or(Err(Other::Ignorable), |cpu| Err(Other::Lost { cpu }));
    }
    if let Some(rest) = t.strip_prefix("CPU:") {
        if t.contains("LOST") {
            let cpu = rest.split(|c: char| !c.is_ascii_digit()).next().and_then(|c| c.parse().ok());
            return cpu.map_or(Err(Other::Skipped("an unreadable LOST EVENTS line".into())), |cpu| Err(Other::Lost { cpu }));
        }
    }
    if t.starts_with("cpus=") || t.starts_with("version") || t.starts_with("CPU ") {
        return Err(Other::Ignorable);
    }
    // "<comm>-<pid> [NNN] <flags> <ts>: <event>: <fields>"
    let (Some(open), Some(close)) = (t.find('['), t.find(']')) else {
        return Err(Other::Skipped("no [CPU] field".into()));
    };
    if close < open {
        return Err(Other::Skipped("no [CPU] field".into()));
    }
    let cpu: u32 = t[open + 1..close].trim().parse().map_err(|_| Other::Skipped("the [CPU] field is not a number".into()))?;
    let after = &t[close + 1..];
    // The timestamp is the first token ending in ':' that reads as one.
    let mut rest = after;
    let ts_ns = loop {
        let s = rest.trim_start();
        let Some(end) = s.find(char::is_whitespace) else {
            return Err(Other::Skipped("no timestamp".into()));
        };
        let tok = &s[..end];
        rest = &s[end..];
        if let Some(ts) = tok.strip_suffix(':').and_then(parse_ts) {
            break ts;
        }
    };
    let s = rest.trim_start();
    let (event, fields) = s.split_once(": ").or_else(|| s.strip_suffix(':').map(|e| (e, ""))).ok_or_else(|| Other::Skipped("no event name".into()))?;
    let event = event.trim();
    let bad = |why: String| Other::Skipped(format!("{event}: {why}"));
    let event = match event {
        "sched_switch" => {
            let (prev, next) = fields.split_once("==>").ok_or_else(|| bad("no ==>".into()))?;
            let pk = ["prev_pid", "prev_prio", "prev_state"];
            let nk = ["next_pid", "next_prio"];
            Event::Switch {
                prev_comm: field(prev, "prev_comm", &pk).ok_or_else(|| bad("no prev_comm=".into()))?.to_string(),
                prev_pid: num(prev, "prev_pid", &pk).map_err(bad)?,
                prev_prio: num(prev, "prev_prio", &pk).map_err(bad)?,
                prev_state: field(prev, "prev_state", &[]).ok_or_else(|| bad("no prev_state=".into()))?.trim().to_string(),
                next_comm: field(next, "next_comm", &nk).ok_or_else(|| bad("no next_comm=".into()))?.to_string(),
                next_pid: num(next, "next_pid", &nk).map_err(bad)?,
                next_prio: num(next, "next_prio", &nk).map_err(bad)?,
            }
        }
        "sched_waking" | "sched_wakeup" | "sched_wakeup_new" => {
            let kind = match event {
                "sched_waking" => WakeKind::Waking,
                "sched_wakeup" => WakeKind::Wakeup,
                _ => WakeKind::WakeupNew,
            };
            let keys = ["pid", "prio", "success", "target_cpu"];
            Event::Wake {
                kind,
                comm: field(fields, "comm", &keys).ok_or_else(|| bad("no comm=".into()))?.to_string(),
                pid: num(fields, "pid", &keys).map_err(bad)?,
                prio: num(fields, "prio", &keys).map_err(bad)?,
                target_cpu: num(fields, "target_cpu", &keys).map_err(bad)?.try_into().map_err(|_| bad("target_cpu out of range".into()))?,
            }
        }
        other => return Err(Other::Skipped(format!("event {other} is not read"))),
    };
    Ok(Line { ts_ns, cpu, event })
}

/// A task as an event line names it.
#[derive(Clone, Copy)]
pub struct Who<'a> {
    pub comm: &'a str,
    pub pid: i64,
    pub prio: i64,
}

/// The start of a line in the tracefs layout: the running task's column, CPU, flags and
/// timestamp (µs, as the kernel prints it).
fn head(out: &mut String, running: (&str, i64), cpu: u32, flags: &str, ts_ns: u64) {
    use std::fmt::Write;
    let ((comm, pid), sec, us) = (running, ts_ns / 1_000_000_000, ts_ns % 1_000_000_000 / 1000);
    let _ = write!(out, "{comm:>16}-{pid:<7} [{cpu:03}] {flags} {sec:>5}.{us:06}: ");
}

/// One `sched_waking`, `sched_wakeup` or `sched_wakeup_new` line.
pub fn write_wake(out: &mut String, running: (&str, i64), cpu: u32, ts_ns: u64, kind: WakeKind, who: Who, target_cpu: u32) {
    use std::fmt::Write;
    head(out, running, cpu, "d..3.", ts_ns);
    let Who { comm, pid, prio } = who;
    let _ = writeln!(out, "{}: comm={comm} pid={pid} prio={prio} target_cpu={target_cpu:03}", kind.name());
}

/// One `sched_switch` line.
pub fn write_switch(out: &mut String, running: (&str, i64), cpu: u32, ts_ns: u64, prev: Who, prev_state: &str, next: Who) {
    use std::fmt::Write;
    head(out, running, cpu, "d..2.", ts_ns);
    let _ = writeln!(
        out,
        "sched_switch: prev_comm={} prev_pid={} prev_prio={} prev_state={prev_state} ==> next_comm={} next_pid={} next_prio={}",
        prev.comm, prev.pid, prev.prio, next.comm, next.pid, next.prio
    );
}

/// A binary `prev_state` (the kernel's TASK_REPORT bits, 4.14 and later) as the letters the
/// importer looks at; only whether the task was left runnable matters: no state bit is "R",
/// with TASK_REPORT_MAX (0x100) "R+" (preempted); any of the low bits a sleep or a stop.
pub fn prev_state_letters(s: i64) -> &'static str {
    match s & 0xff {
        0 if s & 0x100 != 0 => "R+",
        0 => "R",
        _ => "S",
    }
}
