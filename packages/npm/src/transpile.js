#!/usr/bin/env node
// Transpile the Engram component into JavaScript bindings plus core wasm
// modules with jco, for `Engram.open({bindings})`.
//
//   node src/transpile.js [COMPONENT.wasm] [OUT_DIR]
//
// Defaults: ../../target/engram-memory.wasm (what `cargo build` writes) and
// ./gen. `--instantiation async` is used so that `store`, `clock` and the
// WASI stubs are supplied at run time by this host rather than imported as
// ES modules. The output directory gets a `component.json` recording the
// sha256 of the component it came from, so a stale transpile is caught.
// Nothing is rewritten if that hash is already there (`--force` to redo).

import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const DEFAULT_COMPONENT = resolve(here, '../../../target/engram-memory.wasm');
export const DEFAULT_BINDINGS = resolve(here, '../gen');

/** The file name stem of the generated module (`engram.js`). */
export const MODULE_NAME = 'engram';

/**
 * The bindings check `process.env.JCO_DEBUG` on every `_debugLog` call, many
 * times per component call. Reading `process.env` crosses into C++ each
 * time; this reads it once at instantiation instead (same behaviour unless
 * JCO_DEBUG is changed while the process runs).
 */
const DEBUG_CHECK = 'if (!globalThis?.process?.env?.JCO_DEBUG) { return; }';
const DEBUG_CHECK_ONCE = 'if (!_jcoDebugOnce) { return; }';
const DEBUG_DECL = 'const _debugLog = (...args) => {';

export function hoistDebugCheck(source) {
  if (!source.includes(DEBUG_DECL) || !source.includes(DEBUG_CHECK)) return { source, patched: false };
  const patched = source
    .replace(DEBUG_DECL, `const _jcoDebugOnce = !!globalThis?.process?.env?.JCO_DEBUG;\n  ${DEBUG_DECL}`)
    .replace(DEBUG_CHECK, DEBUG_CHECK_ONCE);
  return { source: patched, patched: true };
}

/**
 * Transpile `componentPath` into `outDir`. Options: `force` (redo even if
 * up to date), `hoistDebug` (default true; see `hoistDebugCheck`).
 * Returns the manifest written to `component.json`.
 */
export async function transpileComponent(componentPath = DEFAULT_COMPONENT, outDir = DEFAULT_BINDINGS, { force = false, hoistDebug = true } = {}) {
  let bytes;
  try {
    bytes = await readFile(componentPath);
  } catch (e) {
    throw new Error(`cannot read the component at ${componentPath} (build it with \`cargo build --release\` at the repository root): ${e.message}`);
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const manifestPath = join(outDir, 'component.json');
  if (!force) {
    try {
      const old = JSON.parse(await readFile(manifestPath, 'utf8'));
      if (old.sha256 === sha256 && old.hoistDebug === hoistDebug) return old;
    } catch {
      // No (readable) manifest: transpile.
    }
  }
  const { transpile } = await import('@bytecodealliance/jco');
  const { files } = await transpile(bytes, {
    name: MODULE_NAME,
    instantiation: 'async',
    quiet: true,
  });
  await rm(outDir, { recursive: true, force: true });
  let patched = false;
  const entries = Object.entries(files);
  for (const [name, contents] of entries) {
    const path = join(outDir, name);
    await mkdir(dirname(path), { recursive: true });
    if (name === `${MODULE_NAME}.js` && hoistDebug) {
      const out = hoistDebugCheck(Buffer.from(contents).toString('utf8'));
      patched = out.patched;
      await writeFile(path, out.source);
    } else {
      await writeFile(path, contents);
    }
  }
  const jcoMain = fileURLToPath(import.meta.resolve('@bytecodealliance/jco'));
  const jcoPackage = JSON.parse(await readFile(resolve(dirname(jcoMain), '../package.json'), 'utf8'));
  const manifest = {
    sha256,
    source: basename(componentPath),
    jco: jcoPackage.version,
    instantiation: 'async',
    hoistDebug,
    debugCheckHoisted: patched,
    files: entries.map(([name]) => name),
  };
  await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const force = args.includes('--force');
  const hoistDebug = !args.includes('--keep-debug-check');
  const [component = DEFAULT_COMPONENT, out = DEFAULT_BINDINGS] = args.filter((a) => !a.startsWith('--'));
  transpileComponent(resolve(component), resolve(out), { force, hoistDebug }).then(
    (m) => console.log(`transpiled ${m.source} (sha256 ${m.sha256.slice(0, 12)}…) with jco ${m.jco} into ${resolve(out)}`),
    (e) => {
      console.error(`transpile failed: ${e.message}`);
      process.exitCode = 1;
    },
  );
}
