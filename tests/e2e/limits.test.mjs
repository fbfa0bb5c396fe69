// End-to-end tests of the limits around the parser and of saved work: links that would
// exhaust a tab are refused with the reason and the default scenario; each scenario's edits
// are kept under their own key; storage errors, stale saved work and a second tab are said;
// a large scenario opens from a link; a run the core stops is reported, never a hang.
import zlib from 'node:zlib';
import { test, assert, assertEqual, BASE_URL, openFresh, download } from './harness.mjs';

const DEFAULT_TITLE = 'two hogs';
const link = (json) => '#s=' + zlib.deflateRawSync(Buffer.from(json, 'utf8'), { level: 9 }).toString('base64url');
const text = (page, sel) => page.locator(sel).first().innerText();

/** Open a fragment and wait until the page has settled (a run on screen, nothing loading). */
async function open(page, fragment) {
  await page.goto(BASE_URL + fragment, { waitUntil: 'load' });
  await settle(page);
  // A goto that changes only the fragment does not reload: until the app has taken the
  // hashchange in, the scenario shown is still the last one.
  const stem = fragment.match(/^#scenario=([\w.-]+)$/)?.[1];
  if (stem) {
    await page.waitForFunction((stem) => document.querySelector('#scenario')?.dataset.stem === stem && !document.querySelector('#status'), stem, { timeout: 60_000 });
  }
}

async function settle(page) {
  await page.waitForFunction(() => !document.querySelector('#status') && document.querySelector('#scenario-title'), null, { timeout: 60_000 });
}

async function setNice(page, task, value) {
  const input = page.locator(`#tasks-table tr[data-task="${task}"] input.edit-nice`);
  await input.fill(String(value));
  await input.press('Enter');
  await input.evaluate((i) => i.blur());
  await page.waitForSelector('#notice:has-text("recorded")');
}

/** A task's nice once the run is at its end (an edit applies from the µs after it was made). */
async function niceOf(page, task) {
  await page.click('#btn-end');
  await page.waitForSelector('#run[data-finished="true"]', { timeout: 60_000 });
  return page.locator(`#tasks-table tr[data-task="${task}"] input.edit-nice`).inputValue();
}

const scenario = (extra) => JSON.stringify({
  format: 'fairground-scenario/1', name: 'limits', duration_ms: 1000, scheduler: { policy: 'cfs-v6.2' }, ...extra,
});

test('a link whose bursts are below the 1 ns resolution is refused with the reason; the default scenario is shown', async ({ page }) => {
  const json = scenario({
    tasks: [{ name: 'a', behavior: { kind: 'bursty', run_us: 0.0001, sleep_us: 0.0001 } }],
    lesson: { title: 'tiny', steps: [{ text: 'x' }] },
  });
  await page.goto(BASE_URL, { waitUntil: 'load' });
  await page.evaluate(() => localStorage.clear());
  await open(page, link(json));
  const err = await text(page, '#error');
  assert(/below the model's resolution of 1 ns/.test(err), `error: ${err}`);
  assertEqual((await text(page, '#scenario-title')).trim(), DEFAULT_TITLE, 'the default scenario is shown');
});

test('a link with 200,000 cgroups is refused with the cap; the default scenario is shown', async ({ page }) => {
  const cgroups = Array.from({ length: 200_000 }, (_, i) => ({ name: `g${i}` }));
  const json = scenario({ cgroups, tasks: [{ name: 'a', behavior: { kind: 'hog' } }] });
  await open(page, link(json));
  const err = await text(page, '#error');
  assert(/200000 cgroups; at most 1024/.test(err), `error: ${err}`);
  assertEqual((await text(page, '#scenario-title')).trim(), DEFAULT_TITLE, 'the default scenario is shown');
});

test('edits to one scenario survive editing another, and a reload', async ({ page }) => {
  await openFresh(page, '#scenario=two-hogs');
  await setNice(page, 'hog/0', 5);
  await open(page, '#scenario=nice-0-vs-5');
  await setNice(page, 'nice0', 3);
  await open(page, '#scenario=two-hogs');
  assertEqual(await niceOf(page, 'hog/0'), '5', 'two-hogs keeps its edit after nice-0-vs-5 was edited');
  assert(await page.locator('#btn-discard').isVisible(), 'two-hogs says it is edited');
  await page.reload({ waitUntil: 'load' });
  await settle(page);
  assertEqual(await niceOf(page, 'hog/0'), '5', 'after a reload');
  await open(page, '#scenario=nice-0-vs-5');
  assertEqual(await niceOf(page, 'nice0'), '3', 'nice-0-vs-5 keeps its own edit');
  await page.evaluate(() => localStorage.clear());
});

test('a storage error is said, not hidden', async ({ page }) => {
  await openFresh(page, '#scenario=two-hogs');
  await page.evaluate(() => {
    Storage.prototype.setItem = function () { throw new DOMException('The quota has been exceeded.', 'QuotaExceededError'); };
  });
  await setNice(page, 'hog/1', 2);
  const notice = await text(page, '#notice');
  assert(/could not be saved/.test(notice), `notice: ${notice}`);
});

/** Hold a shipped scenario's file back until the returned function is called (it lets the
 *  file through and stops holding): the page's address then names a scenario still opening. */
async function holdBack(page, stem) {
  const url = `**/static/scenarios/${stem}.json`;
  let let_through;
  const held = new Promise((r) => { let_through = r; });
  // unroute() lets a held request through itself: then continue() has nothing left to do.
  await page.route(url, async (route) => { await held; await route.continue().catch(() => {}); });
  return async () => {
    let_through();
    await page.unroute(url);
  };
}

test('work is saved under the address it was opened from, not one still opening', async ({ page }) => {
  await openFresh(page, '#scenario=two-hogs');
  await setNice(page, 'hog/0', 5);
  // The next scenario's file arrives late: meanwhile the run of two-hogs answers a jump to its
  // end, and the page saves the edited run. It must go under two-hogs' address.
  const release = await holdBack(page, 'nice-0-vs-5');
  await page.evaluate(() => {
    document.querySelector('#btn-end').click();
    location.hash = '#scenario=nice-0-vs-5';
  });
  await page.waitForFunction(() => document.querySelector('#run')?.dataset.finished === 'true', null, { timeout: 60_000 });
  await release();
  await page.waitForFunction(() => document.querySelector('#scenario')?.dataset.stem === 'nice-0-vs-5' && document.querySelector('#tasks-table tr[data-task]'), null, { timeout: 60_000 });
  const tasks = await page.locator('#tasks-table tr[data-task]').evaluateAll((trs) => trs.map((tr) => tr.dataset.task));
  assert(tasks.includes('nice0') && !tasks.includes('hog/0'), `nice-0-vs-5 opens as itself, not as the edited two-hogs: ${tasks}`);
  assert(!(await page.locator('#btn-discard').isVisible()), 'nice-0-vs-5 has no saved edits');
  await open(page, '#scenario=two-hogs');
  assertEqual(await niceOf(page, 'hog/0'), '5', 'two-hogs keeps its edit');
  await page.evaluate(() => localStorage.clear());
});

test('discarding edits in the same window discards those of the run shown', async ({ page }) => {
  await openFresh(page, '#scenario=two-hogs');
  await setNice(page, 'hog/0', 5);
  const release = await holdBack(page, 'nice-0-vs-5');
  await page.evaluate(() => { location.hash = '#scenario=nice-0-vs-5'; });
  // The address names nice-0-vs-5, its file is held back: two-hogs is still shown, edited.
  await page.click('#btn-discard');
  await release();
  await page.waitForFunction(() => document.querySelector('#scenario')?.dataset.stem === 'nice-0-vs-5' && document.querySelector('#tasks-table tr[data-task="nice0"]'), null, { timeout: 60_000 });
  await open(page, '#scenario=two-hogs');
  assertEqual(await niceOf(page, 'hog/0'), '0', 'two-hogs\' edits were discarded');
  assert(!(await page.locator('#btn-discard').isVisible()), 'two-hogs has no saved edits');
  await page.evaluate(() => localStorage.clear());
});

test('saved work that no longer validates is offered for download or discard', async ({ page }) => {
  await openFresh(page, '#scenario=two-hogs');
  await setNice(page, 'hog/0', 4);
  // Corrupt the saved copy as an older version of the app might have left it.
  await page.evaluate(() => {
    for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i);
      if (!k.startsWith('fairground.experiment.')) continue;
      const v = JSON.parse(localStorage.getItem(k));
      v.text = v.text.replace('"duration_ms":', '"x_unknown": 1, "duration_ms":');
      localStorage.setItem(k, JSON.stringify(v));
    }
  });
  await page.reload({ waitUntil: 'load' });
  await page.waitForSelector('#saved-error', { timeout: 60_000 });
  const err = await text(page, '#saved-error');
  assert(/saved edits/.test(err) && /x_unknown/.test(err), `error: ${err}`);
  const dl = await download(page, '#btn-download-saved');
  assert(dl.bytes.toString().includes('x_unknown'), 'the download is the saved text');
  await page.click('#btn-discard-saved');
  await settle(page);
  assertEqual(await niceOf(page, 'hog/0'), '0', 'the shipped scenario after discarding');
  await page.evaluate(() => localStorage.clear());
});

