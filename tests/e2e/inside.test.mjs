// End-to-end tests of "inside the scheduler": the decision log with its filters and
// click-to-seek, "why did this run?" from a timeline click, the rb-tree view (node count,
// leftmost, curr beside, the v12 latency tree, EEVDF's V line, the step's operations) and the
// key chart.
import { test, assert, assertEqual, openFresh } from './harness.mjs';

const fresh = (page, fragment) => openFresh(page, fragment);

const viewNs = (page) => page.locator('#run').evaluate((r) => Number(r.dataset.viewNs));

/** Wait until the worker has nothing left to do for the page (no seek under way). */
async function idle(page) {
  await page.waitForFunction(() => !document.querySelector('.transport .status'), null, { timeout: 60_000 });
}

async function runToEnd(page) {
  await page.click('#btn-end');
  await page.waitForSelector('#run[data-finished="true"]', { timeout: 60_000 });
  await idle(page);
}

test('decision log: clamp-lesson says when the v12 clamp decided, and a click moves the time there', async ({ page }) => {
  await fresh(page, '#scenario=clamp-lesson');
  await idle(page);
  // Move to 1 s first, then open the log: the worker replays the run from the start to record
  // it and comes back to 1 s in the same answer. The scrubber's value is set and its input
  // event fired in one step in the page: with `fill` then `dispatchEvent` (two round trips),
  // an answer arriving in between re-renders the scrubber at the current time, and the event
  // then carried that time (0): the "ended at time 0" seen on a loaded machine.
  await page.locator('#scrubber').evaluate((s) => { s.value = '1000000'; s.dispatchEvent(new Event('input', { bubbles: true })); }); // 1 s, in µs
  await page.waitForFunction(() => Number(document.querySelector('#run').dataset.viewNs) >= 1_000_000_000, null, { timeout: 60_000 });
  await idle(page);
  await page.click('#btn-log');
  await page.waitForSelector('#log-meta');
  await idle(page);
  // Wakeup checks only: the clamp of wakeup_preempt_entity() is what the lesson is about.
  await page.uncheck('#kind-pick');
  await page.uncheck('#kind-tick');
  await idle(page);
  await page.waitForSelector('#log-entries li').catch(async (e) => {
    await page.screenshot({ path: '/tmp/inside-fail.png', fullPage: true });
    const run = await page.locator('#run').evaluate((r) => JSON.stringify(r.dataset));
    const meta = await page.locator('#log-meta').innerText().catch(() => '(no #log-meta)');
    throw new Error(`${e.message.split('\n')[0]}; #run ${run}; the log says: ${meta}`);
  });
  const kinds = await page.locator('#log-entries li').evaluateAll((lis) => [...new Set(lis.map((li) => li.dataset.kind))]);
  assertEqual(kinds, ['wakeup'], 'kinds shown with only wakeup checks ticked');
  const clamp = page.locator('#log-entries li.clamp').first();
  assert(await clamp.count() === 1, 'no entry decided by the clamp among the newest wakeup checks');
  const sentence = (await clamp.locator('.text').innerText()).trim();
  assert(sentence.endsWith('without the clamp it would not have'), `clamp entry: ${sentence}`);
  // The kernel's numbers for a nice-5 wakee on one CPU: wakeup_gran 1 ms × 1024/335, and
  // get_latency_max() = 6 ms / 2 − 0.75 ms.
  assert(/^waker\/[01] \(nice 5\) woke; vdiff /.test(sentence), `the wakee is named with its nice: ${sentence}`);
  assert(sentence.includes('wakeup_gran 3.057 ms') && sentence.includes('clamped to get_latency_max 2.250 ms'), sentence);
  const at = Number(await clamp.getAttribute('data-at-ns'));
  assert(at > 0 && at < 1_000_000_000, `entry time ${at}`);
  await clamp.locator('button.seek').click();
  await page.waitForFunction((at) => Number(document.querySelector('#run').dataset.viewNs) === at, at, { timeout: 60_000 });
  await idle(page);
  // The log now ends at that instant, and the entry there is marked as the current one.
  await page.waitForSelector(`#log-entries li.now[data-at-ns="${at}"]`);
  const newest = Number(await page.locator('#log-entries li').first().getAttribute('data-at-ns'));
  assert(newest <= at, `the log shows nothing after the time cursor (${newest} > ${at})`);
});

