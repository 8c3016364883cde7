#!/usr/bin/env node
// Drives the built page (build.js) in headless Chromium through
// playwright-core, serving it as static files from 127.0.0.1:
//
//   node test/run.js --dist DIR --chromium PATH --playwright DIR --scenario FILE --out FILE
//
// 1. the demo page, cold (fresh profile): transfer size of every file it
//    loads (raw, gzip -9, brotli q11) and the time from navigation to the
//    first completed component call;
// 2. the demo as a person would use it: remember four lines, recall with
//    explanations, pack, forget — checked in the page's DOM;
// 3. offline: with the network cut, a reload is served by the service
//    worker, the first call works again, and IndexedDB kept the memories;
// 4. the shared conformance scenario on the in-memory and IndexedDB stores.
// Writes everything measured to --out; exits non-zero on any failed check.

import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { extname, join, normalize, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const { values: args } = parseArgs({
  options: {
    dist: { type: 'string' },
    chromium: { type: 'string' },
    playwright: { type: 'string' },
    scenario: { type: 'string' },
    out: { type: 'string' },
  },
});
for (const k of ['dist', 'chromium', 'playwright', 'scenario', 'out']) {
  if (!args[k]) throw new Error(`--${k} is required`);
}
const dist = resolve(args.dist);
const { chromium } = createRequire(join(resolve(args.playwright), 'package.json'))('playwright-core');

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.json': 'application/json', '.wasm': 'application/wasm' };

/** A static file server for `dist` on an ephemeral loopback port. */
function serve() {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = normalize(join(dist, path.endsWith('/') ? `${path}index.html` : path));
    if (!file.startsWith(dist)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = readFileSync(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

function check(condition, message) {
  if (!condition) throw new Error(`browser check failed: ${message}`);
}

function sizes(paths) {
  const files = [...new Set(paths)].sort().map((p) => {
    const file = join(dist, p.endsWith('/') ? `${p}index.html` : p);
    const body = readFileSync(file);
    return {
      path: p,
      bytes: statSync(file).size,
      gzip: gzipSync(body, { level: 9 }).length,
      brotli: brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
    };
  });
  const total = { bytes: 0, gzip: 0, brotli: 0 };
  for (const f of files) for (const k of Object.keys(total)) total[k] += f[k];
  return { files, total };
}

const server = await serve();
const base = `http://127.0.0.1:${server.address().port}/`;
const browser = await chromium.launch({ executablePath: args.chromium, headless: true, args: ['--no-sandbox'] });
const report = {};
try {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const loaded = [];
  page.on('response', (r) => {
    const url = new URL(r.url());
    if (url.origin === new URL(base).origin && r.status() === 200) loaded.push(url.pathname);
  });

  // 1. Cold load.
  await page.goto(base);
  await page.waitForFunction(() => window.engramDemo?.ready === true, null, { timeout: 60_000 });
  const cold = await page.evaluate(() => ({ firstCallMs: window.engramDemo.firstCallMs, openMs: window.engramDemo.openMs, info: window.engramDemo.info, error: window.engramDemo.lastError ?? null }));
  check(cold.error === null, `the page failed to open Engram: ${cold.error}`);
  report.first_call_ms = { cold: cold.firstCallMs, cold_open_ms: cold.openMs };
  report.info = cold.info;
  // Wait for the service worker so its own fetches count as the page's.
  const sw = await page.evaluate(() => window.engramDemo.serviceWorker);
  check(sw === true, `the service worker did not activate: ${sw}`);
  report.transfer = sizes(loaded.filter((p) => p !== '/sw.js').map((p) => p.slice(1) || './').map((p) => (p === './' ? '/' : p)));

  // 2. The demo, through its buttons.
  await page.click('#remember');
  await page.waitForFunction(() => document.querySelectorAll('#decisions tr').length === 5);
  const decisions = await page.$$eval('#decisions tr', (rows) => rows.slice(1).map((r) => [...r.cells].map((c) => c.textContent)));
  check(decisions.length === 4, `4 decisions expected, got ${JSON.stringify(decisions)}`);
  const password = decisions.find((d) => d[0].includes('password'));
  check(password && password[1].startsWith('rejected') && password[2].includes('sensitivity'), `the password line must be rejected by the sensitivity gate: ${JSON.stringify(password)}`);
  for (const d of decisions.filter((x) => x !== password)) check(d[1].startsWith('active'), `${d[0]} should be remembered: ${JSON.stringify(d)}`);

  await page.click('#recall');
  await page.waitForFunction(() => document.querySelectorAll('#results tr').length > 2);
  const results = await page.$$eval('#results tr', (rows) => rows.slice(1).map((r) => [...r.cells].map((c) => c.textContent)));
  check(results[0][1] === 'payment-service uses PostgreSQL 16' && results[0][2].includes('similarity'), `recall should rank the database fact first with an explanation: ${JSON.stringify(results)}`);

  await page.click('#pack');
  await page.waitForFunction(() => document.getElementById('packed').textContent.length > 0);
  const packed = await page.textContent('#packed');
  check(/^\d+ of 300 tokens/.test(packed) && packed.includes('PostgreSQL 16') && !packed.includes('hunter2'), `the packed context should hold the fact and no secret: ${packed}`);

  await page.fill('#forgetText', 'English');
  await page.click('#forget');
  await page.waitForFunction(() => document.getElementById('forgotten').textContent.length > 0);
  const forgotten = await page.textContent('#forgotten');
  check(forgotten.startsWith('deleted 1'), `forget should delete one memory: ${forgotten}`);
  const listed = await page.$$eval('#memories tr', (rows) => rows.slice(1).map((r) => r.cells[2].textContent));
  check(!listed.some((t) => t.includes('English')) && listed.includes('payment-service uses PostgreSQL 16'), `after forget: ${JSON.stringify(listed)}`);
  report.demo = { decisions, recall: results, packed, forgotten, listed };

  // 3. Offline: the service worker serves the page, IndexedDB kept the data.
  await context.setOffline(true);
  await page.reload();
  await page.waitForFunction(() => window.engramDemo?.ready === true, null, { timeout: 60_000 });
  const offline = await page.evaluate(() => ({ firstCallMs: window.engramDemo.firstCallMs, error: window.engramDemo.lastError ?? null }));
  check(offline.error === null, `offline reload failed: ${offline.error}`);
  const relisted = await page.$$eval('#memories tr', (rows) => rows.slice(1).map((r) => r.cells[2].textContent));
  check(JSON.stringify(relisted) === JSON.stringify(listed), `IndexedDB should keep the memories across a reload: ${JSON.stringify(relisted)} vs ${JSON.stringify(listed)}`);
  report.first_call_ms.offline_reload = offline.firstCallMs;
  await context.setOffline(false);
  check(errors.length === 0, `page errors: ${errors.join('; ')}`);
  await context.close();

  // 4. The conformance scenario, in a fresh context.
  const scenario = JSON.parse(readFileSync(args.scenario, 'utf8'));
  const ctx = await browser.newContext();
  const conf = await ctx.newPage();
  await conf.goto(`${base}conformance.html`);
  await conf.waitForFunction(() => window.conformanceReady === true, null, { timeout: 60_000 });
  report.conformance = {};
  for (const kind of ['memory', 'indexeddb']) {
    const t = Date.now();
    report.conformance[kind] = await conf.evaluate(([s, k]) => window.runConformance(s, k), [scenario, kind]);
    report.conformance[kind].elapsed_ms = Date.now() - t;
  }
  report.chromium = browser.version();
  await ctx.close();
} finally {
  await browser.close();
  server.close();
}
writeFileSync(args.out, `${JSON.stringify(report, null, 1)}\n`);
const t = report.transfer.total;
console.log(`browser: ${report.transfer.files.length} files, ${t.bytes} B raw, ${t.gzip} B gzip, ${t.brotli} B brotli; first call ${report.first_call_ms.cold.toFixed(0)} ms cold, ${report.first_call_ms.offline_reload.toFixed(0)} ms offline reload (Chromium ${report.chromium})`);
