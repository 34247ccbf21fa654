/**
 * The gate's command line, modeled on kubeconform and conftest:
 *   homelab-gate [options] [file|folder|-]...
 * No path validates the whole repository (schema layer + policy layer).
 * Exit status: 0 clean, 1 findings or a runtime failure, 2 a usage error.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pkg from '../../package.json' with { type: 'json' };
import { LAYER_CHECKS } from '../schema/layer-checks.ts';
import { allFindings, registeredChecks, runGate, UsageError, type KubernetesVersion } from './gate.ts';
import { parseKubernetesVersion } from '../model/repository/cluster-facts.ts';
import { layerOf } from './result.ts';
import { BUNDLED_SCHEMA_MINOR } from '../schema/schema-layer.ts';
import { OUTPUT_FORMATS, render, type OutputFormat } from './report/formats/index.ts';
import type { RuleInfo } from './report/formats/common.ts';

export const NAME = 'homelab-gate';
export const VERSION: string = pkg.version;
const HOMEPAGE = 'https://github.com/homelab-gitops/homelab-gitops';

const HELP = `Usage: ${NAME} [options] [file|folder|-]...

Validates Kubernetes manifests: the schema layer (like kubeconform, offline) and,
for this repository's own manifests, the policy layer (the invariants in
docs/invariants.md). No path validates the whole repository.

Options:
  -o, --output FORMAT[=FILE]   text (default), json, junit, tap, github or sarif;
                               repeat it, one format per file (-o junit=reports/gate.xml);
                               at most one format goes to stdout
  --summary                    print a summary line
  --verbose                    also list valid and skipped resources
  --strict / --no-strict       reject unknown fields (default: strict)
  --kubernetes-version X.Y.Z   Kubernetes version to validate for (default: clusters/home facts)
  --skip KINDS                 comma-separated Kind or apiVersion/Kind to skip
  --reject KINDS               comma-separated Kind or apiVersion/Kind to reject
  --ignore-missing-schemas     skip kinds that have no schema instead of failing
  --require-rendered           fail when a source cannot be rendered offline
                               (a chart not in the cache; npm run charts:pull fetches them)
  --no-render                  check files only: no Helm, kustomize or jsonnet (the summary says so)
  --list-checks                list every check id and exit
  -v, --version                print the version and exit
  -h, --help                   show this help

Colour: on in a terminal; NO_COLOR turns it off.
Environment: HOMELAB_CACHE_DIR (the caches: render tools, charts, renders, stores;
default ~/.cache/homelab-gitops), HOMELAB_CHART_CACHE (the chart cache alone),
HOMELAB_GATE_STORES=off (no warm-start stores, nor the verdict a run on the
same inputs kept: all judged afresh), HELM_BIN and KUSTOMIZE_BIN (your
own Helm 4 and kustomize), HTTPS_PROXY, HTTP_PROXY, NO_PROXY, SSL_CERT_FILE (to
fetch a pinned remote base), NO_COLOR.

Exit status: 0 no finding, 1 findings or a failure, 2 a usage error.`;

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  /** Whether stdout and stderr are terminals (colour and progress). */
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  cwd: string;
  /** What `-` reads; standard input (file descriptor 0) when not given. */
  stdin?: () => string;
}

interface Destination {
  format: OutputFormat;
  file?: string;
}

/** Reads the -o values: `FORMAT` goes to stdout, `FORMAT=FILE` to that file. */
export function destinations(values: readonly string[]): Destination[] {
  const out: Destination[] = [];
  for (const value of values) {
    const [format, file] = value.includes('=') ? [value.slice(0, value.indexOf('=')), value.slice(value.indexOf('=') + 1)] : [value, undefined];
    if (!(OUTPUT_FORMATS as readonly string[]).includes(format)) throw new UsageError(`--output must be one of ${OUTPUT_FORMATS.join(', ')}, got "${format}"`);
    if (file === '') throw new UsageError(`--output ${format}= needs a file name`);
    out.push({ format: format as OutputFormat, file });
  }
  if (out.filter((d) => !d.file).length > 1) throw new UsageError('at most one --output may go to stdout; give the others a file (FORMAT=FILE)');
  if (!out.some((d) => !d.file)) out.unshift({ format: 'text' });
  return out;
}

