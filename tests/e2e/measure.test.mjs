// End-to-end tests of the Export and A/B panel (src/page/panels/measure/mod.rs): downloads of the report,
// the latency samples and the ftrace text; the Perfetto hand-off (against a stand-in for
// ui.perfetto.dev served by the test, never the internet); A/B comparisons and their CSV; bad
// input; the runqlat histogram and its PNG.
import { test, assert, assertEqual, openFresh, download } from './harness.mjs';

const fresh = (page, fragment) => openFresh(page, fragment, '#measure');


/** The A/B tables on the page: { task: { figure: [a, b, change] } }. */
async function abTables(page) {
  return page.locator('#ab-result table.ab-task').evaluateAll((tables) => Object.fromEntries(tables.map((t) => [
    t.dataset.task,
    Object.fromEntries([...t.querySelectorAll('tbody tr')].map((tr) => [
      tr.dataset.figure, [...tr.querySelectorAll('td')].map((td) => td.innerText.trim()),
    ])),
  ])));
}

const SWITCH = /^\s*\S+-\d+\s+\[\d{3}\] \S{5}\s+\d+\.\d{6}: sched_switch: prev_comm=(\S+) prev_pid=\d+ prev_prio=\d+ prev_state=\S+ ==> next_comm=(\S+) next_pid=\d+ next_prio=\d+$/;

test('export: the ftrace download is ftrace text in which the two hogs hand the CPU to each other', async ({ page }) => {
  await fresh(page, '#scenario=two-hogs');
  const { name, bytes } = await download(page, '#btn-export-ftrace');
  assertEqual(name, 'two-hogs.ftrace.txt', 'file name');
  const lines = bytes.toString('utf8').split('\n');
  assertEqual(lines[0], '# tracer: nop', 'first line');
  assert(lines.slice(1, 12).every((l) => l.startsWith('#')), `header: ${lines.slice(0, 12).join('\n')}`);
  const switches = lines.filter((l) => l.includes('sched_switch:'));
  for (const l of switches) assert(SWITCH.test(l), `not a sched_switch line: ${l}`);
  // One CPU, 100 ms, a slice ended by every 4 ms tick: 25 stints (the scenario's description),
  // so idle → hog once, then 24 switches from one hog to the other.
  assertEqual(switches.length, 25, 'sched_switch lines');
  const [, p0, n0] = switches[0].match(SWITCH);
  assert(p0 === 'swapper/0' && /^hog\/[01]$/.test(n0), `first switch: ${switches[0]}`);
  let last = n0;
  for (const l of switches.slice(1)) {
    const [, prev, next] = l.match(SWITCH);
    assert(prev === last && next !== prev && /^hog\/[01]$/.test(next), `switch out of order after ${last}: ${l}`);
    last = next;
  }
  assert(/two-hogs\.ftrace\.txt/.test(await page.locator('#measure-status').innerText()), 'the status names the file');
});

test('export: the report JSON is the contract report and the samples CSV has one line per wakeup', async ({ page }) => {
  await fresh(page, '#scenario=two-hogs');
  const rep = await download(page, '#btn-export-report');
  assertEqual(rep.name, 'two-hogs-report.json', 'file name');
  const r = JSON.parse(rep.bytes.toString('utf8'));
  assertEqual([r.format, r.scenario, r.policy], ['fairground-report/1', 'two hogs', 'cfs-v6.2'], 'report head');
  // One CPU always busy for 100 ms.
  assertEqual(r.tasks.reduce((s, t) => s + t.cpu_ns, 0), 100_000_000, 'CPU time of both hogs');

  await fresh(page, '#scenario=clamp-lesson');
  const rep2 = JSON.parse((await download(page, '#btn-export-report')).bytes.toString('utf8'));
  const csv = await download(page, '#btn-export-samples');
  assert(csv.name.endsWith('-samples.csv'), csv.name);
  const rows = csv.bytes.toString('utf8').trim().split('\n');
  assertEqual(rows[0], 'task,kind,ns', 'CSV header');
  for (const t of rep2.tasks) {
    const n = rows.filter((l) => l.startsWith(`${t.name},wakeup_latency,`)).length;
    assertEqual(n, t.wakeup_latency_ns.count, `${t.name}: wakeup samples against the report's count`);
  }
  // The delay table, as perf sched latency prints it: a row per task, its switches the report's.
  const lat = await download(page, '#btn-export-latency');
  assert(lat.name.endsWith('-latency.txt'), lat.name);
  const text = lat.bytes.toString('utf8');
  for (const t of rep2.tasks) {
    const row = text.split('\n').find((l) => l.trim().startsWith(`${t.name} `));
    assert(row, `no row for ${t.name}`);
    assertEqual(row.split('|')[2].trim(), String(t.switches), `${t.name}: switches`);
  }
});

