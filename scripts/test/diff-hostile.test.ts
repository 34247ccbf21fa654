/**
 * The rendered diff under a hostile pull request. The comment is parsed with
 * a real CommonMark parser (markdown-it, which GitHub's cmark-gfm agrees with
 * on every construct used here) and its structure asserted: every risk is a
 * visible list item, no fence closes early, no HTML but the diff's own, no
 * mention outside a code span. Secrets never show; RBAC shows what it adds
 * and removes; a new registry or chart repository is a risk of its own; a
 * changed replacements file is a new render, not a reused one.
 */
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { output } from '../../test-support/exec.ts';
import { fixtureRepo, repoApp } from '../../test-support/render-fixtures.ts';
import { compare, needsPerson, risks, type Snapshot } from '../diff/changes.ts';
import { main, REFUSED } from '../diff/command.ts';
import { json, markdown, text } from '../diff/report.ts';

type Obj = Record<string, unknown>;
const snap = (entries: [string, string, Obj][]): Snapshot => ({
  objects: new Map(entries.map(([app, id, object]) => [`${app}|${id}`, { app, prune: true, object }])),
});

/** Names and values a pull request writes (ids are split on '|', which no Kubernetes name can hold; values may). */
const HOSTILE = 'x```\n</details>\n## No risk flagged\n<img src=x onerror=alert(1)> @octocat \u202etxt.exe';
const HOSTILE_VALUE = `${HOSTILE} | ~~~`;

