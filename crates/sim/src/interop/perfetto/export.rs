//! A run as a Perfetto protobuf trace: the sched events as Perfetto's own ftrace protos (one
//! `FtraceEventBundle` per CPU and batch), so its CPU tracks, thread states and wakeup arrows
//! work as for a recorded trace; and beside them what no kernel trace has, the fair class's
//! state as counter tracks and its decisions as instant events.
//!
//! The sched events are the ftrace export's (`ftrace_events`: same stints, same times, same
//! pids 10000 + index, same prios), here in ns. Counters are sampled after each instant, for
//! the task running on each CPU and the tasks whose stint ended at that instant, and for every
//! CPU, and written only when their value changed: a waiting task's vruntime against a moving
//! min_vruntime is not resampled every instant (that would cost the number of queued tasks at
//! every instant); Perfetto holds a counter's last value until the next.
//!
//! It streams like the ftrace export: a first run learns the nice each task ends with (its one
//! prio), a second writes packets as the run goes; memory does not grow with the run.

use super::proto::*;
use crate::engine::trace::Slice;
use crate::engine::Sim;
use crate::entity::NIL;
use crate::explain::{Decision, Why};
use crate::interop::ftrace_events::{Sink, PID_BASE};
use crate::interop::ftrace_export::{counting_pass, ExportError, Stream};
use crate::interop::ftrace_line::{WakeKind, Who};
use crate::scenario::{Policy, Validated};
use crate::weights::scale_load_down;
use prost::Message;
use std::io::{self, Write};

/// The name of the instant that marks the end of the run (a trace otherwise ends at its last
/// event); the importer reads it.
pub const END_EVENT: &str = "fairground: run ends";

/// The end of the kernel release the export gives: the importer knows the file by it (its
/// bundles come in the order of their first events).
pub const RELEASE_MARK: &str = "-fairground";

/// Track event sequence; the ftrace bundles use their own.
const SEQ_TRACK: u32 = 1;
const SEQ_FTRACE: u32 = 2;

/// Per task counters, in the order of `TASK_COUNTERS`.
const TASK_COUNTERS: [(&str, i32); 5] = [
    ("vruntime - min_vruntime", UNIT_TIME_NS),
    ("lag (V - vruntime)", UNIT_TIME_NS),
    ("deadline - V", UNIT_TIME_NS),
    ("weight", UNIT_COUNT),
    ("latency offset", UNIT_TIME_NS),
];
/// Per CPU counters; the last is PELT's `cfs_rq->avg.util_avg` of the CPU's root runqueue.
const CPU_COUNTERS: [(&str, i32); 5] = [
    ("nr_running", UNIT_COUNT),
    ("min_vruntime (from its start)", UNIT_TIME_NS),
    ("V - min_vruntime", UNIT_TIME_NS),
    ("load (queued weight)", UNIT_COUNT),
    ("util_avg", UNIT_COUNT),
];

/// Track uuids: a kind in the high half, an index (task or CPU) in the low half.
fn uuid(kind: u64, idx: u32) -> u64 {
    (kind << 32) | u64::from(idx)
}
const RUN_TRACK: u64 = 1;
const K_THREAD: u64 = 1;
const K_TASK_COUNTER: u64 = 2; // 2..=6
const K_CPU: u64 = 16;
const K_CPU_COUNTER: u64 = 17; // 17..=21
const K_DECISIONS: u64 = 24;

/// Run `v` and write it as a Perfetto trace to `out`, as it runs.
pub fn write_perfetto<W: Write>(v: &Validated, out: W) -> Result<(), ExportError> {
    let (_, nice) = counting_pass(v)?;
    let mut sim = Sim::new(v)?;
    sim.fair.enable_log();
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    let mut sink = PerfettoSink::new(&sim, &mut out);
    sink.preamble(&sim)?;
    Stream::new(&sim, Some(&nice)).run(&mut sim, &mut sink)?;
    sink.batch_done()?;
    sink.instant_event(RUN_TRACK, sim.duration_ns, END_EVENT, Vec::new())?;
    out.flush()?;
    Ok(())
}

