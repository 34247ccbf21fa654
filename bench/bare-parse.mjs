// The baseline for the gate's start-up: a bare Node process that reads and
// parses the same files (YAML and JSON under the given roots) with the same
// library, keeping positions, and does nothing else.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LineCounter, parseAllDocuments } from 'yaml';

const [root = '.', ...roots] = process.argv.slice(2);
let documents = 0;
/** @param {string} dir */
const walk = (dir) => {
  for (const name of readdirSync(join(root, dir))) {
    if (name.startsWith('.') || name === 'node_modules') continue;
    const rel = dir ? `${dir}/${name}` : name;
    if (statSync(join(root, rel)).isDirectory()) walk(rel);
    else if (/\.(ya?ml|json)$/.test(name)) {
      const lineCounter = new LineCounter();
      for (const doc of parseAllDocuments(readFileSync(join(root, rel), 'utf8'), { lineCounter })) {
        doc.toJS();
        documents++;
      }
    }
  }
};
for (const dir of roots) walk(dir);
process.stdout.write(`${documents}\n`);
