// Browser benchmark of a sweep (not a test: it measures). Run by hand against a server
// of the built site:
//   bash scripts/build.sh && node scripts/static-server.mjs dist 8080 &
//   BASE_URL=http://127.0.0.1:8080/ node tests/bench/sweep.mjs
// It runs the 40-point latency-nice sweep (19..-20) of the cyclictest task of
// seed004-cyclictest-vs-hackbench, as the panel's default, with a pool of 1 worker and then
// of as many as the machine's cores (navigator.hardwareConcurrency, at most 4), and prints
// the wall time the page measured (click to last point), three times each. The native figure
// to compare with: `time fairground sweep static/scenarios/seed004-cyclictest-vs-hackbench.json
// --param 'tasks[0].latency_nice' --range 19..-20` (one core).
import os from 'node:os';
import { chromium } from 'playwright-core';

const BASE_URL = (process.env.BASE_URL || 'http://127.0.0.1:8080/').replace(/\/?$/, '/');
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', '--headless', '--disable-gpu'] });

async function sweep(cores) {
  const context = await browser.newContext();
  // The pool's width comes from hardwareConcurrency: pin it to measure 1 worker against many.
  if (cores) await context.addInitScript((n) => Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => n }), cores);
  const page = await context.newPage();
  page.setDefaultTimeout(600_000);
  await page.goto(BASE_URL + '#scenario=seed004-cyclictest-vs-hackbench', { waitUntil: 'load' });
  await page.waitForFunction(() => !document.querySelector('#status') && document.querySelector('#sweep'));
  const out = [];
  for (let i = 0; i < 3; i++) {
    await page.click('#btn-sweep-run');
    await page.waitForFunction(() => document.querySelector('#sweep-result')?.dataset.ms);
    const r = page.locator('#sweep-result');
    out.push({ ms: Number(await r.getAttribute('data-ms')), workers: Number(await r.getAttribute('data-workers')), points: Number(await r.getAttribute('data-done')) });
  }
  await context.close();
  return out;
}

console.log(`## 40-point latency-nice sweep of seed004 in headless Chromium (${os.cpus().length} cores here)`);
for (const cores of [1, null]) {
  const runs = await sweep(cores);
  const ms = runs.map((r) => r.ms);
  console.log(`${runs[0].workers} worker(s), ${runs[0].points} points: ${ms.join(' / ')} ms (best ${Math.min(...ms)} ms)`);
}
await browser.close();
