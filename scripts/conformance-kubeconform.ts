/**
 * The conformance command's kubeconform part: the gate's command line held to kubeconform's acceptance tests
 * (acceptance.bats over its fixtures/), each test run as the real gate (policy-tests/bin/homelab-gate.mjs) in the
 * checkout, a fixture piped to it where the test pipes one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { conformance, REPO_ROOT } from '../policy-tests/index.ts';
import { readText, report } from './lib/agreement-report.ts';
import { runToEnd } from './lib/exec.ts';

/** A hang guard per test, far above a run's second: a fixture of 100,000 resources takes a while. */
const TEST_TIMEOUT_MS = 10 * 60 * 1000;
const GATE = join(REPO_ROOT, 'policy-tests/bin/homelab-gate.mjs');

export async function reportKubeconform(checkout: string, print: (t: string) => void): Promise<void> {
  const bats = join(checkout, 'acceptance.bats');
  if (!existsSync(bats)) {
    print("kubeconform's acceptance tests: acceptance.bats is not in this checkout\n");
    return;
  }
  const table = conformance.kubeconformCases(readText(bats));
  const a = await conformance.kubeconformAgreement(table.cases, async (c) => {
    // A fixture the snapshot keeps out (its largest files) is not read, never run as an empty input.
    const missing = [...c.args, ...(c.stdin ? [c.stdin] : [])].find((w) => w.startsWith('fixtures/') && !existsSync(join(checkout, w)));
    if (missing) return { missing: `${missing} is not in this checkout` };
    const input = c.stdin ? readFileSync(join(checkout, c.stdin), 'utf8') : undefined;
    const done = await runToEnd(process.execPath, [GATE, ...c.args], {
      cwd: checkout,
      input,
      timeoutMs: TEST_TIMEOUT_MS,
      env: { ...process.env, NO_COLOR: '1' },
    });
    return { status: done.exitCode, output: `${done.stdout}${done.stderr}` };
  });
  report("kubeconform's acceptance tests (acceptance.bats), run as the gate's command line", a, print);
  for (const d of table.declined) print(`  DECLINED ${d.test}: ${d.why}\n`);
}
