#!/usr/bin/env node
// Runs the built gate, building it first when the sources changed since. Only Node's oldest features
// before the version check: on a Node older than the gate runs on, a user gets one line saying so, not
// the loader's stack trace over an import this Node lacks.
// The same source as the scripts' check (scripts/node-version.mjs), read here: the gate imports nothing of scripts/.
import { readFileSync } from 'node:fs';

const wanted = Number(
  readFileSync(new URL('../../.node-version', import.meta.url), 'utf8')
    .trim()
    .split('.')[0],
);
if (Number(process.versions.node.split('.')[0]) < wanted) {
  process.stderr.write(
    `homelab-gate: needs Node ${wanted} or later (.node-version); this is Node ${process.versions.node}: run \`. scripts/use-node.sh\` to put Node ${wanted} on PATH\n`,
  );
  process.exit(1);
}

// Node resolves the bundle's packages (and the build's esbuild) from the nearest node_modules up the tree:
// one under policy-tests/ would come before the repository's install, which npm ci makes afresh, and replace
// code the gate runs. A checkout that has one is refused, in one line (checkout-no-code-or-state names a
// committed one too).
const { existsSync } = await import('node:fs');
const shadows = ['../node_modules', '../dist/node_modules', './node_modules'].map((rel) => new URL(rel, import.meta.url)).filter((url) => existsSync(url));
if (shadows.length > 0) {
  const { fileURLToPath } = await import('node:url');
  process.stderr.write(
    `homelab-gate: refusing to run: ${fileURLToPath(/** @type {URL} */ (shadows[0]))} would shadow the repository's installed packages; remove it (packages come from npm ci at the repository root)\n`,
  );
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
    process.stderr.write(`homelab-gate: cannot build the gate: ${String(err instanceof Error ? err.message : err).split('\n')[0]}\n`);
    process.exit(1);
  }
}
await import(pathToFileURL(GATE_BUNDLE).href);