/** Reads --kubernetes-version (x.y.z, or x.y for x.y.0) as x.y.z; only versions the bundled schemas can speak for are accepted. */
export function parseKubernetesFlag(text: string): KubernetesVersion {
  const parsed = parseKubernetesVersion(text, { patchRequired: false });
  if (!parsed) throw new UsageError(`--kubernetes-version must look like 1.${BUNDLED_SCHEMA_MINOR}.0, got "${text}"`);
  if (parsed.major !== 1 || parsed.minor > BUNDLED_SCHEMA_MINOR)
    throw new UsageError(`no offline schemas for Kubernetes ${text}: the bundled schemas describe 1.${BUNDLED_SCHEMA_MINOR}`);
  return parsed;
}

function kindList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

async function rules(): Promise<RuleInfo[]> {
  return [
    ...LAYER_CHECKS.map((c) => ({ id: c.id, description: c.description, layer: c.layer })),
    ...(await registeredChecks()).map((c) => ({
      id: c.id,
      description: c.description,
      remediation: c.remediation,
      invariants: c.invariants,
      layer: layerOf(c.id),
    })),
  ];
}

async function listChecks(): Promise<string> {
  const rows = (await rules()).map((c) => `${c.id.padEnd(30)} ${c.layer.padEnd(8)} ${c.invariants ? `[${c.invariants.join(',')}] ` : ''}${c.description}`);
  return `${'ID'.padEnd(30)} ${'LAYER'.padEnd(8)} DESCRIPTION\n${rows.join('\n')}\n`;
}

/** Writes a report next to nothing half-written: a temporary file, then a rename. */
function writeReport(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${text}\n`);
  renameSync(tmp, path);
}

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      allowNegative: true,
      options: {
        output: { type: 'string', short: 'o', multiple: true, default: [] },
        summary: { type: 'boolean', default: false },
        verbose: { type: 'boolean', default: false },
        strict: { type: 'boolean', default: true },
        'kubernetes-version': { type: 'string' },
        skip: { type: 'string' },
        reject: { type: 'string' },
        'ignore-missing-schemas': { type: 'boolean', default: false },
        'require-rendered': { type: 'boolean', default: false },
        render: { type: 'boolean', default: true },
        'list-checks': { type: 'boolean', default: false },
        version: { type: 'boolean', short: 'v', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    throw new UsageError(`${(err as Error).message.split('\n')[0]} (see --help)`);
  }
}

async function run(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(argv);
  if (values.help) {
    io.stdout(`${HELP}\n`);
    return 0;
  }
  if (values.version) {
    io.stdout(`${NAME} ${VERSION}\n`);
    return 0;
  }
  if (values['list-checks']) {
    io.stdout(await listChecks());
    return 0;
  }
  const outputs = destinations(values.output);
  const progress = io.stderrIsTTY
    ? (phase: string, done: number, total: number) =>
        io.stderr(
          `\r\x1b[K${phase === 'parse' ? 'parsing manifests' : phase === 'schema' ? `schema ${done}/${total} resources` : `${phase} checks on ${total} resources`}`,
        )
    : undefined;
  const result = await runGate({
    paths: positionals,
    cwd: io.cwd,
    strict: values.strict,
    // Every layer judges at the version asked for (1.35 is 1.35.0): Helm, the schema layer, Pod Security, built-in validation.
    kubernetesVersion: values['kubernetes-version'] === undefined ? undefined : parseKubernetesFlag(values['kubernetes-version']),
    skip: kindList(values.skip),
    reject: kindList(values.reject),
    ignoreMissingSchemas: values['ignore-missing-schemas'],
    render: values.render,
    requireRendered: values['require-rendered'],
    env: io.env,
    stdin: io.stdin,
    onProgress: progress,
  });
  if (progress) io.stderr('\r\x1b[K');
  const needsRules = outputs.some((d) => d.format === 'sarif');
  const common = {
    summary: values.summary,
    verbose: values.verbose,
    rules: needsRules ? await rules() : undefined,
    tool: { name: NAME, version: VERSION, uri: HOMEPAGE },
  };
  for (const { format, file } of outputs) {
    const color = !file && format === 'text' && io.stdoutIsTTY && !io.env.NO_COLOR;
    const text = render(result, format, { ...common, color });
    if (file) writeReport(resolve(io.cwd, file), text);
    else if (text) io.stdout(`${text}\n`);
  }
  return result.summary.invalid + result.summary.errors > 0 || allFindings(result).length > 0 ? 1 : 0;
}

/** Runs the CLI; every failure becomes one line on stderr, never a stack trace. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  try {
    return await run(argv, io);
  } catch (err) {
    const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
    io.stderr(`${NAME}: ${message}\n`);
    return err instanceof UsageError ? 2 : 1;
  }
}
