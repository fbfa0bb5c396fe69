// End-to-end tests of teaching (lessons, exercises, presenter mode) and the group panel: a
// lesson driven from start to end, answers right and wrong checked by the simulation, generated
// exercises, presenter mode and its keys, lesson links (good and broken), the PNG export, and
// group weights. What the page says is checked each time.
import fs from 'node:fs';
import { test, assert, assertEqual, openFresh } from './harness.mjs';

const fresh = (page, fragment) => openFresh(page, fragment);

async function ready(page) {
  await page.waitForFunction(() => !document.querySelector('#status') && document.querySelector('#run'), null, { timeout: 60_000 });
}

const view = (page) => page.locator('#run').evaluate((r) => Number(r.dataset.viewNs));

async function atStep(page, n, steps, viewNs) {
  await page.waitForFunction(([n, steps, v]) => {
    const l = document.querySelector('#lesson');
    const r = document.querySelector('#run');
    return l && l.dataset.step === String(n) && l.dataset.steps === String(steps) && r && r.dataset.viewNs === String(v);
  }, [n, steps, viewNs], { timeout: 30_000 }).catch(async () => {
    const l = await page.locator('#lesson').evaluate((e) => ({ ...e.dataset })).catch(() => 'no #lesson');
    throw new Error(`expected step ${n} of ${steps} at ${viewNs} ns; lesson ${JSON.stringify(l)}, view ${await view(page)}`);
  });
}

const text = async (page, sel) => (await page.locator(sel).first().innerText()).trim();

/** Choose `choice`, wait for the simulation's verdict, and check what the panel says. */
async function answer(page, choice) {
  await page.click(`#question button.choice[data-choice="${choice}"]`);
  await page.waitForSelector('#verdict', { timeout: 30_000 });
  const correct = (await page.locator('#verdict').getAttribute('data-correct')) === 'true';
  const head = await text(page, '#verdict .verdict-head');
  const value = head.match(/the simulation says (.+)\.$/)?.[1];
  assert(value, `the verdict names the simulation's answer: ${head}`);
  if (correct) {
    assertEqual(head, `Right: the simulation says ${choice}.`, 'verdict for a right answer');
  } else {
    assertEqual(head, `Not quite: you said ${choice}, the simulation says ${value}.`, 'verdict for a wrong answer');
  }
  const why = await text(page, '#verdict-why');
  assert(/^Decision log, [\d.]+ (ns|µs|ms|s): .{20,}/.test(why), `the decision-log entry is shown: ${why}`);
  return { correct, value, why };
}

