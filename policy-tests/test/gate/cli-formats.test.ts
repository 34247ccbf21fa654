/** The gate CLI, run as a user runs it: what it reads (standard input, folders), its formats, flags, exit codes and refusals. What it says of the repository's sources: cli.test.ts. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import AjvDraft04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../gate/cli.ts';
import { artifactUri } from '../../gate/report/formats/sarif.ts';
import { REPO_ROOT } from '../../model/repository/repo.ts';
import { exec, olderNode } from '../../../test-support/exec.ts';
import { typoDeployment, useGateCli } from '../support/gate-cli.ts';

// The published OASIS SARIF 2.1.0 schema (JSON Schema draft-04), as Microsoft's SARIF SDK ships it, with the
// formats it names (uri, uri-reference, date-time) checked rather than ignored.
const sarifSchema = createRequire(import.meta.url)('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json') as object;
const validSarif = addFormats.default(new AjvDraft04.default({ allErrors: true, strict: false, unicodeRegExp: false })).compile(sarifSchema);

/** The machine's own Node, when it is older than the gate runs on (test-support/exec.ts). */
const older = await olderNode();

const { scratch, validate, inProcess } = useGateCli();

describe('homelab-gate', () => {
  it('reads stdin with - and prints kubeconform-shaped json', async () => {
    const r = await validate(['-', '--output', 'json'], typoDeployment);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toEqual({
      resources: [
        {
          filename: 'stdin',
          kind: 'Deployment',
          version: 'apps/v1',
          name: 'outside',
          status: 'statusInvalid',
          msg: expect.stringContaining('stdin:14:13 schema [unknown-field]'),
          findings: [
            {
              check: 'unknown-field',
              layer: 'schema',
              file: 'stdin',
              line: 14,
              column: 13,
              message: expect.stringContaining('capabilites'),
              fix: expect.any(String),
            },
          ],
        },
      ],
      notRendered: [],
      warnings: [],
      notJudged: [],
      summary: { valid: 0, invalid: 1, errors: 0, skipped: 0, notRendered: 0, warnings: 0, notJudged: 0 },
    });
  });

  it('prints junit, tap and github annotations', async () => {
    const junit = await inProcess(['-', '--output', 'junit'], typoDeployment);
    expect(junit.stdout).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites [^>]*tests="1" failures="1"/);
    expect(junit.stdout).toContain('<failure message=');
    const tap = await inProcess(['-', '--output', 'tap'], typoDeployment);
    expect(tap.stdout.split('\n').slice(0, 3)).toEqual(['TAP version 13', '1..1', 'not ok 1 - stdin - Deployment outside']);
    const github = await inProcess(['-', '--output', 'github'], typoDeployment);
    expect(github.stdout).toMatch(/^::error file=stdin,line=14,col=13,title=unknown-field \(schema\)::apps\/v1\/Deployment: unknown field/);
  });

  it('validates a folder recursively, and a repo folder with its policy', async () => {
    const r = await inProcess(['portfolio-api/deploy', '--output', 'json', '--verbose']);
    expect(r.code).toBe(0);
    const files = new Set(JSON.parse(r.stdout).resources.map((x: { filename: string }) => x.filename));
    expect([...files].every((f) => String(f).startsWith('portfolio-api/deploy/'))).toBe(true);
    expect(files.size).toBeGreaterThan(3);
  });

  it('refuses a missing file or a bad flag with one line and exit 2', async () => {
    const missing = await validate(['does-not-exist.yaml']);
    expect([missing.code, missing.stderr]).toEqual([2, 'homelab-gate: no such file or directory: does-not-exist.yaml\n']);
    const flag = await validate(['--frobnicate']);
    expect(flag.code).toBe(2);
    expect(flag.stderr.trim().split('\n')).toHaveLength(1);
    const format = await inProcess(['--output', 'xml']);
    expect([format.code, format.stderr]).toEqual([2, 'homelab-gate: --output must be one of text, json, junit, tap, github, sarif, got "xml"\n']);
    const version = await inProcess(['--kubernetes-version', '1.40.0']);
    expect([version.code, version.stderr]).toEqual([2, 'homelab-gate: no offline schemas for Kubernetes 1.40.0: the bundled schemas describe 1.36\n']);
    const twice = await inProcess(['-o', 'json', '-o', 'tap']);
    expect([twice.code, twice.stderr]).toEqual([2, 'homelab-gate: at most one --output may go to stdout; give the others a file (FORMAT=FILE)\n']);
  });

  it('prints its version and help, and exits 0', async () => {
    expect(await validate(['--version'])).toEqual({ code: 0, stdout: `homelab-gate ${VERSION}\n`, stderr: '' });
    expect(await inProcess(['-v'])).toEqual({ code: 0, stdout: `homelab-gate ${VERSION}\n`, stderr: '' });
    const help = await inProcess(['--help']);
    expect([help.code, help.stdout]).toEqual([0, expect.stringMatching(/^Usage: homelab-gate \[options\]/)]);
  });

  it.skipIf(!older)('on a Node older than 24 says so in one line and exits 1, with no stack trace', async () => {
    const bin = join(REPO_ROOT, 'policy-tests/bin/homelab-gate.mjs');
    expect(await exec(older!.path, [bin, '--version'], { cwd: REPO_ROOT })).toEqual({
      code: 1,
      stdout: '',
      stderr: `homelab-gate: needs Node 24 or later (.node-version); this is Node ${older!.version}: run \`. scripts/use-node.sh\` to put Node 24 on PATH\n`,
    });
  });

  it('prints SARIF 2.1.0 that the published schema accepts, with rule metadata from the registry', async () => {
    const r = await inProcess(['-', '--output', 'sarif'], typoDeployment);
    expect(r.code).toBe(1);
    const log = JSON.parse(r.stdout);
    expect(validSarif(log) ? [] : validSarif.errors).toEqual([]);
    expect(log.version).toBe('2.1.0');
    const run = log.runs[0];
    expect(run.tool.driver).toMatchObject({ name: 'homelab-gate', version: VERSION });
    expect(run.tool.driver.rules.find((x: { id: string }) => x.id === 'argocd-sync-policy')).toMatchObject({
      help: { text: expect.any(String) },
      properties: { tags: ['policy', 'P1'] },
    });
    expect(run.results).toEqual([
      expect.objectContaining({
        ruleId: 'unknown-field',
        level: 'error',
        locations: [
          {
            physicalLocation: {
              artifactLocation: expect.objectContaining({ uri: 'stdin' }),
              region: expect.objectContaining({ startLine: 14, startColumn: 13 }),
            },
          },
        ],
      }),
    ]);
  });

  it('refuses a --skip or --reject kind nothing knows, with the nearest name, and accepts a real one', async () => {
    expect(await inProcess(['--skip', 'Deploymnet'])).toMatchObject({
      code: 2,
      stderr: 'homelab-gate: --skip Deploymnet: no schema or resource has that kind (did you mean "Deployment"?)\n',
    });
    expect((await inProcess(['--reject', 'apps/v1/Deployment,ExternalSecret'])).stderr).toBe('');
  });

  it('tells one story in every format: SARIF, JUnit and TAP count the warnings, the gaps and the unrendered sources as the summary does', async () => {
    const text = (await inProcess([])).stdout.trimEnd().split('\n').at(-1)!;
    const count = (label: string) => Number(new RegExp(`${label}: (\\d+)`).exec(text)?.[1] ?? 0);
    const [warnings, notJudged, notRendered] = [count('Warnings'), count('Not judged'), count('Not rendered')];
    expect([warnings, notRendered]).not.toContain(0);
    const log = JSON.parse((await inProcess(['-o', 'sarif'])).stdout);
    expect(validSarif(log) ? [] : validSarif.errors).toEqual([]);
    const results = log.runs[0].results as { level: string; locations: { physicalLocation: { region: Record<string, number> } }[] }[];
    expect(results.filter((r) => r.level === 'warning')).toHaveLength(warnings);
    expect(results.filter((r) => r.level === 'note')).toHaveLength(notJudged + notRendered);
    // A region is a point at the finding: it never ends before it starts.
    for (const r of results) expect(Object.keys(r.locations[0]!.physicalLocation.region).sort()).toEqual(['startColumn', 'startLine']);
    const junit = (await inProcess(['-o', 'junit'])).stdout;
    expect(junit).toContain(`<testsuite name="warnings" tests="${warnings}"`);
    expect(junit).toContain(`<testsuite name="not rendered" tests="${notRendered}" failures="0" errors="0" skipped="${notRendered}">`);
    const tap = (await inProcess(['-o', 'tap'])).stdout.split('\n');
    expect(tap.filter((l) => l.includes('# SKIP not rendered:'))).toHaveLength(notRendered);
    expect(tap.filter((l) => / warning: /.test(l))).toHaveLength(warnings);
  });

  it('gives SARIF readers a file whose name has a space, a # or a ? as a URI that names that file', async () => {
    const file = join(scratch, 'odd names/deploy #1?.yaml');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, typoDeployment);
    const log = JSON.parse((await inProcess([file, '--output', 'sarif'])).stdout);
    expect(validSarif(log) ? [] : validSarif.errors).toEqual([]);
    const uri: string = log.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri;
    expect(uri).toBe(pathToFileURL(file).href);
    expect(fileURLToPath(uri)).toBe(file);
    // A repository path stays relative, each segment encoded.
    expect(artifactUri('apps/my app/values #2?.yaml')).toBe('apps/my%20app/values%20%232%3F.yaml');
  });

  it('writes one report per -o FORMAT=FILE, and text to stdout when none goes there', async () => {
    const junit = join(scratch, 'reports/gate.xml');
    const sarif = join(scratch, 'reports/gate.sarif');
    const r = await inProcess(['-', '-o', `junit=${junit}`, '-o', `sarif=${sarif}`], typoDeployment);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('FAIL - stdin:14:13');
    expect(readFileSync(junit, 'utf8')).toContain('<failure message=');
    expect(JSON.parse(readFileSync(sarif, 'utf8')).runs[0].results).toHaveLength(1);
    expect(existsSync(`${junit}.tmp`)).toBe(false);
  });

  it('colours text in a terminal, and not with NO_COLOR or into a pipe', async () => {
    const args = ['portfolio-api/deploy', '--verbose'];
    expect((await inProcess(args, undefined, { env: {}, tty: true })).stdout).toContain('\x1b[32mPASS\x1b[39m');
    expect((await inProcess(args, undefined, { env: { NO_COLOR: '1' }, tty: true })).stdout).not.toContain('\x1b[');
    expect((await inProcess(args, undefined, { env: {}, tty: false })).stdout).not.toContain('\x1b[');
  });

  it('honours --no-strict, --skip and --ignore-missing-schemas', async () => {
    expect((await inProcess(['-', '--no-strict'], typoDeployment.replace('latest', '1.27'))).code).toBe(0);
    expect((await inProcess(['-', '--skip', 'Deployment'], typoDeployment)).code).toBe(0);
    const widget = 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n';
    expect((await inProcess(['-'], widget)).code).toBe(1);
    expect((await inProcess(['-', '--ignore-missing-schemas', '--summary'], widget)).stdout).toContain('Skipped: 1');
  });

  it('lists every check id with its invariants', async () => {
    const r = await inProcess(['--list-checks']);
    expect(r.code).toBe(0);
    for (const id of ['unknown-field', 'missing-schema', 'argocd-root-discovery', 'workload-privilege', 'exemption-valid']) expect(r.stdout).toContain(id);
    expect(r.stdout).toMatch(/argocd-sync-policy\s+policy\s+\[P1\]/);
  });
});
