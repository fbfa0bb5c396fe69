// Browser benchmark of the first load (not a test: it measures). Run by hand against a server
// of the built site:
//   bash scripts/build.sh && node scripts/static-server.mjs dist 8080 &
//   BASE_URL=http://127.0.0.1:8080/ node tests/bench/first-draw.mjs
// It prints the time from navigation to the first drawn timeline (the canvas gets its
// data-draw-ms) for #scenario=two-hogs, in a fresh browser context each time (an empty cache),
// over loopback and over an emulated 10 Mbit/s link with 40 ms of latency, where the size of
// the wasm files shows. RUNS sets how many loads of each (default 7); the median is printed.
import { chromium } from 'playwright-core';

const BASE_URL = (process.env.BASE_URL || 'http://127.0.0.1:8080/').replace(/\/?$/, '/');
const RUNS = Number(process.env.RUNS || 7);

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', '--headless', '--disable-gpu'] });

async function firstDraw(network) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  if (network) {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, ...network });
  }
  await page.addInitScript(() => {
    new MutationObserver((_, obs) => {
      const c = document.getElementById('timeline');
      if (c && c.hasAttribute('data-draw-ms')) {
        window.__firstDraw = performance.now();
        obs.disconnect();
      }
    }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-draw-ms'] });
  });
  await page.goto(BASE_URL + '#scenario=two-hogs', { waitUntil: 'commit' });
  await page.waitForFunction(() => window.__firstDraw !== undefined, null, { timeout: 120_000, polling: 50 });
  const ms = await page.evaluate(() => window.__firstDraw);
  await context.close();
  return ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const conditions = [
  ['loopback', null],
  ['10 Mbit/s, 40 ms', { latency: 40, downloadThroughput: (10e6 / 8), uploadThroughput: (5e6 / 8) }],
];
for (const [name, network] of conditions) {
  const times = [];
  for (let i = 0; i < RUNS; i++) times.push(await firstDraw(network));
  console.log(`first drawn timeline, ${name}: median ${median(times).toFixed(0)} ms (${times.map((t) => t.toFixed(0)).join(', ')})`);
}
await browser.close();