test('lesson 1 from start to end: steps move the time, fill the figures, and a prediction is checked right and wrong', async ({ page }) => {
  await fresh(page, '#scenario=lesson-1-vruntime');
  await atStep(page, 1, 4, 0);
  assert((await text(page, '#lesson-text')).startsWith('Two CPU hogs share one CPU.'), 'step 1 text');
  assert(await page.locator('#btn-lesson-back').isDisabled(), 'no step before the first');
  assert(await page.locator('#question').count() === 0, 'step 1 asks nothing');

  await page.click('#btn-lesson-next');
  await atStep(page, 2, 4, 9_500_000);
  assertEqual(await text(page, '#lesson-pos'), 'Step 2 of 4', 'position');
  assertEqual(await text(page, '#question .ask'), 'Which task runs next on CPU 0?', 'question');
  const choices = await page.locator('#question button.choice').evaluateAll((bs) => bs.map((b) => b.dataset.choice));
  assertEqual(choices, ['A', 'B'], 'choices');
  // Predict, then reveal: one of A and B is what CFS picks; the other is wrong.
  const first = await answer(page, 'A');
  await page.click('#btn-retry');
  await page.waitForSelector('#verdict', { state: 'detached' });
  const second = await answer(page, 'B');
  assert(first.correct !== second.correct, 'exactly one of A and B is right');
  assertEqual(first.value, second.value, 'the same answer both times');
  assertEqual(first.why, second.why, 'the same explanation both times');

  await page.click('#btn-lesson-next');
  await atStep(page, 3, 4, 50_000_000);
  // The answer agrees with the timeline, which comes from the run's trace, not the decision
  // log: just after the pick's time, CPU 0 runs the task the verdict named.
  const pickMs = Number(first.why.match(/^Decision log, ([\d.]+) ms/)?.[1]);
  assert(pickMs >= 9.5 && pickMs < 50, `the pick's time: ${first.why}`);
  await page.locator('#timeline').scrollIntoViewIfNeeded();
  const box = await page.locator('#timeline').boundingBox();
  // The whole 200 ms run is in view: a gutter of 64 px, an axis of 20 px, a 36 px lane.
  await page.mouse.move(box.x + 64 + (box.width - 64) * ((pickMs + 0.3) / 200), box.y + 20 + 18);
  await page.waitForSelector('#timeline-tooltip');
  const tip = await text(page, '#timeline-tooltip');
  assert(tip.startsWith(`${first.value} on CPU 0`), `at ${pickMs + 0.3} ms the timeline shows: ${tip}`);
  await page.mouse.move(0, 0);
  const t3 = await text(page, '#lesson-text');
  assert(!t3.includes('{{'), 'placeholders are filled');
  // Weights 1024 : 335 → 75.3% : 24.7%, within the rounding of 1 ms ticks.
  const m = t3.match(/A gets ([\d.]+)% of the CPU and B ([\d.]+)%/);
  assert(m && Math.abs(Number(m[1]) - 75.3) < 1.5 && Math.abs(Number(m[2]) - 24.7) < 1.5, `shares in the text: ${t3}`);
  const chips = await page.locator('#lesson .chip').evaluateAll((cs) => cs.map((c) => c.innerText.trim()));
  assertEqual(chips, ['tick decisions in the decision log', "CPU 0's lane"], 'what step 3 points at');
  // CPU 0's lane is outlined in the highlight colour (#f0b400) on the timeline.
  await page.waitForSelector('#timeline[data-lane-mark="0"]');
  const marked = await page.locator('#timeline').evaluate((c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] === 0xf0 && d[i + 1] === 0xb4 && d[i + 2] === 0x00) n++;
    return n;
  });
  assert(marked > 100, `the lane outline is drawn (${marked} px)`);

  await page.click('#btn-lesson-next');
  await atStep(page, 4, 4, 150_000_000);
  await page.waitForSelector('#timeline[data-lane-mark=""]');
  assert(await page.locator('#btn-lesson-next').isDisabled(), 'no step after the last');
  assertEqual(await page.locator('#tasks-table tr.selected').getAttribute('data-task'), 'B', 'step 4 selects B');
  assert(/A was switched in \d+ times, B \d+ times/.test(await text(page, '#lesson-text')), 'switch counts filled');

  await page.click('#btn-lesson-back');
  await atStep(page, 3, 4, 50_000_000);
  // The answer given stays with its step.
  await page.click('#btn-lesson-back');
  await atStep(page, 2, 4, 9_500_000);
  assert(await page.locator('#verdict').count() === 1, 'the verdict of step 2 is kept');
});

const openExercises = (page) => page.locator('#exercises').evaluate((d) => { d.open = true; });

