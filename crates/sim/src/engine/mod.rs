//! The discrete-event engine: time in integer nanoseconds, one clock for all CPUs.
//!
//! The engine owns tasks, CPUs and the event queue; all scheduling decisions are made by the
//! policy (`crate::cfs::Fair`). `events.rs` documents the order of events at one instant.

pub mod cfs_tasks;
pub mod events;
mod report;
mod rt;
mod setpolicy;
mod sched;
pub mod stats;
pub mod task;
pub mod trace;
mod live;
pub use live::{GroupLive, TaskLive};
pub use report::Samples;
pub mod workloads;

use crate::cfs::{Fair, ReschedCause};
use crate::entity::{Entity, NIL};
use crate::rng::Rng;
use crate::scenario::{self, ScenarioError, SetAttrs, Target, Validated};
use crate::tunables::Config;
use crate::weights::LoadWeight;
use events::{Class, Queue};
use task::{Beh, TState, Task, TaskStats};
use workloads::WlState;

pub use crate::smp::{Level, Smp};

/// A simulated CPU.
#[derive(Clone, Debug)]
pub struct Cpu {
    /// The running task, or NIL when idle.
    pub curr: u32,
    /// Bumped at every switch, so that a completion scheduled for an earlier stint is stale.
    pub gen: u32,
    pub busy_ns: u64,
    /// Idle, asked to run something, and still leaving idle until this time
    /// (`machine.costs.idle_exit_ns`): it schedules then.
    pub exiting_idle: Option<u64>,
    /// First CPU of this CPU's last-level cache.
    pub llc_first: u32,
    pub llc_size: u32,
    /// The higher-class task running here, or NIL (`rt.rs`); `curr` is then NIL too.
    pub rt_curr: u32,
    /// Higher-class tasks runnable here and waiting, in the order they became runnable.
    pub rt_queue: std::collections::VecDeque<u32>,
    /// Time this CPU ran higher-class tasks: the time the fair class lost to them.
    pub rt_ns: u64,
}

/// A `timeline` entry resolved to the tasks, or the task group, it changes.
#[derive(Clone, Debug)]
struct Change {
    at_ns: u64,
    tasks: Vec<u32>,
    cgroup: Option<u32>,
    set: SetAttrs,
}

/// One simulation run.
#[derive(Clone, Debug)]
pub struct Sim {
    pub name: String,
    pub seed: u64,
    pub duration_ns: u64,
    pub fair: Fair,
    pub tasks: Vec<Task>,
    pub cpus: Vec<Cpu>,
    pub now: u64,
    /// Scheduler events processed (see `Sim::events` doc in the README of the engine).
    pub events: u64,
    pub warnings: Vec<String>,
    queue: Queue,
    changes: Vec<Change>,
    /// CPUs asked to reschedule during the current instant.
    dirty: Vec<u32>,
    /// The CPU the code waking a task runs on (`smp_processor_id()` in `try_to_wake_up()`):
    /// a timer's CPU, or the waker's; NIL for none in particular. Only PREEMPT_LAZY asks.
    pub(super) waker_cpu: u32,
    cgroups: Vec<scenario::Cgroup>,
    finished: bool,
    /// What ran where, when recording is on (`enable_trace`; the app's timeline).
    pub trace: Option<trace::Trace>,
    /// Topology, `cfs_tasks` lists and balancer state (`crate::smp`).
    pub smp: Smp,
    /// Workload states, in file order (`workloads/`).
    pub wl: Vec<WlState>,
    /// Why the run stopped before its end, when it did: a fault the core's guards found
    /// (`Fair::fault`) or an instant that would not settle. Never a hang.
    pub runaway: Option<String>,
    /// The scenario's cost estimate (`scenario::estimate`), which bounds an instant's events.
    estimated_events: u64,
    /// What switching, waking and migrating cost (`machine.costs`; zero by default).
    pub costs: scenario::Costs,
    /// Whether any task is in a class above the fair class (`rt.rs`).
    pub has_rt: bool,
}

