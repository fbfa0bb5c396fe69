// A minimal test harness for the end-to-end tests: headless Debian Chromium driven by
// playwright-core, one fresh page per test, every wait bounded, and a final line
// "N passed, N failed" (CI reads it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

export const BASE_URL = (process.env.BASE_URL || 'http://127.0.0.1:8080/').replace(/\/?$/, '/');
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const TEST_TIMEOUT_MS = Number(process.env.E2E_TEST_TIMEOUT_MS || 90_000);
const TOTAL_TIMEOUT_MS = Number(process.env.E2E_TOTAL_TIMEOUT_MS || 12 * 60_000);
// For chasing a flaky test by hand: only the tests whose name contains E2E_ONLY, each run
// E2E_REPEAT times (CI sets neither).
const ONLY = process.env.E2E_ONLY || '';
const REPEAT = Math.max(1, Math.floor(Number(process.env.E2E_REPEAT)) || 1);

const tests = [];

/** Open `fragment` with no stored edits, and wait until the run and `ready` are on the page. */
export async function openFresh(page, fragment, ready = '#run') {
  await page.goto(BASE_URL + fragment, { waitUntil: 'load' });
  await page.evaluate(() => localStorage.clear());
  await page.reload({ waitUntil: 'load' });
  await page.waitForFunction((sel) => !document.querySelector('#status') && document.querySelector('#run') && document.querySelector(sel),
    ready, { timeout: 60_000 });
}

/** Click `selector` and return the download it starts: { name, bytes }. */
export async function download(page, selector) {
  const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), page.click(selector)]);
  return { name: dl.suggestedFilename(), bytes: fs.readFileSync(await dl.path()) };
}

/** Register a test: fn({ page, context }) runs with a fresh page. */
export function test(name, fn, { timeout = TEST_TIMEOUT_MS } = {}) {
  if (!name.includes(ONLY)) return;
  for (let i = 0; i < REPEAT; i++) tests.push({ name, fn, timeout });
}

export function assert(cond, message) {
  if (!cond) throw new Error(message);
}

export function assertEqual(actual, expected, what) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms); }),
  ]).finally(() => clearTimeout(timer));
}

export async function runAll() {
  let passed = 0;
  let failed = 0;
  const summary = () => console.log(`${passed} passed, ${failed} failed`);
  const watchdog = setTimeout(() => {
    console.log(`e2e: the whole run exceeded ${TOTAL_TIMEOUT_MS} ms; giving up`);
    failed += tests.length - passed - failed || 1;
    summary();
    process.exit(1);
  }, TOTAL_TIMEOUT_MS);
  watchdog.unref();

  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fairground-e2e-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      timeout: 60_000,
      viewport: { width: 1200, height: 800 },
      args: [
        '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic',
      ],
    });
  } catch (e) {
    console.log(`✗ launch ${CHROMIUM}: ${e.message.split('\n')[0]}`);
    failed = tests.length || 1;
    summary();
    fs.rmSync(userDataDir, { recursive: true, force: true });
    return 1;
  }

  for (const t of tests) {
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    page.setDefaultNavigationTimeout(30_000);
    const pageErrors = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    const started = Date.now();
    try {
      await withTimeout(t.fn({ page, context }), t.timeout, t.name);
      assert(pageErrors.length === 0, `uncaught page errors: ${pageErrors.join(' | ')}`);
      passed++;
      console.log(`✓ ${t.name} (${Date.now() - started} ms)`);
    } catch (e) {
      failed++;
      console.log(`✗ ${t.name} (${Date.now() - started} ms)\n    ${String(e && e.message || e).split('\n').slice(0, 6).join('\n    ')}`);
    } finally {
      await withTimeout(page.close(), 10_000, 'closing the page').catch(() => {});
    }
  }
  await withTimeout(context.close(), 20_000, 'closing the browser').catch(() => {});
  fs.rmSync(userDataDir, { recursive: true, force: true });
  clearTimeout(watchdog);
  summary();
  return failed === 0 ? 0 : 1;
}
