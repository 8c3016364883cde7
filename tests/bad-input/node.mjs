// The bad-input cases (cases.json) through the installed npm package:
// node node.mjs CASES OUT — writes {before, after, results: [{name, refused, message}]}.
import { readFileSync, writeFileSync } from 'node:fs';
import { Engram } from 'engram-memory';

const [casesPath, outPath] = process.argv.slice(2);
const { cases } = JSON.parse(readFileSync(casesPath, 'utf8'));
const scope = { tenant: 'acme', user: 'u42' };
const engram = await Engram.open({ principal: 'acme', now: '2026-08-01T10:00:00+08:00' });
await engram.remember({ text: 'The build server is ci-7', scope, source: { kind: 'system' } });
const count = async () => (await engram.list({ tenant: 'acme' })).length;
const before = await count();
const results = [];
for (const c of cases) {
  try {
    await engram.call(c.op, c.input);
    results.push({ name: c.name, refused: false });
  } catch (e) {
    results.push({ name: c.name, refused: true, message: String(e.message) });
  }
}
writeFileSync(outPath, JSON.stringify({ before, after: await count(), results }));