test('two tabs on one scenario warn each other', async ({ page, context }) => {
  await openFresh(page, '#scenario=two-hogs');
  const other = await context.newPage();
  try {
    await open(other, '#scenario=two-hogs');
    await setNice(page, 'hog/0', 6);
    await other.waitForSelector('#notice:has-text("another tab")', { timeout: 30_000 });
  } finally {
    await other.close();
    await page.evaluate(() => localStorage.clear());
  }
});

test('a scenario too large for the old 4 MiB link limit opens from its link', async ({ page }) => {
  // 500,000 replay steps: about 5.5 MB of JSON.
  const steps = Array.from({ length: 500_000 }, (_, i) => [1000 + (i % 7), 500 + (i % 11)]);
  const json = scenario({ duration_ms: 2000, tasks: [{ name: 'r', behavior: { kind: 'replay', steps_us: steps } }] });
  assert(json.length > 4 << 20, `${json.length} bytes`);
  await page.goto(BASE_URL, { waitUntil: 'load' });
  await page.evaluate(() => localStorage.clear());
  await open(page, link(json));
  const err = await page.locator('#error').count() ? await text(page, '#error') : '';
  assertEqual(err, '', 'no error');
  assertEqual((await text(page, '#scenario-title')).trim(), 'limits', 'the large scenario is shown');
}, { timeout: 180_000 });

