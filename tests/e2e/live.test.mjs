// End-to-end tests of the live parts of the app: the worker, the transport, the timeline
// canvas, live edits recorded in the scenario, share links of edited runs, reloads, the
// scheduler panel, worker recovery, shortcuts and layouts.
import zlib from 'node:zlib';
import { test, assert, assertEqual, openFresh } from './harness.mjs';

// The first two colours of the palette (src/draw/raster.rs): tasks 0 and 1.
const BLUE = [0x00, 0x72, 0xb2];
const ORANGE = [0xe6, 0x9f, 0x00];

/** Open a fragment with no saved experiment, and wait until the run is on screen at time 0. */
const fresh = (page, fragment) => openFresh(page, fragment);

async function ready(page) {
  await page.waitForFunction(() => !document.querySelector('#status') && document.querySelector('#run'), null, { timeout: 60_000 });
}

const run = (page) => page.locator('#run').evaluate((r) => ({
  view: Number(r.dataset.viewNs), finished: r.dataset.finished === 'true', restarts: Number(r.dataset.restarts),
}));

async function waitView(page, pred, what) {
  await page.waitForFunction(pred, null, { timeout: 60_000 }).catch(async () => {
    throw new Error(`${what}; #run is ${JSON.stringify(await run(page))}`);
  });
}

async function runToEnd(page) {
  await page.click('#btn-end');
  await waitView(page, () => document.querySelector('#run')?.dataset.finished === 'true', 'the run did not finish');
}

/** The tasks table as {name: [cells…]}. */
async function table(page) {
  const rows = await page.locator('#tasks-table tbody tr[data-task]').evaluateAll((trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => {
      const i = td.querySelector('input');
      return i ? i.value : td.innerText.trim();
    })));
  return Object.fromEntries(rows.map((r) => [r[0], r.slice(1)]));
}

/** Colours (as "r,g,b") found in the timeline canvas, with their pixel counts. */
async function canvasColours(page) {
  return page.locator('#timeline').evaluate((c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const seen = {};
    for (let i = 0; i < d.length; i += 4) {
      const k = `${d[i]},${d[i + 1]},${d[i + 2]}`;
      seen[k] = (seen[k] || 0) + 1;
    }
    return seen;
  });
}

test('the worker runs the scenario: the page opens paused at time 0, Play advances, Pause stops', async ({ page }) => {
  await fresh(page, '#scenario=two-hogs');
  assertEqual((await run(page)).view, 0, 'time on opening');
  await page.selectOption('#speed', { label: '100 ms/s' });
  await page.click('#btn-play');
  await waitView(page, () => Number(document.querySelector('#run').dataset.viewNs) > 10_000_000, 'play did not advance past 10 ms');
  await page.click('#btn-play');
  const a = (await run(page)).view;
  await page.waitForTimeout(400);
  const b = (await run(page)).view;
  assertEqual(b, a, 'time after pause');
  assert(a < 100_000_000, `the run should not be over yet (${a})`);
});

test('the timeline canvas draws each task in its palette colour', async ({ page }) => {
  await fresh(page, '#scenario=two-hogs');
  await runToEnd(page);
  const seen = await canvasColours(page);
  const count = (rgb) => seen[rgb.join(',')] || 0;
  assert(count(BLUE) > 100, `task 0 (hog/0) colour: ${count(BLUE)} pixels`);
  assert(count(ORANGE) > 100, `task 1 (hog/1) colour: ${count(ORANGE)} pixels`);
  assertEqual(Number(await page.locator('#timeline').getAttribute('data-slices')), 24, 'slices received (25 stints, the last still open)');
});

test('the timeline shows idle CPUs as idle', async ({ page }) => {
  // One hog on two CPUs: CPU 1 never runs anything.
  const json = JSON.stringify({ format: 'fairground-scenario/1', name: 'one hog, two CPUs', duration_ms: 50,
    machine: { cpus: 2 }, scheduler: { policy: 'cfs-v6.2' }, tasks: [{ name: 'hog', behavior: { kind: 'hog' } }] });
  await fresh(page, '#s=' + zlib.deflateRawSync(Buffer.from(json)).toString('base64url'));
  await runToEnd(page);
  const lane1 = await page.locator('#timeline').evaluate((c) => {
    const laneH = Number(c.height - 20) / 2;
    const y = Math.floor(20 + laneH * 1.5);
    const d = c.getContext('2d').getImageData(64, y, c.width - 64, 1).data;
    const seen = new Set();
    for (let i = 0; i < d.length; i += 4) seen.add(`${d[i]},${d[i + 1]},${d[i + 2]}`);
    return [...seen];
  });
  // Idle background and hatch; the red line is the current time (the end).
  for (const c of lane1) assert(['241,242,244', '217,220,225', '192,57,43'].includes(c), `CPU 1 is idle, but a pixel is ${c}`);
  const seen = await canvasColours(page);
  assert((seen[BLUE.join(',')] || 0) > 100, 'CPU 0 runs the hog');
});

