// The WASI CLI/IO interfaces that Rust's std links into a wasm32-wasip2
// component. The policy never uses them (its only capabilities are `store`
// and `clock`); like the Rust host, which defines them as traps, this host
// gives them nothing: every function throws, so reaching one traps the call
// (e.g. a guest panic trying to print its message). No environment, no
// stdio, no exit.

class NoCapability extends Error {
  constructor(what) {
    super(`the Engram host grants no WASI capability (${what} was called)`);
    this.name = 'NoCapability';
  }
}

const trap = (what) => () => {
  throw new NoCapability(what);
};

/** Resource classes the bindings check with `instanceof`; never constructed. */
const resource = (name) => {
  const cls = class {
    constructor() {
      throw new NoCapability(`${name} constructor`);
    }
  };
  Object.defineProperty(cls, 'name', { value: name });
  return cls;
};

/** The import object entries for every WASI interface the component imports. */
export function wasiStubs() {
  return {
    'wasi:cli/environment': { getEnvironment: trap('wasi:cli/environment.get-environment') },
    'wasi:cli/exit': { exit: trap('wasi:cli/exit.exit') },
    'wasi:cli/stdin': { getStdin: trap('wasi:cli/stdin.get-stdin') },
    'wasi:cli/stdout': { getStdout: trap('wasi:cli/stdout.get-stdout') },
    'wasi:cli/stderr': { getStderr: trap('wasi:cli/stderr.get-stderr') },
    'wasi:cli/terminal-input': { TerminalInput: resource('TerminalInput') },
    'wasi:cli/terminal-output': { TerminalOutput: resource('TerminalOutput') },
    'wasi:cli/terminal-stdin': { getTerminalStdin: trap('wasi:cli/terminal-stdin.get-terminal-stdin') },
    'wasi:cli/terminal-stdout': { getTerminalStdout: trap('wasi:cli/terminal-stdout.get-terminal-stdout') },
    'wasi:cli/terminal-stderr': { getTerminalStderr: trap('wasi:cli/terminal-stderr.get-terminal-stderr') },
    'wasi:io/error': { Error: resource('Error') },
    'wasi:io/poll': { Pollable: resource('Pollable') },
    'wasi:io/streams': { InputStream: resource('InputStream'), OutputStream: resource('OutputStream') },
  };
}
