// Typed errors of the Node host.

/**
 * The policy refused a request: the WIT `error` variant (`kind` is its case:
 * `invalid-input`, `unsupported`, `not-found`, `permission-denied`,
 * `conflict`, `store`, `limit-exceeded`). Input the host itself cannot
 * convert is reported the same way, as `invalid-input`.
 */
export class EngramError extends Error {
  constructor(kind, message, { field, index } = {}) {
    const named = field !== undefined && field !== '' ? `field \`${field}\`: ${message}` : message;
    super(index !== undefined && index !== null
      ? `item ${index + 1}: ${named}`
      : field !== undefined ? named : `${kind}: ${message}`);
    this.name = 'EngramError';
    this.kind = kind;
    this.detail = message;
    if (field !== undefined) this.field = field;
    if (index !== undefined && index !== null) this.index = index;
  }

  static input(field, message, index) {
    return new EngramError('invalid-input', message, { field, index });
  }

  /** From the component's `error` variant (`{tag, val}`). */
  static fromWit(e) {
    if (e.tag === 'invalid-input') {
      return new EngramError('invalid-input', e.val.message, { field: e.val.field, index: e.val.index });
    }
    return new EngramError(e.tag, String(e.val));
  }

  /** `{kind, message}` — the error as plain JSON. */
  toJSON() {
    const out = { kind: this.kind, message: this.detail };
    if (this.field !== undefined) out.field = this.field;
    if (this.index !== undefined) out.index = this.index;
    return out;
  }
}

/**
 * The component trapped (a guest panic, a host import that threw, a value
 * the bindings could not convert). The instance was discarded and a fresh
 * one replaces it on the next call; the store is untouched by the failed
 * call's commit unless that commit had already returned.
 */
export class EngramTrapError extends Error {
  constructor(message, options) {
    super(`the policy component trapped: ${message}`, options);
    this.name = 'EngramTrapError';
  }
}

/** A store error, thrown by store implementations and sent to the guest as `store-error`. */
export class StoreError extends Error {
  /** @param {'denied'|'conflict'|'invalid'|'backend'} kind */
  constructor(kind, message) {
    super(`${kind}: ${message}`);
    this.name = 'StoreError';
    this.kind = kind;
    // jco turns a thrown object's own `payload` into the `err` of a `result`.
    Object.defineProperty(this, 'payload', { value: { tag: kind, val: message }, enumerable: false });
  }
}
