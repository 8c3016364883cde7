#!/usr/bin/env node
// Builds the static browser demo and test page from the npm package's
// sources (one implementation of the host and the stores):
//
//   node packages/browser/build.js [OUT_DIR]        (default packages/browser/dist)
//
// Needs packages/npm built (`npm run build` there: gen/ holds the
// transpiled component) and its dev dependencies (esbuild). Writes
//   lib/engram-memory.js, lib/conformance.js (+ a shared chunk) — esbuild
//       bundles of src/browser.js and src/conformance.js, minified ES modules;
//   gen/component.json, gen/*.wasm — the component's core modules;
//   index.html, demo.js, conformance.html, conformance-page.js — the pages;
//   sw.js — a service worker that caches every file above, so the page
//       works offline after its first visit.
// Nothing needs a server beyond static files.

import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const npmDir = resolve(here, '../npm');
const out = resolve(process.argv[2] ?? join(here, 'dist'));
const require = createRequire(join(npmDir, 'package.json'));
const esbuild = require('esbuild');

const gen = join(npmDir, 'gen');
let manifest;
try {
  manifest = JSON.parse(readFileSync(join(gen, 'component.json'), 'utf8'));
} catch {
  console.error(`no transpiled component in ${gen}: run \`npm run build\` in packages/npm first`);
  process.exit(1);
}

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'gen'), { recursive: true });

await esbuild.build({
  entryPoints: { 'engram-memory': join(npmDir, 'src/browser.js'), conformance: join(npmDir, 'src/conformance.js') },
  outdir: join(out, 'lib'),
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  chunkNames: 'shared-[hash]',
  legalComments: 'none',
  // jco's fallback loader imports node:fs when run in Node; the page never
  // reaches it (the core modules are fetched by browser.js).
  external: ['node:*'],
  logLevel: 'warning',
});

for (const name of ['component.json', ...manifest.files.filter((f) => f.endsWith('.wasm'))]) {
  copyFileSync(join(gen, name), join(out, 'gen', name));
}
for (const name of readdirSync(join(here, 'src'))) copyFileSync(join(here, 'src', name), join(out, name));

// The service worker's file list and cache name come from what was built,
// so a new build replaces an old cache.
const files = [];
const walk = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path);
    else if (entry.name !== 'sw.js') files.push(relative(out, path).split('\\').join('/'));
  }
};
walk(out);
files.sort();
const hash = createHash('sha256');
for (const f of files) hash.update(f).update(readFileSync(join(out, f)));
const sw = readFileSync(join(out, 'sw.js'), 'utf8')
  .replace('__CACHE__', `engram-${manifest.sha256.slice(0, 12)}-${hash.digest('hex').slice(0, 12)}`)
  .replace('__FILES__', JSON.stringify(['./', ...files]));
writeFileSync(join(out, 'sw.js'), sw);
console.log(`browser build in ${out}: ${files.length + 1} files (component sha256 ${manifest.sha256.slice(0, 12)}…)`);
