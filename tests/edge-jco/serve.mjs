// Serve the jco-transpiled edge component on a loopback port with
// preview2-shim's HTTP server: `node serve.mjs <transpiled module> <env JSON>`.
// Prints `{"port": N}` once listening; each stdin line `{"env": {...}}`
// replaces the component's environment (answered with `{"ok": true}`).
import { createInterface } from 'node:readline';
import { HTTPServer } from '@bytecodealliance/preview2-shim/http';
import { _setEnv } from '@bytecodealliance/preview2-shim/cli';

const [, , modulePath, envJson] = process.argv;
_setEnv(JSON.parse(envJson || '{}'));
const t0 = performance.now();
const { incomingHandler } = await import(modulePath);
const loadMs = performance.now() - t0;
const server = new HTTPServer(incomingHandler);
server.listen(0, '127.0.0.1');
const { port } = server.address();
console.log(JSON.stringify({ port, load_ms: loadMs }));
createInterface({ input: process.stdin }).on('line', (line) => {
  if (!line.trim()) return;
  const cmd = JSON.parse(line);
  if (cmd.env) _setEnv(cmd.env);
  if (cmd.stop) { server.stop(); process.exit(0); }
  console.log(JSON.stringify({ ok: true }));
});
