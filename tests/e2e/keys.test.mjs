// End-to-end test of the keys a clicker and a keyboard rely on: a key the page handles does
// only what the page does with it, never also the browser's default (scrolling, clicking the
// focused button), with Shift and Caps Lock alike.
import { test, assert, assertEqual, openFresh } from './harness.mjs';

test('keys in presenter mode at 1280×720: PageDown/PageUp/Space/Home/End step and play without scrolling', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await openFresh(page, '#scenario=lesson-1-vruntime', '#lesson');
  await page.keyboard.press('p');
  await page.waitForFunction(() => document.body.classList.contains('present') || document.querySelector('.present'), null, { timeout: 10_000 }).catch(() => {});
  const step = () => page.locator('#lesson').getAttribute('data-step');
  const scrollY = () => page.evaluate(() => window.scrollY);
  assertEqual(await step(), '1', 'first step');
  await page.keyboard.press('PageDown');
  await page.waitForFunction(() => document.querySelector('#lesson').dataset.step === '2', null, { timeout: 10_000 });
  assertEqual(await scrollY(), 0, 'PageDown does not scroll');
  await page.keyboard.press('PageUp');
  await page.waitForFunction(() => document.querySelector('#lesson').dataset.step === '1', null, { timeout: 10_000 });
  assertEqual(await scrollY(), 0, 'PageUp does not scroll');
  await page.keyboard.press('Shift+N');
  await page.waitForFunction(() => document.querySelector('#lesson').dataset.step === '2', null, { timeout: 10_000 });
  await page.keyboard.press('End');
  await page.waitForSelector('#run[data-finished="true"]', { timeout: 60_000 });
  assertEqual(await scrollY(), 0, 'End does not scroll');
  await page.keyboard.press('Home');
  await page.waitForFunction(() => document.querySelector('#run').dataset.viewNs === '0', null, { timeout: 30_000 });
  assertEqual(await scrollY(), 0, 'Home does not scroll');
  // Space on a focused button plays; it does not also click the button.
  await page.focus('#btn-share');
  await page.keyboard.press(' ');
  await page.waitForTimeout(300);
  assertEqual(await page.locator('#share-link').count(), 0, 'Space did not click the focused button');
  assertEqual(await scrollY(), 0, 'Space does not scroll');
  const errors = [];
  page.on('console', (m) => { if (/preventDefault inside passive/.test(m.text())) errors.push(m.text()); });
  await page.keyboard.press('PageDown');
  assertEqual(errors.length, 0, 'no passive-listener warnings');
}, { timeout: 120_000 });

test('Escape leaves a field, and the shortcuts work again', async ({ page }) => {
  await openFresh(page, '#scenario=two-hogs');
  await page.focus('#tasks-table tr[data-task="hog/0"] input.edit-nice');
  await page.keyboard.press('Escape');
  assertEqual(await page.evaluate(() => document.activeElement?.tagName), 'BODY', 'the field was left');
  await page.keyboard.press('End');
  await page.waitForSelector('#run[data-finished="true"]', { timeout: 60_000 });
});