test('a run the core stops is reported with its time and the last change before it, and the page stays usable', async ({ page }) => {
  await openFresh(page, '#scenario=two-hogs&debug=1');
  await setNice(page, 'hog/1', 1);
  await page.click('#btn-help');
  await page.click('#btn-test-runaway');
  await page.keyboard.press('Escape');
  await page.click('#btn-end');
  await page.waitForSelector('#run-stopped', { timeout: 30_000 });
  // Two hogs at HZ 250 have instants at every 4 ms tick: the last one before the stop at
  // 50 ms is the tick at 48 ms, where the run stays.
  const msg = await text(page, '#run-stopped');
  assert(/stopped at 48 ms/.test(msg), `message: ${msg}`);
  assert(/hog\/1 nice 1/.test(msg), `the last change is named: ${msg}`);
  const view = Number(await page.locator('#run').getAttribute('data-view-ns'));
  assertEqual(view, 48_000_000, 'the view stays at the last good time');
  assertEqual(await page.locator('#run').getAttribute('data-finished'), 'false', 'not finished');
  // Still usable: going back works.
  await page.click('#btn-start');
  await page.waitForFunction(() => document.querySelector('#run').dataset.viewNs === '0', null, { timeout: 30_000 });
  await page.evaluate(() => localStorage.clear());
});

test('a worker that dies twice at the same time is not restarted into it: the default scenario is shown, and the scenario is offered for download', async ({ page }) => {
  await openFresh(page, '#scenario=nice-0-vs-5&debug=1');
  await setNice(page, 'nice5', 2);
  await page.click('#btn-step-tick');
  await page.waitForFunction(() => Number(document.querySelector('#run').dataset.viewNs) > 0, null, { timeout: 30_000 });
  await page.click('#btn-help');
  await page.click('#btn-crash');
  await page.waitForSelector('#notice:has-text("worker stopped")', { timeout: 30_000 });
  await page.waitForFunction(() => document.querySelector('#run')?.dataset.restarts === '1' && !document.querySelector('#status'), null, { timeout: 30_000 });
  if (!(await page.locator('#btn-crash').isVisible())) await page.click('#btn-help');
  await page.click('#btn-crash');
  await page.waitForSelector('#saved-error', { timeout: 30_000 });
  await page.keyboard.press('Escape');
  await settle(page);
  const err = await text(page, '#saved-error');
  assert(/stopped twice/.test(err) && /kept for download/.test(err), `message: ${err}`);
  assert(/crashed twice/.test(await text(page, '#error')), 'the error names the cause');
  assertEqual((await text(page, '#scenario-title')).trim(), DEFAULT_TITLE, 'the default scenario is shown');
  const dl = await download(page, '#btn-download-saved');
  const saved = JSON.parse(dl.bytes.toString());
  assertEqual(saved.name, 'nice 0 vs nice 5', 'the download is the user\'s scenario');
  assert(JSON.stringify(saved.timeline).includes('"nice":2'), 'with its edit');
  await page.evaluate(() => localStorage.clear());
}, { timeout: 120_000 });

test('an exercise link with a seed beyond 2^53 names the range and shows the default scenario', async ({ page }) => {
  await open(page, '#exercise=cfs-pick&seed=9007199254740993');
  const err = await text(page, '#error');
  assert(/from 0 to 9007199254740992/.test(err), `error: ${err}`);
  assertEqual((await text(page, '#scenario-title')).trim(), DEFAULT_TITLE, 'the default scenario is shown');
});
