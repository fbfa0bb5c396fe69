#!/usr/bin/env node
// The validation report: the same probe workloads on this machine's kernel and in Fairground,
// side by side (docs/validation.md is this script's output; never edit it by hand).
//
//   node scripts/host-compare.mjs [--out docs/validation.md] [--repeats 5] [--seconds 3]
//                                 [--cpu N] [--pair-cpus A,B] [--policy eevdf-v6.18]
//                                 [--hz HZ] [--base-slice-ns NS] [--preemption MODEL]
//                                 [--only ID,ID…]
//
// Not part of CI: it needs a Linux host (6.12 or later for custom slices), a C compiler and
// Rust. It builds tools/host/eevdf_probe.c and the CLI, then runs each probe `repeats` times on
// the host (pinned with sched_setaffinity: one CPU, or two for the pair), and once in the
// model: a scenario with the host's HZ, base slice and preemption model, tunable_scaling
// "none" (the host's scaled base slice is given as is), as many CPUs as the probe uses, and
// this project's measured costs (docs/calibration.md). For every figure: the host's mean and
// run-to-run range, the model's value, the difference, and a verdict (within the host's range
// or not). A "not" is explained from `EXPLAINED` below when the explanation applies, and
// flagged as an unexplained finding otherwise. With the defaults it takes about 2.5 minutes.
// Other load on the probe CPUs distorts the host side: run it on an otherwise quiet machine.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const seconds = Number(arg('--seconds', '3'));
const repeats = Number(arg('--repeats', '5'));
const ncpus = os.cpus().length;
const cpu = Number(arg('--cpu', String(ncpus - 1)));
const pairCpus = arg('--pair-cpus', ncpus >= 2 ? `${ncpus - 2},${ncpus - 1}` : `${cpu}`);
const policy = arg('--policy', 'eevdf-v6.18');
const out = arg('--out', path.join(root, 'docs/validation.md'));
// A subset of the probes by id (nice, slices, periodic-0, periodic-100, …, bursty, pair), to
// look at one finding; docs/validation.md is always made from all of them.
const only = arg('--only') ? arg('--only').split(',') : null;
if (only && !arg('--out')) {
  console.error('host-compare: with --only, give --out (docs/validation.md is made from all the probes)');
  process.exit(2);
}

function sh(cmd, args, opts = {}) {
  return execFileSync(cmd, args, { encoding: 'utf8', ...opts });
}
const tryRead = (f) => { try { return fs.readFileSync(f, 'utf8'); } catch { return null; } };

function kernelConfig() {
  try { return sh('sh', ['-c', 'zcat /proc/config.gz 2>/dev/null']); } catch { /* next */ }
  return tryRead(`/boot/config-${os.release()}`) || '';
}

function hostHz(config) {
  const given = arg('--hz');
  if (given) return { hz: Number(given), how: 'given' };
  const m = /^CONFIG_HZ=(\d+)$/m.exec(config);
  if (m) return { hz: Number(m[1]), how: 'CONFIG_HZ' };
  throw new Error('cannot find CONFIG_HZ: pass --hz');
}

/// The preemption model: debugfs if readable, else the Kconfig default and preempt= on the
/// kernel command line (PREEMPT_DYNAMIC).
function hostPreemption(config) {
  const given = arg('--preemption');
  if (given) return { model: given, how: 'given' };
  const dbg = tryRead('/sys/kernel/debug/sched/preempt');
  if (dbg) {
    const m = /\((\w+)\)/.exec(dbg);
    if (m) return { model: m[1], how: `/sys/kernel/debug/sched/preempt: ${dbg.trim()}` };
  }
  const cmd = /(?:^|\s)preempt=(\w+)/.exec(tryRead('/proc/cmdline') || '');
  const dynamic = /^CONFIG_PREEMPT_DYNAMIC=y$/m.test(config);
  if (cmd && dynamic) return { model: cmd[1], how: `preempt=${cmd[1]} on the kernel command line (PREEMPT_DYNAMIC)` };
  for (const [k, model] of [['PREEMPT_LAZY', 'lazy'], ['PREEMPT', 'full'], ['PREEMPT_VOLUNTARY', 'voluntary'], ['PREEMPT_NONE', 'none']]) {
    if (new RegExp(`^CONFIG_${k}=y$`, 'm').test(config)) {
      return { model, how: `CONFIG_${k}=y${dynamic ? ', PREEMPT_DYNAMIC with no preempt= on the command line (debugfs not readable)' : ''}` };
    }
  }
  return { model: 'full', how: 'unknown (assumed full)' };
}

