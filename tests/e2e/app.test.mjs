// End-to-end tests of the web app in headless Chromium: fragments, the picker and the figures
// of a finished run. Tests marked "[engine]" need the simulation (rows in #tasks-table). The
// live parts (transport, timeline, edits, worker recovery) are in live.test.mjs.
import zlib from 'node:zlib';
import { test, assert, assertEqual, BASE_URL, openFresh, download } from './harness.mjs';

const DEFAULT_STEM = 'two-hogs';
const SCREENSHOT = process.env.E2E_SCREENSHOT || '/tmp/fairground-e2e.png';

async function fetchText(url) {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), 10_000);
  try {
    const r = await fetch(url, { signal: ctl.signal });
    if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
    return await r.text();
  } finally {
    clearTimeout(timer);
  }
}

// The shipped scenarios, as the built site lists them.
let shipped = [];
let indexError = null;
try {
  shipped = JSON.parse(await fetchText(`${BASE_URL}static/scenarios/index.json`)).scenarios;
} catch (e) {
  indexError = e;
}

/** Open the app at a fragment and wait until it has finished loading (bounded). */
async function open(page, fragment = '') {
  await page.goto(BASE_URL + fragment, { waitUntil: 'load' });
  await settled(page);
}

/** Wait until the app shows `stem` (or anything, if null) and is not loading. */
async function settled(page, stem = null) {
  await page.waitForFunction((stem) => {
    const picker = document.querySelector('#scenario-picker');
    const sec = document.querySelector('#scenario');
    if (!picker || !sec || document.querySelector('#status')) return false;
    return stem === null || sec.dataset.stem === stem;
  }, stem, { timeout: 60_000 });
}

const text = (page, sel) => page.locator(sel).first().innerText();

/** Rows of #tasks-table, or a failure that quotes #error. */
async function taskRows(page) {
  if (await page.locator('#tasks-table').count() === 0) {
    const err = await page.locator('#error').count() ? await text(page, '#error') : '(no #error either)';
    throw new Error(`no #tasks-table; #error says: ${err}`);
  }
  const declared = Number(await page.locator('#tasks-table').getAttribute('data-tasks'));
  const rows = await page.locator('#tasks-table tbody tr[data-task]').evaluateAll((trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.innerText.trim())));
  assertEqual(rows.length, declared, 'rows in #tasks-table vs tasks in the report');
  assert(rows.length > 0, 'the report lists no tasks');
  return rows;
}

/** Run to the end of the run (the page opens a scenario paused at time 0). */
export async function runToEnd(page) {
  await page.click('#btn-end');
  await page.waitForSelector('#run[data-finished="true"]', { timeout: 60_000 });
}

function shareLink(json) {
  return '#s=' + zlib.deflateRawSync(Buffer.from(json, 'utf8'), { level: 9 }).toString('base64url');
}

test('page title and header', async ({ page }) => {
  await open(page);
  assertEqual(await page.title(), 'Fairground', 'page title');
  assertEqual((await text(page, 'h1')).trim(), 'Fairground', 'header');
});

test('no fragment opens the default scenario and says so in the URL', async ({ page }) => {
  await open(page);
  await settled(page, DEFAULT_STEM);
  assertEqual(await page.evaluate(() => location.hash), `#scenario=${DEFAULT_STEM}`, 'fragment');
  assertEqual(await page.locator('#scenario-picker').inputValue(), DEFAULT_STEM, 'picker value');
  assertEqual((await text(page, '#scenario-title')).trim(), 'two hogs', 'scenario title');
});