test('decision log: the whole run\'s clamp counts, "the clamp changed the outcome" with next/previous, and what-if lines', async ({ page }) => {
  await fresh(page, '#scenario=clamp-lesson');
  await idle(page);
  await page.click('#btn-log');
  // The measuring worker runs the whole run once and sends each site's counts and the flips.
  await page.waitForSelector('#log-clamps[data-flips]', { timeout: 120_000 });
  const flips = Number(await page.locator('#log-clamps').getAttribute('data-flips'));
  assert(flips > 0, `flips ${flips}`);
  const header = await page.locator('#log-clamps p').innerText();
  assert(/the wakeup clamp bound [\d\s,]+ times and changed the outcome [\d\s,]+/u.test(header), header);
  // At time 0 nothing came before; "next" goes to the first flip.
  assert(await page.locator('#btn-clamp-prev').isDisabled(), 'no flip before time 0');
  await page.click('#btn-clamp-next');
  await page.waitForFunction(() => Number(document.querySelector('#run').dataset.viewNs) > 0, null, { timeout: 60_000 });
  await idle(page);
  const first = await viewNs(page);
  await page.waitForFunction(() => /^at flip 1 of /.test(document.querySelector('#clamp-pos')?.innerText || ''), null, { timeout: 30_000 });
  await page.check('#log-clamp-only');
  await idle(page);
  await page.waitForSelector(`#log-entries li.now[data-at-ns="${first}"]`, { timeout: 60_000 });
  // Every entry shown is one a clamp decided, and the wakeup checks say what would have
  // turned them: the wakeup clamp off.
  const all = await page.locator('#log-entries li').evaluateAll((lis) => lis.map((li) => [li.classList.contains('clamp'), li.dataset.kind, li.querySelector('.whatif')?.innerText || '']));
  assert(all.length >= 1 && all.every((e) => e[0]), `entries: ${JSON.stringify(all)}`);
  for (const [, kind, whatif] of all) {
    if (kind === 'wakeup') assert(whatif.includes('latency_max_clamp_wakeup off → does not preempt'), whatif);
  }
  // Each entry names the core function that decided and the fair.c function it models.
  const src = await page.locator('#log-entries li .source').first().innerText();
  assert(/^crates\/sim\/src\/\S+\.rs:\d+ — \S+ models .*fair\.c/.test(src), src);
  // Next again, then previous back to the first.
  await page.click('#btn-clamp-next');
  await page.waitForFunction((t) => Number(document.querySelector('#run').dataset.viewNs) > t, first, { timeout: 60_000 });
  await idle(page);
  await page.click('#btn-clamp-prev');
  await page.waitForFunction((t) => Number(document.querySelector('#run').dataset.viewNs) === t, first, { timeout: 60_000 });
});

test('decision log filters by CPU and task', async ({ page }) => {
  await fresh(page, '#scenario=mixed-behaviours');
  await page.click('#btn-log');
  await page.click('#btn-step-tick');
  await page.click('#btn-step-tick');
  await page.click('#btn-step-tick');
  await idle(page);
  await page.waitForSelector('#log-entries li');
  const name = await page.locator('#log-task option').nth(1).innerText();
  await page.selectOption('#log-task', { index: 1 });
  await page.waitForFunction(() => document.querySelectorAll('#log-entries li').length > 0);
  await page.waitForFunction((name) => [...document.querySelectorAll('#log-entries li .text')].every((t) => t.innerText.includes(name)), name);
  await page.selectOption('#log-cpu', '0');
  await page.waitForFunction(() => [...document.querySelectorAll('#log-entries li')].every((li) => li.dataset.cpu === '0'));
});

