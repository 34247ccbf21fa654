#!/usr/bin/env node
// Runs the built gate, building it first when the sources changed since. Only Node's oldest features
// before the version check: on a Node older than the gate runs on, a user gets one line saying so, not
// the loader's stack trace over an import this Node lacks.
const NEEDED = 24;
if (Number(process.versions.node.split('.')[0]) < NEEDED) {
  process.stderr.write(`homelab-gate: needs Node ${NEEDED} or later (.node-version); this is Node ${process.versions.node}\n`);
  process.exit(1);
}

const { enableCompileCache } = await import('node:module');
const { pathToFileURL } = await import('node:url');
const { buildGate, GATE_BUNDLE, isStale } = await import('../build.mjs');

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
