// End-to-end tests of recorded traces opened with "Open file…" (src/page/open_file.rs) and set
// beside the model's replay (src/page/panels/measure/real.rs): the real trace.dat recorded on
// this project's 6.18 host (crates/sim/tests/fixtures/tracedat/), a Perfetto protobuf trace, and
// broken binary files, which are named in an error while the scenario on screen stays.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, assert, assertEqual, openFresh, download } from './harness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DAT = fs.readFileSync(path.join(root, 'crates/sim/tests/fixtures/tracedat/host-6.18-hogs-sleeper.dat'));
// `fairground export-perfetto` of static/scenarios/mixed-behaviours.json with duration_ms 100
// (hog, stress, bursty and cyc on one CPU).
const PFTRACE = fs.readFileSync(path.join(root, 'tests/e2e/fixtures/mixed-behaviours-100ms.pftrace'));

const file = (name, buffer) => ({ name, mimeType: 'application/octet-stream', buffer });
const taskNames = (page) => page.locator('#tasks-table tbody tr[data-task]').evaluateAll((rows) => rows.map((r) => r.dataset.task));

/** Every task table of the real/model comparison: { name, figure: [real, model] }. */
const realTables = (page) => page.locator('#real-result table.ab-task').evaluateAll((ts) => ts.map((t) => {
  const rows = {};
  for (const r of t.querySelectorAll('tbody tr')) {
    const num = (s) => (s === '–' ? null : Number(s));
    rows[r.dataset.figure] = [num(r.querySelector('td.a').innerText), num(r.querySelector('td.b').innerText)];
  }
  return { name: t.dataset.task, heads: [...t.querySelectorAll('thead th')].map((h) => h.innerText), rows };
}));

async function openTrace(page, name, bytes) {
  await page.setInputFiles('#open-file', file(name, bytes));
  await page.waitForFunction(() => location.hash.startsWith('#s='), null, { timeout: 60_000 });
  await page.waitForSelector('#real-result', { timeout: 90_000 });
}

test('a real trace.dat opens beside the model\'s replay: both timelines, both latency tables, the assumptions', async ({ page }) => {
  await page.setViewportSize({ width: 1366, height: 768 });
  await openFresh(page, '#scenario=two-hogs');
  await openTrace(page, 'host-6.18-hogs-sleeper.dat', DAT);
  assert(/imported as a trace-cmd trace\.dat/.test(await page.locator('#open-note').innerText()), 'the note names the format');
  // The note leads to the comparison, further down the page.
  await page.click('#btn-open-real');
  await page.waitForFunction(() => { const r = document.querySelector('#real-vs-model').getBoundingClientRect(); return r.top < innerHeight && r.bottom > 0; }, null, { timeout: 10_000 });
  // The model's assumptions, stated above the comparison with the numbers the replay used.
  const said = await page.locator('#real-assumptions').innerText();
  for (const want of ['HZ 250', 'base slice', 'eevdf-v6.12 on 2 CPUs', 'Pinning:', 'migrations', 'exits', 'priority changes']) {
    assert(said.includes(want), `the assumptions say "${want}": ${said}`);
  }
  const tables = await realTables(page);
  const all = Number(await page.locator('#real-result').getAttribute('data-tasks'));
  // The trace saw the workload beside a compile: a table for each of the first 64 tasks.
  assertEqual(tables.length, Math.min(all, 64), 'tables shown');
  assertEqual(tables[0].heads.slice(1), ['real', 'model', 'change'], 'the columns');
  assert(tables.some((t) => ['p50_us', 'p99_us', 'max_us'].every((p) => t.rows[p].every((x) => x !== null))), 'latency percentiles on both sides');
  // The largest differences first: CPU time's as a share of the run plus p99's as a share of
  // the largest p99 (over the tables shown, from their one-decimal figures).
  const spanMs = Number(await page.locator('#real-result').getAttribute('data-duration-ns')) / 1e6;
  const topP99 = Math.max(...tables.flatMap((t) => t.rows.p99_us.filter((x) => x !== null)));
  const d = (r, of) => (r ? Math.abs((r[0] ?? 0) - (r[1] ?? 0)) / of : 0);
  const score = (t) => d(t.rows.cpu_ms, spanMs) + d(t.rows.p99_us, topP99);
  assert(score(tables[0]) >= score(tables[tables.length - 1]), `the first table differs most: ${score(tables[0])} vs ${score(tables[tables.length - 1])}`);
  // Every task is in the CSV: the sleeper (python3, 90 sleeps of 10 ms) woke at least 90 times
  // on both sides.
  const csv = (await download(page, '#btn-real-csv')).bytes.toString();
  const wakeups = csv.split('\n').filter((l) => l.startsWith('python3') && l.split(',')[1] === 'wakeups').map((l) => l.split(',').slice(2, 4).map(Number));
  assert(wakeups.some(([a, b]) => a >= 90 && b >= 90), `python3 wakeups (real, model): ${JSON.stringify(wakeups)}`);
  // Both timelines, drawn on one time axis, and both histograms overlaid.
  const lanes = await page.evaluate(() => ['#real-lanes-a', '#real-lanes-b'].map((s) => document.querySelector(s)?.height ?? 0));
  assert(lanes.every((h) => h > 18), `both timelines drawn: ${lanes}`);
  const cursor = page.locator('#real-cursor');
  assert(Number(await cursor.getAttribute('data-slices-a')) > 100 && Number(await cursor.getAttribute('data-slices-b')) > 100, 'slices on both sides');
  const box = await page.locator('#real-lanes-a').boundingBox();
  await page.locator('#real-lanes-a').hover({ position: { x: box.width * 0.5, y: box.height * 0.6 } });
  await page.waitForFunction(() => /real — CPU 0: .* · CPU 1: /.test(document.querySelector('#real-cursor').innerText), null, { timeout: 10_000 });
  assert(/model — CPU 0: /.test(await cursor.innerText()), 'the cursor says what the model ran');
  assert(await page.locator('#real-hist-canvas').count() === 1, 'the overlaid histograms');
  await page.evaluate(() => { const el = document.querySelector('#real-vs-model'); window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 60); });
  // A picture of the comparison for a person to look at, when asked for (E2E_SHOTS=DIR).
  if (process.env.E2E_SHOTS) {
    await page.screenshot({ path: path.join(process.env.E2E_SHOTS, 'real-vs-model.png') });
    await page.locator('#real-vs-model').screenshot({ path: path.join(process.env.E2E_SHOTS, 'real-vs-model-whole.png') });
  }
  // Back returns to the scenario before; forward again shows the comparison again.
  await page.goBack();
  await page.waitForFunction(() => document.querySelector('#tasks-table tr[data-task="hog/0"]'), null, { timeout: 60_000 });
  assertEqual(await page.locator('#real-vs-model').count(), 0, 'no real run beside a shipped scenario');
});

