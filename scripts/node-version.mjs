/**
 * The Node this repository runs on (.node-version), and whether this one is older: for the plain-JavaScript
 * entries that run before any TypeScript can (npm's script launcher run.mjs, npm ci's postinstall.mjs), so an
 * older Node gets one line, not the loader's stack trace. Only what every Node has.
 */
import { readFileSync } from 'node:fs';

export const wantedNode = Number(
  readFileSync(new URL('../.node-version', import.meta.url), 'utf8')
    .trim()
    .split('.')[0],
);
export const runningNode = process.versions.node;
export const nodeTooOld = Number(runningNode.split('.')[0]) < wantedNode;

/** The one line an entry point prints on an older Node: what it needs, what it got, and how to get the right one. */
export const tooOldMessage = (name) =>
  `${name}: needs Node ${wantedNode} or later (.node-version); this is Node ${runningNode}: run \`. scripts/use-node.sh\` to put Node ${wantedNode} on PATH\n`;
