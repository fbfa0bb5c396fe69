// End-to-end tests of sweeps (src/page/panels/sweep/), the A/B histograms and side-by-side
// timelines (src/page/panels/measure/ab_charts.rs), and histograms of any set with linear buckets.
import { test, assert, assertEqual, openFresh, download } from './harness.mjs';

const fresh = (page, fragment) => openFresh(page, fragment, '#sweep');


/** Pixels of a canvas that are not white (something was drawn). */
async function inked(page, selector) {
  return page.locator(selector).evaluate((c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] < 250 || d[i + 1] < 250 || d[i + 2] < 250) n++;
    return n;
  });
}

/** The sweep table: [[value, { figure: number|null }]] in the page's order (null where the
 *  point is not done). */
async function sweepRows(page) {
  return page.locator('#sweep-table tbody tr').evaluateAll((rows) => rows.map((tr) => [
    tr.dataset.value,
    Object.fromEntries([...tr.querySelectorAll('td')].map((td) => [td.dataset.figure, td.innerText.trim() === '' ? null : Number(td.innerText)])),
  ]));
}

async function setValues(page, text) {
  await page.fill('#sweep-values', text);
  await page.locator('#sweep-values').dispatchEvent('change');
}

test('sweep: the cyclictest task\'s latency nice 19 → 0 → −20 in workers, with the seed\'s trend, a chart and the CSV', async ({ page }) => {
  await fresh(page, '#scenario=seed004-cyclictest-vs-hackbench');
  assertEqual(await page.locator('#sweep-path-now').innerText(), 'tasks[0].latency_nice', 'the first task\'s latency nice by default');
  assertEqual(await page.locator('#sweep-values').inputValue(), '19..-20', 'the seed\'s whole range by default');
  await setValues(page, '19,0,-20');
  await page.click('#btn-sweep-run');
  await page.waitForFunction(() => document.querySelector('#sweep-result')?.dataset.ms, null, { timeout: 120_000 });
  const res = page.locator('#sweep-result');
  assertEqual([await res.getAttribute('data-done'), await res.getAttribute('data-points')], ['3', '3'], 'points done');
  assertEqual(await page.locator('#sweep-progress').evaluate((p) => [p.value, p.max]), [3, 3], 'the progress bar is full');
  assertEqual(await page.locator('#sweep-table').getAttribute('data-entity'), 'cyclictest', 'the swept task is plotted');
  const rows = await sweepRows(page);
  assertEqual(rows.map((r) => r[0]), ['19', '0', '-20'], 'one row per value, in the order asked');
  const t = Object.fromEntries(rows);
  // The seed-004 trend (crates/sim/tests/seed_measure.rs asserts it on the core): p95 falls
  // as latency nice goes 19 → 0 → −20, p90 never rises.
  assert(t['19'].p95_us > t['0'].p95_us && t['0'].p95_us >= t['-20'].p95_us, `p95: ${JSON.stringify(t)}`);
  assert(t['19'].p90_us >= t['0'].p90_us && t['0'].p90_us >= t['-20'].p90_us, `p90: ${JSON.stringify(t)}`);
  // A cyclictest-like task fires every 1 ms for 1 s: about 1000 wakeups at each point.
  for (const v of ['19', '0', '-20']) assert(t[v].wakeups >= 900 && t[v].wakeups <= 1000, `wakeups at ${v}: ${t[v].wakeups}`);
  assert(await inked(page, '#sweep-canvas') > 2000, 'the chart is drawn');
  const csv = (await download(page, '#btn-sweep-csv')).bytes.toString('utf8').trim().split('\n');
  assertEqual(csv[0], 'param,value,name,figure,x', 'CSV header');
  const p95 = csv.find((l) => l.startsWith('tasks[0].latency_nice,19,cyclictest,p95_us,'));
  assert(p95 && Math.abs(Number(p95.split(',')[4]) - t['19'].p95_us) < 0.06, `CSV p95 at 19: ${p95} vs page ${t['19'].p95_us}`);
  const png = await download(page, '#btn-sweep-png');
  assertEqual([...png.bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'PNG signature');
  // "Copy as LKML text": the same numbers in fixed columns, one row per value.
  const lkml = (await page.locator('#sweep-lkml pre').textContent()).split('\n');
  assert(lkml[0].endsWith('cyclictest, tasks[0].latency_nice swept'), lkml[0]);
  const fmt = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(1));
  for (const v of ['19', '0', '-20']) {
    const row = lkml.find((l) => l.startsWith(`${v} `));
    assert(row, `no row for ${v}: ${lkml.join('|')}`);
    const cells = row.trim().split(/\s+/);
    assertEqual(cells[1], String(t[v].wakeups), `wakeups at ${v}`);
    assertEqual(cells[4], fmt(t[v].p95_us), `p95 at ${v}`);
  }
  assert(new Set(lkml.filter((l) => l).slice(1).map((l) => l.length)).size === 1, 'fixed width');
}, { timeout: 180_000 });