/// Events one instant may take before the run is declared a runaway: generous against the
/// most a real instant does (every task woken, switched and balanced a few times over), and
/// never below four times the whole run's cost estimate, which a workload of zero-cost
/// messages (hackbench with `msg_us` 0) can spend at a single instant.
fn instant_event_limit(tasks: usize, cpus: usize, changes: usize, estimated: u64) -> u64 {
    (100_000 + 64 * (tasks + cpus + changes) as u64).max(estimated.saturating_mul(4))
}

impl Sim {
    /// Build a run from a validated scenario. Refuses (with the path) what the engine does not
    /// simulate yet, rather than running something else silently.
    pub fn new(v: &Validated) -> Result<Sim, ScenarioError> {
        let s = &v.scenario;
        let cfg = Config::from_scenario(s);
        let warnings = v.warnings.clone();

        let expanded = scenario::expand(s);
        let ncpus = cfg.cpus;
        let smp = Smp::new(&s.machine.shape(), cfg.hz, expanded.len());
        let mut fair = Fair::new(cfg, expanded.len());
        let v12 = fair.v12;
        let mut tasks = Vec::with_capacity(expanded.len());
        let mut wl: Vec<WlState> = Vec::with_capacity(s.workloads.len());
        for (i, t) in expanded.iter().enumerate() {
            let i = i as u32;
            let beh = match (&t.behavior, &t.origin) {
                (Some(spec), _) => Beh::from_spec(spec),
                (None, scenario::Origin::Workload { spec, .. }) => {
                    if wl.len() <= *spec {
                        wl.push(WlState::new(&s.workloads[*spec], i));
                    }
                    let w = wl.len() as u32 - 1;
                    let (role, idx) = wl[w as usize].role_of(i - wl[w as usize].first);
                    Beh::Workload { wl: w, role, idx }
                }
                (None, _) => return Err(ScenarioError::at("tasks", "a task without a behaviour")),
            };
            let cgroup = t.attrs.cgroup.as_ref().and_then(|c| s.cgroups.iter().position(|g| &g.name == c)).map(|x| x as u32);
            // set_load_weight(): a SCHED_IDLE task weighs WEIGHT_IDLEPRIO whatever its nice.
            let weight = if t.attrs.policy == scenario::FairPolicy::Idle { LoadWeight::idle() } else { LoadWeight::for_nice(t.attrs.nice) };
            let mut e = Entity::new(weight, fair.root_rq(0));
            e.policy = t.attrs.policy;
            e.tg = cgroup.unwrap_or(NIL);
            // init_entity_runnable_average(): a new task starts as if it had always run.
            e.avg.load_avg = crate::weights::scale_load_down(e.load.weight);
            if v12 {
                e.latency_offset = fair.calc_latency_offset(t.attrs.latency_nice);
            }
            e.slice = fair.cfg.base_slice_ns;
            if fair.cfg.policy.is_v612_or_later() {
                if let Some(us) = t.attrs.slice_us {
                    // __setscheduler_params(): a custom slice, clamped as sched_setattr() does.
                    e.custom_slice = true;
                    e.slice = crate::eevdf::clamp_custom_slice(us.saturating_mul(1000));
                }
            }
            fair.ents.push(e);
            let mut allowed = t.attrs.cpus.clone().unwrap_or_default();
            allowed.sort_unstable();
            allowed.dedup();
            tasks.push(Task {
                name: t.name.clone(),
                se: i,
                cpu: 0,
                state: TState::Unborn,
                nice: t.attrs.nice,
                latency_nice: t.attrs.latency_nice,
                allowed,
                cgroup,
                start_ns: match &t.behavior {
                    Some(scenario::Behavior::Replay { start_us, .. }) => t.start_ns + start_us * 1000,
                    _ => t.start_ns,
                },
                beh,
                work_left: 0,
                run_start: 0,
                next_fire: 0,
                rng: Rng::new(s.seed, i as u64),
                waking_since: None,
                preempted_since: None,
                overhead: 0,
                migrated: false,
                rt: !t.attrs.policy.is_fair(),
                stats: TaskStats::default(),
            });
        }

        fair.build_task_groups(&s.cgroups);
        let changes = resolve_timeline(s, &expanded);
        let cpus = (0..ncpus)
            .map(|c| {
                let (llc_first, llc_size) = (smp.doms.sd_llc_id[c as usize], smp.doms.sd_llc_size[c as usize]);
                Cpu { curr: NIL, gen: 0, busy_ns: 0, exiting_idle: None, llc_first, llc_size, rt_curr: NIL, rt_queue: Default::default(), rt_ns: 0 }
            })
            .collect();
        let mut queue = Queue::with_capacity(tasks.len() * 2 + changes.len() + 8);
        for (i, t) in tasks.iter().enumerate() {
            queue.push(t.start_ns, Class::Fork, i as u32, 0);
        }
        for (i, c) in changes.iter().enumerate() {
            queue.push(c.at_ns, Class::Timeline, i as u32, 0);
        }
        queue.push(0, Class::Tick, 0, 0);
        let has_rt = tasks.iter().any(|t| t.rt);

        Ok(Sim {
            name: s.name.clone(),
            seed: s.seed,
            duration_ns: s.duration_ms * 1_000_000,
            fair,
            tasks,
            cpus,
            now: 0,
            events: 0,
            warnings,
            queue,
            changes,
            dirty: Vec::with_capacity(ncpus as usize),
            waker_cpu: NIL,
            cgroups: s.cgroups.clone(),
            finished: false,
            trace: None,
            smp,
            wl,
            runaway: None,
            estimated_events: scenario::estimate(s).events,
            costs: s.machine.costs,
            has_rt,
        })
    }