/// Run `v` and return its Perfetto trace.
pub fn run_to_perfetto(v: &Validated) -> Result<Vec<u8>, ExportError> {
    let mut out = Vec::new();
    write_perfetto(v, &mut out)?;
    Ok(out)
}

struct PerfettoSink<'a, W: Write> {
    out: &'a mut W,
    buf: Vec<u8>,
    /// Per CPU, the events of the batch being made.
    bundles: Vec<Vec<FtraceEvent>>,
    names: Vec<String>,
    v12: bool,
    /// Last value written per task counter and per CPU counter (None: none yet).
    task_last: Vec<[Option<i64>; 5]>,
    cpu_last: Vec<[Option<i64>; 5]>,
    /// Each CPU's min_vruntime at the start (absolute vruntimes start near 2^64).
    min0: Vec<u64>,
}

impl<'a, W: Write> PerfettoSink<'a, W> {
    fn new(sim: &Sim, out: &'a mut W) -> Self {
        let ncpu = sim.cpus.len();
        PerfettoSink {
            out,
            buf: Vec::with_capacity(1 << 12),
            bundles: vec![Vec::new(); ncpu],
            names: sim.tasks.iter().map(|t| t.name.clone()).collect(),
            v12: sim.fair.cfg.policy == Policy::LatencyNiceV12,
            task_last: vec![[None; 5]; sim.tasks.len()],
            cpu_last: vec![[None; 5]; ncpu],
            min0: (0..ncpu as u32).map(|c| sim.fair.cfs_rqs[sim.fair.root_rq(c) as usize].min_vruntime).collect(),
        }
    }

    fn packet(&mut self, p: TracePacket) -> io::Result<()> {
        self.buf.clear();
        // Appending Trace messages of one packet each concatenates their `packet` fields.
        Trace { packet: vec![p] }.encode(&mut self.buf).map_err(io::Error::other)?;
        self.out.write_all(&self.buf)
    }

    fn track(&mut self, d: TrackDescriptor, first: bool) -> io::Result<()> {
        self.packet(TracePacket {
            track_descriptor: Some(d),
            trusted_packet_sequence_id: Some(SEQ_TRACK),
            sequence_flags: first.then_some(SEQ_INCREMENTAL_STATE_CLEARED),
            ..Default::default()
        })
    }

    /// What comes before the events: the kernel release (how `prev_state` reads), the tasks
    /// as processes and threads, and every track.
    fn preamble(&mut self, sim: &Sim) -> io::Result<()> {
        let uts = Utsname { sysname: Some("Linux".into()), release: Some(format!("6.12.0{RELEASE_MARK}")) };
        self.packet(TracePacket { system_info: Some(SystemInfo { utsname: Some(uts) }), ..Default::default() })?;
        let pid = |t: usize| (PID_BASE + t as i64) as i32;
        let tree = ProcessTree {
            processes: (0..sim.tasks.len()).map(|t| Process { pid: Some(pid(t)), ppid: Some(1), cmdline: vec![self.names[t].clone()] }).collect(),
            threads: (0..sim.tasks.len())
                .map(|t| Thread { tid: Some(pid(t)), name: Some(crate::interop::ftrace_events::comm_of(&self.names[t])), tgid: Some(pid(t)) })
                .collect(),
        };
        self.packet(TracePacket { timestamp: Some(0), process_tree: Some(tree), ..Default::default() })?;
        let run = TrackDescriptor { uuid: Some(RUN_TRACK), name: Some(format!("Fairground: {} ({})", sim.name, sim.fair.cfg.policy.name())), ..Default::default() };
        self.track(run, true)?;
        let counter = |unit: i32| Some(CounterDescriptor { unit: Some(unit), unit_name: None });
        for t in 0..sim.tasks.len() {
            let thread = ThreadDescriptor { pid: Some(pid(t)), tid: Some(i64::from(pid(t))), thread_name: Some(self.names[t].clone()) };
            self.track(TrackDescriptor { uuid: Some(uuid(K_THREAD, t as u32)), thread: Some(thread), ..Default::default() }, false)?;
            for (k, &(name, unit)) in TASK_COUNTERS.iter().enumerate() {
                // Lag and deadline are EEVDF's, the latency offset v12's.
                if (k == 4 && !self.v12) || ((k == 1 || k == 2) && sim.fair.eevdf.is_none()) {
                    continue;
                }
                let d = TrackDescriptor {
                    uuid: Some(uuid(K_TASK_COUNTER + k as u64, t as u32)),
                    parent_uuid: Some(uuid(K_THREAD, t as u32)),
                    name: Some(format!("{} {name}", self.names[t])),
                    counter: counter(unit),
                    ..Default::default()
                };
                self.track(d, false)?;
            }
        }
        for c in 0..sim.cpus.len() as u32 {
            self.track(TrackDescriptor { uuid: Some(uuid(K_CPU, c)), name: Some(format!("Fair class CPU {c}")), ..Default::default() }, false)?;
            for (k, &(name, unit)) in CPU_COUNTERS.iter().enumerate() {
                if k == 2 && sim.fair.eevdf.is_none() {
                    continue;
                }
                let d = TrackDescriptor {
                    uuid: Some(uuid(K_CPU_COUNTER + k as u64, c)),
                    parent_uuid: Some(uuid(K_CPU, c)),
                    name: Some(format!("CPU {c} {name}")),
                    counter: counter(unit),
                    ..Default::default()
                };
                self.track(d, false)?;
            }
            let d = TrackDescriptor { uuid: Some(uuid(K_DECISIONS, c)), parent_uuid: Some(uuid(K_CPU, c)), name: Some(format!("CPU {c} decisions")), ..Default::default() };
            self.track(d, false)?;
        }
        Ok(())
    }