test('sweep: Cancel keeps the points done; a bad range is named; the page keeps running and sweeps again', async ({ page }) => {
  await fresh(page, '#scenario=seed004-cyclictest-vs-hackbench');
  await page.click('#btn-sweep-run');
  await page.waitForFunction(() => Number(document.querySelector('#sweep-result')?.dataset.done) >= 1, null, { timeout: 120_000 });
  await page.click('#btn-sweep-cancel');
  const state = await page.locator('#sweep-state').innerText();
  assert(/^Stopped after \d+ of 40 points/.test(state), state);
  const done = Number(await page.locator('#sweep-result').getAttribute('data-done'));
  assert(done >= 1 && done < 40, `done ${done}`);
  const t = await sweepRows(page);
  assertEqual(t.length, 40, 'a row per value asked');
  const filled = t.filter((r) => r[1].wakeups !== null).length;
  assertEqual(filled, done, 'the points done are kept, the others empty');

  for (const [bad, want] of [['1..x', /1\.\.x/], ['19..-20:0', /STEP/], ['-20..1000', /at most 200/]]) {
    await setValues(page, bad);
    await page.click('#btn-sweep-run');
    const err = await page.locator('#sweep-error').innerText();
    assert(want.test(err), `${bad}: ${err}`);
  }
  await page.selectOption('#sweep-kind', 'custom');
  await page.fill('#sweep-path', 'tasks[7].latency_nice');
  await page.locator('#sweep-path').dispatchEvent('change');
  await setValues(page, '0');
  await page.click('#btn-sweep-run');
  await page.waitForSelector('#sweep-error', { timeout: 60_000 });
  assert(/tasks\[7\]/.test(await page.locator('#sweep-error').innerText()), 'an index that does not exist is named');
  // The run on screen is not affected.
  await page.click('#btn-step-tick');
  await page.waitForFunction(() => document.querySelector('#run').dataset.viewNs === '4000000', null, { timeout: 30_000 });
  await page.selectOption('#sweep-kind', 'cpus');
  await setValues(page, '1,2');
  await page.click('#btn-sweep-run');
  await page.waitForFunction(() => document.querySelector('#sweep-result')?.dataset.ms, null, { timeout: 120_000 });
  assert(!(await page.locator('#sweep-error').count()), 'the error is gone');
  const cpus = await sweepRows(page);
  assertEqual(cpus.map((r) => r[0]), ['1', '2'], 'machine.cpus 1 and 2');
}, { timeout: 240_000 });

