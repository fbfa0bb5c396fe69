// End-to-end test of "Which change did it?" in the Export and A/B panel
// (src/page/panels/measure/ablate.rs): the seed-000 question on the clamp lesson.
import { test, assert, assertEqual, openFresh } from './harness.mjs';

test('which change did it: on clamp-lesson the wakeup clamp ranks first, and its row opens its A/B', async ({ page }) => {
  await openFresh(page, '#scenario=clamp-lesson', '#measure');
  await page.selectOption('#ablate-preset', 'clamps');
  await page.fill('#ablate-figure', 'task:waker/0:preemptions');
  await page.locator('#ablate-figure').dispatchEvent('change');
  await page.click('#btn-ablate');
  await page.waitForSelector('#ablate-table tbody tr', { timeout: 60_000 });
  const rows = await page.locator('#ablate-table tbody tr').evaluateAll((trs) => trs.map((tr) => tr.dataset.path));
  assertEqual(rows.length, 3, 'three clamp sites');
  assertEqual(rows[0], 'scheduler.features.latency_max_clamp_wakeup', 'the wakeup clamp first');
  const share = await page.locator('#ablate-table tbody tr').first().locator('td.share').innerText();
  assert(/100\.0 %/.test(share), `its share: ${share}`);
  assert(/every combination was run/.test(await page.locator('#ablate-interactions').innerText()), 'no interaction among the three');
  // Its row: the A/B of that change alone, run at once.
  await page.locator('#ablate-table tbody tr').first().locator('button.ablate-ab').click();
  await page.waitForSelector('#ab-result table.ab-task', { timeout: 60_000 });
  assertEqual((await page.locator('#ab-changes').inputValue()).trim(), 'scheduler.features.latency_max_clamp_wakeup=false', 'B is that change alone');
}, { timeout: 120_000 });

test('A/B: what changed and why — the clamps\' impact in each run and where the runs part', async ({ page }) => {
  await openFresh(page, '#scenario=clamp-lesson', '#measure');
  await page.fill('#ab-changes', 'scheduler.features.latency_max_clamp_wakeup=false');
  await page.click('#btn-ab-run');
  await page.waitForSelector('#ab-why', { timeout: 60_000 });
  const cell = (site, side) => page.locator(`#ab-clamps tr[data-site="${site}"] td.${side}`).innerText();
  const [bound, flipped] = (await cell('wakeup granularity', 'a')).split(' / ').map(Number);
  assert(flipped > 0 && flipped <= bound, `A's wakeup clamp: bound ${bound}, flipped ${flipped}`);
  assertEqual(await cell('wakeup granularity', 'b'), '0 / 0', 'no wakeup clamp in B');
  const first = page.locator('#ab-divergence li').first();
  assert(/A: .*→ preempts/.test(await first.innerText()), `first divergence: ${await first.innerText()}`);
  assert(/B: .*does not preempt/.test(await first.innerText()), `first divergence: ${await first.innerText()}`);
  // Marked on both timelines: the button zooms onto it.
  const at = await first.getAttribute('data-at-ns');
  assertEqual(await page.locator('#btn-ab-divergence').getAttribute('data-at-ns'), at, 'the marker is the first divergence');
  await page.click('#btn-ab-divergence');
  assert(/First divergence, at/.test(await page.locator('#btn-ab-divergence').innerText()), 'the button names it');
  // Each diverging decision moves the time cursor to it: run A (the scenario) at that decision.
  const when = (await first.locator('button.seek').innerText()).trim();
  await first.locator('button.seek').click();
  await page.waitForFunction((w) => document.querySelector('#time')?.textContent.startsWith(w + ' /'), when, { timeout: 30_000 });
}, { timeout: 120_000 });