// A stand-in for ui.perfetto.dev that speaks the documented protocol: answers 'PING' with
// 'PONG' and shows what it was posted.
const FAKE_PERFETTO = `<!doctype html><title>fake perfetto</title><script>
window.addEventListener('message', (e) => {
  if (e.data === 'PING') { e.source.postMessage('PONG', '*'); return; }
  if (e.data && e.data.perfetto) {
    const p = e.data.perfetto;
    const bytes = new Uint8Array(p.buffer);
    // Protobuf's strings are their bytes: read as Latin-1, the names the trace holds show.
    const text = new TextDecoder('latin1').decode(bytes);
    document.title = 'loaded';
    document.body.dataset.perfettoTitle = p.title;
    document.body.dataset.fileName = p.fileName;
    document.body.dataset.first = String(bytes[0]);
    document.body.dataset.release = String(text.includes('6.12.0-fairground'));
    document.body.dataset.end = String(text.includes('fairground: run ends'));
    document.body.dataset.hogs = String(text.includes('hog/0') && text.includes('hog/1'));
  }
});
</script><body></body>`;

test('Open in Perfetto: opens ui.perfetto.dev, waits for PONG, posts the trace (stand-in UI, no internet)', async ({ page, context }) => {
  await context.route('https://ui.perfetto.dev/**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: FAKE_PERFETTO }));
  try {
    await fresh(page, '#scenario=two-hogs');
    const [popup] = await Promise.all([context.waitForEvent('page', { timeout: 30_000 }), page.click('#btn-perfetto')]);
    assert(popup.url().startsWith('https://ui.perfetto.dev'), `popup at ${popup.url()}`);
    await popup.waitForFunction(() => document.title === 'loaded', null, { timeout: 30_000 });
    const got = await popup.evaluate(() => ({ ...document.body.dataset }));
    // A Perfetto protobuf trace: packets are field 1, length-delimited (tag 0x0a), with its
    // kernel release, both tasks' names and the run's end mark.
    assertEqual([got.first, got.fileName, got.release, got.hogs, got.end, got.perfettoTitle], ['10', 'two-hogs.pftrace', 'true', 'true', 'true', 'Fairground: two hogs'],
      'what Perfetto was given');
    await page.waitForSelector('#measure-status:has-text("handed to the Perfetto tab")');
    await popup.close();
  } finally {
    await context.unroute('https://ui.perfetto.dev/**');
  }
});

test('Open in Perfetto, offline: a tab that never answers is given up after 15 s, and the trace is offered as a file', async ({ page, context }) => {
  // What a browser shows offline: a page that never speaks the protocol.
  await context.route('https://ui.perfetto.dev/**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>offline</title>' }));
  try {
    await fresh(page, '#scenario=two-hogs');
    const t0 = Date.now();
    const [popup] = await Promise.all([context.waitForEvent('page', { timeout: 30_000 }), page.click('#btn-perfetto')]);
    await page.waitForSelector('#measure-error:has-text("did not answer within 15 s")', { timeout: 40_000 });
    const waited = (Date.now() - t0) / 1000;
    assert(waited >= 14 && waited < 40, `gave up after ${waited} s`);
    const dl = await download(page, '#btn-perfetto-download');
    assertEqual([dl.name, dl.bytes[0]], ['two-hogs.pftrace', 0x0a], 'the trace offered instead');
    await popup.close();
  } finally {
    await context.unroute('https://ui.perfetto.dev/**');
  }
}, { timeout: 90_000 });