test('the scenario picker lists the shipped scenarios', async ({ page }) => {
  if (indexError) throw indexError;
  const stems = shipped.map((s) => s.stem);
  for (const must of ['two-hogs', 'nice-0-vs-5']) assert(stems.includes(must), `index.json lacks ${must}`);
  await open(page);
  const options = await page.locator('#scenario-picker option').evaluateAll((os) => os.map((o) => o.value).filter(Boolean));
  // Grouped: the lessons, then the experiments, then the threads' tables (seed*), each in the index's order.
  const group = (stem) => (stem.startsWith('lesson-') ? 0 : stem.startsWith('seed') ? 2 : 1);
  assertEqual(options, [0, 1, 2].flatMap((g) => stems.filter((s) => group(s) === g)), 'picker options, grouped');
  const labels = await page.locator('#scenario-picker optgroup').evaluateAll((gs) => gs.map((g) => g.label));
  assertEqual(labels, ['Lessons', 'Experiments', "The threads' tables"], 'the picker\'s groups');
  for (const stem of stems) {
    const r = await page.request.get(`${BASE_URL}static/scenarios/${stem}.json`, { timeout: 10_000 });
    assertEqual(r.status(), 200, `static/scenarios/${stem}.json status`);
  }
});

if (indexError) {
  test('[engine] every shipped scenario runs', () => { throw indexError; });
}
for (const s of shipped) {
  test(`[engine] #scenario=${s.stem} runs and shows one row per task`, async ({ page }) => {
    await openShown(page, s.stem);
    const rows = await taskRows(page);
    const raw = await fetchText(`${BASE_URL}static/scenarios/${s.stem}.json`);
    let doc = null;
    try { doc = JSON.parse(raw); } catch { /* JSONC: skip the field checks */ }
    if (doc) {
      assertEqual((await text(page, '#policy')).trim(), doc.scheduler.policy, '#policy');
      assertEqual((await text(page, '#report-scenario')).trim(), doc.name, 'report scenario name');
    }
    for (const r of rows) assert(r[0].length > 0, 'a task row without a name');
  });
}

// Two nice-0 hogs at HZ 250: each slice is 2 999 998 ns, so every tick (4 ms) preempts and
// the 25 stints of the 100 ms run alternate: 13 × 4 ms = 52% for the first to run (hog/1,
// whose START_DEBIT placement is earlier) and 12 × 4 ms = 48% for the other.
test('[engine] two-hogs: the hogs alternate tick by tick (52% / 48%)', async ({ page }) => {
  await openShown(page, 'two-hogs');
  await runToEnd(page);
  const rows = await taskRows(page);
  assertEqual(rows.map((r) => r[0]), ['hog/0', 'hog/1'], 'task names');
  assertEqual(rows.map((r) => Number(r[1])), [48, 52], 'shares in %');
});

test('[engine] nice-0-vs-5: shares follow the weights 1024 : 335', async ({ page }) => {
  await openShown(page, 'nice-0-vs-5');
  await runToEnd(page);
  const rows = await taskRows(page);
  assertEqual(rows.map((r) => r[0]), ['nice0', 'nice5'], 'task names');
  assert(Math.abs(Number(rows[0][1]) - 75.3) <= 2, `nice0 share ${rows[0][1]}%, expected ≈ 75.3%`);
  assert(Math.abs(Number(rows[1][1]) - 24.7) <= 2, `nice5 share ${rows[1][1]}%, expected ≈ 24.7%`);
});

/**
 * Wait until the app has dealt with #scenario=<stem>: it shows it, or (while it cannot be
 * run, e.g. before the engine lands) it names it in #error and shows the default instead.
 */
async function dealtWith(page, stem) {
  await page.waitForFunction((stem) => {
    if (location.hash !== `#scenario=${stem}` || document.querySelector('#status')) return false;
    const sec = document.querySelector('#scenario');
    const err = document.querySelector('#error');
    return !!sec && (sec.dataset.stem === stem || (!!err && err.innerText.includes(`(${stem})`)));
  }, stem, { timeout: 60_000 });
}

/** Open #scenario=<stem> and require that it is the scenario shown (not the fallback). */
async function openShown(page, stem) {
  await page.goto(`${BASE_URL}#scenario=${stem}`, { waitUntil: 'load' });
  await dealtWith(page, stem);
  const shown = await page.locator('#scenario').getAttribute('data-stem');
  if (shown !== stem) {
    const err = await page.locator('#error').count() ? await text(page, '#error') : '(no #error)';
    throw new Error(`#scenario=${stem} is not shown; #error says: ${err}`);
  }
}

