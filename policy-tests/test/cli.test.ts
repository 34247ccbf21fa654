/** The gate CLI, run as a user runs it: flags, formats, exit codes. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../model/repo.ts';
import { exec } from './exec.ts';

function validate(args: string[], input?: string) {
  return exec(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'scripts/validate.ts'), ...args], { cwd: REPO_ROOT, input });
}

const scratch = mkdtempSync(join(tmpdir(), 'gate-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const typoDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: outside
spec:
  selector: {matchLabels: {app: x}}
  template:
    metadata: {labels: {app: x}}
    spec:
      containers:
        - name: x
          image: nginx:latest
          securityContext:
            capabilites: {}
`;

describe('npm run validate', () => {
  it('exits 0 on the repository with a summary', async () => {
    const r = await validate(['--summary']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Summary: \d+ resources found - Valid: \d+, Invalid: 0, Errors: 0, Skipped: 0\n$/);
  });

  it('validates arbitrary files outside the repo with the schema layer only, like kubeconform', async () => {
    const file = join(scratch, 'deployment.yaml');
    writeFileSync(file, typoDeployment);
    const r = await validate([file, '--summary']);
    expect(r.code).toBe(1);
    // The typo fails; the :latest tag does not, because policy is this repo's business.
    expect(r.stdout).toContain(`FAIL - ${file}:14:13 - Deployment outside - [unknown-field]`);
    expect(r.stdout).not.toContain('workload-image-pinned');
    expect(r.stdout).toContain('(schema layer only)');
    writeFileSync(file, typoDeployment.replace('capabilites', 'capabilities'));
    expect((await validate([file])).code).toBe(0);
  });

  it('reads stdin with - and prints kubeconform-shaped json', async () => {
    const r = await validate(['-', '--output', 'json'], typoDeployment);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toEqual({
      resources: [{ filename: 'stdin', kind: 'Deployment', version: 'apps/v1', name: 'outside', status: 'statusInvalid', msg: expect.stringContaining('stdin:14:13 [unknown-field]') }],
      summary: { valid: 0, invalid: 1, errors: 0, skipped: 0 },
    });
  });

  it('prints junit, tap and github annotations', async () => {
    const junit = await validate(['-', '--output', 'junit'], typoDeployment);
    expect(junit.stdout).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites [^>]*tests="1" failures="1"/);
    expect(junit.stdout).toContain('<failure message=');
    const tap = await validate(['-', '--output', 'tap'], typoDeployment);
    expect(tap.stdout.split('\n').slice(0, 3)).toEqual(['TAP version 13', '1..1', 'not ok 1 - stdin - Deployment outside']);
    const github = await validate(['-', '--output', 'github'], typoDeployment);
    expect(github.stdout).toMatch(/^::error file=stdin,line=14,col=13,title=unknown-field::apps\/v1\/Deployment: unknown field/);
  });

  it('validates a folder recursively, and a repo folder with its policy', async () => {
    const r = await validate(['portfolio-api/deploy', '--output', 'json', '--verbose']);
    expect(r.code).toBe(0);
    const files = new Set(JSON.parse(r.stdout).resources.map((x: { filename: string }) => x.filename));
    expect([...files].every((f) => String(f).startsWith('portfolio-api/deploy/'))).toBe(true);
    expect(files.size).toBeGreaterThan(3);
  });

  it('refuses a missing file or a bad flag with one line and exit 1', async () => {
    const missing = await validate(['does-not-exist.yaml']);
    expect([missing.code, missing.stderr]).toEqual([1, 'validate: no such file or directory: does-not-exist.yaml\n']);
    const flag = await validate(['--frobnicate']);
    expect(flag.code).toBe(1);
    expect(flag.stderr.trim().split('\n')).toHaveLength(1);
    const format = await validate(['--output', 'xml']);
    expect([format.code, format.stderr]).toEqual([1, 'validate: --output must be one of text, json, junit, tap, github, got "xml"\n']);
    const version = await validate(['--kubernetes-version', '1.40.0']);
    expect([version.code, version.stderr]).toEqual([1, 'validate: no offline schemas for Kubernetes 1.40.0: the bundled schemas describe 1.36\n']);
  });

  it('honours --no-strict, --skip and --ignore-missing-schemas', async () => {
    expect((await validate(['-', '--no-strict'], typoDeployment.replace('latest', '1.27'))).code).toBe(0);
    expect((await validate(['-', '--skip', 'Deployment'], typoDeployment)).code).toBe(0);
    const widget = 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n';
    expect((await validate(['-'], widget)).code).toBe(1);
    expect((await validate(['-', '--ignore-missing-schemas', '--summary'], widget)).stdout).toContain('Skipped: 1');
  });

  it('lists every check id with its invariants', async () => {
    const r = await validate(['--list-checks']);
    expect(r.code).toBe(0);
    for (const id of ['unknown-field', 'missing-schema', 'argocd-root-discovery', 'workload-privilege', 'exemption-valid']) expect(r.stdout).toContain(id);
    expect(r.stdout).toMatch(/argocd-sync-policy\s+policy\s+\[P1\]/);
  });
});