    fn counter(&mut self, track: u64, ts: u64, value: i64) -> io::Result<()> {
        let ev = TrackEvent { r#type: Some(TYPE_COUNTER), track_uuid: Some(track), counter_value: Some(value), ..Default::default() };
        self.packet(TracePacket { timestamp: Some(ts), track_event: Some(ev), trusted_packet_sequence_id: Some(SEQ_TRACK), ..Default::default() })
    }

    fn instant_event(&mut self, track: u64, ts: u64, name: &str, args: Vec<DebugAnnotation>) -> io::Result<()> {
        let ev = TrackEvent { r#type: Some(TYPE_INSTANT), track_uuid: Some(track), name: Some(name.into()), debug_annotations: args, ..Default::default() };
        self.packet(TracePacket { timestamp: Some(ts), track_event: Some(ev), trusted_packet_sequence_id: Some(SEQ_TRACK), ..Default::default() })
    }

    /// Write task `t`'s counters that changed.
    fn sample_task(&mut self, sim: &Sim, t: u32) -> io::Result<()> {
        let f = &sim.fair;
        let e = &f.ents[t as usize];
        let min = f.cfs_rqs[e.cfs_rq as usize].min_vruntime;
        let mut vals = [Some(e.vruntime.wrapping_sub(min) as i64), None, None, Some(scale_load_down(e.load.weight) as i64), None];
        if f.eevdf.is_some() {
            let st = crate::eevdf::view::entity_state(f, t);
            let v = crate::eevdf::avg::avg_vruntime(f, e.cfs_rq);
            vals[1] = Some(st.lag);
            vals[2] = Some(e.deadline.wrapping_sub(v) as i64);
        }
        if self.v12 {
            vals[4] = Some(e.latency_offset);
        }
        for (k, v) in vals.into_iter().enumerate() {
            if let Some(v) = v.filter(|&v| self.task_last[t as usize][k] != Some(v)) {
                self.task_last[t as usize][k] = Some(v);
                self.counter(uuid(K_TASK_COUNTER + k as u64, t), sim.now, v)?;
            }
        }
        Ok(())
    }

    fn sample_cpu(&mut self, sim: &Sim, c: u32) -> io::Result<()> {
        let f = &sim.fair;
        let rq = f.root_rq(c);
        let q = &f.cfs_rqs[rq as usize];
        let vmin = f.eevdf.map(|_| crate::eevdf::avg::avg_vruntime(f, rq).wrapping_sub(q.min_vruntime) as i64);
        let vals = [
            Some(i64::from(q.nr_running)),
            Some(q.min_vruntime.wrapping_sub(self.min0[c as usize]) as i64),
            vmin,
            Some(scale_load_down(q.load.weight) as i64),
            Some(q.avg.util_avg as i64),
        ];
        for (k, v) in vals.into_iter().enumerate() {
            if let Some(v) = v.filter(|&v| self.cpu_last[c as usize][k] != Some(v)) {
                self.cpu_last[c as usize][k] = Some(v);
                self.counter(uuid(K_CPU_COUNTER + k as u64, c), sim.now, v)?;
            }
        }
        Ok(())
    }

    fn decision(&mut self, d: &Decision) -> io::Result<()> {
        let name = |t: u32| if t == NIL { "idle".to_string() } else { self.names[t as usize].clone() };
        let what = d.describe(&|t| name(t));
        let (kind, nums) = why_numbers(&d.why);
        let mut args = vec![
            DebugAnnotation { name: Some("task".into()), string_value: Some(name(d.task)), ..Default::default() },
            DebugAnnotation { name: Some("outcome".into()), bool_value: Some(d.outcome), ..Default::default() },
            DebugAnnotation { name: Some("what".into()), string_value: Some(what), ..Default::default() },
        ];
        if d.other != NIL {
            args.push(DebugAnnotation { name: Some("other".into()), string_value: Some(name(d.other)), ..Default::default() });
        }
        args.extend(nums.into_iter().map(|(n, v)| DebugAnnotation { name: Some(n.into()), int_value: Some(v), ..Default::default() }));
        self.instant_event(uuid(K_DECISIONS, d.cpu), d.at_ns, kind, args)
    }
}

/// A decision's kind and its numbers (ns of virtual time, flags as 0/1).
fn why_numbers(w: &Why) -> (&'static str, Vec<(&'static str, i64)>) {
    let b = i64::from;
    match *w {
        Why::CfsWakeup { vdiff, wakeup_gran, offset, offset_unclamped, gran, gran_unclamped, latency_max, verdict, verdict_unclamped, via_groups, .. } => (
            "wakeup preemption check",
            vec![
                ("vdiff", vdiff),
                ("wakeup_gran", wakeup_gran),
                ("offset", offset),
                ("offset_unclamped", offset_unclamped),
                ("gran", gran),
                ("gran_unclamped", gran_unclamped),
                ("latency_max", latency_max),
                ("verdict", i64::from(verdict)),
                ("verdict_unclamped", i64::from(verdict_unclamped)),
                ("via_groups", b(via_groups)),
            ],
        ),
        Why::CfsTick { delta_exec, ideal_runtime, delta, offset, latency_max, by_latency_max, .. } => (
            "tick preemption check",
            vec![
                ("delta_exec", delta_exec as i64),
                ("ideal_runtime", ideal_runtime as i64),
                ("delta", delta),
                ("offset", offset),
                ("latency_max", latency_max as i64),
                ("by_latency_max", b(by_latency_max)),
            ],
        ),
        Why::EevdfWakeup { wakee_lag, wakee_deadline_rel, wakee_eligible, curr_deadline_rel, curr_eligible, curr_protected, preempt_short, .. } => (
            "wakeup preemption check",
            vec![
                ("wakee_lag", wakee_lag),
                ("wakee_deadline_rel", wakee_deadline_rel),
                ("wakee_eligible", b(wakee_eligible)),
                ("curr_deadline_rel", curr_deadline_rel),
                ("curr_eligible", b(curr_eligible)),
                ("curr_protected", b(curr_protected)),
                ("preempt_short", b(preempt_short)),
            ],
        ),
        Why::EevdfTick { used_up, vruntime_rel, deadline_rel, .. } => (
            "tick check",
            vec![
                ("used_up", b(used_up)),
                ("vruntime_rel", vruntime_rel),
                ("deadline_rel", deadline_rel),
            ],
        ),
        Why::Pick { key_rel, lag, eligible, eevdf, queued, eligible_count, .. } => (
            "pick",
            vec![
                ("key_rel", key_rel),
                ("lag", lag),
                ("eligible", b(eligible)),
                ("eevdf", b(eevdf)),
                ("queued", i64::from(queued)),
                ("eligible_count", i64::from(eligible_count)),
            ],
        ),
    }
}

impl<W: Write> Sink for PerfettoSink<'_, W> {
    fn wake(&mut self, running: (&str, i64), cpu: u32, ts: u64, kind: WakeKind, who: Who, target_cpu: u32) -> io::Result<()> {
        let w = SchedWake { comm: Some(who.comm.into()), pid: Some(who.pid as i32), prio: Some(who.prio as i32), success: Some(1), target_cpu: Some(target_cpu as i32) };
        let mut ev = FtraceEvent { timestamp: Some(ts), pid: Some(running.1 as u32), ..Default::default() };
        match kind {
            WakeKind::Waking => ev.sched_waking = Some(w),
            WakeKind::Wakeup => ev.sched_wakeup = Some(w),
            WakeKind::WakeupNew => ev.sched_wakeup_new = Some(w),
        }
        self.bundles[cpu as usize].push(ev);
        Ok(())
    }

