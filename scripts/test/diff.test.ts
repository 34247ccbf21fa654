/**
 * npm run diff on fixture git repositories built here: what it shows of a change. A pure reformat is no change, a
 * field is a path with its old and new value, a text of several lines the lines that changed, an Application that
 * does not render is not judged, and the Markdown is cut at its cap and says so. What it flags for a person to
 * review: diff-risks.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BASE, DEMO_APP, diff, flagsAfter, git, repoWith } from './diff-repo.ts';
import { compare, risks, type Snapshot } from '../diff/changes.ts';
import { RISK_FLAGGED } from '../diff/command.ts';
import { markdown } from '../diff/report.ts';
import { textHunks } from '../diff/text-diff.ts';

describe('npm run diff', () => {
  it('sees nothing in a pure reformat: key order, comments, flow style', async () => {
    const reformatted = BASE.replace('    matchLabels: {app: web}', '    # same selector\n    matchLabels:\n      app: web').replace(
      '  name: data\n  namespace: demo',
      '  namespace: demo\n  name: data',
    );
    const r = await flagsAfter(() => reformatted);
    expect(r.code).toBe(0);
    expect(r.report).toEqual({ plan: [], risks: [], notJudged: [], heldBack: [], chartBumps: [], changes: [] });
  });

  it('lists no field for a new checksum in a pod template, but says the pods are replaced and counts the update', async () => {
    const r = await flagsAfter((t) => t.replace('checksum/config: aaa', 'checksum/config: bbb'));
    expect(r.code).toBe(0);
    expect(r.report!.changes).toEqual([]);
    expect(r.report!.risks).toEqual([
      expect.objectContaining({
        flag: 'rollout',
        level: 'note',
        reason:
          'Deployment demo/web replaces its pods, as its pod template changes (annotation checksum/config): a rolling update of its pods (maxSurge 25%, maxUnavailable 25%)',
      }),
    ]);
    expect((r.report as unknown as { plan: unknown[] }).plan).toEqual([{ app: 'demo', create: 0, update: 1, delete: 0, replace: 0, refuse: 0, left: 0 }]);
  });

  it.each([
    [
      'delete',
      'a PVC deleted under prune',
      (t: string) => t.replace(/---\napiVersion: v1\nkind: PersistentVolumeClaim[\s\S]*?(?=---)/, ''),
      /PersistentVolumeClaim demo\/data is deleted: app demo prunes, so Argo CD removes it; its volume and data go too if its class ceph-block \(not in the repository\) reclaims by Delete, the default/,
    ],
    [
      'version',
      'an image moved a major',
      (t: string) => t.replace('web:1.4.0', 'web:2.0.0'),
      /container web: ghcr\.io\/example\/web:1\.4\.0 -> ghcr\.io\/example\/web:2\.0\.0 \(a major version\)/,
    ],
    [
      'secret-target',
      'an ExternalSecret writing another Secret',
      (t: string) => t.replace('target: {name: web-secret}', 'target: {name: web-token}'),
      /ExternalSecret demo\/web-secret writes something else: spec\.target\.name/,
    ],
    [
      'crd-version',
      'a CRD version removed',
      (t: string) => t.replace('    - {name: v1beta1, served: true, storage: false}\n', ''),
      /CustomResourceDefinition widgets\.example\.com: version v1beta1 removed/,
    ],
  ])('flags %s: %s', async (flag, _why, change, reason) => {
    const r = await flagsAfter(change);
    expect(r.code, r.stderr).toBe(RISK_FLAGGED);
    // A new image also replaces the pods: a rollout note, beside the flag under test.
    const flagged = r.report!.risks.filter((x) => x.flag !== 'rollout');
    expect(flagged.map((x) => x.flag)).toEqual([flag]);
    expect(flagged[0]!.reason).toMatch(reason);
  });

  it('sees a custom resource moved to another API version as one object updated, as Argo CD keys it (group, kind, namespace, name), not a delete and a create', async () => {
    const r = await flagsAfter((t) => t.replace('apiVersion: external-secrets.io/v1\n', 'apiVersion: external-secrets.io/v1beta1\n'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.report!.risks).toEqual([]);
    expect(r.report!.changes).toEqual([
      expect.objectContaining({
        kind: 'external-secrets.io/v1beta1/ExternalSecret',
        change: 'changed',
        fields: [{ path: 'apiVersion', from: 'external-secrets.io/v1', to: 'external-secrets.io/v1beta1' }],
      }),
    ]);
  });

  it('reports a changed field as a path with its old and new value, and diffs two refs', async () => {
    const repo = await repoWith(BASE);
    repo.write('apps/demo/objects.yaml', BASE.replace('web:1.4.0', 'web:1.4.1'));
    await git(repo.root, 'commit', '-q', '-am', 'patch');
    const r = await diff(repo, ['HEAD~1', 'HEAD']);
    // A patch is news: a note, and nothing to review.
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('    spec.template.spec.containers[web].image: "ghcr.io/example/web:1.4.0" -> "ghcr.io/example/web:1.4.1"');
    expect(r.stdout).toMatch(
      /^NOTES \(2\)\n {2}\[rollout\] demo: Deployment demo\/web replaces its pods.*\n {2}\[version\] demo: Deployment demo\/web: container web: .*1\.4\.1$/m,
    );
    // One run writes the comment and the full report in every format, the JSON the same as -o json's.
    const dir = join(repo.root, 'report');
    const md = await diff(repo, ['HEAD~1', 'HEAD', '-o', 'markdown', '--full-report', dir]);
    expect(md.stdout).toMatch(/^## Rendered diff/);
    expect(readFileSync(join(dir, 'rendered-diff.md'), 'utf8')).toBe(md.stdout);
    expect(readFileSync(join(dir, 'rendered-diff.html'), 'utf8')).toContain('<h2>Rendered diff</h2>');
    expect(readFileSync(join(dir, 'rendered-diff.json'), 'utf8')).toBe((await diff(repo, ['HEAD~1', 'HEAD', '-o', 'json'])).stdout);
  });

  it('shows a changed text of several lines as the lines that changed, in their context, as git diff shows a file', async () => {
    const config = (level: string) =>
      `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\n  namespace: demo\ndata:\n  app.yaml: |\n${['server:', '  port: 8080', '  timeout: 30s', '  workers: 4', `  log_level: ${level}`, 'storage:', '  path: /data', '  retention: 7d', '  compact: true', 'tracing: {enabled: false}'].map((l) => `    ${l}`).join('\n')}\n`;
    const repo = await repoWith(BASE + config('info'));
    repo.write('apps/demo/objects.yaml', BASE + config('debug'));
    const r = await diff(repo, ['HEAD', '-o', 'markdown']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      [
        '~ v1/ConfigMap demo/conf',
        '    data.app.yaml: (text, the lines that changed)',
        '       @@ -2,7 +2,7 @@',
        '         port: 8080',
        '         timeout: 30s',
        '         workers: 4',
        '-        log_level: info',
        '+        log_level: debug',
        '       storage:',
        '         path: /data',
        '         retention: 7d',
        '```',
      ].join('\n'),
    );
    // The JSON keeps both values whole, for tools.
    const json = JSON.parse((await diff(repo, ['HEAD', '-o', 'json'])).stdout) as { changes: { fields: { from: string; to: string }[] }[] };
    expect(json.changes[0]!.fields[0]).toEqual({
      path: 'data.app.yaml',
      from: expect.stringContaining('log_level: info\n'),
      to: expect.stringContaining('log_level: debug\n'),
    });
    // Texts too far apart to diff within the bound are shown whole, as any other value.
    const many = (n: number) => Array.from({ length: 3_000 }, (_, i) => `line ${i * n}`).join('\n');
    expect(textHunks(many(1), many(7), '  ')).toBeUndefined();
  });

  it('lists an Application that does not render as not judged, exits 1 only when its inputs changed, and still reports the rest', async () => {
    const repo = await repoWith(BASE);
    repo.write('apps/other/application.yaml', DEMO_APP.replace(/demo/g, 'other'));
    repo.write('apps/other/objects.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: other\ndata: {a: "1"}\n');
    repo.write('apps/demo/kustomization.yaml', 'resources: [missing.yaml]\n');
    // A kustomize source: a directory block would make Argo CD walk the folder as plain files, kustomization and all.
    repo.write('apps/demo/application.yaml', DEMO_APP.replace('\n    directory:\n      exclude: application.yaml', ''));
    await git(repo.root, 'add', '-A');
    await git(repo.root, 'commit', '-q', '-m', 'demo cannot render on either side');
    // Unchanged inputs on both sides: reported, and not a failure; the other app's change is reported.
    repo.write('apps/other/objects.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: other\ndata: {a: "2"}\n');
    let r = await diff(repo, ['HEAD']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/NOT JUDGED \(1\)\n  demo: base: kustomize apps\/demo: .*missing\.yaml.*head: .* \(its inputs are unchanged\)/);
    expect(r.stdout).toContain('    data.a: "1" -> "2"');
    // The broken app's inputs change: this diff cannot vouch for it, so it fails, and still reports the rest.
    repo.write('apps/demo/objects.yaml', BASE.replace('web:1.4.0', 'web:9.9.9'));
    r = await diff(repo, ['HEAD']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/demo: .*\(its inputs changed: this diff cannot vouch for it\)/);
    expect(r.stdout).toContain('    data.a: "1" -> "2"');
    // An input beyond the app's folder, here a component its kustomization names, counts the same.
    await git(repo.root, 'checkout', '-q', '--', '.');
    repo.write('apps/demo/kustomization.yaml', 'resources: [missing.yaml]\ncomponents: [../../lib/common]\n');
    repo.write('lib/common/kustomization.yaml', 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncommonLabels: {team: a}\n');
    await git(repo.root, 'add', '-A');
    await git(repo.root, 'commit', '-q', '-m', 'demo builds a component from lib/');
    repo.write('lib/common/kustomization.yaml', 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncommonLabels: {team: b}\n');
    r = await diff(repo, ['HEAD']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout, r.stderr).toMatch(/demo: .*\(its inputs changed: this diff cannot vouch for it\)/);
    const noRef = await diff(repo, ['no-such-branch']);
    expect(noRef.code).toBe(2);
    expect(noRef.stderr).toMatch(/^diff: no such ref "no-such-branch"/);
  });
});

describe('the report', () => {
  it('past its cap keeps the plan and every risk, folds the changes into the full report, and links it', () => {
    const objects = (n: number, image: string) =>
      new Map(
        Array.from({ length: n }, (_, i) => [
          `app-${i}|apps/Deployment|ns|web-${i}`,
          { app: `app-${i}`, prune: true, object: { kind: 'Deployment', spec: { template: { spec: { containers: [{ name: 'web', image }] } } } } },
        ]),
      );
    const [base, head] = [{ objects: objects(400, 'web:1.0.0') }, { objects: objects(400, 'web:2.0.0') }] as [Snapshot, Snapshot];
    const changes = compare(base, head);
    const flagged = risks(changes, base, head);
    const md = markdown({ changes, risks: flagged }, 80_000, 'https://github.com/o/r/actions/runs/1');
    expect(md.length).toBeLessThanOrEqual(80_000);
    expect(md).toMatch(
      /^## Rendered diff\n\n\*\*Plan:\*\* 0 to create, 400 to update, 0 to delete, 0 to replace, in 400 Application\(s\)\. \*\*400 risk\(s\) to review\*\*, 400 note\(s\)\./,
    );
    // Every risk is there, under its Application; the notes (each Deployment replaces its pods) up to their count;
    // the per-resource sections that did not fit are counted and linked.
    expect(md.match(/^ {2}- \*\*version\*\*/gm)).toHaveLength(400);
    expect(md.match(/^- \*\*rollout\*\* in /gm)).toHaveLength(60);
    expect(md).toContain('- and 340 more, in the full report');
    expect(md).toMatch(
      /\*\*\d+ Application\(s\) with changes are not shown here\*\*, to stay under GitHub's comment limit: see \[the full report\]\(https:\/\/github\.com\/o\/r\/actions\/runs\/1\) \(Markdown and HTML\)/,
    );
    expect(markdown({ changes, risks: flagged }, Infinity)).not.toMatch(/not shown here/);
  });
});
