#!/usr/bin/env node
/**
 * How npm runs the TypeScript scripts: `node scripts/run.mjs <script>.ts [arguments]`. They are TypeScript
 * that Node runs by stripping its types, which the Node of .node-version does and an older one (Debian's own
 * is 20) refuses with the loader's stack trace over the file's extension. This file is plain JavaScript that
 * any Node loads: on an older Node it says so in one line and exits 1; otherwise it runs the script as if
 * Node had been given it (the script's path is process.argv[1], its arguments follow).
 */
import { existsSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { nodeTooOld, tooOldMessage } from './node-version.mjs';
import { quietWarnings } from './quiet-warnings.mjs';

const script = process.argv[2];
// npm names the script it runs; run by hand, the file is the name.
const name = process.env.npm_lifecycle_event || (script ? basename(script, '.ts') : 'run.mjs');
if (nodeTooOld) {
  process.stderr.write(tooOldMessage(name));
  process.exit(1);
}
if (!script) {
  process.stderr.write('usage: node scripts/run.mjs <script>.ts [arguments]\n');
  process.exit(2);
}
// A script that is not there (a name typed by hand, `node scripts/run.mjs validate`) is a usage error in one line,
// not the loader's stack trace over the module it cannot find.
if (!existsSync(script)) {
  process.stderr.write(`run.mjs: no script ${script} (usage: node scripts/run.mjs <script>.ts [arguments])\n`);
  process.exit(2);
}
// A reader that stops early (`npm run conformance ... | head`) closes the pipe: the script ends quietly, as a Unix
// tool does, where Node would print the write's stack trace. Any other failure to write is one line and exit 1.
for (const stream of [process.stdout, process.stderr])
  stream.on('error', (err) => {
    if (err.code !== 'EPIPE' && stream !== process.stderr) process.stderr.write(`${name}: cannot write its output (${err.code ?? err.message})\n`);
    process.exit(err.code === 'EPIPE' ? 0 : 1);
  });
// Node keeps the code it compiles of each module, the TypeScript it strips included, keyed by the module's text
// (in NODE_COMPILE_CACHE, else the system's temporary folder), as the gate's entry does: a script's next run loads
// the front door's graph in about half the time (charts:pull --help 1.4 s, then 0.6). A cache that cannot be
// written is skipped, and a changed file is compiled again. Imported here, past the version check: Node 20 has none.
const { enableCompileCache } = await import('node:module');
enableCompileCache();
quietWarnings();
// The front door from the gate's build, not its 575 sources (front-door-hook.mjs). Past the version check too:
// module hooks came in Node 22.
const { useBuiltFrontDoor } = await import('./front-door-hook.mjs');
useBuiltFrontDoor();
process.argv.splice(1, 2, resolve(script));
await import(pathToFileURL(resolve(script)).href);
