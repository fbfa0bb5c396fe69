import { chromium } from 'playwright-core';
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox','--headless'] });
const page = await b.newPage({ viewport: { width: 1366, height: 900 } });
page.on('pageerror', e => console.log('pageerror:', e.message));
await page.goto(process.env.BASE_URL + '#scenario=' + process.env.STEM);
await page.waitForFunction(() => !document.querySelector('#status') && document.querySelector('#run'));
await page.click('#btn-trees');
for (let i = 0; i < Number(process.env.N || 8); i++) { await page.click('#btn-step-tick'); }
await page.waitForTimeout(Number(process.env.WAIT || 1500));
await page.locator('#trees-panel').screenshot({ path: '/tmp/trees.png' });
await b.close();