/** After an error, the picker must still open another scenario. */
async function pickerStillWorks(page, badWord) {
  await page.selectOption('#scenario-picker', 'nice-0-vs-5');
  await dealtWith(page, 'nice-0-vs-5');
  if (await page.locator('#error').count()) {
    const err = await text(page, '#error');
    assert(!err.includes(badWord), `the old error is still shown after picking: ${err}`);
  }
}

test('an unknown scenario shows a readable error, then the app stays usable', async ({ page }) => {
  await open(page, '#scenario=does-not-exist');
  await settled(page, DEFAULT_STEM);
  assert(await page.locator('#error').isVisible(), '#error is not visible');
  const err = await text(page, '#error');
  assert(/no shipped scenario named "does-not-exist"/.test(err), `unexpected error text: ${err}`);
  assert(err.includes('default scenario'), `the error does not say what is shown instead: ${err}`);
  assertEqual((await text(page, '#scenario-title')).trim(), 'two hogs', 'default scenario shown instead');
  await pickerStillWorks(page, 'does-not-exist');
});

test('a share link that cannot be decoded shows a readable error, then the app stays usable', async ({ page }) => {
  await open(page, '#s=!!!garbage');
  await settled(page, DEFAULT_STEM);
  assert(await page.locator('#error').isVisible(), '#error is not visible');
  const err = await text(page, '#error');
  assert(/share link could not be decoded/.test(err), `unexpected error text: ${err}`);
  await pickerStillWorks(page, 'share link');
});

test('other bad fragments are named in the error', async ({ page }) => {
  for (const [frag, want] of [
    ['#scenario=../../etc/passwd', /not a valid scenario name/],
    ['#nonsense', /not understood/],
    ['#s=', /share link is empty/],
    ['#s=AAAA', /not valid DEFLATE/],
  ]) {
    await open(page, frag);
    await settled(page, DEFAULT_STEM);
    const err = await text(page, '#error');
    assert(want.test(err), `${frag}: unexpected error text: ${err}`);
  }
});

test('a share link (#s=) is decoded and opened', async ({ page }) => {
  const json = JSON.stringify(JSON.parse(await fetchText(`${BASE_URL}static/scenarios/nice-0-vs-5.json`)));
  await open(page, shareLink(json));
  const err = await page.locator('#error').count() ? await text(page, '#error') : '';
  assert(!/share link/.test(err), `the share link was not decoded: ${err}`);
  // Shown (engine present), or refused with the shared scenario named (engine absent).
  const title = (await text(page, '#scenario-title')).trim();
  assert(title === 'nice 0 vs nice 5' || err.includes('shared scenario "nice 0 vs nice 5"'),
    `neither shown nor named: title ${JSON.stringify(title)}, error ${JSON.stringify(err)}`);
});

test('[engine] a shared scenario runs', async ({ page }) => {
  const json = JSON.stringify(JSON.parse(await fetchText(`${BASE_URL}static/scenarios/nice-0-vs-5.json`)));
  await open(page, shareLink(json));
  assertEqual(await page.locator('#scenario').getAttribute('data-stem'), '', 'a shared scenario is shown (no stem)');
  assertEqual((await text(page, '#scenario-title')).trim(), 'nice 0 vs nice 5', 'title');
  assertEqual((await taskRows(page)).length, 2, 'rows');
});

test('[engine] picking a scenario shows it', async ({ page }) => {
  await open(page, '#scenario=two-hogs');
  await page.selectOption('#scenario-picker', 'nice-0-vs-5');
  await dealtWith(page, 'nice-0-vs-5');
  assertEqual(await page.locator('#scenario').getAttribute('data-stem'), 'nice-0-vs-5', 'scenario shown after picking');
  assertEqual((await text(page, '#scenario-title')).trim(), 'nice 0 vs nice 5', 'title after picking');
  assertEqual(await page.locator('#scenario-picker').inputValue(), 'nice-0-vs-5', 'picker value');
  assertEqual((await taskRows(page)).length, 2, 'rows');
});