/// The base slice the host's EEVDF uses: debugfs if readable, else 0.70 ms (6.15+) or 0.75 ms
/// scaled by 1 + ilog2(min(cpus, 8)), as update_sysctl() does at boot.
function hostBaseSlice() {
  const given = arg('--base-slice-ns');
  if (given) return { ns: Number(given), how: 'given' };
  const f = '/sys/kernel/debug/sched/base_slice_ns';
  const v = tryRead(f);
  if (v) return { ns: Number(v.trim()), how: f };
  const [maj, min] = os.release().split('.').map(Number);
  const normalized = maj > 6 || (maj === 6 && min >= 15) ? 700000 : 750000;
  const factor = 1 + Math.floor(Math.log2(Math.min(ncpus, 8)));
  return { ns: normalized * factor, how: `computed (debugfs not readable): ${normalized / 1e6} ms × (1 + ilog2(min(${ncpus}, 8)))` };
}

function build() {
  const probe = path.join(os.tmpdir(), 'eevdf_probe');
  sh('cc', ['-O2', '-Wall', '-o', probe, path.join(root, 'tools/host/eevdf_probe.c'), '-lm']);
  sh('cargo', ['build', '--release', '-q', '-p', 'fairground-cli'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const target = process.env.CARGO_TARGET_DIR || path.join(root, 'target');
  return { probe, cli: path.join(target, 'release', 'fairground') };
}

function runProbe(probe, args, env = {}) {
  return new Promise((resolve, reject) => {
    const p = spawn(probe, args.map(String), { env: { ...process.env, ...env } });
    let txt = '';
    p.stdout.on('data', (d) => { txt += d; });
    p.stderr.on('data', (d) => process.stderr.write(d));
    // 'close', not 'exit': the output may still be unread when the process exits.
    p.on('close', (code) => (code === 0 ? resolve(parseProbe(txt)) : reject(new Error(`probe ${args.join(' ')} exited ${code}`))));
  });
}

function parseProbe(txt) {
  const r = {};
  for (const m of txt.matchAll(/(\w+) (\d+)/g)) r[m[1]] = Number(m[2]);
  return r;
}

// ---- the probes ---------------------------------------------------------------------------

const hog = (name, nice = 0, slice_us = 0) => ({ name, nice, slice_us, kind: 'hog' });
const periodic = (name, slice_us) => ({ name, nice: 0, slice_us, kind: 'periodic', period_us: 10101, run_us: 100 });
const bursty = (name, run_us, sleep_us) => ({ name, nice: 0, slice_us: 0, kind: 'bursty', run_us, sleep_us });
const SHARE = ['share'];
const LAT = ['p50', 'p90'];
// A wakeup is late when it waited more than the wakeup path: for a tick, or for another task.
const LATE_NS = 500000;

// 10.101 ms, not 10: the host's timer has no fixed phase against its tick, and the model's
// wakeups sweep the tick's phases only if the period is not a multiple of it; and not 10.1
// either: 10.1 ms against a 4 ms tick visits only 40 phases, 0.1 ms apart, so every latency
// that waits for a tick falls on a 0.1 ms grid and a percentile of them moves in 0.1 ms steps
// (the model's p90 was 3.7 ms where the host's continuous phases gave 3.6). 10 101 µs is prime
// to any tick in µs, so the model's 297 wakeups fall at phases 1 µs apart.
const PROBES = [
  { id: 'nice', title: 'Hogs at mixed nice (0, 0, 5) on one CPU', tasks: [hog('a'), hog('b'), hog('c', 5)], figures: { a: SHARE, b: SHARE, c: SHARE } },
  {
    id: 'slices', title: 'Hogs with custom slices (0.1 ms, 10 ms, default at nice 5) on one CPU',
    tasks: [hog('a', 0, 100), hog('b', 0, 10000), hog('c', 5)], figures: { a: SHARE, b: SHARE, c: SHARE },
  },
  ...[['default', 0], ['0.1 ms', 100], ['0.75 ms', 750], ['3 ms', 3000]].map(([label, s]) => ({
    id: `periodic-${s}`, title: `A periodic task (0.1 ms every 10.101 ms, slice ${label}) against four hogs on one CPU`,
    tasks: [hog('h0'), hog('h1'), hog('h2'), hog('h3'), periodic('cyc', s)], figures: { cyc: [...LAT, 'late'] },
  })),
  {
    id: 'bursty', title: 'Two bursty tasks (3 ms of CPU, then 1 ms asleep) sharing one CPU',
    tasks: [bursty('x', 3000, 1000), bursty('y', 3000, 1000)], figures: { x: ['share', ...LAT, 'late'], y: ['share', ...LAT, 'late'] },
  },
  {
    id: 'pair', title: 'A wakeup-heavy pair (0.1 ms of CPU, then 0.4 ms asleep) across two CPUs',
    tasks: [bursty('p', 100, 400), bursty('q', 100, 400)], cpus: 'pair', figures: { p: [...LAT, 'migrations'], q: [...LAT, 'migrations'] },
  },
];

/// The figure `what` of the same probe and task as `f`.
const sibling = (f, rows, what) => rows.find((r) => r.probe === f.probe && r.task === f.task && r.what === what);

/// Why a figure can differ beyond the host's spread, where the reason is known. Each is a
/// finding of this report (docs/validation.md prints the one that applies under its table).
const EXPLAINED = {
  latency_floor: (f) => f.what.startsWith('p') && f.host.mean < 200e3 && f.model < f.host.mean,
  shared_cpu: (f, env) => (f.what.startsWith('p') || f.what === 'late') && env.lone < 0.95,
  pair_migrations: (f) => f.what === 'migrations',
  // A share in whole ticks: at most one tick's CPU time of the window apart.
  tick_quantum: (f, env) => f.what === 'share' && Math.abs(f.model - f.host.mean) <= env.tickShare,
  // The p90 of a two-mode latency: the late fraction agrees, the percentile falls in the
  // other mode (on one side of LATE_NS for the model, the other for the host's mean or some run).
  percentile_knee: (f, env, rows) => {
    if (f.what !== 'p90') return false;
    const late = sibling(f, rows, 'late');
    if (!late || !late.within) return false;
    const side = (x) => x > LATE_NS;
    return side(f.model) !== side(f.host.mean) || side(f.host.min) !== side(f.host.max);
  },
  // Another seed's draw of the bursts puts the model in the host's range.
  model_draw: (f) => f.seeds != null && f.seeds.some((x) => x >= f.host.min && x <= f.host.max),
  // The same probe started at another point of the tick puts the model in the host's range.
  start_phase: (f) => f.starts != null && f.starts.some((x) => x >= f.host.min && x <= f.host.max),
  // One wakeup's step: the model's sample one rank below or above its percentile lies in the
  // host's range.
  rank_step: (f) => (f.what === 'p50' || f.what === 'p90') && (f.adjacent || []).some((x) => x >= f.host.min && x <= f.host.max),
};
const EXPLANATIONS = {
  latency_floor: 'The host\'s latency floor: on the host a wakeup latency is measured from the timer\'s expiry to the task\'s first instruction, so it includes the hrtimer interrupt, the wakeup, the switch and the return to user mode on a virtual machine (tens of µs even on an idle CPU); the model charges only the calibrated costs of docs/calibration.md (`costs: "measured"`: 19.2 µs to reach the runqueue, 4.5 µs to leave idle, 1 µs per switch), measured on a quiet host. A difference of this size is the cost model\'s, not the policy\'s.',
  shared_cpu: 'The host\'s CPU was shared: a lone hog pinned to the probe CPU got less than 95 % of it (see "The host"), so other work (build jobs in other sessions, hence other autogroups) was runnable there during the probes. Its task groups compete with the probe\'s group at the root runqueue, where a wakeup preemption is decided between group entities (find_matching_se()), not between the periodic task and the hogs; the model has no such work. Latency figures of this run are therefore not a validation of the policy: re-run the command on a quiet machine.',
  pair_migrations: 'Migrations of the pair: the model\'s wakeup placement is a model of select_idle_sibling() (docs/model.md, "Many CPUs"), without wake_affine, cache hotness or the other tasks of the machine; on the host the two CPUs are shared with everything else running (build jobs, the harness), which moves the pair around.',
  tick_quantum: 'The tick\'s quantum: hogs are preempted only at ticks (nothing else enters the kernel on their CPU), so each one\'s CPU time is a whole number of ticks, and where in its lag cycle the window ends decides which hog had the last one. One tick of the window is the bound printed with the verdict; the model\'s and the host\'s shares are less than that apart.',
  model_draw: 'The model\'s own draw: its bursts are drawn from the host\'s measured spread, so its run is one draw of many, and under another seed (seeds 1-5, their range printed with the verdict; seed 1 is the value shown) it lies in the host\'s range. With a burst\'s sd near 0.1 ms, a task\'s CPU time over 3 s moves by about 0.1 pt from seed to seed, and its p90 by tens of µs.',
  start_phase: 'Where the run starts in the tick: the model\'s tasks start together at a tick (time 0), the host\'s at an arbitrary point of it (PROBE_START_NS), and without the host\'s timer and tick jitter the model keeps its start\'s phase for the whole run: the same probe started 1, 2 or 3 ms after a tick (values printed with the verdict, in that order after the reported one) moves its late fraction by up to 3.7 pt and its p90 by up to 0.2 ms, and one of those starts lies in the host\'s range. The host\'s five runs, each started at its own phase, agree more closely than that, as a run that forgets its start would.',
  rank_step: 'One wakeup\'s step: the model\'s percentile is one sample of its single run, and the sample one rank below or above it (one wakeup more or fewer among the late ones) lies in the host\'s range. The model\'s wakeups sweep the tick\'s phases in fixed steps (10.101 ms against a 4 ms tick), so its tick-bound latencies come in clusters about 40 µs apart (at the default slice: 3557, 3596-3598, 3637-3639, 3677 µs around its p90, in a run of this model), and a percentile of them moves a whole cluster at a time; the host\'s timer and tick land where they will (in traces of this host the tick fired 3-79 µs past its 4 ms grid, median 12 µs), so its percentiles fall between.',
  percentile_knee: 'The p90 of a two-mode latency: a wakeup either runs at once (tens of µs) or waits for the next tick (up to a tick), and the fraction that waits, the "late" row (more than 0.5 ms late), agrees with the host\'s. With that fraction near 10 %, the 90th percentile falls in one mode or the other by a few wakeups, so p90 jumps by milliseconds between runs or between host and model while the behaviour is the same.',
};

function hostArgs(t, cpus) {
  const base = [t.kind, seconds, cpus, t.nice, t.slice_us];
  if (t.kind === 'periodic') return [...base, t.period_us, t.run_us];
  if (t.kind === 'bursty') return [...base, t.run_us, t.sleep_us];
  return base;
}

async function hostRun(probe, p) {
  const cpus = p.cpus === 'pair' ? pairCpus : String(cpu);
  // One window for all the probe's tasks, as in the model: started one after another, each
  // would otherwise measure its own 3 s, and the first and last would each run alone for the
  // few ms between the spawns (about 0.2 pt of the nice-5 hog's share at 3 s). process.hrtime is
  // CLOCK_MONOTONIC, the probe's clock.
  const start = process.hrtime.bigint() + 500000000n;
  const env = { PROBE_START_NS: String(start) };
  const res = await Promise.all(p.tasks.map((t) => runProbe(probe, hostArgs(t, cpus), env)));
  // A share is of the CPU time the probe's tasks got together: other work on the machine
  // (in other autogroups or cgroups) takes its part of the CPU, which the model does not have.
  const total = res.reduce((a, r) => a + r.cpu_ns, 0);
  return res.map((r, i) => ({
    share: r.cpu_ns / total, p50: r.p50, p90: r.p90, late: r.count ? r.late / r.count : null, migrations: r.migrations,
    cycle: cycleCpu(p.tasks[i], r),
  }));
}

/// The CPU time one cycle of a task cost it on the host (ns): a periodic task's CPU time per
/// wakeup, a bursty task's per burst with its spread (the probe reads its CPU clock after each
/// wakeup); null for a hog. It is the burst as the kernel charged it: the spin and the task's
/// own kernel work (its wakeup's return to user mode, the sleep's system call and timer, the
/// interrupts that struck it: no IRQ_TIME_ACCOUNTING here).
function cycleCpu(t, r) {
  if (t.kind === 'periodic') return r.cycles ? { mean: r.cpu_ns / r.cycles, sd: null } : null;
  if (t.kind === 'bursty' && r.cycle_cpu_mean_ns) return { mean: r.cycle_cpu_mean_ns, sd: r.cycle_cpu_sd_ns };
  return null;
}

/// Each task's cycle over the host runs: the mean of their means, and the spread of all the
/// cycles together (the runs' variances and the variance of their means).
function pooledCycles(p, runs) {
  return p.tasks.map((t, i) => {
    const c = runs.map((r) => r[i].cycle).filter((x) => x);
    if (!c.length) return null;
    const mean = c.reduce((a, x) => a + x.mean, 0) / c.length;
    if (c.some((x) => x.sd == null)) return { mean, sd: null };
    const within = c.reduce((a, x) => a + x.sd * x.sd, 0) / c.length;
    const between = c.reduce((a, x) => a + (x.mean - mean) ** 2, 0) / c.length;
    return { mean, sd: Math.sqrt(within + between) };
  });
}

// The model charges each switch-in this much (costs "measured", docs/calibration.md); a
// cycle's burst is the host's cycle less one switch, so that the model's task is charged what
// the host's was.
const MODEL_SWITCH_NS = 980;
// The seeds of the model's runs where it draws bursts; the first is the one reported.
const MODEL_SEEDS = [1, 2, 3, 4, 5];
// Where in the tick the model's tasks start (ms after one); the first is the one reported.
const START_MS = [0, 1, 2, 3];

/// A task's behaviour in the model. A periodic or bursty task needs, per cycle, the CPU time
/// its host runs were charged (pooledCycles), not the nominal run: a 3 ms spin cost 2.8-3.35 ms
/// of CPU in a trace of this host (sd 78 µs), and with exact 3 ms bursts the model's two
/// bursty tasks locked into one cycle with the tick that the host's never held.
function modelBehavior(t, cycle) {
  if (t.kind === 'hog') return { kind: 'hog' };
  const us = (ns) => Math.round(ns / 100) / 10;
  const run = cycle ? Math.max(1, (cycle.mean - MODEL_SWITCH_NS) / 1e3) : t.run_us;
  if (t.kind === 'periodic') return { kind: 'periodic', period_us: t.period_us, run_us: Math.max(1, Math.round(run)) };
  const run_us = cycle && cycle.sd ? { normal: [us(run * 1e3), us(cycle.sd)] } : run;
  return { kind: 'bursty', run_us, sleep_us: t.sleep_us };
}

function simRun(cli, p, env, cycles, seed = 1, startMs = 0) {
  const pair = p.cpus === 'pair';
  const scenario = {
    format: 'fairground-scenario/1',
    name: `validation ${p.id}`,
    seed,
    duration_ms: Math.round(seconds * 1000) + startMs,
    machine: { cpus: pair ? 2 : 1, hz: env.hz, preemption: env.modelPreemption, costs: 'measured' },
    scheduler: { policy, tunables: { tunable_scaling: 'none', base_slice_ns: env.baseSlice } },
    tasks: p.tasks.map((t) => ({
      name: t.name,
      ...(startMs ? { start_ms: startMs } : {}),
      nice: t.nice,
      ...(t.slice_us ? { slice_us: t.slice_us } : {}),
      behavior: modelBehavior(t, cycles[p.tasks.indexOf(t)]),
    })),
  };
  const file = path.join(os.tmpdir(), `fairground-validation-${p.id}${seed === 1 ? '' : `-seed${seed}`}${startMs ? `-start${startMs}` : ''}.json`);
  fs.writeFileSync(file, JSON.stringify(scenario));
  const report = JSON.parse(sh(cli, ['run', file, '--json']));
  const total = report.tasks.reduce((a, t) => a + t.cpu_ns, 0);
  // Every wakeup latency, for the late fraction (`fairground samples`: task,kind,ns).
  const lat = {};
  for (const line of sh(cli, ['samples', file]).split('\n').slice(1)) {
    const [task, kind, ns] = line.split(',');
    if (kind !== 'wakeup_latency') continue;
    (lat[task] ||= []).push(Number(ns));
  }
  // The samples one rank either side of a nearest-rank percentile (rank_step).
  const adjacent = (v, q) => {
    if (!v || v.length < 3) return [];
    const sorted = [...v].sort((a, b) => a - b);
    const r = Math.max(1, Math.ceil(q * sorted.length));
    return [sorted[r - 2], sorted[r]].filter((x) => x != null);
  };
  return report.tasks.map((t) => ({
    adjacent: { p50: adjacent(lat[t.name], 0.5), p90: adjacent(lat[t.name], 0.9) },
    share: t.cpu_ns / total,
    p50: t.wakeup_latency_ns.p50,
    p90: t.wakeup_latency_ns.p90,
    late: lat[t.name] ? lat[t.name].filter((ns) => ns > LATE_NS).length / lat[t.name].length : null,
    migrations: t.migrations,
  }));
}

// ---- the report ---------------------------------------------------------------------------

const fmt = {
  share: (x) => `${(100 * x).toFixed(2)} %`,
  p50: (ns) => (ns == null ? '–' : `${(ns / 1e3).toFixed(0)} µs`),
  migrations: (x) => `${x.toFixed(0)}`,
};
fmt.p90 = fmt.p50;
fmt.late = (x) => (x == null ? '–' : `${(100 * x).toFixed(1)} %`);
const diff = {
  share: (m, h) => `${(100 * (m - h)) >= 0 ? '+' : ''}${(100 * (m - h)).toFixed(2)} pt`,
  p50: (m, h) => `${m - h >= 0 ? '+' : ''}${((m - h) / 1e3).toFixed(0)} µs`,
  migrations: (m, h) => `${m - h >= 0 ? '+' : ''}${(m - h).toFixed(0)}`,
};
diff.p90 = diff.p50;
diff.late = (m, h) => `${(100 * (m - h)) >= 0 ? '+' : ''}${(100 * (m - h)).toFixed(1)} pt`;

function stats(xs) {
  const v = xs.filter((x) => x != null);
  const mean = v.reduce((a, b) => a + b, 0) / v.length;
  return { mean, min: Math.min(...v), max: Math.max(...v), n: v.length };
}

async function main() {
  const config = kernelConfig();
  const { hz, how: hzHow } = hostHz(config);
  const pre = hostPreemption(config);
  const base = hostBaseSlice();
  const modelPreemption = ['none', 'voluntary', 'full', 'lazy'].includes(pre.model) ? pre.model : 'full';
  const { probe, cli } = build();
  const cpuModel = (/^model name\s*:\s*(.*)$/m.exec(tryRead('/proc/cpuinfo') || '') || [])[1] || os.cpus()[0].model;
  const uname = sh('uname', ['-a']).trim();
  const started = new Date();
  const loadBefore = os.loadavg();
  // How much of the probe CPU a lone hog gets, before and after: below 1, other work shares it.
  const lone = async () => (await runProbe(probe, ['hog', 1, cpu, 0, 0])).cpu_ns / 1e9;
  const loneBefore = await lone();
  // One tick's CPU time as a share of the window (the tick_quantum bound).
  const env = { hz, baseSlice: base.ns, modelPreemption, lone: loneBefore, tickShare: 1 / (hz * seconds) };
  const rows = [];
  const probes = PROBES.filter((p) => !only || only.includes(p.id));
  // The repeats go round the probes (each probe's runs about a round of all the probes apart),
  // not one probe's back to back: the host's figures drift over minutes more than they vary
  // between consecutive runs (the periodic probe at a 0.75 ms slice gave p90 3027-3086 µs in
  // one invocation and 3025-3268 µs in the next), and a range of consecutive runs would take
  // that drift for a difference of the model's.
  const hostRuns = new Map(probes.map((p) => [p, []]));
  for (let r = 0; r < repeats; r++) {
    process.stderr.write(`round ${r + 1} of ${repeats}: `);
    for (const p of probes) {
      hostRuns.get(p).push(await hostRun(probe, p));
      process.stderr.write(`${p.id} `);
    }
    process.stderr.write('\n');
  }
  for (const p of probes) {
    const runs = hostRuns.get(p);
    const cycles = pooledCycles(p, runs);
    p.cycles = cycles;
    const sim = simRun(cli, p, env, cycles);
    // Bursts drawn from the host's spread make the model's run one draw of many: the same
    // probe under other seeds, for the model_draw reason.
    const drawn = cycles.some((c) => c && c.sd);
    const others = drawn ? MODEL_SEEDS.slice(1).map((seed) => simRun(cli, p, env, cycles, seed)) : [];
    // A periodic task's figures depend on where in the tick the model's tasks start (its
    // wakeups keep that phase for the whole run); the host's start anywhere: the same probe
    // started 1, 2 and 3 ms after a tick, for the start_phase reason.
    const tickMs = 1000 / env.hz;
    const periodic = p.tasks.some((t) => t.kind === 'periodic');
    const shifted = periodic ? START_MS.filter((ms) => ms > 0 && ms < tickMs).map((ms) => simRun(cli, p, env, cycles, 1, ms)) : [];
    for (const [name, whats] of Object.entries(p.figures)) {
      const i = p.tasks.findIndex((t) => t.name === name);
      for (const what of whats) {
        const perSecond = what === 'migrations' ? seconds : 1;
        const host = stats(runs.map((r) => (r[i][what] == null ? null : r[i][what] / perSecond)));
        const model = sim[i][what] / perSecond;
        const within = model >= host.min && model <= host.max;
        const f = { probe: p, task: name, what, host, model, within, adjacent: sim[i].adjacent[what] };
        f.seeds = others.length ? [model, ...others.map((o) => o[i][what] / perSecond)] : null;
        f.starts = shifted.length && what !== 'share' ? [model, ...shifted.map((o) => o[i][what] / perSecond)] : null;
        f.abs2 = what === 'share' ? Math.abs(model - host.mean) <= 0.02 : null;
        rows.push(f);
      }
    }
  }
  const loadAfter = os.loadavg();
  const loneAfter = await lone();
  env.lone = Math.min(loneBefore, loneAfter);
  for (const f of rows) {
    f.explained = f.within ? null : Object.keys(EXPLAINED).find((k) => EXPLAINED[k](f, env, rows)) || 'unexplained';
  }
  const L = [];
  L.push('# Validation: Fairground against this machine\'s kernel');
  L.push('');
  L.push('Generated by `node scripts/host-compare.mjs` (never edited by hand; the script says how each');
  L.push('figure is made). Each probe runs on the host kernel, pinned, ' + `${repeats} times for ${seconds} s each (the repeats going round the probes), and once in the model`);
  L.push(`(\`${policy}\`) with the host's HZ, base slice and preemption model. "Host" is the mean of the runs and`);
  L.push('[min – max] their range; the verdict is **within** when the model\'s value lies in that range.');
  L.push('A share is of the CPU time the probe\'s tasks got together (on the host, other work takes its part of');
  L.push('the CPU, which the model does not have). Latencies are wakeup latencies (timer expiry to running);');
  L.push('"late" is the fraction of wakeups more than 0.5 ms late (they waited for a tick or for another task,');
  L.push('not only for the wakeup path); "migrations" are per second. The tasks of a probe share one window.');
  L.push('');
  L.push('## The host');
  L.push('');
  L.push(`- uname: \`${uname}\``);
  L.push(`- CPU: ${cpuModel}, ${ncpus} CPUs; probes on CPU ${cpu}, the pair on CPUs ${pairCpus}`);
  L.push(`- HZ: ${hz} (${hzHow})`);
  L.push(`- preemption model: ${pre.model} (${pre.how}); the model runs with \`machine.preemption: "${modelPreemption}"\``);
  L.push(`- base slice: ${base.ns} ns (${base.how}); the model runs with \`tunable_scaling: "none"\`, \`base_slice_ns: ${base.ns}\``);
  L.push(`- costs in the model: \`"measured"\` (docs/calibration.md)`);
  L.push(`- other work on CPU ${cpu}: a lone pinned hog got ${(100 * loneBefore).toFixed(1)} % of it before the probes and ${(100 * loneAfter).toFixed(1)} % after${env.lone < 0.95 ? ' (**shared**: latency verdicts of this run are not a validation)' : ' (quiet)'}`);
  L.push(`- run at ${started.toISOString().replace(/\.\d+Z$/, 'Z')}; load average before ${loadBefore.map((x) => x.toFixed(2)).join(' ')}, after ${loadAfter.map((x) => x.toFixed(2)).join(' ')} (other work on the machine shares the probe CPUs)`);
  L.push('');
  L.push('## Summary');
  L.push('');
  const n = rows.length;
  const within = rows.filter((r) => r.within).length;
  const shares = rows.filter((r) => r.what === 'share');
  const notFor = (k) => rows.filter((r) => !r.within && r.explained === k).length;
  const reasons = Object.keys(EXPLANATIONS);
  L.push(`| figures | within the host's spread | ${reasons.map((k) => `not: ${k.replace('_', ' ')}`).join(' | ')} | not, unexplained | CPU shares within 2 pt of the host's mean |`);
  L.push(`|---|---|${reasons.map(() => '---|').join('')}---|---|`);
  L.push(`| ${n} | ${within} | ${reasons.map((k) => notFor(k)).join(' | ')} | ${notFor('unexplained')} | ${shares.filter((r) => r.abs2).length} of ${shares.length} |`);
  L.push('');
  for (const p of probes) {
    L.push(`## ${p.title}`);
    L.push('');
    L.push('| task | figure | host mean [min – max] | model | model − host | verdict |');
    L.push('|---|---|---|---|---|---|');
    const pr = rows.filter((r) => r.probe === p);
    for (const r of pr) {
      const f = fmt[r.what];
      const bound = r.explained === 'tick_quantum' ? `: one tick = ${(100 * env.tickShare).toFixed(2)} pt`
        : r.explained === 'model_draw' ? `: seeds ${MODEL_SEEDS[0]}-${MODEL_SEEDS.at(-1)} give ${f(Math.min(...r.seeds))} – ${f(Math.max(...r.seeds))}`
          : r.explained === 'start_phase' ? `: started ${r.starts.map((_, k) => START_MS[k]).join(', ')} ms after a tick, ${r.starts.map(f).join(', ')}` : '';
      const v = r.within ? 'within' : r.explained === 'unexplained' ? '**not: unexplained finding**' : `not (${r.explained.replace('_', ' ')}${bound})`;
      const extra = r.what === 'share' ? (r.abs2 ? ', ≤ 2 pt' : ', **> 2 pt**') : '';
      L.push(`| ${r.task} | ${r.what} | ${f(r.host.mean)} [${f(r.host.min)} – ${f(r.host.max)}] | ${f(r.model)} | ${diff[r.what](r.model, r.host.mean)} | ${v}${extra} |`);
    }
    const used = p.tasks.map((t, i) => [t, p.cycles[i]]).filter(([, c]) => c);
    if (used.length) {
      L.push('');
      L.push('Each cycle in the model needs the CPU time the host charged for it, as the probe measured it (mean of the runs, with the spread of the bursts where it draws them): '
        + used.map(([t, c]) => `${t.name} ${(c.mean / 1e3).toFixed(1)} µs${c.sd != null ? ` (sd ${(c.sd / 1e3).toFixed(1)} µs)` : ''} for a nominal ${t.run_us} µs`).join('; ')
        + `, less the model's own ${MODEL_SWITCH_NS / 1e3} µs switch.`);
    }
    const reasons = [...new Set(pr.filter((r) => !r.within).map((r) => r.explained))];
    for (const k of reasons) {
      L.push('');
      L.push(k === 'unexplained'
        ? '**Unexplained finding:** the model is outside the host\'s spread here and no known reason applies; keep it and find out why (do not widen the verdict).'
        : `**Finding (${k.replace('_', ' ')}):** ${EXPLANATIONS[k]}`);
    }
    L.push('');
  }
  L.push('## The model\'s source, and what the probes themselves do');
  L.push('');
  L.push(`This host runs ${os.release()}. The model\'s \`eevdf-v6.18\` follows fair.c, features.h and core.c of 6.18.44`);
  L.push('as a tree tracking the 6.18.y stable releases has them (docs/model.md, "EEVDF v6.18": the commits');
  L.push('after 6.18.2 it takes: zero_vruntime, the lag clamp on the longest queued slice, protection set at');
  L.push('a pick only and kept across a reweight, the wakeup check of the NEXT_BUDDY rework). The host\'s');
  L.push('own patches, if any, are not known here.');
  L.push('');
  L.push('How the probes are made so that host and model measure the same thing (tools/host/eevdf_probe.c):');
  L.push('');
  L.push('- A burn spins a calibrated count and makes no system call. Reading CLOCK_THREAD_CPUTIME_ID in the');
  L.push('  loop, as the probe first did, is one, and task_sched_runtime() (core.c) calls update_curr() for the');
  L.push('  running task: the kernel then noticed a used-up request within microseconds and switched at the');
  L.push('  return to user mode (two bursty tasks alternated every 1.40 ms with no interrupt in between, in a');
  L.push('  trace of this host), where the model, whose tasks make no such calls, waits for the tick.');
  L.push('- The tasks of a probe share one window (PROBE_START_NS): spawned one after another, each measured');
  L.push('  its own 3 s, and the first and the last ran alone for the ms between the spawns, which moved the');
  L.push('  nice-5 hog\'s share by about +0.2 pt (14.28 % before, 14.09 % with one window, in runs on this host).');
  L.push('- The periodic task\'s period is 10.101 ms, prime to the tick in µs (see PROBES in the script).');
  L.push('- A burst in the model is what the host charged the task for one (a bursty task reads its CPU clock');
  L.push('  after each wakeup; a periodic one\'s is its CPU time over its wakeups), not its nominal length. A');
  L.push('  spin of a fixed count costs a varying CPU time, and');
  L.push('  the kernel charges the task its own kernel work and the interrupts that strike it (no');
  L.push('  IRQ_TIME_ACCOUNTING here): in a trace of this host (sched_stat_runtime summed per burst) 3 ms');
  L.push('  spins were charged 2.79-3.35 ms, sd 0.078 ms. With exact 3 ms bursts the model\'s two bursty tasks');
  L.push('  locked into one cycle with the tick (468 wakeups in 3 s, 30.1 % late, p90 2973 µs, where the host');
  L.push('  had 486 wakeups and 33-41 % late); with bursts drawn from a normal of that spread they do not');
  L.push('  (485-488 wakeups, 35.7-37.0 % late, p90 1.58-1.93 ms over seeds 1-3). The periodic task is charged');
  L.push('  more than its 0.1 ms per wakeup (its tables say how much); in the model, 120 µs instead of 100');
  L.push('  raised its late fraction by 1.4-2.1 pt at the 0.1, 0.75 and 3 ms slices.');
  L.push('');
  fs.writeFileSync(out, L.join('\n'));
  console.log(`wrote ${path.relative(process.cwd(), out)}: ${within} of ${n} figures within the host's spread`);
}

main().catch((e) => {
  console.error(`host-compare: ${e.message}`);
  process.exit(1);
});