test('a generated exercise is answered right and wrong; the same seed gives the same exercise; a bad seed is named', async ({ page }) => {
  await fresh(page, '#scenario=two-hogs');
  await openExercises(page);
  await page.fill('#exercise-seed', 'abc');
  await page.click('#btn-exercise');
  await page.waitForSelector('#exercise-error');
  assert((await text(page, '#exercise-error')).includes('"abc" is not a whole number'), 'the bad seed is named');
  assertEqual(await page.locator('#scenario').getAttribute('data-stem'), 'two-hogs', 'the scenario stays');

  await page.selectOption('#exercise-kind', 'cfs-pick');
  await page.fill('#exercise-seed', '7');
  await page.click('#btn-exercise');
  // A short link per exercise, for handing out.
  await page.waitForFunction(() => location.hash === '#exercise=cfs-pick&seed=7' && document.querySelector('#lesson[data-steps="1"] #question'), null, { timeout: 60_000 });
  await ready(page);
  assertEqual(await text(page, '#scenario-title'), 'Exercise 7: CFS: which task runs next?', 'exercise title');
  assertEqual(await text(page, '#question .ask'), 'Which task runs next on CPU 0?', 'exercise question');
  assertEqual(await text(page, '#policy'), 'cfs-v6.2', 'policy of a CFS exercise');
  const choices = await page.locator('#question button.choice').evaluateAll((bs) => bs.map((b) => b.dataset.choice));
  assert(choices.length >= 3 && choices[0] === 'A', `choices ${choices}`);
  // The time cursor is at the exercise's moment, not at 0.
  assert(await view(page) >= 20_000_000, 'the exercise opens at its question\'s time');

  const first = await answer(page, choices[0]);
  await page.click('#btn-retry');
  const other = first.correct ? choices.find((c) => c !== first.value) : first.value;
  const second = await answer(page, other);
  assertEqual(second.correct, !first.correct, 'a right and a wrong answer');
  assertEqual(second.value, first.value, 'the simulation\'s answer does not change');
  // The timeline (the run's trace) agrees: after the pick, CPU 0 runs the task named.
  const pickMs = Number(first.why.match(/^Decision log, ([\d.]+) ms/)?.[1]);
  await page.click('#btn-end');
  await page.waitForSelector('#run[data-finished="true"]', { timeout: 60_000 });
  await page.locator('#timeline').scrollIntoViewIfNeeded();
  const box = await page.locator('#timeline').boundingBox();
  await page.mouse.move(box.x + 64 + (box.width - 64) * ((pickMs + 0.2) / 250), box.y + 20 + 18);
  await page.waitForSelector('#timeline-tooltip');
  const tip = await text(page, '#timeline-tooltip');
  assert(tip.startsWith(`${first.value} on CPU 0`), `at ${pickMs + 0.2} ms the timeline shows: ${tip}`);
  await page.mouse.move(0, 0);
  await page.click('#btn-share');
  const shared = await page.locator('#share-link').inputValue();

  // The link again (a reload, a student's copy): the same scenario, so the same share link.
  await fresh(page, '#exercise=cfs-pick&seed=7');
  await page.waitForSelector('#lesson #question');
  await page.click('#btn-share');
  // The same scenario; the view after it (&t=…, the time each was at) may differ.
  const scenarioOf = (l) => l.split('&')[0];
  assertEqual(scenarioOf(await page.locator('#share-link').inputValue()), scenarioOf(shared), 'seed 7 again');
  // Another seed, another exercise.
  await fresh(page, '#exercise=cfs-pick&seed=8');
  await page.waitForSelector('#lesson #question');
  await page.click('#btn-share');
  assert(await page.locator('#share-link').inputValue() !== shared, 'seed 8 differs from seed 7');
  await page.evaluate(() => localStorage.clear());
}, { timeout: 150_000 });