test('why did this run: a click on a slice names the pick that began it and the tick that ended it', async ({ page }) => {
  await fresh(page, '#scenario=two-hogs');
  await runToEnd(page);
  const box = await page.locator('#timeline').boundingBox();
  // CPU 0's lane, 30% into the 100 ms run (gutter 64 px, axis 20 px, lane 28 px).
  await page.mouse.click(box.x + 64 + (box.width - 64) * 0.3, box.y + 20 + 14);
  await page.waitForSelector('#why-ran h3', { timeout: 60_000 });
  await idle(page);
  await page.waitForFunction(() => /Why did hog\/[01] run on CPU 0/.test(document.querySelector('#why-ran h3')?.innerText || ''), null, { timeout: 60_000 });
  const rows = await page.locator('#why-ran table tr').evaluateAll((trs) => trs.map((tr) => tr.innerText));
  assertEqual(rows.length, 3, 'rows of the answer');
  assert(/^Picked\s[\s\S]*pick: hog\/[01] after hog\/[01]/.test(rows[0]), `pick row: ${rows[0]}`);
  // Two equal hogs: every stint after the first starts and ends at a tick that found the
  // running hog past its slice.
  assert(/^Because\s[\s\S]*tick: hog\/[01] .*→ rescheduled/.test(rows[1]), `cause row: ${rows[1]}`);
  assert(/^Ended by\s[\s\S]*tick: hog\/[01] .*→ rescheduled/.test(rows[2]), `end row: ${rows[2]}`);
  // Its "ended by" entry moves the time there.
  await page.locator('#why-ran tr').nth(2).locator('button.seek').click();
  await page.waitForFunction(() => Number(document.querySelector('#run').dataset.viewNs) < 100_000_000, null, { timeout: 60_000 });
});

test('trees: two hogs on one CPU, one in the tree (the leftmost) and curr beside it', async ({ page }) => {
  await fresh(page, '#scenario=two-hogs');
  await page.click('#btn-trees');
  await page.click('#btn-step-event');
  await page.click('#btn-step-tick');
  await idle(page);
  await page.waitForSelector('#tree-tasks');
  // The step's operations (put curr back, take the next out) are replayed first.
  await page.waitForSelector('#trees[data-animating="false"]', { timeout: 20_000 });
  const t = await page.locator('#trees').evaluate((el) => ({
    nr: el.dataset.nrRunning,
    nodes: el.querySelector('#tree-tasks').dataset.nodes,
    leftmost: el.querySelector('#tree-tasks').dataset.leftmost,
    curr: el.querySelector('#tree-curr').dataset.task,
    drawn: el.querySelectorAll('#tree-tasks svg g.node').length,
    marked: el.querySelector('#tree-tasks g.node.leftmost text.name')?.textContent,
  }));
  assertEqual([t.nr, t.nodes, t.drawn], ['2', '1', 1], 'nr_running, nodes, drawn nodes');
  assert(/^hog\/[01]$/.test(t.curr) && /^hog\/[01]$/.test(t.leftmost) && t.curr !== t.leftmost, `curr ${t.curr}, leftmost ${t.leftmost}`);
  assertEqual(t.marked, t.leftmost, 'the node marked leftmost');
  // A click on the node selects its task everywhere (the tasks table too).
  await page.locator('#tree-tasks g.node.leftmost').click();
  await page.waitForSelector('#tree-tasks g.node.leftmost.selected');
  const row = await page.locator('#tasks-table tr.selected td').first().innerText();
  assertEqual(row.trim(), t.leftmost, 'the selected row');
  // The list view shows the same node.
  await page.click('#tree-mode');
  await page.waitForSelector('#tree-tasks .tree-list tr.leftmost');
});

