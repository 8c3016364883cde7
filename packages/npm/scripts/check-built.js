#!/usr/bin/env node
// `npm pack` runs this first: the tarball must carry the transpiled
// component and the schema, which `npm run build` writes.

import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkgDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const missing = ['gen/component.json', 'gen/engram.js', 'gen/engram.d.ts', 'schema/0001-init.sql'].filter((f) => !existsSync(join(pkgDir, f)));
if (missing.length > 0) {
  console.error(`npm pack: ${missing.join(', ')} missing; run \`npm run build\` first (after \`cargo build --release\`)`);
  process.exit(1);
}
