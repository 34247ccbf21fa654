#!/usr/bin/env node
// Runs the built gate, building it first when the sources changed since.
import { enableCompileCache } from 'node:module';
import { pathToFileURL } from 'node:url';
import { buildGate, GATE_BUNDLE, isStale } from '../build.mjs';

// V8 keeps the compiled code of the gate and its libraries on disk, so a
// second run skips most of the parsing and compiling of JavaScript.
enableCompileCache();

if (isStale()) {
  try {
    await buildGate();
  } catch (err) {
    process.stderr.write(`homelab-gate: cannot build the gate: ${String(err.message).split('\n')[0]}\n`);
    process.exit(1);
  }
}
await import(pathToFileURL(GATE_BUNDLE).href);
