// Browser benchmark of a play to the end (not a test: it measures). Run by hand against a
// server of the built site:
//   bash scripts/build.sh && node scripts/static-server.mjs dist 8080 &
//   BASE_URL=http://127.0.0.1:8080/ node tests/bench/end.mjs
// For each scenario (SCENARIOS, default hackbench-8cpu), in a fresh context: open it, wait
// until the first timeline is drawn and nothing is outstanding (#run data-settled) and a
// second more (PAUSE_MS), press
// "End" (#btn-end) and time until the run is finished and settled again and the frame that
// shows it has been laid out and painted. It also prints the page's "Worker speed"
// at the end. RUNS sets how many of each (default 5); the median is printed. To compare two
// builds, serve each dist on its own port and run this against both, interleaved.
import { chromium } from 'playwright-core';

const BASE_URL = (process.env.BASE_URL || 'http://127.0.0.1:8080/').replace(/\/?$/, '/');
const RUNS = Number(process.env.RUNS || 5);
const PAUSE_MS = Number(process.env.PAUSE_MS ?? 1000);
const SCENARIOS = (process.env.SCENARIOS || 'hackbench-8cpu').split(',');

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', '--headless', '--disable-gpu', ...(process.env.JS_FLAGS ? [`--js-flags=${process.env.JS_FLAGS}`] : [])] });

async function toEnd(stem) {
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  const page = await context.newPage();
  await page.goto(`${BASE_URL}#scenario=${stem}`);
  await page.waitForSelector('#timeline[data-draw-ms]', { timeout: 120_000 });
  await page.waitForSelector('#run[data-settled="true"]', { timeout: 120_000 });
  // A user reads the page before pressing End: PAUSE_MS (default 1 s) of it.
  await page.waitForTimeout(PAUSE_MS);
  // Timed inside the page, from the click to the mutation that says finished and settled, so
  // that the harness's own round trips do not count.
  const ms = await page.evaluate(() => new Promise((resolve) => {
    const run = document.getElementById('run');
    const t0 = performance.now();
    new MutationObserver((_, obs) => {
      if (run.dataset.finished === 'true' && run.dataset.settled === 'true') {
        obs.disconnect();
        // Until the frame that shows it: its style, layout and paint run after the
        // animation-frame callbacks, and a task queued from one runs after that frame.
        requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t0)));
      }
    }).observe(run, { attributes: true });
    document.getElementById('btn-end').click();
  }));
  const speed = await page.locator('#meter').innerText().catch(() => '?');
  await context.close();
  return { ms, speed };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const stem of SCENARIOS) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await toEnd(stem));
  const times = runs.map((r) => r.ms);
  console.log(`${stem}: play to the end, median ${median(times).toFixed(0)} ms (${times.map((t) => t.toFixed(0)).join(', ')}); worker speed at the end: ${runs.map((r) => r.speed).join(' | ')}`);
}
await browser.close();
