// Browser benchmark of the "inside the scheduler" panels (not a test: it measures).
// Run by hand against a server of the built site:
//   bash scripts/build.sh && node scripts/static-server.mjs dist 8080 &
//   BASE_URL=http://127.0.0.1:8080/ node tests/bench/inside.mjs
// It prints, for one CPU with 40 and with 300 runnable tasks:
//   - wall time of a run to the end with every panel closed, and with the decision log, trees and
//     key chart open (the worker records and the page draws each answer's panels);
//   - the time from a click on "event ▶" to the page showing the new time with its tree and log
//     drawn (median / p95 over 40 steps), with all panels open.
import zlib from 'node:zlib';
import { chromium } from 'playwright-core';

const BASE_URL = (process.env.BASE_URL || 'http://127.0.0.1:8080/').replace(/\/?$/, '/');
const link = (doc) => BASE_URL + '#s=' + zlib.deflateRawSync(Buffer.from(JSON.stringify(doc)), { level: 9 }).toString('base64url');
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
  return `median ${q(0.5).toFixed(1)} ms, p95 ${q(0.95).toFixed(1)} ms, max ${s[s.length - 1].toFixed(1)} ms (n=${s.length})`;
};

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', '--headless', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
page.setDefaultTimeout(600_000);

async function open(doc) {
  // A new document each time (the same link again would only be a hash change, or nothing).
  await page.goto('about:blank');
  await page.goto(link(doc), { waitUntil: 'load' });
  await page.evaluate(() => localStorage.clear());
  await page.waitForFunction(() => !document.querySelector('#status') && document.querySelector('#run'));
}

async function panels() {
  for (const b of ['#btn-log', '#btn-trees', '#btn-chart']) await page.click(b);
  await page.waitForSelector('#trees');
}

// (300 tasks for 20 s is beyond the browser's cost limit: 2 s there.)
for (const [n, secs] of [[40, 20], [300, 2]]) {
  const doc = { format: 'fairground-scenario/1', name: `bench: ${n} tasks`, duration_ms: secs * 1000,
    scheduler: { policy: 'latency-nice-v12' },
    tasks: [{ name: 'b', count: n, behavior: { kind: 'bursty', run_us: { exp: 300 }, sleep_us: { exp: 300 } } },
      { name: 'lat', latency_nice: -10, count: 4, behavior: { kind: 'periodic', period_us: 2000, run_us: 100 } }] };
  console.log(`\n## one CPU, ${n} bursty tasks + 4 latency-sensitive, ${secs} s (latency-nice-v12)`);
  for (const open_panels of [false, true]) {
    await open(doc);
    if (open_panels) await panels();
    const t0 = Date.now();
    await page.click('#btn-end');
    await page.waitForSelector('#run[data-finished="true"]');
    const events = Number(await page.locator('#run').getAttribute('data-events'));
    const wall = (Date.now() - t0) / 1000;
    if (events === 0) throw new Error(`the run did not start: ${await page.locator('#error').innerText().catch(() => '?')}`);
    console.log(`run to the end, panels ${open_panels ? 'open  ' : 'closed'}: ${wall.toFixed(2)} s wall, ${(events / wall / 1e6).toFixed(2)} M events/s seen by the page`);
  }
  await open(doc);
  await panels();
  await page.click('#btn-step-tick');
  await page.waitForFunction(() => !document.querySelector('.transport .status'));
  const times = [];
  for (let i = 0; i < 40; i++) {
    const before = await page.locator('#run').getAttribute('data-view-ns');
    const t = await page.evaluate(async (before) => {
      const t0 = performance.now();
      document.querySelector('#btn-step-event').click();
      await new Promise((resolve) => {
        const check = () => (document.querySelector('#run').dataset.viewNs !== before ? requestAnimationFrame(() => resolve()) : setTimeout(check, 0));
        check();
      });
      return performance.now() - t0;
    }, before);
    times.push(t);
  }
  const nodes = await page.locator('#tree-tasks').getAttribute('data-nodes');
  console.log(`step one event (tree of ~${nodes} nodes, ${Number(nodes) > 48 ? 'list' : 'tree'} view; log; chart): ${stats(times)}`);
}
await browser.close();
