#!/usr/bin/env node
// The `brain` command's entry. tsc compiles it to this unbundled entry; scripts/bundle.mjs then
// writes dist/cli/brain.js over it with the bundle built from the dispatcher (cli/main.ts),
// which is what `npm start`, the bin and the image run. Either entry sets the WebAssembly tiers
// before the dispatcher loads anything (the bundle's also installs the code cache); imports run
// in order, so this one is set before main.js is evaluated.
import './wasm-tiers-from-argv.js';
import './main.js';