test('picking updates the fragment, and Back returns to the previous scenario', async ({ page }) => {
  await open(page, '#scenario=two-hogs');
  await settled(page, 'two-hogs');
  await page.selectOption('#scenario-picker', 'nice-0-vs-5');
  await dealtWith(page, 'nice-0-vs-5');
  await page.goBack({ waitUntil: 'commit' });
  await settled(page, 'two-hogs');
  assertEqual(await page.locator('#scenario-picker').inputValue(), 'two-hogs', 'picker after Back');
});

test(`screenshot of the default page (${SCREENSHOT})`, async ({ page }) => {
  await open(page);
  await settled(page, DEFAULT_STEM);
  await page.screenshot({ path: SCREENSHOT, fullPage: true });
});

// The tasks table of a scenario with more than 64 tasks draws the rows near the viewport and
// stands in for the others with spacers of their height (page/rows.rs).
test('tasks panel: a long table draws the rows in view, follows the scroll and keeps its height', async ({ page }) => {
  await openFresh(page, '#scenario=hackbench-8cpu');
  const rep = JSON.parse((await download(page, '#btn-export-report')).bytes.toString('utf8'));
  const names = rep.tasks.map((t) => t.name);
  assertEqual(names.length, 160, 'tasks in the report');
  await page.waitForSelector('#tasks-table[data-all-tasks="160"] tbody tr[data-task]', { timeout: 60_000 });
  const drawn = () => page.locator('#tasks-table tbody tr[data-task]').evaluateAll((trs) => trs.map((t) => t.dataset.task));
  // No spacer may show where a row should be: every spacer lies outside the viewport.
  const gapsInView = () => page.evaluate(() => [...document.querySelectorAll('#tasks-table tr.gap')]
    .map((g) => g.getBoundingClientRect()).filter((r) => r.bottom > 0 && r.top < window.innerHeight).length);
  const height = () => page.locator('#tasks-table').evaluate((t) => t.getBoundingClientRect().height);
  // The download's click scrolled the page to its button: back to the top.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForFunction((first) => document.querySelector('#tasks-table tbody tr[data-task]')?.dataset.task === first, names[0], { timeout: 10_000 });
  const top = await drawn();
  assert(top.length >= 16 && top.length < 160, `rows drawn at the top of the page: ${top.length}`);
  assertEqual(top, names.slice(0, top.length), 'the first rows, in order');
  assertEqual(Number(await page.locator('#tasks-table').getAttribute('data-tasks')), top.length, 'data-tasks counts the rows drawn');
  const h0 = await height();
  const cols = () => page.locator('#tasks-table thead th').evaluateAll((ths) => ths.map((th) => th.getBoundingClientRect().width));
  const cols0 = await cols();
  // A row keeps its elements (an input being typed in, its focus) while a scroll moves the
  // window, rather than taking another task's (the rows are keyed): row 40 brought to the top
  // of the viewport and its element marked, a scroll of 10 rows changes the rows drawn (rows
  // 16-79 around rows 40-57 in view, then 32-95) and row 40's element is the marked one.
  await page.evaluate(() => window.scrollBy(0, document.querySelector('#tasks-table tbody').getBoundingClientRect().top + 40 * 37 - 120));
  const row40 = page.locator(`#tasks-table tr[data-task="${names[40]}"]`);
  await row40.waitFor({ timeout: 10_000 });
  await row40.evaluate((tr) => window.scrollBy(0, tr.getBoundingClientRect().top - 120));
  await page.waitForTimeout(200);
  await row40.evaluate((tr) => { tr.fairgroundMark = true; });
  const before = await drawn();
  await page.evaluate(() => window.scrollBy(0, 10 * 37));
  await page.waitForFunction((b) => [...document.querySelectorAll('#tasks-table tbody tr[data-task]')].map((t) => t.dataset.task).join() !== b, before.join(), { timeout: 10_000 });
  assert(await page.locator(`#tasks-table tr[data-task="${names[40]}"]`).evaluate((tr) => tr.fairgroundMark === true), 'row 40 keeps its element when the window moves');
  await page.locator('#tasks-table tbody tr[data-task]').first().scrollIntoViewIfNeeded();
  await page.waitForTimeout(200);
  assertEqual(await gapsInView(), 0, 'spacers in view at the top of the table');
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  await page.waitForFunction((last) => [...document.querySelectorAll('#tasks-table tbody tr[data-task]')].pop()?.dataset.task === last, names[159], { timeout: 10_000 });
  const bottom = await drawn();
  assert(!bottom.includes(names[0]), 'the first task is left out at the bottom of the table');
  assertEqual(bottom, names.slice(160 - bottom.length), 'the last rows, in order');
  assertEqual(await gapsInView(), 0, 'spacers in view at the bottom of the table');
  assert(Math.abs((await height()) - h0) <= 2, `the table keeps its height: ${h0} then ${await height()}`);
  // The columns are as wide at the bottom as at the top (the collapsed sizer row holds each
  // column's longest text), though the names drawn there are longer.
  const cols1 = await cols();
  assert(cols0.every((w, i) => Math.abs(w - cols1[i]) <= 0.5), `the columns keep their widths: ${cols0.map(Math.round)} then ${cols1.map(Math.round)}`);
  // Run to the end while scrolled there: the rows in view take the figures of the end.
  await page.click('#btn-end');
  await page.waitForSelector('#run[data-finished="true"]', { timeout: 60_000 });
  const lastRow = await page.locator(`#tasks-table tr[data-task="${names[159]}"] td`).evaluateAll((tds) => tds.map((td) => td.innerText.trim()));
  assertEqual(Number(lastRow[2].replace(/\D/g, '')), rep.tasks[159].wakeups, 'the last task\'s wakeups at the end');
});