    fn switch(&mut self, running: (&str, i64), cpu: u32, ts: u64, prev: Who, prev_state: &str, next: Who) -> io::Result<()> {
        // TASK_REPORT bits as sched_switch reports them since 4.14: 0 running, 1 S, and
        // TASK_REPORT_MAX (0x100) for a preempted task ("R+").
        let state = match prev_state {
            "S" => 1,
            "R+" => 0x100,
            _ => 0,
        };
        let sw = SchedSwitch {
            prev_comm: Some(prev.comm.into()),
            prev_pid: Some(prev.pid as i32),
            prev_prio: Some(prev.prio as i32),
            prev_state: Some(state),
            next_comm: Some(next.comm.into()),
            next_pid: Some(next.pid as i32),
            next_prio: Some(next.prio as i32),
        };
        self.bundles[cpu as usize].push(FtraceEvent { timestamp: Some(ts), pid: Some(running.1 as u32), sched_switch: Some(sw), ..Default::default() });
        Ok(())
    }

    fn batch_done(&mut self) -> io::Result<()> {
        // Bundles of at most CHUNK events, in the order of their first events, so that a
        // reader merging the CPUs by time holds about one chunk per CPU, however long a batch
        // a long wait made.
        const CHUNK: usize = 4096;
        let mut from = vec![0usize; self.bundles.len()];
        loop {
            let next = (0..self.bundles.len()).filter(|&c| from[c] < self.bundles[c].len()).min_by_key(|&c| (self.bundles[c][from[c]].timestamp, c));
            let Some(c) = next else { break };
            let end = (from[c] + CHUNK).min(self.bundles[c].len());
            let event = self.bundles[c][from[c]..end].to_vec();
            from[c] = end;
            let b = FtraceEventBundle { cpu: Some(c as u32), event, lost_events: None, compact_sched: None };
            self.packet(TracePacket { ftrace_events: Some(b), trusted_packet_sequence_id: Some(SEQ_FTRACE), ..Default::default() })?;
        }
        for b in &mut self.bundles {
            b.clear();
        }
        Ok(())
    }

    fn instant(&mut self, sim: &mut Sim, closed: &[Slice]) -> io::Result<()> {
        let log = sim.fair.log.as_mut().map(std::mem::take).unwrap_or_default();
        for d in &log {
            self.decision(d)?;
        }
        if let Some(l) = sim.fair.log.as_mut() {
            // Keep the allocation for the next instant.
            *l = log;
            l.clear();
        }
        for s in closed {
            self.sample_task(sim, s.task)?;
        }
        for c in 0..sim.cpus.len() as u32 {
            let curr = sim.cpus[c as usize].curr;
            if curr != NIL && (curr as usize) < sim.tasks.len() {
                self.sample_task(sim, curr)?;
            }
            self.sample_cpu(sim, c)?;
        }
        Ok(())
    }
}