test('A/B: clamp-lesson with latency_max_clamp_wakeup off shows both percentile tables, and the table downloads as CSV', async ({ page }) => {
  await fresh(page, '#scenario=clamp-lesson');
  await page.selectOption('#ab-kind', 'feature');
  await page.selectOption('#ab-target', 'latency_max_clamp_wakeup');
  // The scenario sets the clamp on, so B's value defaults to off.
  assertEqual(await page.locator('#ab-value').inputValue(), 'false', 'B value offered');
  assertEqual(await page.locator('#ab-changes').inputValue(), 'scheduler.features.latency_max_clamp_wakeup=false', 'B changes');
  const t0 = Date.now();
  await page.click('#btn-ab-run');
  await page.waitForSelector('#ab-result', { timeout: 60_000 });
  const ms = Number(await page.locator('#ab-result').getAttribute('data-ms'));
  console.log(`    A/B of clamp-lesson (2 × 5 s simulated): ${ms} ms in the worker, ${Date.now() - t0} ms click to table`);
  const t = await abTables(page);
  assertEqual(Object.keys(t), ['hog/0', 'hog/1', 'waker/0', 'waker/1'], 'one table per task');
  const labels = await page.locator('#ab-result table.ab-task[data-task="waker/0"] tbody th').allInnerTexts();
  for (const p of ['50.0th', '75.0th', '90.0th', '95.0th', '99.0th', '99.5th', '99.9th']) {
    assert(labels.some((l) => l.startsWith(p)), `no ${p} row in ${labels}`);
  }
  // The scenario's description: without the clamp a nice-5 waker that finds a hog ~3 ms ahead
  // no longer preempts at wakeup (2.25 ms < 3 ms < 3.06 ms), so it waits longer.
  for (const w of ['waker/0', 'waker/1']) {
    const [pa, pb, pc] = t[w].wakeup_preemptions.map((x) => x);
    assert(Number(pb) < Number(pa), `${w} wakeup preemptions A ${pa} B ${pb}`);
    assert(/^-\d+\.\d%$/.test(pc), `${w} change shown as a falling percentage: ${pc}`);
    const [la, lb] = t[w]['p90_us'];
    assert(Number(lb) > Number(la), `${w} p90 A ${la} µs, B ${lb} µs`);
    assertEqual(t[w].wakeups[0], t[w].wakeups[1], `${w}: the same firings in A and B (same seed)`);
  }
  // The hogs never sleep: no latency figures on either side.
  assertEqual(t['hog/0']['p50_us'].slice(0, 2), ['–', '–'], 'hog p50');

  const csv = await download(page, '#btn-ab-csv');
  assert(csv.name.endsWith('-ab.csv'), csv.name);
  const rows = csv.bytes.toString('utf8').trim().split('\n');
  assertEqual(rows[0], 'name,figure,a,b,change_pct', 'CSV header');
  assertEqual(rows.length - 1, 4 * 11, 'one CSV row per task and figure');
  const wp = rows.find((r) => r.startsWith('waker/0,wakeup_preemptions,')).split(',');
  assertEqual([wp[2], wp[3]], t['waker/0'].wakeup_preemptions.slice(0, 2), 'the CSV has the page\'s numbers');
  // The same table as text for a mail.
  const text = await page.locator('#ab-text').textContent();
  const block = text.split('\nwaker/0')[1].split('\n\n')[0];
  const line = block.split('\n').find((l) => l.trim().startsWith('wakeup_preemptions')).trim().split(/\s+/);
  assertEqual(line.slice(1, 4), t['waker/0'].wakeup_preemptions, 'the text has the page\'s numbers');
}, { timeout: 120_000 });