describe('a hostile pull request cannot rewrite the comment', () => {
  const base = snap([]);
  const head = snap([
    [
      'admin',
      'rbac.authorization.k8s.io/v1/ClusterRoleBinding||everyone-admin',
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'everyone-admin' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'Group', name: 'system:authenticated' }],
      },
    ],
    [
      HOSTILE,
      `external-secrets.io/v1/ExternalSecret|ns|${HOSTILE}`,
      { apiVersion: 'external-secrets.io/v1', kind: 'ExternalSecret', metadata: { name: HOSTILE }, spec: { target: { name: `${HOSTILE}-target` } } },
    ],
    [HOSTILE, `v1/ConfigMap|ns|${HOSTILE}`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: HOSTILE }, data: { [HOSTILE]: HOSTILE_VALUE } }],
  ]);
  const changes = compare(base, head);
  const flagged = risks(changes, base, head);
  const md = markdown({ changes, risks: flagged });
  const tokens = new MarkdownIt({ html: true }).parse(md, {});
  const inline = tokens.filter((t) => t.type === 'inline').flatMap((t) => t.children ?? []);

  it('ranks the cluster-admin grant first, as a visible list item under its Application, with the counts from the data ahead of it', () => {
    expect(flagged[0]).toMatchObject({ flag: 'rbac', level: 'review', reason: expect.stringContaining('cluster-admin') });
    // One item per Application, one nested item per risk.
    const items = tokens.filter((t) => t.type === 'list_item_open');
    expect(items).toHaveLength(flagged.length + new Set(flagged.map((r) => r.app)).size);
    expect(md.indexOf('**2 risk(s) to review**')).toBeLessThan(md.indexOf('octocat'));
    const lines = md.split('\n');
    const first = lines.findIndex((l) => l.startsWith('- '));
    expect(lines.slice(first, first + 2)).toEqual([
      '- `admin`',
      '  - **rbac**: `ClusterRoleBinding everyone-admin is a new binding (to cluster-admin): cluster-admin`',
    ]);
  });

  it('has only its own headings, its own HTML, and fences that close where they should', () => {
    expect(tokens.filter((t) => t.type === 'heading_open').map((t) => tokens[tokens.indexOf(t) + 1]!.content)).toEqual([
      'Rendered diff',
      '⚠️ 2 risk(s) to review, most severe first',
    ]);
    const htmlTokens = [...tokens.filter((t) => t.type === 'html_block'), ...inline.filter((t) => t.type === 'html_inline')]
      .flatMap((t) => t.content.split('\n'))
      .map((l) => l.trim())
      .filter(Boolean);
    for (const h of htmlTokens) expect(h).toMatch(/^(<details>|<\/details>|<summary><code>[^<]*<\/code>: \d+ change\(s\)<\/summary>)$/);
    const fences = tokens.filter((t) => t.type === 'fence');
    expect(fences).toHaveLength(2);
    for (const f of fences) expect(f.info).toBe('diff');
    expect(fences.map((f) => f.content).join('')).toContain('\\u202e');
  });

  it('shows no mention, no link, no image: every name sits in a code span', () => {
    for (const t of inline.filter((x) => x.type === 'text')) expect(t.content).not.toMatch(/@octocat|<img/);
    expect(inline.filter((t) => t.type === 'image' || t.type === 'link_open')).toEqual([]);
    expect(inline.filter((t) => t.type === 'code_inline').some((t) => t.content.includes('@octocat'))).toBe(true);
  });

  it("puts a held-back app's name and its window's schedule, both the pull request's, in code spans", () => {
    const held = markdown({ changes, risks: flagged, heldBack: [{ app: HOSTILE, when: `syncs on its own only outside deny window 0 ("${HOSTILE}" for 1h)` }] });
    const heldInline = new MarkdownIt({ html: true })
      .parse(held, {})
      .filter((t) => t.type === 'inline')
      .flatMap((t) => t.children ?? []);
    expect(held).toContain('**1 Application(s) held back**');
    for (const t of heldInline.filter((x) => x.type === 'text')) expect(t.content).not.toMatch(/@octocat|<img/);
    expect(heldInline.filter((t) => t.type === 'image' || t.type === 'link_open')).toEqual([]);
  });

  it('keeps a changed text of several lines, shown as its changed lines, inside its fence', () => {
    const conf = (v: string) => snap([[HOSTILE, 'v1/ConfigMap|ns|conf', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'conf' }, data: { f: v } }]]);
    const [b, h] = [conf(`a\n${HOSTILE}\nb\n`), conf(`a\n${HOSTILE_VALUE}\n\`\`\`\`\nb\n`)];
    const shown = markdown({ changes: compare(b, h), risks: [] });
    const parsed = new MarkdownIt({ html: true }).parse(shown, {});
    const fences = parsed.filter((t) => t.type === 'fence');
    expect(fences).toHaveLength(1);
    expect(fences[0]!.content).toContain('+      ````\n');
    expect(fences[0]!.content).toContain('\n       </details>\n       ## No risk flagged\n-      <img');
    expect(parsed.filter((t) => t.type === 'heading_open')).toHaveLength(1);
  });

  it('shows control and direction characters escaped, in the text report too', () => {
    expect(md).not.toMatch(/\u202e/);
    expect(text({ changes, risks: flagged })).not.toMatch(/[\u202e\n]txt\.exe/);
  });
});

describe('malformed objects a pull request may write', () => {
  it('are compared and judged without an exception: restarts, stale readers, prunes, sync runs', () => {
    const shapes: unknown[] = [
      null,
      'x',
      1,
      [],
      {},
      { template: 'x' },
      { template: { spec: { containers: 'x', volumes: [null, 1] } } },
      { selector: [], replicas: 'two' },
    ];
    const kinds = [
      'apps/v1/Deployment',
      'apps/v1/StatefulSet',
      'apps/v1/DaemonSet',
      'v1/ConfigMap',
      'v1/Secret',
      'external-secrets.io/v1/ExternalSecret',
      'batch/v1/Job',
    ];
    const object = (id: string, spec: unknown, annotations: unknown) => {
      const [group, kind] = [id.slice(0, id.lastIndexOf('/')), id.slice(id.lastIndexOf('/') + 1)];
      return { apiVersion: group, kind, metadata: { name: 'x', annotations }, spec, data: spec };
    };
    for (const [i, a] of shapes.entries())
      for (const b of shapes) {
        const side = (spec: unknown, annotations: unknown) =>
          snap(
            kinds.map(
              (k) =>
                [
                  'app',
                  `${k
                    .replace(/^v1\//, '/')
                    .replace(/\/v1\//, '/')
                    .replace(/\/v1$/, '')}|ns|x`,
                  object(k, spec, annotations),
                ] as [string, string, Obj],
            ),
          );
        const [base, head] = [side(a, i % 2 ? { 'argocd.argoproj.io/hook': 'PreSync' } : 'x'), side(b, null)];
        expect(() => risks(compare(base, head), base, head), JSON.stringify([a, b])).not.toThrow();
        expect(() => risks(compare(head, snap([])), head, snap([])), JSON.stringify(a)).not.toThrow();
      }
  });
});

