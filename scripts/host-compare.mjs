#!/usr/bin/env node
// Compare Fairground's eevdf-v6.12 with the EEVDF kernel this machine runs (the host-kernel
// comparison). Not part of CI: it needs a Linux host (6.12 or later for custom slices), a C
// compiler, and a CPU it can load for about a minute.
//
//   node scripts/host-compare.mjs [--seconds 10] [--cpu N] [--hz HZ] [--base-slice-ns NS]
//
// It builds tools/host/eevdf_probe.c and the CLI, then runs four experiments on one CPU of
// the host, each also as a Fairground scenario with the tunables stated explicitly
// (tunable_scaling "none", the host's base slice, the host's HZ, one CPU):
//   1. three hogs at nice 0, 0, 5: CPU shares;
//   2. the same hogs with custom slices 0.1 ms, 10 ms and the default: CPU shares;
//   3. four hogs and a periodic task (every 10.1 ms, 0.1 ms of work): its wakeup latency;
//   4. the same with the periodic task's slice set to 0.1 ms (sched_runtime).
// The host's base slice is read from /sys/kernel/debug/sched/base_slice_ns; as root, debugfs
// is mounted for that and unmounted again. HZ comes from /proc/config.gz or /boot/config-*.
// Other load on the chosen CPU distorts the host side: run it on an otherwise idle machine.
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
const seconds = Number(arg('--seconds', '10'));
const cpu = Number(arg('--cpu', String(os.cpus().length - 1)));

function sh(cmd, args, opts = {}) {
  return execFileSync(cmd, args, { encoding: 'utf8', ...opts });
}

function hostHz() {
  const given = arg('--hz');
  if (given) return Number(given);
  const tries = [
    () => sh('sh', ['-c', 'zcat /proc/config.gz 2>/dev/null']),
    () => fs.readFileSync(`/boot/config-${os.release()}`, 'utf8'),
  ];
  for (const t of tries) {
    try {
      const m = /^CONFIG_HZ=(\d+)$/m.exec(t());
      if (m) return Number(m[1]);
    } catch { /* next */ }
  }
  throw new Error('cannot find CONFIG_HZ: pass --hz');
}

function hostBaseSlice() {
  const given = arg('--base-slice-ns');
  if (given) return { ns: Number(given), how: 'given' };
  const f = '/sys/kernel/debug/sched/base_slice_ns';
  const read = () => Number(fs.readFileSync(f, 'utf8').trim());
  try {
    return { ns: read(), how: f };
  } catch { /* not mounted */ }
  if (process.getuid && process.getuid() === 0) {
    try {
      sh('mount', ['-t', 'debugfs', 'nodev', '/sys/kernel/debug']);
      try {
        return { ns: read(), how: `${f} (debugfs mounted and unmounted again)` };
      } finally {
        sh('umount', ['/sys/kernel/debug']);
      }
    } catch { /* fall through */ }
  }
  const n = Math.min(os.cpus().length, 8);
  return { ns: 750000 * (1 + Math.floor(Math.log2(n))), how: 'computed: 0.75 ms × (1 + ilog2(min(cpus, 8)))' };
}

