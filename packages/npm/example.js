// The README's example: remember, recall with an explanation, pack, forget.
import { Engram } from 'engram-memory';

const engram = await Engram.open({ principal: 'acme', now: '2026-08-01T10:00:00+08:00' });
const scope = { tenant: 'acme', user: 'u42' };
for (const text of ['I prefer answers in English', '以后请叫我林工', 'my password is hunter2']) {
  const d = await engram.remember({ text, scope, source: { kind: 'user', ref: 'chat-1' } });
  const denied = Object.entries(d.gates).find(([, gate]) => !gate.pass);
  console.log(`${d.disposition.padEnd(8)} ${text}  (${denied ? `${denied[0]}: ${denied[1].reason}` : d.kind})`);
}
const [top] = (await engram.recall({ query: 'which language should answers use?', scope, k: 1 })).results;
console.log(`recall:  ${top.text}  score ${top.score.toFixed(3)}, similarity ${top.features.similarity.toFixed(2)}, admitted ${top.admission.admit}`);
const packed = await engram.pack({ budget: 200, scope, query: 'answer the user', system: 'You are helpful.' });
console.log(`pack:    ${packed.tokens} of ${packed.budget} tokens, ${packed.sections.length} sections`);
console.log(`forget:  ${(await engram.forget({ scope, text: 'English' })).deleted.length} memory deleted`);
