#!/usr/bin/env -S npx tsx
/**
 * The gate CLI, modeled on kubeconform:
 *   npm run validate -- [--output text|json|junit|tap|github] [--summary] [paths... | -]
 * No path validates the whole repository (schema layer + policy layer).
 */
import { parseArgs } from 'node:util';
import { allFindings, parseKubernetesMinor, registeredChecks, runGate, UsageError } from '../policy-tests/gate/gate.ts';
import { OUTPUT_FORMATS, render, type OutputFormat } from '../policy-tests/gate/report/formats.ts';
import { LAYER_CHECKS } from '../policy-tests/schema/layer-checks.ts';

const HELP = `Usage: npm run validate -- [options] [file|folder|-]...

Validates Kubernetes manifests: the schema layer (like kubeconform, offline) and,
for this repository's own manifests, the policy layer (the spec's invariants).

Options:
  --output FORMAT              text (default), json, junit, tap or github
  --summary                    print a summary line
  --verbose                    also list valid and skipped resources
  --strict / --no-strict       reject unknown fields (default: strict)
  --kubernetes-version X.Y.Z   Kubernetes version to validate for (default: clusters/home facts)
  --skip KINDS                 comma-separated Kind or apiVersion/Kind to skip
  --reject KINDS               comma-separated Kind or apiVersion/Kind to reject
  --ignore-missing-schemas     skip kinds that have no schema instead of failing
  --list-checks                list every check id and exit
  -h, --help                   show this help`;

function fail(message: string): never {
  process.stderr.write(`validate: ${message}\n`);
  process.exit(1);
}

function kindList(value: string | undefined): string[] {
  return (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

async function listChecks(): Promise<void> {
  const rows = [
    ...LAYER_CHECKS.map((c) => `${c.id.padEnd(30)} ${c.layer.padEnd(8)} ${c.description}`),
    ...(await registeredChecks()).map((c) => `${c.id.padEnd(30)} ${'policy'.padEnd(8)} [${c.invariants.join(',')}] ${c.description}`),
  ];
  process.stdout.write(`${'ID'.padEnd(30)} ${'LAYER'.padEnd(8)} DESCRIPTION\n${rows.join('\n')}\n`);
}

async function main(argv: string[]): Promise<number> {
  // node:util parseArgs on Node 20 has no negated flags, so --no-strict is read here.
  const noStrict = argv.includes('--no-strict');
  const args = argv.filter((a) => a !== '--no-strict');
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        output: { type: 'string', short: 'o', default: 'text' },
        summary: { type: 'boolean', default: false },
        verbose: { type: 'boolean', short: 'v', default: false },
        strict: { type: 'boolean', default: true },
        'kubernetes-version': { type: 'string' },
        skip: { type: 'string' },
        reject: { type: 'string' },
        'ignore-missing-schemas': { type: 'boolean', default: false },
        'list-checks': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    fail(`${(err as Error).message.split('\n')[0]} (see --help)`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  if (values['list-checks']) {
    await listChecks();
    return 0;
  }
  if (!(OUTPUT_FORMATS as readonly string[]).includes(values.output!)) fail(`--output must be one of ${OUTPUT_FORMATS.join(', ')}, got "${values.output}"`);
  const progress = process.stderr.isTTY
    ? (phase: string, done: number, total: number) =>
        process.stderr.write(`\r\x1b[K${phase === 'parse' ? 'parsing manifests' : phase === 'policy' ? `policy checks on ${total} resources` : `schema ${done}/${total} resources`}`)
    : undefined;
  const result = await runGate({
    paths: positionals,
    strict: noStrict ? false : values.strict,
    kubernetesMinor: values['kubernetes-version'] ? parseKubernetesMinor(values['kubernetes-version']) : undefined,
    skip: kindList(values.skip),
    reject: kindList(values.reject),
    ignoreMissingSchemas: values['ignore-missing-schemas'],
    onProgress: progress,
  });
  if (progress) process.stderr.write('\r\x1b[K');
  const output = render(result, values.output as OutputFormat, { summary: values.summary!, verbose: values.verbose! });
  if (output) process.stdout.write(`${output}\n`);
  return result.summary.invalid + result.summary.errors > 0 || allFindings(result).length > 0 ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => fail(err instanceof UsageError ? err.message : (err as Error).stack ?? String(err)),
);