// The browser's find sees only the rows a windowed table draws: "Find a task" narrows the
// table to the tasks whose name contains the text (ASCII case ignored), over all of them.
test('tasks panel: "Find a task" narrows a long table to the names containing the text', async ({ page }) => {
  await openFresh(page, '#scenario=hackbench-8cpu');
  await page.waitForSelector('#tasks-table[data-all-tasks="160"] tbody tr[data-task]', { timeout: 60_000 });
  const drawn = () => page.locator('#tasks-table tbody tr[data-task]').evaluateAll((trs) => trs.map((t) => t.dataset.task));
  const cols = () => page.locator('#tasks-table thead th').evaluateAll((ths) => ths.map((th) => Math.round(th.getBoundingClientRect().width)));
  assertEqual(await page.locator('#task-filter-count').innerText(), '160 tasks', 'the count before a search');
  const cols0 = await cols();
  const find = async (text, shown) => {
    await page.fill('#task-filter', text);
    await page.waitForSelector(`#tasks-table[data-shown-tasks="${shown}"]`, { timeout: 10_000 });
  };
  await find('receiver79', 1);
  assertEqual(await drawn(), ['hb/receiver79'], 'one task matches receiver79');
  assertEqual(await page.locator('#task-filter-count').innerText(), '1 of 160 tasks', 'the count');
  // ASCII case is ignored; a few matches are drawn at once, in table order.
  await find(' RECEIVER7 ', 11);
  assertEqual(await drawn(), ['hb/receiver7', ...Array.from({ length: 10 }, (_, k) => `hb/receiver7${k}`)], 'receiver7 and receiver70-79');
  assertEqual(await cols(), cols0, 'the columns keep their widths while the table is narrowed');
  // Keys typed in the field are text, not shortcuts ("s", "d", "n", "p" are some).
  await page.fill('#task-filter', '');
  await page.locator('#task-filter').pressSequentially('sender');
  await page.waitForSelector('#tasks-table[data-shown-tasks="80"]', { timeout: 10_000 });
  await page.locator('#task-filter').press('p');
  assertEqual(await page.inputValue('#task-filter'), 'senderp', 'what was typed');
  assert(!(await page.evaluate(() => document.body.classList.contains('present'))), 'typing p in the field did not start presenter mode');
  await find('sender', 80);
  // 80 matches are more than a table draws whole: windowed over the matches.
  await page.evaluate(() => window.scrollTo(0, document.querySelector('#tasks-table').getBoundingClientRect().top + window.scrollY - 100));
  await page.waitForFunction(() => document.querySelector('#tasks-table tbody tr[data-task]')?.dataset.task === 'hb/sender0', null, { timeout: 10_000 });
  const senders = await drawn();
  assert(senders.length >= 16 && senders.length < 80 && senders.every((t) => t.includes('sender')), `senders drawn: ${senders.length}`);
  await find('nobody', 0);
  assertEqual(await drawn(), [], 'no rows');
  assert((await page.locator('#tasks-table tr.none').innerText()).includes('nobody'), 'the empty table says what found nothing');
  // A task selected while the table is narrowed stays selected when the search is cleared.
  await find('receiver79', 1);
  await page.click('#tasks-table tr[data-task="hb/receiver79"] td.name');
  await find('', 160);
  await page.waitForSelector('#tasks-table tr.selected[data-task="hb/receiver79"]', { timeout: 10_000 });
  // The selected task is shown whatever is typed; the count is of the tasks found.
  await find('sender', 81);
  await page.waitForSelector('#tasks-table tr.selected[data-task="hb/receiver79"]', { timeout: 10_000 });
  assertEqual(await page.locator('#task-filter-count').innerText(), '80 of 160 tasks', 'the count of the tasks found');
});