    /// Process every event of the next instant (and the reschedules it causes). Returns false
    /// when the run has reached its end.
    pub fn step_instant(&mut self) -> bool {
        if self.runaway.is_some() {
            return false;
        }
        let t = match self.queue.peek_time() {
            Some(t) if t < self.duration_ns => t,
            _ => return false,
        };
        self.now = t;
        self.fair.now = t;
        let mut ticked = false;
        let budget = instant_event_limit(self.tasks.len(), self.cpus.len(), self.changes.len(), self.estimated_events);
        let limit = self.events + budget;
        while self.queue.peek_time() == Some(t) {
            if self.events > limit || self.fair.fault.is_some() {
                break;
            }
            let Some(ev) = self.queue.pop() else { break };
            match ev.class {
                Class::Completion => self.on_completion(ev.id, ev.gen),
                Class::Timeline => self.on_timeline(ev.id),
                Class::Fork => self.on_fork(ev.id),
                Class::Timer => self.on_timer(ev.id),
                Class::Wake => self.on_wake_arrival(ev.id),
                Class::IdleExit => self.on_idle_exit(ev.id),
                Class::Tick => {
                    self.on_tick();
                    ticked = true;
                }
            }
        }
        self.reschedule_dirty(limit);
        if ticked {
            // The periodic balance sees the instant settled: which tasks run and which wait
            // once the tick's preemptions have taken effect (`smp/balance.rs`).
            self.rebalance_domains();
            self.reschedule_dirty(limit);
        }
        if let Some(f) = self.fair.fault.take() {
            self.stop_runaway(f);
            return false;
        }
        if self.events > limit {
            self.stop_runaway(format!("more than {budget} events at one instant (it would not settle)"));
            return false;
        }
        self.drop_stale_completions();
        true
    }

