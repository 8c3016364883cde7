#!/usr/bin/env node
// Builds what the package ships besides its sources, from the repository:
//
//   npm run build [-- COMPONENT.wasm]
//
// * gen/    — the component transpiled by jco (`--instantiation async`), with
//             the TypeScript types jco generates from the WIT (engram.d.ts,
//             interfaces/*.d.ts); default component ../../target/engram-memory.wasm
//             (what `cargo build --release` writes);
// * schema/ — the Rust host's SQLite migrations (host/schema/*.sql), which
//             SqliteStore applies, so every host writes one format.
//
// It first checks that package.json's version is the workspace crate
// version and the WIT package version: the three move together.

import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { transpileComponent } from '../src/transpile.js';

const pkgDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repo = resolve(pkgDir, '../..');

function versions() {
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).version;
  const cargo = readFileSync(join(repo, 'Cargo.toml'), 'utf8').match(/\[workspace\.package\][^[]*?\nversion\s*=\s*"([^"]+)"/)?.[1];
  const wit = readFileSync(join(repo, 'wit/world.wit'), 'utf8').match(/^package\s+[\w-]+:[\w-]+@([^;\s]+);/m)?.[1];
  return { pkg, cargo, wit };
}

const v = versions();
if (v.pkg !== v.cargo || v.pkg !== v.wit) {
  console.error(`version mismatch: package.json ${v.pkg}, Cargo.toml workspace ${v.cargo}, WIT package ${v.wit}; make them equal`);
  process.exit(1);
}

const component = resolve(process.argv[2] ?? join(repo, 'target/engram-memory.wasm'));
const manifest = await transpileComponent(component, join(pkgDir, 'gen'));

const schema = join(pkgDir, 'schema');
rmSync(schema, { recursive: true, force: true });
mkdirSync(schema);
const migrations = readdirSync(join(repo, 'host/schema')).filter((f) => f.endsWith('.sql'));
for (const f of migrations) copyFileSync(join(repo, 'host/schema', f), join(schema, f));

console.log(`engram-memory ${v.pkg}: gen/ from ${component} (sha256 ${manifest.sha256.slice(0, 12)}…, jco ${manifest.jco}), schema/ (${migrations.length} migrations)`);