test('transport: step a tick, step back, step events, scrub, and going back reproduces the figures', async ({ page }) => {
  await fresh(page, '#scenario=mixed-behaviours');
  await page.click('#btn-step-tick');
  await waitView(page, () => document.querySelector('#run').dataset.viewNs === '4000000', 'one tick is 4 ms at HZ 250');
  await page.click('#btn-step-tick');
  await waitView(page, () => document.querySelector('#run').dataset.viewNs === '8000000', 'two ticks');
  await page.click('#btn-back-tick');
  await waitView(page, () => document.querySelector('#run').dataset.viewNs === '4000000', 'back one tick');
  await page.click('#btn-step-event');
  await waitView(page, () => Number(document.querySelector('#run').dataset.viewNs) > 4000000, 'one event forward');
  const stepped = (await run(page)).view;
  await page.click('#btn-back-event');
  await page.waitForFunction((s) => Number(document.querySelector('#run').dataset.viewNs) < s, stepped);
  assert((await run(page)).view >= 4000000, 'one event back from the first event after 4 ms is 4 ms or later');

  // Scrub to 1 s, note the figures, run to the end, come back: the same figures.
  await page.locator('#scrubber').evaluate((s) => { s.value = '1000000'; s.dispatchEvent(new Event('input', { bubbles: true })); });
  await waitView(page, () => document.querySelector('#run').dataset.viewNs === '1000000000', 'scrub to 1 s');
  const at1s = await table(page);
  await runToEnd(page);
  const atEnd = await table(page);
  assert(JSON.stringify(atEnd) !== JSON.stringify(at1s), 'figures moved on');
  await page.locator('#scrubber').evaluate((s) => { s.value = '1000000'; s.dispatchEvent(new Event('input', { bubbles: true })); });
  await waitView(page, () => document.querySelector('#run').dataset.viewNs === '1000000000', 'scrub back to 1 s');
  assertEqual(await table(page), at1s, 'figures at 1 s after going back');
});

/** Set a task's latency nice at the current time (Enter commits the field). */
async function setLatencyNice(page, task, value) {
  const input = page.locator(`#tasks-table tr[data-task="${task}"] input.edit-latency-nice`);
  await input.fill(String(value));
  await input.press('Enter');
  await input.evaluate((i) => i.blur());
  await page.waitForSelector('#notice:has-text("recorded")');
}

test('editing a latency nice changes that task\'s numbers; the change is recorded, shared, and survives a reload', async ({ page, context }) => {
  await fresh(page, '#scenario=latency-nice-ladder');
  await runToEnd(page);
  const before = await table(page);
  await page.click('#btn-start');
  await waitView(page, () => document.querySelector('#run').dataset.viewNs === '0', 'back to the start');
  await setLatencyNice(page, 'cyc-19', -20);
  assert((await page.locator('#notice').innerText()).includes('1 µs'), 'the change applies from the next µs');
  await runToEnd(page);
  const after = await table(page);
  // Columns: share, wakeups, p50, p99, …; cyc-19 now waits like cyc-m20.
  const p50 = (t, n) => Number(t[n][2]);
  assert(p50(after, 'cyc-19') < p50(before, 'cyc-19'), `cyc-19 p50 ${p50(before, 'cyc-19')} → ${p50(after, 'cyc-19')} µs`);
  assertEqual(after['cyc-19'][6], '-20', 'latency nice shown');

  // The share link reproduces the edited run exactly.
  await page.click('#btn-share');
  const link = await page.locator('#share-link').inputValue();
  assert(link.includes('#s='), `share link ${link}`);
  const other = await context.newPage();
  try {
    await other.goto(link, { waitUntil: 'load' });
    await ready(other);
    await runToEnd(other);
    assertEqual(await table(other), after, 'the shared link\'s figures');
    assertEqual(await other.locator('#scenario').getAttribute('data-stem'), '', 'shown as a shared scenario');
  } finally {
    await other.close();
  }

  // A reload keeps the edited experiment.
  await page.reload({ waitUntil: 'load' });
  await ready(page);
  assert(await page.locator('#btn-discard').isVisible(), 'the page says the experiment is edited');
  await runToEnd(page);
  assertEqual(await table(page), after, 'figures after a reload');
  await page.click('#btn-discard');
  await ready(page);
  await runToEnd(page);
  assertEqual(await table(page), before, 'figures after discarding the edits');
  await page.evaluate(() => localStorage.clear());
}, { timeout: 180_000 });