test('a Perfetto protobuf trace opens beside the model\'s replay, under the policy chosen', async ({ page }) => {
  await openFresh(page, '#scenario=two-hogs');
  await openTrace(page, 'mixed.pftrace', PFTRACE);
  assert(/imported as a Perfetto trace/.test(await page.locator('#open-note').innerText()), 'the note names the format');
  assertEqual((await taskNames(page)).sort(), ['bursty', 'cyc', 'hog', 'stress'], 'the exported scenario\'s tasks');
  const tables = await realTables(page);
  assertEqual(tables.map((t) => t.name).sort(), ['bursty', 'cyc', 'hog', 'stress'], 'a table per task');
  // The trace is Fairground's own run under its scenario's policy: the real side's CPU time adds
  // up to the 100 ms of its one CPU at most.
  const cpu = tables.reduce((s, t) => s + t.rows.cpu_ms[0], 0);
  assert(cpu > 0 && cpu <= 100.1, `real CPU time ${cpu} ms`);
  assert(/HZ 250/.test(await page.locator('#real-assumptions').innerText()), 'the assumptions');
  assert(/its replay under eevdf-v6\.12/.test(await page.locator('#real-result p.hint').first().innerText()), 'the import\'s policy');
  // Another policy in the scheduler panel: the replay runs again under it, beside the same real run.
  await page.selectOption('#policy-select', 'cfs-v6.2');
  await page.waitForFunction(() => /its replay under cfs-v6\.2/.test(document.querySelector('#real-result p.hint')?.innerText ?? ''), null, { timeout: 60_000 });
  const again = await realTables(page);
  const realCpu = (ts) => ts.map((t) => [t.name, t.rows.cpu_ms[0]]).sort();
  assertEqual(realCpu(again), realCpu(tables), 'the real side is the same trace');
  assert(/The model: cfs-v6\.2 on 1 CPU, HZ 250 .*sched_latency/.test(await page.locator('#real-assumptions').innerText()), 'CFS\'s tunables stated');
});

test('broken binary traces are named in an error; the scenario on screen stays', async ({ page }) => {
  await openFresh(page, '#scenario=two-hogs');
  const before = await page.evaluate(() => location.hash);
  // trace.dat's header says which compression its sections use: "none" at byte 18.
  const zstd = Buffer.from(DAT);
  zstd.write('zstd', 18, 'latin1');
  for (const [name, bytes, want] of [
    ['cut.dat', DAT.subarray(0, 4096), /^cut\.dat is not a scenario, and not a trace Fairground can read: .*byte \d+/],
    ['zstd.dat', zstd, /^zstd\.dat .*compressed \(zstd\)/],
    ['cut.pftrace', PFTRACE.subarray(0, 5000), /^cut\.pftrace .*byte \d+/],
    ['random.bin', Buffer.from([0xff, 0xfe, 0x00, 0x17, 0x80, 0x81, 0x82]), /^random\.bin .*not UTF-8/],
  ]) {
    await page.setInputFiles('#open-file', file(name, bytes));
    await page.waitForSelector('#open-error', { timeout: 60_000 });
    await page.waitForFunction((n) => document.querySelector('#open-error')?.innerText.startsWith(n), name, { timeout: 60_000 });
    const err = await page.locator('#open-error').innerText();
    assert(want.test(err), `${name}: ${err}`);
    assertEqual(await page.evaluate(() => location.hash), before, `${name}: the address is unchanged`);
  }
  assertEqual(await taskNames(page), ['hog/0', 'hog/1'], 'the scenario on screen is still there');
  assertEqual(await page.locator('#real-vs-model').count(), 0, 'no comparison without a trace');
});