test('trees: v12 draws latency_timeline too, EEVDF draws V, and a step lists its tree operations', async ({ page }) => {
  await fresh(page, '#scenario=latency-nice-ladder');
  await page.click('#btn-trees');
  await page.waitForSelector('#tree-latency');
  let ops = 0;
  for (let i = 0; i < 12 && ops === 0; i++) {
    await page.click('#btn-step-event');
    await idle(page);
    ops = await page.locator('#tree-tasks ol.ops li').count();
  }
  assert(ops > 0, 'twelve events without an insert or erase in tasks_timeline');
  const text = await page.locator('#tree-tasks ol.ops').innerText();
  assert(/(insert|erase) /.test(text), `operations: ${text}`);
  await fresh(page, '#scenario=lesson-3-eevdf-lag');
  // The lesson's first step names CPU 0's tree, so the trees are open already.
  await page.waitForSelector('#btn-trees[aria-pressed="true"]', { timeout: 10_000 });
  await page.click('#btn-step-tick');
  await idle(page);
  await page.waitForSelector('#v-line', { state: 'attached' });
  const flavour = await page.locator('#trees').getAttribute('data-flavour');
  assert(flavour.startsWith('v6.'), `flavour ${flavour}`);
});

test('key chart: the selected task\'s vruntime over time', async ({ page }) => {
  await fresh(page, '#scenario=two-hogs');
  await page.click('#btn-chart');
  for (let i = 0; i < 4; i++) await page.click('#btn-step-tick');
  await idle(page);
  await page.waitForSelector('figure.keychart polyline.s-vr');
  const n = Number(await page.locator('figure.keychart').getAttribute('data-samples'));
  assert(n > 2, `samples ${n}`);
});

test('trees: a step with several operations is replayed one operation at a time, then shows the tree after it', async ({ page }) => {
  await fresh(page, '#scenario=latency-nice-ladder');
  await page.click('#btn-trees');
  await page.waitForSelector('#tree-tasks');
  let frames = 0;
  for (let i = 0; i < 40 && frames < 2; i++) {
    await page.click('#btn-step-event');
    await idle(page);
    frames = Number(await page.locator('#trees').getAttribute('data-frames'));
  }
  assert(frames >= 2, 'forty events without a step of two structural tree operations');
  await page.click('#tree-replay');
  await page.waitForSelector('#trees[data-animating="true"]');
  // One operation listed at a time while replaying, the current one.
  const first = await page.locator('#tree-replay').innerText();
  assert(/^operation 1 of \d+/.test(first), `replay button: ${first}`);
  await page.waitForSelector('#trees[data-animating="false"]', { timeout: 1000 * frames + 10_000 });
  assert(/replay this step/.test(await page.locator('#tree-replay').innerText()), 'the replay ends on the tree after the step');
});

test('opening the log while playing pauses where the run was and records it from the start', async ({ page }) => {
  await fresh(page, '#scenario=two-hogs');
  await page.click('#btn-play');
  await page.waitForFunction(() => Number(document.querySelector('#run').dataset.viewNs) > 20_000_000, null, { timeout: 60_000 });
  await page.click('#btn-log');
  const before = await viewNs(page);
  await page.waitForSelector('#log-meta');
  await idle(page);
  await page.waitForFunction((t) => Number(document.querySelector('#run').dataset.viewNs) >= t, before, { timeout: 60_000 });
  assertEqual(await page.locator('#btn-play').innerText(), '▶ Play', 'play button after opening the log');
  const meta = await page.locator('#log-meta').innerText();
  assert(/from 0 ns to now/.test(meta), `log covers the run from its start: ${meta}`);
  // Two hogs on one CPU for 20+ ms: a pick at 0 and a tick check every 4 ms.
  assert(Number(await page.locator('#log-meta').getAttribute('data-recorded')) >= 6, meta);
});
