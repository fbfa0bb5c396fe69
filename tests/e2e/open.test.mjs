// End-to-end tests of "Open file…" (src/page/open_file.rs): a scenario file or a Linux ftrace text
// from disk becomes the scenario on screen through a share link in the fragment, so Back
// returns to what was there; a file that is neither is named in an error and nothing changes.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, assert, assertEqual, openFresh } from './harness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TRACE = fs.readFileSync(path.join(root, 'crates/sim/tests/fixtures/ftrace/host-6.18-hogs-periodic.txt'));

const file = (name, text) => ({ name, mimeType: 'text/plain', buffer: Buffer.isBuffer(text) ? text : Buffer.from(text) });
const taskNames = (page) => page.locator('#tasks-table tbody tr').evaluateAll((rows) => rows.map((r) => r.dataset.task));

test('open file: a JSONC scenario opens as a share link; Back returns to the scenario before', async ({ page }) => {
  await openFresh(page, '#scenario=two-hogs');
  const mine = `// my experiment, with a comment as scenario files may have
{ "format": "fairground-scenario/1", "name": "from disk", "duration_ms": 50,
  "scheduler": { "policy": "eevdf-v6.6" },
  "tasks": [ { "name": "alpha", "behavior": { "kind": "hog" } }, { "name": "beta", "nice": 5, "behavior": { "kind": "hog" } } ] }`;
  await page.setInputFiles('#open-file', file('mine.json', mine));
  await page.waitForFunction(() => location.hash.startsWith('#s='), null, { timeout: 30_000 });
  await page.waitForFunction(() => document.querySelector('#tasks-table tr[data-task="alpha"]'), null, { timeout: 60_000 });
  assertEqual(await taskNames(page), ['alpha', 'beta'], 'the file\'s tasks');
  await page.goBack();
  await page.waitForFunction(() => document.querySelector('#tasks-table tr[data-task="hog/0"]'), null, { timeout: 60_000 });
});

test('open file: a broken scenario and a file that is no trace are named; the run on screen stays', async ({ page }) => {
  await openFresh(page, '#scenario=two-hogs');
  const before = await page.evaluate(() => location.hash);
  for (const [name, text, want] of [
    ['broken.json', '{ "format": "fairground-scenario/1", "name": "x", "duration_ms": -5, "tasks": [] }', /broken\.json: .*duration_ms/],
    ['notes.txt', 'shopping list\neggs\n', /^notes\.txt is not a scenario, and not an ftrace text/],
  ]) {
    await page.setInputFiles('#open-file', file(name, text));
    await page.waitForSelector('#open-error', { timeout: 60_000 });
    const err = await page.locator('#open-error').innerText();
    assert(want.test(err), `${name}: ${err}`);
    assertEqual(await page.evaluate(() => location.hash), before, `${name}: the address is unchanged`);
  }
  assertEqual(await taskNames(page), ['hog/0', 'hog/1'], 'the scenario on screen is still there');
});

test('open file: a real ftrace text becomes a scenario that replays its tasks', async ({ page }) => {
  await openFresh(page, '#scenario=two-hogs');
  await page.setInputFiles('#open-file', file('host-trace.txt', TRACE));
  await page.waitForFunction(() => location.hash.startsWith('#s='), null, { timeout: 60_000 });
  await page.waitForFunction(() => (document.querySelector('#tasks-table')?.dataset.tasks ?? '0') !== '0'
    && !document.querySelector('#tasks-table tr[data-task="hog/0"]'), null, { timeout: 60_000 });
  const names = await taskNames(page);
  // The trace was of the eevdf_probe hogs and periodic task (tools/host/eevdf_probe.c).
  assert(names.some((n) => n.startsWith('eevdf_probe')), `tasks: ${names.join(', ')}`);
  assertEqual(await page.locator('#policy').innerText(), 'eevdf-v6.12', 'the policy of the host kernel the trace came from');
});
