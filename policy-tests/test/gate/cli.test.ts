/** The gate CLI, run as a user runs it, on the repository: what it says of the sources it cannot render, and of files outside it. Its formats, flags and refusals: cli-formats.test.ts. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { typoDeployment, useGateCli } from '../support/gate-cli.ts';

const { scratch, validate, inProcess } = useGateCli();

describe('homelab-gate', () => {
  it('exits 0 on the repository offline: one not-rendered line with the count and the fix, then the summary', async () => {
    const r = await validate(['--summary']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(
      /^Summary: \d+ resources found - Valid: \d+, Invalid: 0, Errors: 0, Skipped: 0, Not rendered: 20, Warnings: \d+, Not judged: 19, CEL rules compiled: (\d+)\/\1, Pod Security: 5 namespaces \(2 restricted, 2 baseline, 1 privileged; 1 exempt\)$/,
    );
    expect(lines.filter((l) => l.startsWith('NOT RENDERED - '))).toEqual([
      'NOT RENDERED - 20 sources not rendered, so not judged (argocd, cert-manager, cilium, external-secrets, and 16 more); 19 of them are charts not in the cache: npm run charts:pull; --verbose lists each with its cause',
    ]);
    expect(lines).toContainEqual(expect.stringMatching(/^WARN - \d+ warnings: the cluster or Argo CD takes them, with a caveat said; --verbose lists them$/));
    expect(lines).toContainEqual('NOT JUDGED - 19 things the gate cannot judge, never counted as passing; --verbose lists them');
  });

  it('--verbose lists every unrendered source with its cause', async () => {
    const r = await validate(['--verbose']);
    const lines = r.stdout
      .trimEnd()
      .split('\n')
      .filter((l) => l.startsWith('NOT RENDERED - '));
    expect(lines).toHaveLength(20);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^NOT RENDERED - security\/falco\/application\.yaml:\d+:\d+ - Application falco - chart falco \d+\.\d+\.\d+ from \S+: not in the chart cache: run npm run charts:pull$/,
      ),
    );
    // Argo CD's own install manifest is a remote base: offline, not rendered, and it says why.
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^NOT RENDERED - apps\/platform\/argocd\/application\.yaml:\d+:\d+ - Application argocd - kustomize apps\/platform\/argocd: the remote base https:\/\/raw\.githubusercontent\.com\/argoproj\/argo-cd\/v3\.5\.1\/manifests\/install\.yaml cannot be fetched from here \(.+\)$/,
      ),
    );
  });

  it('given paths, speaks only of the unrendered sources that concern them', async () => {
    const media = await validate(['apps/media/sonarr']);
    expect(media.stdout).not.toContain('NOT RENDERED');
    expect(media.stdout.trimEnd().split('\n').at(-1)).toMatch(/^Summary: .* Skipped: 0, CEL rules compiled/);
    const falco = await validate(['security/falco/application.yaml']);
    expect(falco.stdout).toMatch(/^NOT RENDERED - 1 source not rendered, so not judged \(falco\); 1 of them are charts not in the cache/m);
  });

  it('fails with --require-rendered when a chart is not in the cache, at each chart source', async () => {
    const r = await validate(['--require-rendered', '-o', 'json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as { summary: { notRendered: number }; resources: { findings: { check: string; file: string }[] }[] };
    expect(report.summary.notRendered).toBe(20);
    const findings = report.resources.flatMap((x) => x.findings);
    expect(findings.map((f) => f.check)).toEqual(Array(20).fill('not-rendered'));
    expect(findings.map((f) => f.file)).toContain('security/falco/application.yaml');
  });

  it('validates arbitrary files outside the repo with the schema layer only, like kubeconform', async () => {
    const file = join(scratch, 'deployment.yaml');
    writeFileSync(file, typoDeployment);
    const r = await inProcess([file, '--summary']);
    expect(r.code).toBe(1);
    // The typo fails; the :latest tag does not, because policy is this repo's business.
    expect(r.stdout).toContain(`FAIL - ${file}:14:13 - Deployment outside - schema [unknown-field]`);
    expect(r.stdout).not.toContain('workload-image-pinned');
    expect(r.stdout).toContain('(schema layer only)');
    writeFileSync(file, typoDeployment.replace('capabilites', 'capabilities'));
    expect((await inProcess([file])).code).toBe(0);
  });

  it('--no-render checks the files alone: exit 0 on the repository, every source that needs a tool listed as not rendered', async () => {
    const r = await inProcess(['--no-render', '--summary']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/^Summary: \d+ resources found - Valid: \d+, Invalid: 0, Errors: 0, Skipped: 0, Not rendered: \d+ \(schema layer only\)$/);
    expect(lines.filter((l) => l.startsWith('NOT RENDERED - '))).toEqual([expect.stringMatching(/^NOT RENDERED - \d+ sources not rendered, so not judged \(/)]);
    const verbose = (await inProcess(['--no-render', '--verbose'])).stdout.split('\n');
    expect(verbose).toContainEqual(
      expect.stringMatching(
        /^NOT RENDERED - apps\/media\/sonarr\/application\.yaml:\d+:\d+ - Application media-sonarr - kustomize apps\/media\/sonarr: not rendered: --no-render runs neither Helm, kustomize nor jsonnet/,
      ),
    );
    expect(verbose).toContainEqual(expect.stringMatching(/^NOT RENDERED - security\/falco\/application\.yaml:\d+:\d+ - Application falco - chart falco /));
    expect(lines.filter((l) => l.startsWith('FAIL'))).toEqual([]);
  });
});