test('presenter mode from a link: large type, fewer panels, and keys alone walk and answer the lesson', async ({ page }) => {
  const doc = JSON.parse(fs.readFileSync(new URL('../../static/scenarios/lesson-3-eevdf-lag.json', import.meta.url), 'utf8'));
  const at = doc.lesson.steps.map((s) => s.at_us * 1000);
  await fresh(page, '#scenario=lesson-3-eevdf-lag&step=2&present=1');
  await atStep(page, 2, 4, at[1]);
  assertEqual(await page.evaluate(() => document.body.className), 'present', 'presenter mode is on');
  assert(!(await page.locator('#sched-panel').isVisible()), 'the scheduler panel is hidden');
  const size = await page.locator('#lesson-text').evaluate((e) => parseFloat(getComputedStyle(e).fontSize));
  assert(size >= 24, `lesson text is large (${size} px)`);
  assertEqual(await page.locator('#tasks-table tr.selected').getAttribute('data-task'), 'B', 'step 2 selects B');

  // Keys only: 1 = the first choice ("yes"), PageDown / PageUp walk, P leaves presenter mode.
  await page.keyboard.press('1');
  await page.waitForSelector('#verdict');
  const head = await text(page, '#verdict .verdict-head');
  assert(/^(Right: the simulation says yes\.|Not quite: you said yes, the simulation says no\.)$/.test(head), `verdict: ${head}`);
  await page.keyboard.press('PageDown');
  await atStep(page, 3, 4, at[2]);
  await page.keyboard.press('PageDown');
  await atStep(page, 4, 4, at[3]);
  await page.keyboard.press('PageDown');
  await atStep(page, 4, 4, at[3]);
  await page.keyboard.press('PageUp');
  await atStep(page, 3, 4, at[2]);
  const bigLane = (await page.locator('#timeline').boundingBox()).height;
  await page.keyboard.press('p');
  await page.waitForFunction(() => document.body.className === '');
  assert(await page.locator('#sched-panel').isVisible(), 'the scheduler panel is back');
  // One CPU: a 36 px lane normally, up to 90 px in presenter mode (+ the 20 px axis).
  await page.waitForFunction(() => document.querySelector('#timeline').getBoundingClientRect().height < 60);
  assert(bigLane >= 100, `presenter mode's timeline is taller (${bigLane} px)`);

  // The step link opens this step again, in presenter mode if on.
  await page.keyboard.press('p');
  await page.click('#btn-step-link');
  const link = await page.locator('#share-link').inputValue();
  assert(link.endsWith('#scenario=lesson-3-eevdf-lag&step=3&present=1'), `step link: ${link}`);
});

test('broken lesson links are named, and the scenario opens all the same', async ({ page }) => {
  for (const [frag, want, stem] of [
    ['#scenario=lesson-1-vruntime&step=9', 'The link asks for step 9, but this lesson has 4 steps: showing step 1.', 'lesson-1-vruntime'],
    ['#scenario=lesson-1-vruntime&step=0', 'is not a step number', 'lesson-1-vruntime'],
    ['#scenario=lesson-1-vruntime&step=abc', '"step=abc" is not a step number', 'lesson-1-vruntime'],
    ['#scenario=two-hogs&step=2', 'The link asks for lesson step 2, but this scenario has no lesson.', 'two-hogs'],
    ['#scenario=two-hogs&volume=11', '"volume=11" is not understood', 'two-hogs'],
  ]) {
    await fresh(page, frag);
    await page.waitForSelector('#link-error', { timeout: 30_000 });
    const err = await text(page, '#link-error');
    assert(err.includes(want), `${frag}: ${err}`);
    assertEqual(await page.locator('#scenario').getAttribute('data-stem'), stem, `${frag}: the scenario opened`);
    if (stem.startsWith('lesson')) await atStep(page, 1, 4, 0);
  }
  for (const [frag, want] of [
    ['#exercise=nope&seed=1', 'There is no exercise kind "nope"'],
    ['#exercise=cfs-pick&seed=x', '"seed=x" is not a whole number'],
  ]) {
    await fresh(page, frag);
    await page.waitForFunction(() => document.querySelector('#scenario')?.dataset.stem === 'two-hogs' && document.querySelector('#error'));
    const err = await text(page, '#error');
    assert(err.includes(want) && err.includes('Showing the default scenario'), `${frag}: ${err}`);
  }
  // Still usable: step on.
  await page.click('#btn-step-tick');
  await page.waitForFunction(() => document.querySelector('#run').dataset.viewNs === '4000000');
});

