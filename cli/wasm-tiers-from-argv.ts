// The unbundled entry's first import (cli/brain.ts): the WebAssembly tiers for this command,
// set before the dispatcher is evaluated. The bundle's entry does the same (scripts/bundle.mjs).
import { chooseWasmTiers } from './wasm-tiers.js';

chooseWasmTiers(process.argv[2]);
