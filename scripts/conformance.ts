/**
 * Measures the admission layer against Kubernetes' own test data, the gate's reading of a source against Argo CD's
 * repo-server tests, and the cluster facts' Talos tables against Talos' own source, read from upstream checkouts
 * given by path (nothing upstream is committed):
 *   npm run conformance -- --pod-security ../pod-security-admission --apiserver ../apiserver --apiextensions ../apiextensions-apiserver
 * and prints agreement per control and per library, then every disagreement.
 */

import { runCommand, UsageError, type CommandIo } from './lib/command.ts';
import { CHECKOUTS, HELP, type Checkout } from './conformance-help.ts';

const flags = (names: readonly string[]) =>
  `${names
    .slice(0, -1)
    .map((c) => `--${c}`)
    .join(', ')} or --${names.at(-1)!}`;
export function conformanceCommand(argv: string[], io?: CommandIo): Promise<number> {
  const print = io?.stdout ?? ((t: string) => void process.stdout.write(t));
  return runCommand(
    {
      name: 'conformance',
      usage: `conformance ${CHECKOUTS.map((c) => `[--${c} <${c === 'yaml-test-suite' ? 'data' : 'checkout'}>]`).join(' ')} [--kubernetes 1.NN] [--every-policy-version]`,
      help: HELP,
      options: {
        ...Object.fromEntries(CHECKOUTS.map((c) => [c, { type: 'string' as const }])),
        kubernetes: { type: 'string' },
        'every-policy-version': { type: 'boolean' },
      },
      positionals: { min: 0, max: 0 },
      async run({ values }) {
        const dir = (flag: Checkout) => values[flag] as string | undefined;
        if (!CHECKOUTS.some((c) => dir(c))) throw new UsageError(`give ${flags(CHECKOUTS)}: the upstream checkouts to measure against`);
        const version = values.kubernetes as string | undefined;
        if (version !== undefined && !/^1\.\d+$/.test(version)) throw new UsageError(`--kubernetes ${version}: expected 1.NN`);
        // The gate and the readers of upstream tests, loaded past the command's contract: --help and a usage error answer without them.
        const { measure } = await import('./conformance-reports.ts');
        return measure({ dir, version, everyPolicyVersion: values['every-policy-version'] === true }, print);
      },
    },
    argv,
    io,
  );
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) process.exitCode = await conformanceCommand(process.argv.slice(2));
