// The fingerprint secret and the per-owner keys derived from it, as the
// Rust host derives them (host/src/fingerprint.rs, docs/durability.md):
// tombstones are HMAC-SHA-256 fingerprints under a key of their owner
// (tenant, user, project), derived here from a secret the store keeps out
// of its database, and the guest is handed only the keys of owners its
// principal can see. HMAC and SHA-256 are @noble/hashes' (synchronous, in
// Node and in browsers alike).

import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha256';

import { StoreError } from './errors.js';

/** Bytes of a new secret. */
export const SECRET_BYTES = 32;

const encoder = new TextEncoder();

export function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A secret from the platform's CSPRNG. */
export function randomSecret() {
  const bytes = new Uint8Array(SECRET_BYTES);
  globalThis.crypto.getRandomValues(bytes);
  return bytes;
}

/** A secret from bytes (at least 16). */
export function checkSecret(bytes) {
  if (!(bytes instanceof Uint8Array) || bytes.length < 16) {
    throw new StoreError('backend', `a fingerprint key needs at least 16 bytes, this one has ${bytes?.length ?? 0}`);
  }
  return bytes;
}

/** A key file's text: the secret in hex. */
export function secretFromHex(text, where = 'fingerprint key') {
  const t = String(text).trim();
  if (!/^([0-9a-fA-F]{2})+$/.test(t)) throw new StoreError('backend', `${where}: a fingerprint key file holds the key in hex`);
  const bytes = new Uint8Array(t.length / 2);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = parseInt(t.slice(2 * i, 2 * i + 2), 16);
  return checkSecret(bytes);
}

/** What a key file holds. */
export function secretToFileText(secret) {
  return `${toHex(secret)}\n`;
}

/** The key's id as stores record it (nothing to learn the key from). */
export function keyId(secret) {
  return toHex(hmac(sha256, secret, encoder.encode('engram/fingerprint-key-id/v1')).slice(0, 8));
}

function field(value) {
  if (value === undefined || value === null) return [Uint8Array.of(0)];
  const bytes = encoder.encode(value);
  const len = new Uint8Array(4);
  new DataView(len.buffer).setUint32(0, bytes.length);
  return [Uint8Array.of(1), len, bytes];
}

/**
 * The fingerprint key of content owned by `owner` ({tenant, user?,
 * project?}): HMAC-SHA-256 keyed with the secret over
 * `engram/fingerprint-key/v1` and each of tenant, user and project as a 0
 * byte (none) or a 1 byte, its UTF-8 length (4 bytes, big-endian) and its
 * UTF-8.
 */
export function deriveKey(secret, owner) {
  const parts = [encoder.encode('engram/fingerprint-key/v1'), ...field(owner.tenant), ...field(owner.user), ...field(owner.project)];
  const message = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    message.set(p, at);
    at += p.length;
  }
  return hmac(sha256, secret, message);
}

/** The owner of content in `scope`: its tenant, user and project. */
export function ownerOf(scope) {
  return { tenant: scope.tenant, user: scope.user, project: scope.project, thread: undefined, agent: undefined };
}

/**
 * May `principal` see content owned by `owner`: the same tenant and, on
 * every dimension the principal pins, the owner's unset (wider) or equal.
 */
export function seesOwner(principal, owner) {
  const dim = (p, o) => p === undefined || o === undefined || p === o;
  return principal.tenant === owner.tenant && dim(principal.user, owner.user) && dim(principal.project, owner.project);
}

/** Check a store's recorded key id against the secret it holds. */
export function checkRecorded(secret, recorded, where) {
  if (recorded !== undefined && recorded !== null && recorded !== keyId(secret)) {
    throw new StoreError(
      'backend',
      `the fingerprint key ${where} (key id ${keyId(secret)}) is not the key this store's tombstones were made with (key id ${recorded}): restore that key file (docs/durability.md)`,
    );
  }
}