test('A/B: the histograms overlaid and the two timelines on one time axis, with what ran at the cursor', async ({ page }) => {
  await fresh(page, '#scenario=two-hogs');
  await page.selectOption('#ab-kind', 'custom');
  await page.fill('#ab-changes', 'tasks[0].nice=5');
  await page.click('#btn-ab-run');
  await page.waitForSelector('#ab-lanes-b', { timeout: 60_000 });
  // One CPU, 100 ms, the hogs handing the CPU over at every 4 ms tick: 25 stints in A (as in
  // the ftrace export's test).
  assertEqual(await page.locator('#ab-cursor').getAttribute('data-slices-a'), '25', 'A\'s slices');
  assert(await inked(page, '#ab-lanes-a') > 5000 && await inked(page, '#ab-lanes-b') > 5000, 'both timelines are drawn');
  const box = await page.locator('#ab-lanes-a').boundingBox();
  await page.locator('#ab-lanes-a').hover({ position: { x: box.width * 0.5, y: box.height * 0.6 } });
  await page.waitForFunction(() => document.querySelector('#ab-cursor').innerText.includes('A —'));
  const at = await page.locator('#ab-cursor').innerText();
  assert(/A — CPU 0: hog\/[01]/.test(at) && /B — CPU 0: hog\/[01]/.test(at), at);
  const before = await page.locator('#ab-charts p.hint').first().innerText();
  await page.mouse.wheel(0, -400);
  await page.waitForFunction((b) => document.querySelector('#ab-charts p.hint').innerText !== b, before);
  assert(/100 ms from 0 ns/.test(before), before);
  await page.click('#btn-ab-reset');
  assert(/100 ms from 0 ns/.test(await page.locator('#ab-charts p.hint').first().innerText()), 'back to the whole run');
  // The histogram shown first is of what B changes: tasks[0] is the two hogs, the first of them.
  assertEqual(await page.locator('#ab-hist-canvas').getAttribute('data-entity'), 'hog/0', 'the set B changes');
  for (const b of ['#btn-ab-hist-png', '#btn-ab-lanes-png']) {
    const png = await download(page, b);
    assertEqual([...png.bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], `${b}: PNG signature`);
  }
});

test('histogram: linear buckets of all tasks count every wakeup, with schbench\'s percentile table beside', async ({ page }) => {
  await fresh(page, '#scenario=clamp-lesson');
  const rep = JSON.parse((await download(page, '#btn-export-report')).bytes.toString('utf8'));
  await page.selectOption('#hist-of', 'all tasks');
  await page.fill('#hist-width', '500');
  await page.locator('#hist-width').dispatchEvent('change');
  await page.click('#btn-hist');
  await page.waitForSelector('#hist-canvas', { timeout: 60_000 });
  assertEqual(await page.locator('#hist-canvas').getAttribute('data-task'), 'all tasks', 'whose');
  const counts = (await page.locator('#hist-canvas').getAttribute('data-counts')).split(',').map(Number);
  const total = rep.tasks.reduce((s, t) => s + t.wakeup_latency_ns.count, 0);
  assertEqual(counts.reduce((a, b) => a + b, 0), total, 'every task\'s wakeups');
  const maxNs = Math.max(...rep.tasks.map((t) => t.wakeup_latency_ns.max ?? 0));
  assertEqual(counts.length, Math.floor(maxNs / 1000 / 500) + 1, 'buckets of 500 µs up to the largest sample');
  assert(counts[counts.length - 1] >= 1, 'the largest sample is in the last bucket');
  const pct = await page.locator('#hist-pct tr').evaluateAll((rows) => rows.map((r) => [r.dataset.figure, r.querySelector('td').innerText]));
  assertEqual(pct.map((p) => p[0]), ['p50_us', 'p75_us', 'p90_us', 'p95_us', 'p99_us', 'p99.5_us', 'p99.9_us', 'max_us'], 'schbench\'s rows');
  assertEqual(Number(pct[7][1]), maxNs / 1000, 'max');
  await page.fill('#hist-width', 'wide');
  await page.locator('#hist-width').dispatchEvent('change');
  await page.click('#btn-hist');
  assert(/whole µs/.test(await page.locator('#measure-error').innerText()), 'a bad width is named');
});