test('tasks panel: workloads and cgroups so far, with hackbench\'s completion once it has completed', async ({ page }) => {
  await openFresh(page, '#scenario=hackbench-8cpu');
  const rep = JSON.parse((await download(page, '#btn-export-report')).bytes.toString('utf8'));
  await page.waitForSelector('#live-groups tr[data-group="workload hb"]', { timeout: 60_000 });
  assertEqual(await page.locator('#live-groups tr[data-group="workload hb"] td.completion').innerText(), '–', 'not completed at time 0');
  await page.click('#btn-end');
  await page.waitForSelector('#run[data-finished="true"]', { timeout: 60_000 });
  await page.waitForFunction(() => document.querySelector('#live-groups tr[data-group="workload hb"] td.completion')?.innerText !== '–', null, { timeout: 60_000 });
  const cells = await page.locator('#live-groups tr[data-group="workload hb"] td').evaluateAll((tds) => tds.map((td) => td.innerText.trim()));
  // The same figures as the report's `workloads` at the end of the run.
  const w = rep.workloads.find((x) => x.name === 'hb');
  assertEqual(Number(cells[2].replace(/\D/g, '')), w.wakeup_latency_ns.count, 'wakeups');
  const [, num, unit] = cells[5].match(/^([\d.]+) (ns|µs|ms|s)$/) ?? [];
  const ns = Number(num) * { ns: 1, 'µs': 1e3, ms: 1e6, s: 1e9 }[unit];
  // Shown with at most 3 decimals of its unit.
  assert(Math.abs(ns - w.completion_ns) <= 0.0005 * { ns: 1, 'µs': 1e3, ms: 1e6, s: 1e9 }[unit] + 1, `completion ${cells[5]} vs ${w.completion_ns} ns`);
});