function build() {
  const probe = path.join(os.tmpdir(), 'eevdf_probe');
  sh('cc', ['-O2', '-Wall', '-o', probe, path.join(root, 'tools/host/eevdf_probe.c')]);
  sh('cargo', ['build', '--release', '-q', '-p', 'fairground-cli'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const target = process.env.CARGO_TARGET_DIR || path.join(root, 'target');
  return { probe, cli: path.join(target, 'release', 'fairground') };
}

function runProbe(probe, args) {
  return new Promise((resolve, reject) => {
    const p = spawn(probe, args.map(String));
    let out = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => process.stderr.write(d));
    p.on('exit', (code) => (code === 0 ? resolve(parseProbe(out)) : reject(new Error(`probe ${args.join(' ')} exited ${code}`))));
  });
}

function parseProbe(out) {
  const r = {};
  for (const m of out.matchAll(/(\w+) (\d+)/g)) r[m[1]] = Number(m[2]);
  return r;
}

async function hostRun(probe, tasks) {
  const jobs = tasks.map((t) => t.periodic
    ? runProbe(probe, ['periodic', seconds, cpu, t.nice, t.slice_us, t.periodic.period_us, t.periodic.run_us])
    : runProbe(probe, ['hog', seconds, cpu, t.nice, t.slice_us]));
  const res = await Promise.all(jobs);
  return res.map((r) => ({ share: r.cpu_ns / (seconds * 1e9), ...r }));
}

function simRun(cli, tasks, hz, baseSlice) {
  const scenario = {
    format: 'fairground-scenario/1',
    name: 'host comparison',
    seed: 1,
    duration_ms: Math.round(seconds * 1000),
    machine: { cpus: 1, hz },
    scheduler: { policy: 'eevdf-v6.12', tunables: { tunable_scaling: 'none', base_slice_ns: baseSlice } },
    tasks: tasks.map((t, i) => ({
      name: `t${i}`,
      nice: t.nice,
      ...(t.slice_us ? { slice_us: t.slice_us } : {}),
      behavior: t.periodic ? { kind: 'periodic', ...t.periodic } : { kind: 'hog' },
    })),
  };
  const file = path.join(os.tmpdir(), 'fairground-host-compare.json');
  fs.writeFileSync(file, JSON.stringify(scenario));
  const report = JSON.parse(sh(cli, ['run', file, '--json']));
  return report.tasks.map((t) => ({
    share: t.share,
    count: t.wakeup_latency_ns.count,
    p50: t.wakeup_latency_ns.p50,
    p90: t.wakeup_latency_ns.p90,
    p99: t.wakeup_latency_ns.p99,
    max: t.wakeup_latency_ns.max,
  }));
}

const ms = (ns) => (ns == null ? '–' : (ns / 1e6).toFixed(3));
const pct = (x) => `${(100 * x).toFixed(1)}%`;

function describe(t) {
  const what = t.periodic ? `periodic ${t.periodic.period_us / 1000} ms / ${t.periodic.run_us / 1000} ms` : 'hog';
  return `${what}, nice ${t.nice}, slice ${t.slice_us ? `${t.slice_us / 1000} ms` : 'default'}`;
}

async function main() {
  const hz = hostHz();
  const base = hostBaseSlice();
  const { probe, cli } = build();
  console.log(`host: Linux ${os.release()}, ${os.cpus().length} CPUs, HZ=${hz}, base slice ${base.ns} ns (${base.how}); experiments on CPU ${cpu}, ${seconds} s each`);
  console.log('model: eevdf-v6.12, 1 CPU, tunable_scaling "none", the same HZ and base slice\n');
  const hog = (nice, slice_us = 0) => ({ nice, slice_us });
  // 10.1 ms, not 10: the host's timer has no fixed phase against its tick, and the model's
  // wakeups sweep every phase of the tick only if the period is not a multiple of it.
  const cyc = (slice_us) => ({ nice: 0, slice_us, periodic: { period_us: 10100, run_us: 100 } });
  const experiments = [
    ['CPU shares by nice', [hog(0), hog(0), hog(5)]],
    ['CPU shares with custom slices', [hog(0, 100), hog(0, 10000), hog(5)]],
    ['periodic task beside four hogs, default slice', [hog(0), hog(0), hog(0), hog(0), cyc(0)]],
    ['periodic task beside four hogs, 0.1 ms slice', [hog(0), hog(0), hog(0), hog(0), cyc(100)]],
  ];
  for (const [title, tasks] of experiments) {
    const host = await hostRun(probe, tasks);
    const sim = simRun(cli, tasks, hz, base.ns);
    console.log(`## ${title}`);
    console.log('| task | host share | model share | host wakeup p50 / p90 / p99 / max (ms) | model wakeup p50 / p90 / p99 / max (ms) |');
    console.log('|---|---|---|---|---|');
    tasks.forEach((t, i) => {
      const h = host[i];
      const s = sim[i];
      const hl = t.periodic ? `${ms(h.p50)} / ${ms(h.p90)} / ${ms(h.p99)} / ${ms(h.max)} (${h.count})` : '';
      const sl = t.periodic ? `${ms(s.p50)} / ${ms(s.p90)} / ${ms(s.p99)} / ${ms(s.max)} (${s.count})` : '';
      console.log(`| ${describe(t)} | ${pct(h.share)} | ${pct(s.share)} | ${hl} | ${sl} |`);
    });
    console.log('');
  }
}

main().catch((e) => {
  console.error(`host-compare: ${e.message}`);
  process.exit(1);
});
