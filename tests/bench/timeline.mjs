// Browser benchmark of the web app (not a test: it asserts nothing, it measures). Run by hand
// against a server of the built site:
//   bash scripts/build.sh && node scripts/static-server.mjs dist 8080 &
//   BASE_URL=http://127.0.0.1:8080/ node tests/bench/timeline.mjs
// It prints:
//   - the gzipped size of each wasm file in dist/ (gzip -9);
//   - simulation speed in the worker: events/s over a whole run to the end (wall time seen by
//     the page, slices transferred and drawn included) and as the worker measures its own work;
//   - frame time while panning the timeline of a run with ≥ 1M slices on 64 CPUs: the main
//     thread's cost of one pan step (drag event → canvas drawn), the interval between animation
//     frames while one drag step is made per frame (≥ 16.7 ms at 60 Hz; also counts the
//     compositor, so it grows when the machine is loaded), and the canvas draw alone
//     (data-draw-ms: level of detail, pixels, labels).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const BASE_URL = (process.env.BASE_URL || 'http://127.0.0.1:8080/').replace(/\/?$/, '/');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = path.join(root, 'dist');

const link = (doc) => BASE_URL + '#s=' + zlib.deflateRawSync(Buffer.from(JSON.stringify(doc)), { level: 9 }).toString('base64url');
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
  return { n: s.length, median: q(0.5), p95: q(0.95), max: s[s.length - 1] };
};

console.log('## wasm size (gzip -9)');
for (const f of fs.readdirSync(dist).filter((f) => f.endsWith('.wasm'))) {
  const raw = fs.readFileSync(path.join(dist, f));
  console.log(`${f}: ${raw.length} bytes, ${zlib.gzipSync(raw, { level: 9 }).length} gzipped`);
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', '--headless', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
page.setDefaultTimeout(600_000);

async function openAndRun(doc) {
  await page.goto(link(doc), { waitUntil: 'load' });
  await page.evaluate(() => localStorage.clear());
  await page.waitForFunction(() => !document.querySelector('#status') && document.querySelector('#run'));
  const t0 = Date.now();
  await page.click('#btn-end');
  await page.waitForSelector('#run[data-finished="true"]');
  const wall = (Date.now() - t0) / 1000;
  const events = Number(await page.locator('#run').getAttribute('data-events'));
  const meter = await page.locator('#meter').innerText();
  const slices = Number(await page.locator('#timeline').getAttribute('data-slices'));
  return { wall, events, meter, slices };
}

// 1. Simulation speed: 8 CPUs, 32 bursty tasks and 4 hogs, 20 s of simulated time.
console.log('\n## simulation speed in the worker');
{
  const doc = { format: 'fairground-scenario/1', name: 'bench: speed', duration_ms: 20000, machine: { cpus: 8 },
    scheduler: { policy: 'latency-nice-v12' },
    tasks: [{ name: 'b', count: 32, behavior: { kind: 'bursty', run_us: { exp: 200 }, sleep_us: { exp: 800 } } },
            { name: 'hog', count: 4, behavior: { kind: 'hog' } }] };
  const r = await openAndRun(doc);
  console.log(`${r.events} events, ${r.slices} slices in ${r.wall.toFixed(2)} s wall: ${(r.events / r.wall / 1e6).toFixed(2)} M events/s end to end; worker's own figure on its last long answer: ${r.meter}`);
}

// 2. Panning 1M+ slices on 64 CPUs.
console.log('\n## panning the timeline: 64 CPUs, ≥ 1M slices');
{
  const doc = { format: 'fairground-scenario/1', name: 'bench: 64 CPUs', duration_ms: 2500, machine: { cpus: 64 },
    scheduler: { policy: 'cfs-v6.2' },
    tasks: [{ name: 'p', count: 640, stagger_us: 1, behavior: { kind: 'periodic', period_us: 1000, run_us: 90 } }] };
  // 640 tasks waking every ms for 90 µs: 1.28 M stints in 2 s.
  const r = await openAndRun(doc);
  console.log(`run: ${r.events} events, ${r.slices} slices, ${r.wall.toFixed(1)} s wall (${(r.events / r.wall / 1e6).toFixed(2)} M events/s end to end)`);
  for (const [label, zoomKeys] of [['whole run in view', 0], ['zoomed in 16×', 4]]) {
    await page.keyboard.press('0');
    for (let i = 0; i < zoomKeys; i++) await page.keyboard.press('w');
    const res = await page.evaluate(async () => {
      const c = document.querySelector('#timeline');
      const r = c.getBoundingClientRect();
      const ev = (type, x) => c.dispatchEvent(new MouseEvent(type, { bubbles: true, clientX: r.left + x, clientY: r.top + 100, button: 0 }));
      const frames = [];
      const draws = [];
      ev('mousedown', 800);
      let last = await new Promise((res) => requestAnimationFrame(res));
      for (let i = 1; i <= 120; i++) {
        const x = 800 + 5 * (i % 60 < 30 ? i % 60 : 60 - (i % 60));
        ev('mousemove', x);
        // One pan step per frame: the interval between frames is the frame time (at least
        // the display's 16.7 ms); a slow redraw makes the next frame late.
        const now = await new Promise((res) => requestAnimationFrame(res));
        frames.push(now - last);
        last = now;
        draws.push(Number(c.dataset.drawMs));
      }
      // Main-thread cost of one pan step: from the drag event to the canvas drawn (the
      // draw sets data-draw-ms), with the page otherwise idle between steps.
      const latency = [];
      for (let i = 1; i <= 60; i++) {
        const t0 = performance.now();
        let done;
        const drawn = new Promise((res) => { done = res; });
        const mo = new MutationObserver(() => done(performance.now()));
        mo.observe(c, { attributes: true, attributeFilter: ['data-draw-ms'] });
        ev('mousemove', 800 + (i % 2 ? 10 : -10) * ((i % 7) + 1));
        latency.push((await drawn) - t0);
        mo.disconnect();
        await new Promise((res) => setTimeout(res, 20));
      }
      ev('mouseup', 800);
      return { frames, draws, latency, w: c.width, h: c.height };
    });
    const fmt = (x) => JSON.stringify(stats(x), (k, v) => typeof v === 'number' ? Number(v.toFixed(2)) : v);
    console.log(`${label}: one pan step, drag event → canvas drawn ${fmt(res.latency)} ms`);
    console.log(`${label} (canvas ${res.w}×${res.h}): frame interval while panning one step per frame ${JSON.stringify(stats(res.frames), (k, v) => typeof v === 'number' ? Number(v.toFixed(2)) : v)} ms; draw alone ${JSON.stringify(stats(res.draws), (k, v) => typeof v === 'number' ? Number(v.toFixed(2)) : v)} ms`);
  }
}
await browser.close();