    /// A burst's completion queued before its CPU switched (a preemption cut the stint short)
    /// can never act: `on_completion()` drops it, and the CPU's switch generation, which it
    /// carries, comes round again only after 2³² more switches. Dropped as soon as it reaches
    /// the front of the queue, it makes no instant of its own, where nothing would happen:
    /// "Step one scheduler event" in the app would show no change (one step in seven of
    /// mixed-behaviours did). The reports are the same.
    #[inline]
    fn drop_stale_completions(&mut self) {
        if self.stale_in_front() {
            self.drop_front_completions();
        }
    }

    /// Cold and out of line: most instants end with a live event in front, and step_instant's
    /// loop need not carry a second copy of the pop.
    #[cold]
    #[inline(never)]
    fn drop_front_completions(&mut self) {
        while self.stale_in_front() {
            self.queue.pop();
        }
    }

    /// Whether the next event is a completion whose CPU has switched since it was queued.
    #[inline]
    fn stale_in_front(&self) -> bool {
        self.queue.front_completion().is_some_and(|(cpu, gen)| self.cpus.get(cpu as usize).is_some_and(|c| c.gen != gen))
    }

    /// Every CPU asked to reschedule during this instant does, in CPU order, wherever the
    /// request was raised. A schedule() can ask again elsewhere (a newly-idle pull updates
    /// the busiest CPU's curr), so this repeats until no request is left.
    #[inline]
    fn reschedule_dirty(&mut self, limit: u64) {
        // Most instants ask nothing more (a burst's end schedules at once): no call then.
        if !self.dirty.is_empty() || !self.fair.resched_pending.is_empty() {
            self.reschedule_asked(limit);
        }
    }

    fn reschedule_asked(&mut self, limit: u64) {
        loop {
            if !self.fair.resched_pending.is_empty() {
                self.dirty.append(&mut self.fair.resched_pending);
            }
            if self.dirty.is_empty() {
                return;
            }
            if self.events > limit || self.fair.fault.is_some() {
                self.dirty.clear();
                return;
            }
            // Usually one CPU (or none) asks at an instant: a sort call per instant was a
            // visible part of a one-CPU run's profile.
            if self.dirty.len() > 1 {
                self.dirty.sort_unstable();
                self.dirty.dedup();
            }
            // A schedule() may ask again (pushing behind these): those go round again.
            let n = self.dirty.len();
            for i in 0..n {
                let cpu = self.dirty[i];
                if self.fair.need_resched(cpu) && !self.leaving_idle(cpu) {
                    self.schedule(cpu);
                }
            }
            self.dirty.drain(..n);
        }
    }

    /// End the run early with `why`, keeping what was measured so far (never a hang).
    #[cold]
    fn stop_runaway(&mut self, why: String) {
        let msg = format!("the run stopped at {} ns: {why}; this is a defect of the model, please report it with the scenario", self.now);
        self.warnings.push(msg.clone());
        self.runaway = Some(msg);
        self.fair.fault = None;
    }

    /// Run until simulated time `t` (exclusive) or the end of the run.
    pub fn run_until(&mut self, t: u64) {
        while self.queue.peek_time().is_some_and(|x| x < t) && self.step_instant() {}
    }

    /// Process every instant up to and including `t`: the state the app shows at time `t`
    /// (its seek processes the instants up to the time asked).
    pub fn run_through(&mut self, t: u64) {
        while self.queue.peek_time().is_some_and(|x| x <= t) && self.step_instant() {}
    }

    /// Run to the end.
    pub fn run(&mut self) {
        while self.step_instant() {}
        self.finish();
    }

    /// Whether a reschedule is pending on any CPU. None is, between instants, but on a CPU
    /// still leaving idle (`machine.costs.idle_exit_ns`): the idle loop sees need_resched only
    /// once it is out, and the `IdleExit` event schedules then.
    pub fn resched_pending(&self) -> bool {
        self.fair.resched.iter().zip(&self.cpus).any(|(r, c)| r.is_some() && c.exiting_idle.is_none())
    }