test('A/B: a task\'s latency nice as B; an edit of the scenario then drops the table, which no longer describes it', async ({ page }) => {
  await fresh(page, '#scenario=latency-nice-ladder');
  await page.selectOption('#ab-kind', 'latency_nice');
  await page.selectOption('#ab-target', { label: 'tasks[2] cyc-19' });
  await page.fill('#ab-value', '-20');
  await page.locator('#ab-value').dispatchEvent('change');
  assertEqual(await page.locator('#ab-changes').inputValue(), 'tasks[2].latency_nice=-20', 'B changes');
  await page.click('#btn-ab-run');
  await page.waitForSelector('#ab-result', { timeout: 60_000 });
  console.log(`    A/B of latency-nice-ladder (19 tasks, 2 × 5 s simulated): ${await page.locator('#ab-result').getAttribute('data-ms')} ms in the worker`);
  const t = await abTables(page);
  // Latency nice −20 instead of 19: the wakeup preempts with a large latency offset instead of
  // waiting behind the load, so cyc-19's typical and tail wakeup latencies fall.
  for (const f of ['p50_us', 'p90_us']) {
    const [a, b] = t['cyc-19'][f].map(Number);
    assert(b < a, `cyc-19 ${f}: A ${a} µs, B ${b} µs`);
  }
  // An edit makes a new scenario: the table of the old one goes.
  const input = page.locator('#tasks-table tr[data-task="cyc-0"] input.edit-latency-nice');
  await input.fill('5');
  await input.press('Enter');
  await page.waitForSelector('#notice:has-text("recorded")');
  await page.waitForSelector('#ab-result', { state: 'detached' });
  await page.evaluate(() => localStorage.clear());
});

test('A/B: a broken change shows a clear error, the app keeps running, and a good change then works', async ({ page }) => {
  await fresh(page, '#scenario=two-hogs');
  await page.selectOption('#ab-kind', 'custom');
  for (const [typed, want] of [
    ['scheduler.features', /expected path=value/],
    ['tasks[9].nice=1', /tasks\[9\]/],
    ['scheduler.policy=bogus', /bogus/],
    ['', /no change/],
  ]) {
    await page.fill('#ab-changes', typed);
    await page.click('#btn-ab-run');
    await page.waitForSelector('#measure-error', { timeout: 30_000 });
    const err = await page.locator('#measure-error').innerText();
    assert(want.test(err), `${JSON.stringify(typed)}: unexpected error ${err}`);
    await page.waitForFunction(() => document.querySelector('#measure').dataset.busy === '');
  }
  // The run on screen is untouched and still answers.
  await page.click('#btn-step-tick');
  await page.waitForFunction(() => document.querySelector('#run').dataset.viewNs === '4000000', null, { timeout: 30_000 });
  await page.fill('#ab-changes', 'tasks[0].count=3');
  await page.click('#btn-ab-run');
  await page.waitForSelector('#ab-result');
  assert(!(await page.locator('#measure-error').count()), 'the old error is gone');
  const t = await abTables(page);
  // One CPU for 100 ms: two hogs in A, three in B, always busy either way.
  assertEqual(Object.keys(t), ['hog/0', 'hog/1', 'hog/2'], 'B\'s third hog has a table too');
  const cpu = (side) => Object.values(t).reduce((s, x) => s + (x.cpu_ms[side] === '–' ? 0 : Number(x.cpu_ms[side])), 0);
  assert(Math.abs(cpu(0) - 100) < 0.2 && Math.abs(cpu(1) - 100) < 0.2, `CPU ms A ${cpu(0)}, B ${cpu(1)}`);
  assertEqual(t['hog/2'].cpu_ms[0], '–', 'A has no hog/2');
});

test('histogram: the selected task\'s runqlat buckets count all its wakeups, and the PNG downloads', async ({ page }) => {
  await fresh(page, '#scenario=clamp-lesson');
  const rep = JSON.parse((await download(page, '#btn-export-report')).bytes.toString('utf8'));
  await page.locator('#tasks-table tbody tr', { hasText: 'waker/1' }).first().locator('td').first().click();
  await page.click('#btn-hist');
  await page.waitForSelector('#hist-canvas', { timeout: 60_000 });
  const counts = (await page.locator('#hist-canvas').getAttribute('data-counts')).split(',').map(Number);
  const waker = rep.tasks.find((t) => t.name === 'waker/1');
  assertEqual(counts.reduce((a, b) => a + b, 0), waker.wakeup_latency_ns.count, 'samples in the histogram');
  // The largest sample lands in the last bucket: [2^(k-1), 2^k) µs.
  const k = counts.length - 1;
  const maxUs = Math.floor(waker.wakeup_latency_ns.max / 1000);
  assert(k === 0 ? maxUs === 0 : (maxUs >= 2 ** (k - 1) && maxUs < 2 ** k), `max ${maxUs} µs in bucket ${k}`);
  const png = await download(page, '#btn-hist-png');
  assert(png.name.endsWith('.png'), png.name);
  assertEqual([...png.bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'PNG signature');
});
