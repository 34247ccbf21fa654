/**
 * One side of npm run diff, alone: renders every Application of the tree at
 * the given root (default: this repository) and exits. bench/diff.bench.ts
 * times it in a fresh process, as a person or CI would run it.
 */
import { REPO_ROOT, snapshot } from '../policy-tests/index.ts';

try {
  const { objects } = await snapshot(process.argv[2] ?? REPO_ROOT);
  process.stdout.write(`${objects.size}\n`);
} catch (err) {
  process.stderr.write(`render-one: ${(err as Error).message.split('\n')[0]}\n`);
  process.exitCode = 1;
}