test('a panic in the worker is reported, and a new worker carries on with the scenario and edits', async ({ page }) => {
  await fresh(page, '#scenario=latency-nice-ladder&debug=1');
  await page.click('#btn-step-tick');
  await waitView(page, () => document.querySelector('#run').dataset.viewNs === '4000000', 'one tick');
  await setLatencyNice(page, 'cyc-0', 7);
  await page.click('#btn-help');
  await page.click('#btn-crash');
  await page.waitForSelector('#notice:has-text("worker stopped")', { timeout: 30_000 });
  await page.keyboard.press('Escape');
  // Back at the same time, and settled: the new worker has rebuilt the run and answered the seek.
  await waitView(page, () => document.querySelector('#run').dataset.restarts === '1' && document.querySelector('#run').dataset.viewNs === '4000000' && document.querySelector('#run').dataset.settled === 'true', 'restarted at the same time');
  await page.click('#btn-step-tick');
  await waitView(page, () => document.querySelector('#run').dataset.viewNs === '8000000', 'the new worker answers');
  // The edit (recorded at 4.001 ms) is part of the restarted run.
  assertEqual((await table(page))['cyc-0'][6], '7', 'the edit survived the restart');
  await page.evaluate(() => localStorage.clear());
});

test('scheduler panel: the clamps come first, every policy can be chosen, a refusal shows the core\'s error, and the app stays usable', async ({ page }) => {
  await fresh(page, '#scenario=latency-nice-ladder');
  const features = await page.locator('#sched-panel [data-feature]').evaluateAll((es) => es.map((e) => e.dataset.feature));
  assertEqual(features.slice(0, 3), ['latency_max_clamp_tick', 'latency_max_clamp_offset', 'latency_max_clamp_wakeup'], 'first features');
  const policies = await page.locator('#policy-select option').evaluateAll((os) => os.map((o) => o.value));
  assertEqual(policies, ['cfs-v6.2', 'latency-nice-v12', 'eevdf-v6.6', 'eevdf-v6.12', 'eevdf-v6.18'], 'policies');
  const explained = await page.locator('#sched-panel [data-feature] .what').evaluateAll((es) => es.map((e) => e.innerText.trim()));
  assert(explained.length === 23 && explained.every((t) => t.length > 20), `every feature has its explanation: ${explained.length} of 23`);

  // Another policy: the run is rebuilt; the shown outcome is the core's (a run, or its refusal).
  await page.selectOption('#policy-select', 'eevdf-v6.6');
  await page.waitForFunction(() => document.querySelector('#sched-error') || document.querySelector('#policy')?.innerText.trim() === 'eevdf-v6.6', null, { timeout: 30_000 });
  await page.selectOption('#policy-select', 'latency-nice-v12');
  await page.waitForFunction(() => document.querySelector('#policy')?.innerText.trim() === 'latency-nice-v12' && !document.querySelector('#status'), null, { timeout: 30_000 });

  // A combination the contract forbids: the wakeup clamp written as true with a variant.
  await page.selectOption('#feat-wakeup_preempt_variant', 'min-vruntime');
  await page.waitForFunction(() => document.querySelector('#feat-wakeup_preempt_variant')?.value === 'min-vruntime' && document.querySelector('#run') && !document.querySelector('#status'));
  assert(await page.locator('#sched-error').count() === 0, 'a variant alone is accepted');
  await page.uncheck('#feat-latency_max_clamp_wakeup');
  await page.waitForFunction(() => document.querySelector('#run') && !document.querySelector('#feat-latency_max_clamp_wakeup').checked);
  await page.check('#feat-latency_max_clamp_wakeup');
  await page.waitForSelector('#sched-error', { timeout: 30_000 });
  const err = await page.locator('#sched-error').innerText();
  assert(err.includes('latency_max_clamp_wakeup'), `the error names the feature: ${err}`);
  // Back to the default: the run is shown again.
  await page.click('[data-feature="latency_max_clamp_wakeup"] button');
  await page.waitForSelector('#run', { timeout: 30_000 });
  assert(await page.locator('#sched-error').count() === 0, 'the error is gone');
  await page.evaluate(() => localStorage.clear());
});

