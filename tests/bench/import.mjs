// Browser benchmark of importing a large recorded trace (not a test: it measures). Run by hand
// against a server of the built site:
//   bash scripts/build.sh && node scripts/static-server.mjs dist 8080 &
//   BASE_URL=http://127.0.0.1:8080/ node tests/bench/import.mjs TRACE [TRACE…]
// Each TRACE (ftrace text, trace.dat or Perfetto protobuf) is opened with "Open file…" in a
// fresh page. It prints the import's time in the worker (`data-worker-ms`: its bytes fetched,
// then read into a scenario and the trace's own run) and on the page's clock from the file
// chosen to the scenario's address set (`data-import-ms`), then to the real/model comparison
// on screen; and the peak resident memory of the browser's processes above what they held
// before the file was chosen (sampled every 50 ms from /proc: page, import worker and the
// measuring worker all live in the renderer process).
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';

const BASE_URL = (process.env.BASE_URL || 'http://127.0.0.1:8080/').replace(/\/?$/, '/');
const traces = process.argv.slice(2);
if (!traces.length) {
  console.error('usage: node tests/bench/import.mjs TRACE [TRACE…]');
  process.exit(2);
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', '--headless', '--disable-gpu'] });

/** Resident memory (bytes) of every process below `pid`, itself included. */
function treeRss(pid) {
  let total = 0;
  const walk = (p) => {
    try {
      const status = fs.readFileSync(`/proc/${p}/status`, 'utf8');
      const m = /VmRSS:\s+(\d+) kB/.exec(status);
      if (m) total += Number(m[1]) * 1024;
      const kids = execFileSync('pgrep', ['-P', String(p)], { encoding: 'utf8' }).split('\n').filter(Boolean);
      kids.forEach((k) => walk(Number(k)));
    } catch { /* gone, or no children */ }
  };
  walk(pid);
  return total;
}

// The browser is this script's child: its processes are the tree under this one, this one aside.
const kids = () => execFileSync('pgrep', ['-P', String(process.pid)], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
const browserRss = () => kids().reduce((s, k) => s + treeRss(k), 0);
for (const trace of traces) {
  const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
  await page.goto(BASE_URL + '#scenario=two-hogs', { waitUntil: 'load' });
  await page.waitForFunction(() => document.querySelector('#run') && !document.querySelector('#status'), null, { timeout: 120_000 });
  const before = browserRss();
  let peak = before;
  const sampler = setInterval(() => { peak = Math.max(peak, browserRss()); }, 50);
  const t0 = Date.now();
  await page.setInputFiles('#open-file', trace);
  await page.waitForSelector('#open-note, #open-error', { timeout: 600_000 });
  const err = await page.locator('#open-error').count();
  if (err) {
    console.log(`${path.basename(trace)}: ${await page.locator('#open-error').innerText()}`);
  } else {
    const note = page.locator('#open-note');
    const [importMs, workerMs] = [await note.getAttribute('data-import-ms'), await note.getAttribute('data-worker-ms')];
    await page.waitForSelector('#real-result, #real-error', { timeout: 600_000 });
    const shown = Date.now() - t0;
    clearInterval(sampler);
    const mb = (b) => (b / 1048576).toFixed(0);
    const size = fs.statSync(trace).size;
    console.log(`${path.basename(trace)} (${mb(size)} MB): import ${workerMs} ms in the worker, ${importMs} ms from the file read to the scenario's address; `
      + `comparison on screen ${shown} ms after choosing the file; peak RSS ${mb(peak)} MB (+${mb(peak - before)} MB over ${mb(before)} MB before)`);
    console.log(`  ${(await note.innerText()).split('\n')[0]}`);
  }
  clearInterval(sampler);
  await page.close();
}
await browser.close();