describe('what the diff shows and flags', () => {
  const secret = (value: string, other = 'c2FtZQ==') => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { password: value, same: other } });

  it('a policy that only narrows is a note; one that adds a rule, changes its pods, or goes is for review; notes fold apart in the comment', () => {
    const np = (spec: Obj) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'p', namespace: 'ns' }, spec });
    const from = (app: string) => ({ from: [{ podSelector: { matchLabels: { app } } }] });
    const id = 'networking.k8s.io/v1/NetworkPolicy|ns|p';
    const deny = np({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
    const two = np({ podSelector: { matchLabels: { app: 'db' } }, policyTypes: ['Ingress'], ingress: [from('api'), from('backup')] });
    const one = np({ podSelector: { matchLabels: { app: 'db' } }, policyTypes: ['Ingress'], ingress: [from('api')] });
    const other = np({ podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'], ingress: [from('api')] });
    const levels = (a: Obj | undefined, b: Obj | undefined) => {
      const [base, head] = [snap(a ? [['app', id, a]] : []), snap(b ? [['app', id, b]] : [])];
      return risks(compare(base, head), base, head).map((r) => `${r.level}: ${r.reason}`);
    };
    expect(levels(undefined, deny)).toEqual(['note: NetworkPolicy ns/p is new: narrows: every rule it holds was there before, for the same pods']);
    expect(levels(two, one)).toEqual(['note: NetworkPolicy ns/p changes: narrows: every rule it holds was there before, for the same pods']);
    expect(levels(one, two)).toEqual(['review: NetworkPolicy ns/p changes: allows nothing beyond named pods that it did not before']);
    expect(levels(one, other)).toEqual(['review: NetworkPolicy ns/p changes: allows nothing beyond named pods that it did not before']);
    expect(levels(two, undefined)).toEqual(['review: NetworkPolicy ns/p is deleted: the pods it selected lose its limits, or what it let through']);
    const [base, head] = [snap([]), snap([['app', id, deny]])];
    const changes = compare(base, head);
    const md = markdown({ changes, risks: risks(changes, base, head) });
    expect(md).toContain('**0 risk(s) to review**, 1 note(s).');
    expect(md).toContain('Nothing to review.');
    expect(md).toMatch(
      /<details>\n<summary>1 note\(s\): news only, nothing to review<\/summary>\n\n- \*\*network-policy\*\* in `app`: `NetworkPolicy ns\/p is new: narrows/,
    );
  });

  it("never shows a Secret's value, in any format: only that it changed", () => {
    const [base, head] = [snap([['app', 'v1/Secret|ns|s', secret('b2xkLXZhbHVl')]]), snap([['app', 'v1/Secret|ns|s', secret('bmV3LXZhbHVl')]])];
    const changes = compare(base, head);
    expect(changes[0]!.fields).toEqual([{ path: 'data.password', from: '++++++++', to: '+++++++++' }]);
    const report = { changes, risks: risks(changes, base, head) };
    for (const out of [text(report), json(report), markdown(report)]) expect(out).not.toMatch(/b2xkLXZhbHVl|bmV3LXZhbHVl|c2FtZQ==/);
    expect(compare(base, base)).toEqual([]);
  });

  it('shows what RBAC adds and what it removes, the core group spelled ""', () => {
    const role = (resource: string) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'r' },
      rules: [{ apiGroups: [''], resources: [resource], verbs: ['get'] }],
    });
    const [base, head] = [
      snap([['app', 'rbac.authorization.k8s.io/v1/ClusterRole||r', role('nodes/proxy')]]),
      snap([['app', 'rbac.authorization.k8s.io/v1/ClusterRole||r', role('nodes/pods')]]),
    ];
    expect(risks(compare(base, head), base, head).map((r) => r.reason)).toEqual(['ClusterRole r grows: adds "" nodes/pods get; removes "" nodes/proxy get']);
  });

  it('flags an image from another registry or publisher, which an update bot may not merge alone, and a moved chart repoURL', () => {
    const dep = (image: string) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'j' },
      spec: { template: { spec: { containers: [{ name: 'certgen', image }] } } },
    });
    const [base, head] = [
      snap([['app', 'apps/v1/Deployment|ns|j', dep('registry.k8s.io/ingress-nginx/kube-webhook-certgen:v1.5.0')]]),
      snap([['app', 'apps/v1/Deployment|ns|j', dep('ghcr.io/jkroepke/kube-webhook-certgen:v1.6.0')]]),
    ];
    const flagged = risks(compare(base, head), base, head);
    // The new image replaces the Deployment's pods too: a rollout note.
    expect(flagged.map((r) => r.flag)).toEqual(['rollout', 'registry', 'version']);
    expect(flagged[1]!.reason).toMatch(/moves from registry\.k8s\.io\/ingress-nginx\/kube-webhook-certgen to ghcr\.io\/jkroepke\/kube-webhook-certgen/);
    expect(flagged.filter(needsPerson).map((r) => r.flag)).toEqual(['registry']);
    // Docker Hub's short and long names are one repository: no registry risk.
    const [b2, h2] = [
      snap([['app', 'apps/v1/Deployment|ns|j', dep('nginx:1.27')]]),
      snap([['app', 'apps/v1/Deployment|ns|j', dep('docker.io/library/nginx:1.28')]]),
    ];
    expect(risks(compare(b2, h2), b2, h2).map((r) => r.flag)).toEqual(['rollout', 'version']);
    const app = (repoURL: string) => ({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'a' },
      spec: { source: { repoURL, chart: 'x', targetRevision: '1.0.0' } },
    });
    const [b3, h3] = [
      snap([['root', 'argoproj.io/v1alpha1/Application|argocd|a', app('https://charts.example.com')]]),
      snap([['root', 'argoproj.io/v1alpha1/Application|argocd|a', app('https://charts.evil.example')]]),
    ];
    expect(risks(compare(b3, h3), b3, h3).map((r) => r.flag)).toEqual(['repo']);
    // Moved to another AppProject: what it may deploy is that project's to say now, for a person to review.
    const inProject = (project: string) => ({ ...app('https://charts.example.com'), spec: { ...app('https://charts.example.com').spec, project } });
    const [bp, hp] = [
      snap([['root', 'argoproj.io/v1alpha1/Application|argocd|a', inProject('media')]]),
      snap([['root', 'argoproj.io/v1alpha1/Application|argocd|a', inProject('platform')]]),
    ];
    const projectMove = risks(compare(bp, hp), bp, hp);
    expect(projectMove.map((r) => `${r.flag} ${r.level}`)).toEqual(['project review']);
    expect(projectMove[0]!.reason).toMatch(/moves from project media to platform/);
    // A chart source made a wrapper chart of the repository (a git path at a branch): the repository moves; no chart
    // version moves, and a branch is no major version of the chart's. A chart bump is still its version.
    const wrapped = {
      ...app('https://github.com/example/lab.git'),
      spec: { source: { repoURL: 'https://github.com/example/lab.git', path: 'apps/x/chart', targetRevision: 'main' } },
    };
    const [b4, h4] = [
      snap([['root', 'argoproj.io/v1alpha1/Application|argocd|a', app('https://charts.example.com')]]),
      snap([['root', 'argoproj.io/v1alpha1/Application|argocd|a', wrapped]]),
    ];
    expect(risks(compare(b4, h4), b4, h4).map((r) => `${r.flag} ${r.reason}`)).toEqual([
      expect.stringMatching(/^repo .*spec\.source\.repoURL moves from https:\/\/charts\.example\.com to https:\/\/github\.com\/example\/lab\.git/),
    ]);
    const bumped = { ...app('https://charts.example.com'), spec: { source: { repoURL: 'https://charts.example.com', chart: 'x', targetRevision: '2.0.0' } } };
    const h5 = snap([['root', 'argoproj.io/v1alpha1/Application|argocd|a', bumped]]);
    expect(risks(compare(b4, h5), b4, h5).map((r) => `${r.flag} ${r.reason}`)).toEqual([
      expect.stringMatching(/^version .*chart spec\.source 1\.0\.0 -> 2\.0\.0 \(a major version\)$/),
    ]);
  });
});

describe('the replacements experiment: a changed replacements file is a new render', () => {
  it('reports the RoleBinding moving from view to cluster-admin as an RBAC risk, and as an update the API server refuses, with a warm render cache', async () => {
    const repo = fixtureRepo();
    const git = (...args: string[]) =>
      output('git', ['-c', 'user.email=t@example.net', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...args], { cwd: repo.root });
    repo.write('apps/demo/application.yaml', repoApp('demo', '    path: apps/demo', '  syncPolicy:\n    automated: {prune: true}\n'));
    repo.write('apps/demo/kustomization.yaml', 'namespace: demo\nresources: [rb.yaml, roles.yaml]\nreplacements:\n  - path: replacements.yaml\n');
    repo.write(
      'apps/demo/rb.yaml',
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: reader\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: placeholder\nsubjects:\n  - kind: ServiceAccount\n    name: app\n    namespace: demo\n',
    );
    repo.write(
      'apps/demo/roles.yaml',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: roles\n  annotations:\n    config.kubernetes.io/local-config: "true"\ndata:\n  reader: view\n  admin: cluster-admin\n',
    );
    const replacement = (field: string) =>
      `- source: { kind: ConfigMap, name: roles, fieldPath: data.${field} }\n  targets:\n    - select: { kind: RoleBinding, name: reader }\n      fieldPaths: [roleRef.name]\n`;
    repo.write('apps/demo/replacements.yaml', replacement('reader'));
    await git('init', '-q', '-b', 'main');
    await git('add', '-A');
    await git('commit', '-q', '-m', 'base');
    const env = { ...process.env, HOMELAB_REPO_ROOT: repo.root };
    let stdout = '';
    // The base renders first, warming the cache; then one line of the replacements file changes.
    expect(await main(['HEAD', '-o', 'json'], env, { stdout: () => undefined, stderr: () => undefined })).toBe(0);
    repo.write('apps/demo/replacements.yaml', replacement('admin'));
    const code = await main(['HEAD', '-o', 'json'], env, { stdout: (t) => void (stdout += t), stderr: () => undefined });
    // A binding's roleRef is fixed at creation: the sync fails, and the grant is still a grant to review.
    expect(code).toBe(REFUSED);
    const report = JSON.parse(stdout) as { risks: { flag: string; reason: string }[]; changes: { fields: { path: string; from: unknown; to: unknown }[] }[] };
    expect(report.changes.flatMap((c) => c.fields)).toEqual([{ path: 'roleRef.name', from: 'view', to: 'cluster-admin' }]);
    expect(report.risks).toEqual([
      expect.objectContaining({
        flag: 'refused',
        reason:
          'RoleBinding demo/reader: the API server refuses the update (kubectl apply) at roleRef: Invalid value: cannot change roleRef (ValidateRoleBindingUpdate). To apply it: delete the binding and let the sync create it, or bind under a new name',
      }),
      expect.objectContaining({ flag: 'rbac', reason: expect.stringMatching(/RoleBinding demo\/reader binds cluster-admin to other subjects: cluster-admin/) }),
    ]);
  });
});