test('histogram: preempt delays of all tasks are the report\'s involuntary waits', async ({ page }) => {
  await fresh(page, '#scenario=two-hogs');
  const rep = JSON.parse((await download(page, '#btn-export-report')).bytes.toString('utf8'));
  await page.selectOption('#hist-of', 'all tasks');
  await page.selectOption('#hist-kind', 'preempt');
  await page.click('#btn-hist');
  await page.waitForSelector('#hist-canvas[data-kind="preempt delay"]', { timeout: 60_000 });
  const counts = (await page.locator('#hist-canvas').getAttribute('data-counts')).split(',').map(Number);
  // Two hogs on one CPU hand it over at ticks: every wait is a preemption, none a wakeup.
  const want = rep.tasks.reduce((s, t) => s + t.preempt_delay_ns.count, 0);
  assert(want >= 20, `preemptions: ${want}`);
  assertEqual(counts.reduce((a, b) => a + b, 0), want, 'preempt-delay samples');
});

test('sweep: two-way, the cyclictest\'s latency nice across and hackbench\'s down, as the thread\'s tables', async ({ page }) => {
  await fresh(page, '#scenario=seed004-cyclictest-vs-hackbench');
  await setValues(page, '19,-20');
  await page.check('#sweep-by-on');
  await page.fill('#sweep-by-path', 'workloads[0].latency_nice');
  await page.locator('#sweep-by-path').dispatchEvent('change');
  await page.fill('#sweep-by-values', '19,-20');
  await page.locator('#sweep-by-values').dispatchEvent('change');
  await page.click('#btn-sweep-run');
  await page.waitForFunction(() => document.querySelector('#sweep-result')?.dataset.ms, null, { timeout: 120_000 });
  assertEqual(await page.locator('#sweep-result').getAttribute('data-points'), '4', 'every pair');
  await page.selectOption('#sweep-figure', { label: 'wakeup latency p95 (µs)' });
  await page.waitForSelector('#sweep-matrix[data-figure="p95_us"]');
  const m = await page.locator('#sweep-matrix tbody tr').evaluateAll((rows) => rows.map((tr) => [tr.dataset.by, [...tr.querySelectorAll('td')].map((td) => Number(td.innerText))]));
  assertEqual(m.map((r) => r[0]), ['19', '-20'], 'hackbench\'s latency nice down');
  // Whatever hackbench's latency nice, the cyclictest waits less at −20 than at 19 (p95).
  for (const [by, [at19, atM20]] of m) assert(at19 >= atM20, `hackbench ${by}: p95 ${at19} at 19, ${atM20} at -20`);
  assert(await inked(page, '#sweep-canvas') > 2000, 'one line per hackbench value is drawn');
  const csv = (await download(page, '#btn-sweep-csv')).bytes.toString('utf8').trim().split('\n');
  assertEqual(csv[0], 'by_param,by_value,param,value,name,figure,x', 'CSV header');
  for (const [by, cells] of m) {
    for (const [i, v] of ['19', '-20'].entries()) {
      const line = csv.find((l) => l.startsWith(`workloads[0].latency_nice,${by},tasks[0].latency_nice,${v},cyclictest,p95_us,`));
      assert(line && Math.abs(Number(line.split(',')[6]) - cells[i]) < 0.06, `CSV at ${by}/${v}: ${line} vs ${cells[i]}`);
    }
  }
}, { timeout: 180_000 });

test('sweep: the policy, every one by default, on one workload', async ({ page }) => {
  await fresh(page, '#scenario=four-policies');
  await page.selectOption('#sweep-kind', 'policy');
  assertEqual(await page.locator('#sweep-path-now').innerText(), 'scheduler.policy', 'path');
  await page.click('#btn-sweep-run');
  await page.waitForFunction(() => document.querySelector('#sweep-result')?.dataset.ms, null, { timeout: 120_000 });
  assert(!(await page.locator('#sweep-error').count()), 'no error');
  const rows = await sweepRows(page);
  assertEqual(rows.map((r) => r[0]), ['cfs-v6.2', 'latency-nice-v12', 'eevdf-v6.6', 'eevdf-v6.12', 'eevdf-v6.18'], 'one row per policy');
  assert(rows.every((r) => r[1].wakeups !== null), 'every point done');
});