test('Export PNG downloads the timeline as drawn', async ({ page }) => {
  await fresh(page, '#scenario=two-hogs');
  await page.click('#btn-end');
  await page.waitForSelector('#run[data-finished="true"]', { timeout: 60_000 });
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 20_000 }), page.click('#btn-png')]);
  assertEqual(download.suggestedFilename(), 'fairground-timeline.png', 'file name');
  const bytes = fs.readFileSync(await download.path());
  assertEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  // IHDR: the canvas's own width in device pixels; taller by a title line above and the
  // legend's row below (two tasks fit one row).
  const [w, h] = [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
  const [cw, ch] = await page.locator('#timeline').evaluate((c) => [c.width, c.height]);
  assertEqual(w, cw, 'PNG width = canvas width');
  assert(h >= ch + 18 + 18 && h <= ch + 80, `a title line and one legend row: ${h} for a ${ch} px canvas`);
});

test('[engine] seed001-group-weights: play, and the group panel shows each group\'s entity per CPU with its weight', async ({ page }) => {
  await fresh(page, '#scenario=seed001-group-weights');
  await page.waitForSelector('#groups');
  await page.selectOption('#speed', '5');
  await page.click('#btn-play');
  await page.waitForFunction(() => Number(document.querySelector('#run').dataset.viewNs) >= 400_000_000, null, { timeout: 60_000 });
  if (!(await page.locator('#btn-play').isDisabled())) await page.click('#btn-play');
  await page.waitForFunction(() => Number(document.querySelector('#groups')?.dataset.samples) >= 20 &&
    document.querySelectorAll('#groups-table tbody tr').length === 4, null, { timeout: 30_000 });
  const rows = await page.locator('#groups-table tbody tr').evaluateAll((trs) => trs.map((tr) => ({
    group: tr.dataset.group,
    path: tr.querySelector('td.name').innerText.trim(),
    w: [...tr.querySelectorAll('td.w')].map((td) => Number(td.innerText.replace(/\s/g, ''))),
    lines: tr.querySelectorAll('svg.spark polyline').length,
    range: tr.querySelector('.range').innerText.trim(),
  })));
  assertEqual(rows.map((r) => r.path), ['/A', '/A/wakers', '/B', '/B/batch'], 'groups as a tree');
  for (const r of rows) {
    assertEqual(r.w.length, 8, `${r.group}: one entity per CPU`);
    assertEqual(r.lines, 8, `${r.group}: a weight line per CPU`);
    const [lo, hi] = r.range.split('–').map(Number);
    assert(lo <= Math.min(...r.w) && hi >= Math.max(...r.w), `${r.group}: the range ${r.range} holds the weights now ${r.w}`);
  }
  // Sixteen hogs, two per CPU: B's load is the same everywhere, so calc_group_shares() gives
  // each of its entities 1024 / 8 = 128 (equal PELT averages agree to a few units).
  const b = rows.find((r) => r.group === 'B');
  assert(b.w.every((x) => x >= 120 && x <= 136), `B's weights ${b.w}`);
});

test('Record animation saves the timeline as it plays, as an animated PNG', async ({ page }) => {
  await fresh(page, '#scenario=two-hogs');
  await page.click('#btn-record');
  await page.click('#btn-play');
  await page.waitForFunction(() => Number(document.querySelector('#run').dataset.viewNs) >= 15_000_000, null, { timeout: 30_000 });
  if (!(await page.locator('#btn-play').isDisabled())) await page.click('#btn-play');
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), page.click('#btn-record')]);
  assertEqual(download.suggestedFilename(), 'fairground-timeline-animation.png', 'file name');
  const bytes = fs.readFileSync(await download.path());
  assertEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  // acTL follows IHDR (8 + 25 bytes): its first field is the number of frames.
  assertEqual(bytes.subarray(37, 41).toString('latin1'), 'acTL', 'an animated PNG');
  const frames = bytes.readUInt32BE(41);
  assert(frames >= 3, `frames: ${frames}`);
  const [cw, ch] = await page.locator('#timeline').evaluate((c) => [c.width, c.height]);
  assertEqual([bytes.readUInt32BE(16), bytes.readUInt32BE(20)], [cw, ch], 'animation size = canvas size');
  assertEqual(await page.locator('#btn-record').getAttribute('aria-pressed'), 'false', 'recording stopped');
});

