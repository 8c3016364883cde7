// UTF-8 byte order without Node's Buffer, so the same code runs in browsers.

const ENCODER = new TextEncoder();

/** Compare two strings by their UTF-8 bytes (SQLite's BINARY collation). */
export function compareUtf8(a, b) {
  const x = ENCODER.encode(a);
  const y = ENCODER.encode(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i += 1) {
    if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  }
  return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
}
