// The baseline for the gate's start-up: a bare Node process that reads and
// parses the same files (YAML and JSON under the given roots) and does nothing
// else. By default with the `yaml` library, keeping positions, as the gate reads
// a file that only it may read; with --js-yaml first, with js-yaml's loader and
// no positions at all, quicker than the gate's fast reader (its events, places
// kept): the strictest baseline a parse can give.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LineCounter, parseAllDocuments } from 'yaml';

const fast = process.argv[2] === '--js-yaml';
const [root = '.', ...roots] = process.argv.slice(fast ? 3 : 2);
const { loadAll } = fast ? await import('js-yaml') : { loadAll: undefined };
let documents = 0;
/** @param {string} text */
const parse = (text) => {
  if (loadAll) {
    documents += loadAll(text, { json: true }).length;
    return;
  }
  const lineCounter = new LineCounter();
  for (const doc of parseAllDocuments(text, { lineCounter })) {
    doc.toJS();
    documents++;
  }
};
/** @param {string} dir */
const walk = (dir) => {
  for (const name of readdirSync(join(root, dir))) {
    if (name.startsWith('.') || name === 'node_modules') continue;
    const rel = dir ? `${dir}/${name}` : name;
    if (statSync(join(root, rel)).isDirectory()) walk(rel);
    else if (/\.(ya?ml|json)$/.test(name)) parse(readFileSync(join(root, rel), 'utf8'));
  }
};
for (const dir of roots) walk(dir);
process.stdout.write(`${documents}\n`);