test('the answer comes from the run as it is: switching the wakeup clamp off in the scheduler panel changes it', async ({ page }) => {
  // Lesson 2: W (nice 5) wakes 3 ms of vruntime ahead; its wakeup granularity 1 ms × 1024/335
  // ≈ 3.06 ms is clamped to get_latency_max() = 2.25 ms. With the clamp it preempts; without,
  // 3 ms < 3.06 ms and it does not.
  await fresh(page, '#scenario=lesson-2-wakeup-clamp&step=2');
  await atStep(page, 2, 3, 14_000_000);
  const on = await answer(page, 'yes');
  assert(on.correct, `with the clamp: ${on.why}`);
  assert(/clamped to get_latency_max 2\.250 ms/.test(on.why), `the log shows the clamp: ${on.why}`);
  await page.uncheck('#feat-latency_max_clamp_wakeup');
  // The run is built again; the lesson stays at its step and the old verdict is gone.
  await page.waitForFunction(() => !document.querySelector('#feat-latency_max_clamp_wakeup').checked &&
    document.querySelector('#lesson')?.dataset.step === '2' && !document.querySelector('#verdict') &&
    !document.querySelector('#status'), null, { timeout: 30_000 });
  const off = await answer(page, 'yes');
  assert(!off.correct && off.value === 'no', `without the clamp: ${off.why}`);
  await page.evaluate(() => localStorage.clear());
});

/** Wait until `sel` is in the viewport and is what is drawn there (not under the sticky bar). */
async function inView(page, sel) {
  await page.waitForFunction((sel) => {
    const e = document.querySelector(sel);
    const r = e?.getBoundingClientRect();
    return r && r.top >= 0 && r.bottom <= window.innerHeight && document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) === e;
  }, sel, { timeout: 10_000 });
}

test('a step stages what it names: lesson 5 opens the trees with M waiting in latency_timeline, and a chip scrolls to them', async ({ page }) => {
  const doc = JSON.parse(fs.readFileSync(new URL('../../static/scenarios/lesson-5-latency-nice.json', import.meta.url), 'utf8'));
  const i = doc.lesson.steps.findIndex((s) => s.text.includes('also in `latency_timeline`'));
  assert(i > 0, 'lesson 5 has a step about latency_timeline');
  const n = doc.lesson.steps.length;
  await fresh(page, `#scenario=lesson-5-latency-nice&step=${i + 1}`);
  await atStep(page, i + 1, n, doc.lesson.steps[i].at_us * 1000);
  // The step names the tree of CPU 0: the trees are open without a click.
  await page.waitForSelector('#tree-latency', { timeout: 30_000 });
  await page.waitForFunction(() => Number(document.querySelector('#tree-latency')?.dataset.nodes) >= 1, null, { timeout: 30_000 });
  assert(/^latency_timeline keyed by .* 1 node; leftmost \(cached\): M/.test(await text(page, '#tree-latency figcaption')), await text(page, '#tree-latency figcaption'));
  assertEqual(await page.evaluate(() => window.scrollY), 0, 'staging alone does not scroll');
  // Its chip takes the class there.
  await page.click('#lesson button.chip[data-kind="tree"]');
  await inView(page, '#tree-cpu');
  // The decision-log chip opens the log.
  await page.click('#lesson button.chip[data-kind="decision"]');
  await page.waitForSelector('#decision-log #log-entries li', { timeout: 30_000 });
});

