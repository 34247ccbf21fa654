/**
 * One cold gate run, in a process of its own: `node cold-gate.ts <root>` judges the tree at root as a fresh CLI run
 * would (nothing remembered by this process; the caller turns the warm-start stores off with
 * HOMELAB_GATE_STORES=off) and prints its verdict (verdict.ts) as JSON. The warm-against-cold test runs it.
 */
import { runGate } from '../../gate/gate.ts';
import { copyGateOptions } from './helpers.ts';
import { verdictOf } from './verdict.ts';

const root = process.argv[2];
if (!root) {
  process.stderr.write('usage: node cold-gate.ts <root>\n');
  process.exit(2);
}
// As the mutation runner judges a copy.
const result = await runGate(copyGateOptions(root));
process.stdout.write(JSON.stringify(verdictOf(result)));
