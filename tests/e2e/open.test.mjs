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
const taskNames = (page) => page.locator('#tasks-table tbody tr[data-task]').evaluateAll((rows) => rows.map((r) => r.dataset.task));

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
    ['notes.txt', 'shopping list\neggs\n', /^notes\.txt is not a scenario, and not a trace Fairground can read/],
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

// An rt-app file written as rt-app users write them (comments, trailing commas, a repeated
// "run"): the page tells it from a scenario by its shape and has the import worker, a bundle
// fetched only now, turn it into one.
const RTAPP = fs.readFileSync(path.join(root, 'tests/e2e/fixtures/rtapp-decoder.json'));

test('open file: an rt-app file is imported by its own worker; its tasks and the import\'s warnings are shown', async ({ page }) => {
  const fetched = [];
  page.on('request', (r) => fetched.push(r.url()));
  await openFresh(page, '#scenario=two-hogs');
  assert(fetched.some((u) => u.includes('fairground-worker')), 'requests, the workers\' included, are seen');
  assert(!fetched.some((u) => u.includes('fairground-import')), 'the import worker is not loaded before it is needed');
  await page.setInputFiles('#open-file', file('decoder.json', RTAPP));
  await page.waitForFunction(() => location.hash.startsWith('#s='), null, { timeout: 60_000 });
  await page.waitForFunction(() => document.querySelector('#tasks-table tr[data-task="decoder"]'), null, { timeout: 60_000 });
  assertEqual(await taskNames(page), ['decoder', 'build/0', 'build/1'], 'the file\'s tasks (build has two instances)');
  assert(fetched.some((u) => u.endsWith('/fairground-import_bg.wasm')), 'the import worker\'s bundle was fetched for it');
  const note = page.locator('#open-note');
  const line = await note.innerText();
  assert(/^decoder\.json imported as an rt-app file \(3 tasks\), with 2 warnings:/.test(line), line);
  const warnings = await note.locator('li').allInnerTexts();
  assertEqual(warnings.length, 2, 'one item per warning');
  assert(warnings[0].startsWith('global: calibration, logdir ignored'), warnings[0]);
  assert(warnings[1].startsWith('tasks.decoder: run + timer read as duty 25%'), warnings[1]);
  const ms = await note.getAttribute('data-import-ms');
  console.log(`  rt-app import: ${ms} ms from the file read to the scenario (worker: ${await note.getAttribute('data-worker-ms')} ms)`);
  await page.goBack();
  await page.waitForFunction(() => document.querySelector('#tasks-table tr[data-task="hog/0"]'), null, { timeout: 60_000 });
});

test('open file: a broken rt-app file is named with its line and column; the scenario on screen stays', async ({ page }) => {
  await openFresh(page, '#scenario=two-hogs');
  const before = await page.evaluate(() => location.hash);
  const broken = '/* a missing comma */\n{\n  "tasks" : {\n    "t" : { "run" : 1000 "sleep" : 1000 },\n  },\n}\n';
  await page.setInputFiles('#open-file', file('broken-rtapp.json', broken));
  await page.waitForSelector('#open-error', { timeout: 60_000 });
  const err = await page.locator('#open-error').innerText();
  assert(/^broken-rtapp\.json \(an rt-app file\) could not be imported: .*line 4, column 26/.test(err), err);
  assertEqual(await page.evaluate(() => location.hash), before, 'the address is unchanged');
  assertEqual(await taskNames(page), ['hog/0', 'hog/1'], 'the scenario on screen is still there');
  // The worker that refused it takes the next file.
  await page.setInputFiles('#open-file', file('decoder.json', RTAPP));
  await page.waitForFunction(() => document.querySelector('#tasks-table tr[data-task="decoder"]'), null, { timeout: 60_000 });
  assertEqual(await page.locator('#open-error').count(), 0, 'the error is gone');
});