test('presenter mode shows the scheduler panel when the step names a switch, and its chip scrolls to the switch', async ({ page }) => {
  const doc = JSON.parse(fs.readFileSync(new URL('../../static/scenarios/lesson-2-wakeup-clamp.json', import.meta.url), 'utf8'));
  const i = doc.lesson.steps.findIndex((s) => (s.highlight || []).some((h) => h.switch === 'latency_max_clamp_wakeup'));
  assert(i >= 0, 'lesson 2 names the wakeup clamp switch');
  const n = doc.lesson.steps.length;
  await page.setViewportSize({ width: 1280, height: 720 });
  await fresh(page, `#scenario=lesson-2-wakeup-clamp&step=${i + 1}&present=1`);
  await atStep(page, i + 1, n, doc.lesson.steps[i].at_us * 1000);
  assertEqual(await page.evaluate(() => document.body.className), 'present', 'presenter mode is on');
  await page.waitForSelector('#sched-panel.staged', { state: 'visible', timeout: 10_000 });
  assert(await page.locator('#sched-panel .knob.staged[data-feature="latency_max_clamp_wakeup"]').isVisible(), 'the switch is marked');
  await page.click('#lesson button.chip[data-kind="switch"]');
  // In view and not under the sticky transport bar: the switch itself is what is there.
  await inView(page, '#feat-latency_max_clamp_wakeup');
  // Another step, which names no switch: presenter mode hides the panel again.
  await page.keyboard.press('PageUp');
  await atStep(page, i, n, doc.lesson.steps[i - 1].at_us * 1000);
  await page.waitForSelector('#sched-panel', { state: 'hidden', timeout: 10_000 });
});

/** The box of `sel` in CSS pixels of the viewport. */
const box = (page, sel) => page.locator(sel).first().evaluate((e) => { const r = e.getBoundingClientRect(); return { top: r.top, bottom: r.bottom }; });

test('at 1280×720 in presenter mode a step shows its text, its question, the timeline and the tree it names on one screen', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await fresh(page, '#scenario=lesson-3-eevdf-lag&step=2&present=1');
  await atStep(page, 2, 4, 25_000_000);
  await page.waitForSelector('#tree-tasks', { timeout: 30_000 });
  for (const sel of ['#lesson-text', '#question', '#timeline', '#transport']) {
    const b = await box(page, sel);
    assert(b.top >= 0 && b.bottom <= 720, `${sel} is on the screen: ${JSON.stringify(b)}`);
  }
  // The tree the step names starts on the same screen: its drawing, not only its heading.
  const t = await box(page, '#tree-tasks svg');
  assert(t.top >= 0 && t.top < 720 - 60, `the tasks_timeline drawing starts on the screen: ${JSON.stringify(t)}`);
  assertEqual(await page.evaluate(() => window.scrollY), 0, 'nothing had to scroll');
});

/** The lesson text's `share X` figure, in percent. */
const shareIn = async (page, task) => Number((await text(page, '#lesson-text')).match(new RegExp(`${task} (\\d+\\.\\d)%`))?.[1]);

test('"Try it" makes the change the step asks for, runs again from 0, shows the figures before and after, and undoes', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await fresh(page, '#scenario=lesson-1-vruntime&step=4&present=1');
  await atStep(page, 4, 4, 150_000_000);
  await page.waitForSelector('#lesson-try button.try-btn');
  // Nice 5 against nice 0: the weights' ratio 335 / (1024 + 335) = 24.65 %, within a 4 ms slice of a 200 ms run.
  const before = await shareIn(page, 'B');
  assert(Math.abs(before - 24.65) <= 2, `B's share before: ${before}`);
  await page.click('#lesson-try button.try-btn');
  // Until the run again has sent its figures, "after" is pending, never a copy of "before".
  const early = await page.locator('#try-figures tr[data-figure="share B"] td:last-child').textContent({ timeout: 10_000 });
  assert(early === '…' || Number.parseFloat(early) !== before, `"after" right after the click: ${early}`);
  await page.waitForFunction(() => { const c = document.querySelector('#try-figures tr[data-figure="share B"] td:last-child'); return c && c.textContent !== '…'; }, null, { timeout: 30_000 });
  const row = await page.locator('#try-figures tr[data-figure="share B"] td').allInnerTexts();
  assertEqual(Number.parseFloat(row[1]), before, 'the table\'s before is what the text said');
  assert(Math.abs(Number.parseFloat(row[2]) - 50) <= 1, `B at nice 0 shares evenly: ${row[2]}`);
  assertEqual(await shareIn(page, 'B'), Number.parseFloat(row[2]), 'the text follows the change');
  assertEqual(await page.locator('#tasks-table tr[data-task="B"] input.edit-nice').inputValue(), '0', 'the tasks table shows the change');
  await atStep(page, 4, 4, 150_000_000);
  // The comparison is on the screen, down to its way back.
  await inView(page, '#btn-untry');
  const t = await box(page, '#try-figures');
  assert(t.top >= 0 && t.bottom <= 720, `the before/after table is on the screen: ${JSON.stringify(t)}`);
  await page.click('#btn-untry');
  await page.waitForFunction((b) => document.querySelector('#lesson-text')?.textContent.includes(`B ${b.toFixed(1)}%`), before, { timeout: 30_000 });
  assertEqual(await page.locator('#try-figures').count(), 0, 'the comparison goes with the change');
});

