/**
 * One cold gate run, in a process of its own: `node cold-gate.ts <root>` judges the tree at root as a fresh CLI run
 * would (nothing remembered by this process; the caller turns the warm-start stores off with
 * HOMELAB_GATE_STORES=off) and prints its verdict (verdict.ts) as JSON. The warm-against-cold test runs it.
 */
import { join } from 'node:path';
import { runGate } from '../../gate/gate.ts';
import { verdictOf } from './verdict.ts';

const root = process.argv[2];
if (!root) {
  process.stderr.write('usage: node cold-gate.ts <root>\n');
  process.exit(2);
}
// As the mutation runner judges a copy: an empty chart cache, as on a machine that never pulled a chart.
const result = await runGate({ root, cwd: root, env: { ...process.env, HOMELAB_CHART_CACHE: join(root, '.no-charts') } });
process.stdout.write(JSON.stringify(verdictOf(result)));