    /// Charge running tasks up to the end of the run (idempotent).
    pub fn finish(&mut self) {
        if self.finished {
            return;
        }
        self.finished = true;
        self.now = self.duration_ns;
        self.fair.now = self.duration_ns;
        for cpu in 0..self.cpus.len() {
            self.finish_rt(cpu as u32);
            let curr = self.cpus[cpu].curr;
            if curr != NIL {
                let q = self.fair.ents[curr as usize].cfs_rq;
                self.fair.update_curr(q);
                let t = &mut self.tasks[curr as usize];
                let ran = self.duration_ns - t.run_start;
                t.stats.overhead_ns += ran.min(t.overhead);
                self.cpus[cpu].busy_ns += ran;
            }
        }
    }

    fn on_tick(&mut self) {
        for cpu in 0..self.cpus.len() as u32 {
            let curr = self.cpus[cpu as usize].curr;
            if self.cpus[cpu as usize].rt_curr != NIL {
                // task_tick_rt() / task_tick_dl(): nothing the fair class sees.
                self.events += 1;
            }
            if curr != NIL {
                self.events += 1;
                // sched_tick() (v6.18): a pending TIF_NEED_RESCHED_LAZY becomes TIF_NEED_RESCHED
                // before task_tick(); the tick's return to user mode would act on it anyway.
                self.fair.return_to_user(cpu);
                if self.fair.task_tick_fair(curr) {
                    self.dirty.push(cpu);
                }
            }
            // The balancer's update_blocked_averages(), modelled at every tick.
            self.fair.update_blocked_averages(cpu);
        }
        let next = self.now + self.fair.cfg.tick_ns;
        self.queue.push(next, Class::Tick, 0, 0);
    }

    fn on_timeline(&mut self, idx: u32) {
        self.events += 1;
        let Some(c) = self.changes.get(idx as usize) else { return };
        let (tasks, set, cgroup) = (c.tasks.clone(), c.set.clone(), c.cgroup);
        for t in tasks {
            if let Some(p) = set.policy {
                // One sched_setattr() with a policy and other fields is modelled as the policy
                // change, then the rest: the policy comes first so that a new nice is weighed
                // under it (set_load_weight() of an idle task ignores nice). Validation refuses a
                // policy set on a higher-class task, the only refusal sched_setscheduler() has.
                let _ = self.setscheduler(t, p);
            }
            self.setattr(t, &set);
        }
        if let Some(g) = cgroup {
            // cpu.weight / cpu.shares and cpu.latency.nice writes: what update_curr() asks for
            // on the way is theirs, like a sched_setattr()'s.
            self.fair.ctx = ReschedCause::Attr;
            if let Some(shares) = set.shares {
                self.fair.sched_group_set_shares(g, shares);
            }
            if let Some(l) = set.latency_nice {
                self.fair.sched_group_set_latency(g, l);
            }
            for cpu in 0..self.cpus.len() as u32 {
                if self.fair.need_resched(cpu) {
                    self.dirty.push(cpu);
                }
            }
        }
    }
}

/// Resolve each timeline entry to task indices (an expanded name, a base name or a workload
/// name, as `scenario::target_tasks` reads them) or to a task group.
fn resolve_timeline(s: &scenario::Scenario, expanded: &[scenario::ExpandedTask]) -> Vec<Change> {
    s.timeline.iter().map(|e| resolve_change(s, expanded, e)).collect()
}

/// One timeline entry, resolved (also for entries added while a run is under way).
fn resolve_change(s: &scenario::Scenario, expanded: &[scenario::ExpandedTask], e: &scenario::TimelineEntry) -> Change {
    let (tasks, cgroup) = match &e.target {
        Target::Task(name) => (scenario::target_tasks(s, expanded, name).into_iter().map(|i| i as u32).collect(), None),
        Target::Cgroup(name) => (Vec::new(), s.cgroups.iter().position(|g| &g.name == name).map(|g| g as u32)),
    };
    Change { at_ns: e.at_ns, tasks, cgroup, set: e.set.clone() }
}
