// Drives the memory inspector page in headless Chromium (run by
// tests/tests/inspector.rs). Environment:
//   INSPECTOR_URL   the served page, e.g. http://127.0.0.1:PORT/
//   INSPECTOR_KEY   an API key for tenant acme, user u42
//   OTHER_KEY       a key for another tenant (globex), for the isolation check
//   CHROMIUM        the Chromium binary
//   PLAYWRIGHT_DIR  a directory whose node_modules holds playwright-core
//   SCREENSHOTS     optional: a directory to write the main views to
// Exits non-zero, naming the step, on the first failed expectation.

import { createRequire } from 'node:module';
import path from 'node:path';
import assert from 'node:assert/strict';

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const require = createRequire(path.join(env('PLAYWRIGHT_DIR'), 'package.json'));
const { chromium } = require('playwright-core');

const url = env('INSPECTOR_URL');
const shots = process.env.SCREENSHOTS || '';
let step = 'launch';
const log = (s) => { step = s; console.log(`step: ${s}`); };

const browser = await chromium.launch({
  executablePath: env('CHROMIUM'),
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'zh-CN' });
  page.setDefaultTimeout(10_000);
  const consoleErrors = [];
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(`${m.text()} ${m.location().url}`); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  const shot = async (name, fullPage = false) => {
    if (shots) await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage });
  };
  const rows = page.locator('#memories tbody tr[data-id]');
  const rowWith = (text) => rows.filter({ hasText: text });

  log('load the page and connect with the key');
  await page.goto(url);
  assert.equal(await page.title(), 'Engram · memory inspector · 记忆检查器');
  await page.locator('#key').fill('not-a-key');
  await page.keyboard.press('Enter');
  await page.locator('#status.error').waitFor();
  assert.match(await page.locator('#status').innerText(), /401/);
  await page.locator('#key').fill(env('INSPECTOR_KEY'));
  await page.keyboard.press('Enter');
  await rows.first().waitFor();
  assert.match(await page.locator('#principal').innerText(), /tenant acme · user u42/);
  const all = await rows.count();
  assert.ok(all >= 7, `expected the seeded memories, saw ${all} rows`);
  // Chinese and English both arrive intact.
  await rowWith('以后请叫我林工').waitFor();
  await rowWith('The user prefers dark mode').waitFor();
  // Another tenant's memory never reaches the page.
  assert.equal(await rowWith('globex').count(), 0);

  log('inferred memories are marked, with source and confidence on hover');
  const inferred = rowWith('dark mode').locator('.chip.inferred');
  const tip = await inferred.getAttribute('title');
  assert.match(tip, /behavior-inferred from evt-ui-88/);
  assert.match(tip, /confidence 0\.60/);
  assert.equal(await rowWith('dark mode').getAttribute('class'), 'inferred-row');
  assert.equal(await rowWith('以后请叫我林工').locator('.chip.inferred').count(), 0);
  await inferred.hover();
  await shot('memories');

  log('filter by kind, status and sensitivity');
  await page.selectOption('#f-kind', 'episodic');
  assert.deepEqual(await rows.evaluateAll((rs) => rs.map((r) => r.querySelector('.kind').textContent)), ['episodic', 'episodic']);
  await page.selectOption('#f-kind', '');
  await page.selectOption('#f-status', 'pending');
  await page.waitForFunction(() => [...document.querySelectorAll('#memories tbody tr[data-id]')]
    .every((r) => r.dataset.status === 'pending'));
  assert.equal(await rows.count(), 2, 'the two unverified inferences are pending');
  await page.selectOption('#f-status', 'superseded');
  await rowWith('PostgreSQL 15').waitFor();
  await page.selectOption('#f-status', '');
  await rowWith('PostgreSQL 16').waitFor();
  await page.selectOption('#f-sensitivity', 'internal');
  assert.equal(await rows.count(), 0, 'user-scoped memories are personal, none internal');
  await page.selectOption('#f-sensitivity', 'personal');
  assert.equal(await rows.count(), all);
  await page.selectOption('#f-sensitivity', '');

  log('search with recall and read an explanation');
  await page.locator('#tab-search').click();
  await page.locator('#q').fill('为什么上次发布失败？');
  await page.keyboard.press('Enter');
  const first = page.locator('#results details.result.admitted').filter({ hasText: 'V42' });
  await first.waitFor();
  assert.match(await first.locator('summary').innerText(), /^\d+\.\d{3} episodic/);
  await first.locator('summary').click();
  const features = await first.locator('dl.features').innerText();
  for (const f of ['similarity', 'freshness', 'authority', 'typefit', 'entity', 'risk']) {
    assert.ok(features.includes(f), `feature ${f} is explained`);
  }
  const admission = await first.locator('dl.admission').innerText();
  assert.match(admission, /admit\s+true/);
  assert.match(admission, /scope_ok\s+true/);
  await shot('search');

  log('open a history: the system of record superseded a fact');
  await page.locator('#tab-memories').click();
  await rowWith('PostgreSQL 16').locator('button.open').click();
  const revs = page.locator('#history li.rev');
  await revs.nth(1).waitFor();
  assert.deepEqual(await revs.evaluateAll((ls) => ls.map((l) => l.dataset.status)), ['superseded', 'active']);
  assert.match(await revs.nth(0).innerText(), /superseded by #2/);
  assert.match(await revs.nth(1).innerText(), /system-of-record · cmdb:payment-service#rev-91/);

  // The API under the page's key, for checks the page does not show.
  const apiGet = (p) => page.evaluate(async (p) => {
    const r = await fetch(p, { headers: { Authorization: `Bearer ${sessionStorage.getItem('engram-key')}` } });
    return { status: r.status, body: await r.json() };
  }, p);
  const historyOf = async (id) => (await apiGet(`/v1/memories/${encodeURIComponent(id)}/history`)).body;
  const current = async (id) => (await apiGet('/v1/memories?tenant=acme&user=u42')).body.find((m) => m.id === id);

  log('layout at 1280 px: with the detail panel open every row button is reachable');
  await rowWith('以后请叫我林工').locator('button.open').click();
  await page.locator('#history li.rev').first().waitFor();
  const width = page.viewportSize().width;
  assert.equal(width, 1280);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth),
    'no horizontal scrolling of the page');
  assert.ok(await page.evaluate(() => { const v = document.querySelector('.views'); return v.scrollWidth <= v.clientWidth; }),
    'the table fits beside the panel, nothing scrolled out of sight');
  const rejects = page.locator('#memories button.reject');
  assert.equal(await rejects.count(), 2, 'the two pending memories have Reject buttons');
  for (const b of [...await rejects.all(), ...await page.locator('#memories button.approve').all(),
    page.locator('#correct-save'), page.locator('#detail-forget'), page.locator('#detail-close')]) {
    await b.scrollIntoViewIfNeeded();
    const box = await b.boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= width, `${await b.innerText()} is inside the viewport: ${JSON.stringify(box)}`);
    // Nothing (the detail panel) covers it: the button is what a click there hits.
    const hit = await b.evaluate((el) => {
      const r = el.getBoundingClientRect();
      const top = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
      return top === el || el.contains(top);
    });
    assert.ok(hit, `${await b.innerText()} is not covered`);
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot('detail-1280');

  log('correct a memory by its text alone: the value follows, the old revision is superseded');
  const named = await rowWith('以后请叫我林工').getAttribute('data-id');
  await page.locator('#detail-title', { hasText: named }).waitFor();
  const before = await current(named);
  assert.equal(before.payload.object, '林工');
  assert.equal(await page.locator('#correct-object').inputValue(), '林工', 'the value field starts at the old value');
  assert.ok(await page.locator('#correct-save').isDisabled(), 'nothing to save before an edit');
  await page.locator('#correct-text').fill('以后请叫我林总');
  assert.equal(await page.locator('#correct-object').inputValue(), '林总', 'the value follows the text');
  assert.match(await page.locator('#correct-preview').innerText(),
    new RegExp(`to “林总” \\(was “林工”\\).*supersedes ${named}#1`), 'the form says what saving will do');
  await page.locator('#correct-save').click();
  const decision = page.locator('#decision .decision');
  await decision.waitFor();
  assert.equal(await decision.getAttribute('data-disposition'), 'active');
  assert.equal(await decision.getAttribute('data-action'), 'superseded');
  assert.equal(await decision.locator('table.gates tbody tr').count(), 6, 'all six gates shown');
  await page.waitForFunction(() => document.querySelectorAll('#history li.rev').length === 2);
  assert.deepEqual(await revs.evaluateAll((ls) => ls.map((l) => l.dataset.status)), ['superseded', 'active']);
  assert.match(await revs.nth(1).innerText(), /以后请叫我林总/);
  assert.match(await revs.nth(1).innerText(), /user-stated · inspector:u42/);
  await rowWith('以后请叫我林总').waitFor();
  assert.equal(await rowWith('以后请叫我林工').count(), 0, 'the old revision is history, not current');
  const [old1, new1] = await historyOf(named);
  assert.deepEqual([old1.status, old1.superseded_by?.revision, new1.status, new1.revision],
    ['superseded', 2, 'active', 2]);
  assert.equal(old1.confidence, before.confidence, 'the correction did not reinforce the old revision');
  assert.equal(new1.payload.object, '林总');
  console.log(`corrected: ${named} ${before.confidence}`);
  await shot('history-correct', true);

  log('correct a fact whose value is its whole sentence (issue 32): the new sentence wins');
  const editor = await rowWith('My favourite editor is Helix').getAttribute('data-id');
  const editorBefore = await current(editor);
  await rowWith('My favourite editor is Helix').locator('button.open').click();
  await page.locator('#detail-title', { hasText: editor }).waitFor();
  await page.locator('#correct-text').fill('My favourite editor is Zed');
  assert.equal(await page.locator('#correct-object').inputValue(), 'My favourite editor is Zed');
  await page.locator('#correct-save').click();
  await page.locator('#decision .decision[data-action=superseded]').waitFor();
  const [old2, new2] = await historyOf(editor);
  assert.deepEqual([old2.status, new2.status, new2.text], ['superseded', 'active', 'My favourite editor is Zed']);
  assert.equal(old2.confidence, editorBefore.confidence, 'the old revision was not reinforced');
  console.log(`corrected: ${editor} ${editorBefore.confidence}`);

  log('a new text that keeps the old value is no correction: the form says so and does not save');
  const tz = await rowWith('Asia/Shanghai').getAttribute('data-id');
  await rowWith('Asia/Shanghai').locator('button.open').click();
  await page.locator('#detail-title', { hasText: tz }).waitFor();
  await page.locator('#correct-text').fill('Timezone: Asia/Shanghai');
  assert.equal(await page.locator('#correct-object').inputValue(), 'Asia/Shanghai');
  assert.match(await page.locator('#correct-preview').innerText(), /still “Asia\/Shanghai”.*duplicate/);
  assert.ok(await page.locator('#correct-save').isDisabled());
  await page.locator('#correct-object').fill('Asia/Tokyo');
  assert.ok(await page.locator('#correct-save').isEnabled(), 'a new value may be saved');
  await page.locator('#detail-close').click();
  assert.equal((await historyOf(tz)).length, 1, 'nothing was written');

  log('forget asks first, says what it erases, and erases nothing until confirmed');
  const forgotten = await rowWith('张伟').getAttribute('data-id');
  await rowWith('张伟').locator('button.open').click();
  await page.locator('#detail-title', { hasText: forgotten }).waitFor();
  await page.locator('#detail-forget').click();
  const confirm = page.locator('#detail-confirm [role=alertdialog]');
  await confirm.waitFor();
  const asked = await confirm.innerText();
  assert.ok(asked.includes(forgotten), 'the confirmation names the memory');
  assert.ok(asked.includes('order-service 的负责人是张伟'), 'and quotes its text');
  assert.match(asked, /tombstone is kept/);
  assert.equal(await page.evaluate(() => document.activeElement.className), 'cancel', 'Cancel has the focus');
  await shot('forget-confirm');
  assert.equal((await historyOf(forgotten)).length, 1, 'nothing erased while the question is open');
  await page.locator('#detail-confirm button.cancel').click();
  await confirm.waitFor({ state: 'detached' });
  assert.equal((await historyOf(forgotten)).length, 1, 'Cancel erases nothing');
  await rowWith('张伟').waitFor();
  await page.locator('#detail-forget').click();
  await page.keyboard.press('Escape');
  await confirm.waitFor({ state: 'detached' });
  assert.equal(await page.locator('#detail').isVisible(), true, 'Escape answers the question, the panel stays');
  assert.equal((await historyOf(forgotten)).length, 1, 'Escape erases nothing');
  await page.locator('#detail-forget').click();
  await confirm.locator('button.erase').click();
  await page.locator('#decision dl.report').waitFor();
  assert.equal(await page.locator('#decision dd.deleted').innerText(), forgotten, 'the report names the memory');
  assert.equal(await page.locator('#decision dd.cascaded').innerText(), 'none');
  // Two: the memory's text, and the source it came from (an `origin`).
  assert.equal(await page.locator('#decision dd.tombstones').innerText(), '2');
  await page.waitForFunction(() => ![...document.querySelectorAll('#memories tbody tr')]
    .some((r) => r.textContent.includes('张伟')));
  assert.equal((await apiGet(`/v1/memories/${forgotten}/history`)).status, 404, 'erased after the confirmation');
  console.log(`forgotten: ${forgotten}`);
  await page.locator('#tab-forget').click();
  await page.locator('input[name=by][value=source_ref]').check();
  await page.locator('#forget-value').fill('evt-ops-5');
  await page.locator('#forget-form button[type=submit]').click();
  const confirmTab = page.locator('#forget-confirm [role=alertdialog]');
  await confirmTab.waitFor();
  assert.match(await confirmTab.innerText(), /order-service 重启/, 'the confirmation lists what the selector matches');
  assert.equal(await page.locator('#forget-report dl.report').count(), 0, 'nothing erased yet');
  await confirmTab.locator('button.erase').click();
  await page.locator('#forget-report dl.report').waitFor();
  const erased = [await page.locator('#forget-report dd.deleted').innerText(),
    await page.locator('#forget-report dd.cascaded').innerText()].filter((x) => x !== 'none');
  assert.equal(erased.length, 1, 'the memory derived from evt-ops-5 is erased');
  await page.waitForFunction(() => ![...document.querySelectorAll('#memories tbody tr')]
    .some((r) => r.textContent.includes('order-service 重启')));
  await shot('forget');

  log('approve a pending memory');
  await page.locator('#tab-review').click();
  const card = page.locator('#review-list .card').filter({ hasText: 'dark mode' });
  await card.waitFor();
  assert.equal(await page.locator('#review-list .card').count(), 2);
  await card.locator('button.approve').click();
  await page.locator('#review-outcome .review-result.approve').waitFor();
  assert.match(await page.locator('#review-outcome').innerText(), /approved by inspector:u42: active as/);
  await page.waitForFunction(() => document.querySelectorAll('#review-list .card').length === 1);
  await shot('review');
  await page.locator('#tab-memories').click();
  await page.waitForFunction(() => [...document.querySelectorAll('#memories tbody tr[data-id]')]
    .some((r) => r.textContent.includes('dark mode') && r.dataset.status === 'active'));
  assert.equal(await rowWith('dark mode').locator('.chip.inferred').count(), 0, 'verified: no longer inferred');

  log('pack preview: sections and the manifest');
  await page.locator('#tab-pack').click();
  await page.locator('#pack-query').fill('发布 payment-service 之前要做什么？');
  await page.locator('#pack-budget').fill('260');
  await page.locator('#pack button[type=submit]').click();
  await page.locator('#pack-out pre.packed').waitFor();
  const packed = await page.locator('#pack-out pre.packed').innerText();
  assert.match(packed, /## System policy/);
  assert.match(packed, /先备份数据库/);
  assert.ok(await page.locator('#pack-out table.sections tbody tr').count() >= 2);
  assert.match(await page.locator('#pack-out .tokens').innerText(), /of 260 tokens/);
  await page.locator('#pack-out ul.dropped').waitFor();
  await shot('pack');

  log('keyboard: tabs move with the arrow keys');
  await page.locator('#tab-pack').focus();
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.locator('#tab-memories').getAttribute('aria-selected'), 'true');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-memories');

  // Only the deliberately wrong key at the start, and the check that the
  // forgotten memory's history is gone, may have logged an error.
  const gone = `${url}v1/memories/${forgotten}/history`;
  assert.deepEqual(consoleErrors.filter((e) => !/status of 401/.test(e) && !(/status of 404/.test(e) && e.endsWith(` ${gone}`))),
    [], 'no script or load errors');

  log('the key is the boundary: another tenant is refused');
  const status = await page.evaluate(async () => (await fetch('/v1/memories?tenant=globex', {
    headers: { Authorization: `Bearer ${sessionStorage.getItem('engram-key')}` },
  })).status);
  assert.equal(status, 403);
  const other = await page.evaluate(async (key) => (await (await fetch('/inspector/whoami', {
    headers: { Authorization: `Bearer ${key}` },
  })).json()).tenant, env('OTHER_KEY'));
  assert.equal(other, 'globex');
  // The review route reads through the key's principal: another tenant's
  // key cannot see, let alone approve, acme's pending memory.
  const pendingId = await page.evaluate(async () => (await (await fetch(
    '/v1/memories?tenant=acme&user=u42&status=pending',
    { headers: { Authorization: `Bearer ${sessionStorage.getItem('engram-key')}` } },
  )).json())[0].id);
  const refused = await page.evaluate(async ([key, id]) => {
    const r = await fetch('/inspector/review', {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify([{ id, revision: 1, verdict: 'approve' }]),
    });
    return [r.status, (await r.json()).error];
  }, [env('OTHER_KEY'), pendingId]);
  assert.equal(refused[0], 404, `another tenant's review is refused: ${refused[1]}`);
  const stillPending = await page.evaluate(async () => (await (await fetch(
    '/v1/memories?tenant=acme&user=u42&status=pending',
    { headers: { Authorization: `Bearer ${sessionStorage.getItem('engram-key')}` } },
  )).json()).length);
  assert.equal(stillPending, 1);

  console.log('inspector: every step passed');
} catch (e) {
  console.error(`inspector: failed at step "${step}": ${e.stack || e}`);
  process.exitCode = 1;
} finally {
  await browser.close();
}
