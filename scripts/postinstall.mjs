#!/usr/bin/env node
/**
 * npm ci's last step: npm run gate:setup, quietly. Plain JavaScript, because the scripts it starts are
 * TypeScript run by Node's own type stripping (Node 24, as .node-version and the engines field say): on an
 * older Node, npm ci still completes and says in one line why the gate's tools wait for its first run,
 * instead of a loader's stack trace.
 */
import { nodeTooOld, runningNode, wantedNode } from './node-version.mjs';

if (nodeTooOld) {
  process.stderr.write(
    `gate:setup skipped: Node ${runningNode} is older than the ${wantedNode} this repository runs on (.node-version); the gate makes its tools at its first run\n`,
  );
} else {
  // gate:setup reads the gate's tools through the front door: built here (front-door-hook.mjs), as npm ci's last
  // step, so the gate's first run and the scripts' find it made.
  const { useBuiltFrontDoor } = await import('./front-door-hook.mjs');
  useBuiltFrontDoor();
  const { main } = await import('./gate-setup.ts');
  process.exitCode = await main(['--quiet', '--install']);
}