test('keyboard: shortcuts drive the transport and the help overlay lists them', async ({ page }) => {
  await fresh(page, '#scenario=two-hogs');
  await page.keyboard.press('ArrowRight');
  await waitView(page, () => document.querySelector('#run').dataset.viewNs === '4000000', 'ArrowRight steps a tick');
  await page.keyboard.press('ArrowLeft');
  await waitView(page, () => document.querySelector('#run').dataset.viewNs === '0', 'ArrowLeft steps back');
  await page.keyboard.press('End');
  await waitView(page, () => document.querySelector('#run').dataset.finished === 'true', 'End runs to the end');
  await page.keyboard.press('Home');
  await waitView(page, () => document.querySelector('#run').dataset.viewNs === '0', 'Home goes to the start');
  await page.keyboard.press('?');
  await page.waitForSelector('#help');
  const help = await page.locator('#help').innerText();
  for (const k of ['Space', 'Home / End', 'W / S']) assert(help.includes(k), `help lists ${k}`);
  await page.keyboard.press('Escape');
  await page.waitForSelector('#help', { state: 'detached' });
  await page.keyboard.press(' ');
  await waitView(page, () => Number(document.querySelector('#run').dataset.viewNs) > 0, 'Space plays');
  await page.keyboard.press(' ');
});

test('timeline: hover names the slice, click selects the task, wheel zooms', async ({ page }) => {
  await fresh(page, '#scenario=two-hogs');
  await runToEnd(page);
  const box = await page.locator('#timeline').boundingBox();
  // The middle of CPU 0's lane (gutter 64 px, axis 20 px, lane 28 px).
  const x = box.x + 64 + (box.width - 64) * 0.02;
  const y = box.y + 20 + 14;
  await page.mouse.move(x, y);
  await page.waitForSelector('#timeline-tooltip');
  const tip = await page.locator('#timeline-tooltip').innerText();
  assert(/hog\/[01] on CPU 0/.test(tip), `tooltip: ${tip}`);
  assert(/from 0 ns for/.test(tip) && /started: first run after fork/.test(tip) && /stopped: preempted at a tick/.test(tip), `tooltip: ${tip}`);
  await page.mouse.click(x, y);
  await page.waitForSelector('#tasks-table tr.selected');
  const axis0 = await page.locator('#timeline').evaluate((c) => c.toDataURL());
  await page.mouse.wheel(0, -400);
  await page.waitForFunction((a) => document.querySelector('#timeline').toDataURL() !== a, axis0);
});

for (const [w, h, name] of [[1366, 768, 'laptop'], [1920, 1080, 'projector'], [1024, 768, 'small projector']]) {
  test(`layout at ${name} size (${w}×${h}): no horizontal scrolling, timeline and transport visible`, async ({ page }) => {
    await page.setViewportSize({ width: w, height: h });
    await fresh(page, '#scenario=latency-nice-ladder');
    const over = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert(over <= 0, `the page scrolls sideways by ${over} px`);
    const c = await page.locator('#timeline').boundingBox();
    assert(c.width > w * 0.6, `timeline width ${c.width}`);
    assert(await page.locator('#btn-play').isVisible(), 'play button visible');
  });
}

// The warm-up after a load measures it, on the run just loaded, before the user plays; a
// lesson's run, far shorter than the warm-up, is measured as well as a long one.
for (const stem of ['hackbench-8cpu', 'lesson-1-vruntime']) {
  test(`the worker's speed is shown as soon as ${stem} is loaded, and after a run to its end`, async ({ page }) => {
    await fresh(page, `#scenario=${stem}`);
    const shown = /^\d+\.\d\d M events\/s$/;
    await page.waitForFunction((re) => new RegExp(re).test(document.querySelector('#meter').innerText.trim()), shown.source, { timeout: 10000 });
    assertEqual(await page.locator('#run').getAttribute('data-view-ns'), '0', 'measured by the warm-up: the run itself is still at time 0');
    await runToEnd(page);
    const meter = (await page.locator('#meter').innerText()).trim();
    assert(shown.test(meter), `meter: ${meter}`);
  });
}

test('a run reopened at its end shows the worker\'s speed too (the warm-up runs it again from its start)', async ({ page }) => {
  // An edited run is saved with its time, and a reload reopens it there.
  await fresh(page, '#scenario=two-hogs');
  const nice = page.locator('#tasks-table tr[data-task="hog/0"] input.edit-nice');
  await nice.fill('5');
  await nice.press('Enter');
  await page.waitForSelector('#notice:has-text("recorded")');
  await runToEnd(page);
  await page.reload({ waitUntil: 'load' });
  await waitView(page, () => document.querySelector('#run')?.dataset.finished === 'true', 'the run was not reopened at its end');
  await page.waitForFunction(() => /^\d+\.\d\d M events\/s$/.test(document.querySelector('#meter').innerText.trim()), null, { timeout: 10000 });
  assertEqual(await page.locator('#run').getAttribute('data-finished'), 'true', 'still at the end');
});