test('a lesson\'s figures follow an edit of nice in the tasks table', async ({ page }) => {
  await fresh(page, '#scenario=lesson-1-vruntime&step=4');
  await atStep(page, 4, 4, 150_000_000);
  const before = await shareIn(page, 'B');
  const input = page.locator('#tasks-table tr[data-task="B"] input.edit-nice');
  await input.fill('0');
  await input.press('Enter');
  await input.evaluate((i) => i.blur());
  await page.waitForSelector('#notice:has-text("recorded")');
  // B runs at nice 5 for 150 ms and at nice 0 for the last 50: 0.75 × 24.65 % + 0.25 × 50 % = 31.0 %.
  await page.waitForFunction((b) => !document.querySelector('#lesson-text')?.textContent.includes(`B ${b.toFixed(1)}%`), before, { timeout: 30_000 });
  const after = await shareIn(page, 'B');
  assert(Math.abs(after - 31.0) <= 2, `B's share with the edit at 150 ms: ${after} (was ${before})`);
});

test('an exercise\'s card carries what its answer depends on, a hint, and a worked solution that names the clamp; the teacher\'s answer key downloads', async ({ page }) => {
  await fresh(page, '#exercise=wakeup-clamp&seed=1');
  await page.waitForSelector('#lesson #question');
  const card = await text(page, '#lesson-text');
  const ask = await text(page, '#question .ask');
  assert(!card.includes(ask), `the question is asked once, not in the card too: ${card}`);
  // W's weight (nice 5: 335), its vruntime (whatever its state), the granularity, get_latency_max() and the switch.
  for (const needle of ['W: nice 5, weight 335', 'vruntime − min_vruntime', 'sysctl_sched_wakeup_granularity = 1.000 ms', 'get_latency_max() =', 'latency_max_clamp_wakeup is on']) {
    assert(card.includes(needle), `the card says "${needle}": ${card}`);
  }
  await page.click('#btn-hint');
  assert((await text(page, '#lesson-hint')).includes('wakeup_preempt_entity()'), 'the hint names the rule');
  await page.click('#question button.choice[data-choice="no"]');
  await page.waitForSelector('#verdict', { timeout: 30_000 });
  const why = await text(page, '#verdict-why');
  assert(why.includes('the wakeup clamp (latency_max_clamp_wakeup) is on') && why.includes('× 1024 / 335'), `the worked solution: ${why}`);
  // The answer key for seeds 1 to 12 of this kind: a header and a row per student.
  await page.click('#exercises summary');
  await page.fill('#exercise-seed', '1');
  await page.fill('#exercise-key-to', '12');
  const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), page.click('#btn-answer-key')]);
  const csv = fs.readFileSync(await dl.path(), 'utf8').trim().split('\n');
  assertEqual(csv[0], 'kind,seed,link,question,answer,decided_at_ms,solution', 'the key\'s header');
  assertEqual(csv.length, 13, 'twelve students');
  assert(csv[1].startsWith('wakeup-clamp,1,#exercise=wakeup-clamp&seed=1,') && csv[1].includes(',yes,'), `seed 1's row agrees with the verdict: ${csv[1]}`);
});