test('a share link carries the view: a fresh browser opens at the same time, with the same panels, task and figures', async ({ page, context }) => {
  await openFresh(page, '#scenario=nice-0-vs-5');
  // An edit, a time, a panel and a selected task: all of it must travel.
  const nice = page.locator('#tasks-table tbody tr').nth(1).locator('input.edit-nice');
  await nice.fill('3');
  await nice.press('Enter');
  await page.locator('#scrubber').evaluate((s) => { s.value = '123000'; s.dispatchEvent(new Event('input', { bubbles: true })); }); // 123 ms, in µs
  await page.waitForFunction(() => Number(document.querySelector('#run').dataset.viewNs) === 123_000_000, null, { timeout: 30_000 });
  await page.click('#btn-log');
  await page.waitForSelector('#log-entries li', { timeout: 30_000 });
  const task = await page.locator('#tasks-table tbody tr').nth(1).getAttribute('data-task');
  await page.locator('#tasks-table tbody tr').nth(1).locator('td').first().click();
  await page.waitForSelector('#tasks-table tr.selected');
  // Zoomed in around the cursor: the window travels too.
  await page.click('#btn-zoom-in');
  const win = await page.locator('.zoom').getAttribute('data-win');
  await page.click('#btn-share');
  const link = await page.locator('#share-link').inputValue();
  assert(/&t=123ms&task=[^&]+&panels=log&win=[^&]+$/.test(link), `the link carries the view: ${link.slice(-80)}`);
  const figures = async (p) => p.locator('#tasks-table tbody tr').evaluateAll((trs) => trs.map((tr) => tr.innerText));
  const before = await figures(page);

  const other = await context.browser().newContext();
  const p2 = await other.newPage();
  await p2.goto(link, { waitUntil: 'load' });
  await p2.waitForFunction(() => Number(document.querySelector('#run')?.dataset.viewNs) === 123_000_000, null, { timeout: 60_000 });
  await p2.waitForSelector('#decision-log #log-entries li', { timeout: 30_000 });
  assertEqual(await p2.locator('#tasks-table tr.selected').getAttribute('data-task'), task, 'the same task selected');
  assertEqual(await p2.locator('.zoom').getAttribute('data-win'), win, 'the same timeline window');
  assertEqual(await figures(p2), before, 'the same figures, the edit included');
  await other.close();
}, { timeout: 120_000 });

// The page puts the default scenario's fragment in the URL itself; a hashchange event still
// queued from a navigation to # (the index arrived in between) must not open that fragment as
// if the user had: it cleared the start page (3 of 24 quick navigations to # in a script).
test('a stale hashchange for the fragment the page wrote itself leaves the start page on screen', async ({ page }) => {
  await page.goto(BASE_URL, { waitUntil: 'load' });
  await page.waitForSelector('#start', { timeout: 60_000 });
  assertEqual(await page.evaluate(() => location.hash), `#scenario=${DEFAULT_STEM}`, 'the page names what it shows');
  await page.evaluate(() => window.dispatchEvent(new HashChangeEvent('hashchange')));
  await page.waitForTimeout(500);
  assertEqual(await page.locator('#start').count(), 1, 'the start page stays');
  // A real navigation still opens what it names.
  await page.evaluate(() => { location.hash = '#scenario=nice-0-vs-5'; });
  await page.waitForFunction(() => !document.getElementById('start'), null, { timeout: 30_000 });
});

test('a first visit shows the start page: the lessons as cards, a one-click A/B of the clamp, every scenario by group; test controls stay out of the help', async ({ page }) => {
  await page.goto(BASE_URL, { waitUntil: 'load' });
  await page.evaluate(() => localStorage.clear());
  await page.goto(BASE_URL + '#', { waitUntil: 'load' });
  await page.waitForSelector('#start', { timeout: 60_000 });
  const lessons = await page.locator('#start a.lesson-card').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
  assertEqual(lessons.length, shipped.filter((s) => s.stem.startsWith('lesson-')).length, 'a card per lesson');
  assert(lessons.every((h) => /^#scenario=lesson-[\w-]+&step=1$/.test(h)), `cards open step 1: ${lessons}`);
  await page.click('#btn-help');
  assertEqual(await page.locator('#btn-crash').count(), 0, 'no "crash the worker" for users');
  await page.keyboard.press('Escape');
  // The demo: clamp-lesson, B with the wakeup clamp off, run at once.
  await page.click('#demo-clamp');
  await page.waitForSelector('#ab-clamps', { timeout: 60_000 });
  assertEqual(await page.locator('#start').count(), 0, 'the start page gives way to the scenario');
  const row = await page.locator('#ab-clamps tr', { hasText: 'wakeup granularity' }).locator('td').allInnerTexts();
  const [boundA] = row[0].split('/').map((x) => Number(x.trim()));
  assert(boundA > 0, `A (clamp on) has wakeups the clamp bound: ${row}`);
  assertEqual(row[1].replace(/\s/g, ''), '0/0', 'B (clamp off) has none');
  // "Start here" brings it back.
  await page.click('#link-start');
  await page.waitForSelector('#start', { timeout: 30_000 });
});
