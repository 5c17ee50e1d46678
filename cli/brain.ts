#!/usr/bin/env node
// The `brain` command's entry. tsc compiles it to a one-line import of the dispatcher
// (cli/main.ts); scripts/bundle.mjs then writes dist/cli/brain.js over it with the bundle
// built from that dispatcher, which is what `npm start`, the bin and the image run.
import './main.js';
