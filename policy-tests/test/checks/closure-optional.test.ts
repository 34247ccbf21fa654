/**
 * closure-config-map and closure-secret hold an optional reference the repository's own pod templates make to what
 * provides one: a manifest, or a program the repository runs that writes it (its image's apiRequests). A program that
 * creates objects whose names its facts do not say leaves the reference not judged; a chart's optional references
 * are left alone.
 */
import { describe, expect, it } from 'vitest';
import { closureChecks } from '../../checks/closure/index.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const checks = closureChecks({ isClusterScoped: () => false, builtinGroups: new Set(), builtinKinds: new Map() }).filter(
  (c) => c.id === 'closure-config-map' || c.id === 'closure-secret',
);
const api = repo.resources.find((r) => r.kind === 'Deployment' && r.name === 'portfolio-api')!;
const FACTS = 'portfolio-api/deploy/facts/images.yaml';

/** The API's Deployment with its pod template's container and volumes edited. */
function api2(edit: (spec: any) => void, rendered?: Resource['rendered']): Resource {
  const object = structuredClone(api.object) as any;
  edit(object.spec.template.spec);
  return { ...api, object, ...(rendered ? { rendered } : {}) };
}

/** The repository with the API's Deployment replaced, and the status writer's requests edited. */
function judge(deployment: Resource, requests?: (list: string[]) => string[]) {
  const dataFiles = new Map(repo.dataFiles);
  if (requests) {
    const file = dataFiles.get(FACTS)!;
    const data = structuredClone(file.data) as any;
    for (const image of data.images) for (const program of image.apiRequests ?? []) program.requests = requests(program.requests);
    dataFiles.set(FACTS, { ...file, data });
  }
  const resources = repo.resources.map((r) => (r === api ? deployment : r));
  const findings = runPolicy({ ...repo, resources, dataFiles } as Repo, checks);
  return {
    failed: findings.filter((f) => !f.severity).map((f) => `${f.check}: ${f.message}`),
    notJudged: findings.filter((f) => f.severity === 'not-judged').map((f) => `${f.check}: ${f.message}`),
  };
}

const renameStatus = (name: string) => (spec: any) => void (spec.volumes[0].configMap.name = name);

describe('an optional reference of the repository', () => {
  it('passes the real repository: the status ConfigMap is written by the CronJob', () => {
    expect(judge(api)).toEqual({ failed: [], notJudged: [] });
  });

  it('fails a name nothing provides, at each place a pod names one, saying what it goes without', () => {
    const deployment = api2((spec) => {
      spec.volumes[0].configMap.name = 'portfolio-infra-statu';
      const c = spec.containers[0];
      c.env = [...(c.env ?? []), { name: 'EXTRA', valueFrom: { secretKeyRef: { name: 'portfolio-extra', key: 'x', optional: true } } }];
      c.envFrom = [...(c.envFrom ?? []), { configMapRef: { name: 'portfolio-more', optional: true } }];
    });
    const { failed } = judge(deployment);
    expect(failed).toEqual([
      expect.stringMatching(
        /^closure-secret: .* Secret portfolio\/portfolio-extra as optional, .* no ExternalSecret or Certificate writes it, .* the variable stays unset for good$/,
      ),
      expect.stringMatching(
        /^closure-config-map: Deployment portfolio-api names ConfigMap portfolio\/portfolio-infra-statu as optional, and nothing provides it: .* the volume stays empty for good \(did you mean "portfolio-infra-status"\?\)$/,
      ),
      expect.stringMatching(/^closure-config-map: .* ConfigMap portfolio\/portfolio-more as optional, .* none of the variables it would set is set for good$/),
    ]);
  });

  it('takes what a program writes by name as provided, and says not judged where it creates a name its facts do not say', () => {
    const deployment = api2(renameStatus('portfolio-status-v2'));
    const renamed = (list: string[]) => list.map((r) => r.replace('portfolio-infra-status}', 'portfolio-status-v2}'));
    expect(judge(deployment, renamed)).toEqual({ failed: [], notJudged: [] });
    const createOnly = (list: string[]) => list.filter((r) => !r.startsWith('PUT '));
    expect(judge(deployment, createOnly)).toEqual({
      failed: [],
      notJudged: [
        expect.stringMatching(
          /^closure-config-map: Deployment portfolio-api names ConfigMap portfolio\/portfolio-status-v2 as optional, which no manifest declares; it may be what CronJob portfolio-infra-status-writer runs "node dist\/status-writer\/main.js", which creates ConfigMaps in portfolio whose names its facts do not say$/,
        ),
      ],
    });
  });

  it("takes a writer whose command its facts do not list as writing what its image's programs write (its command is another check's)", () => {
    const writer = repo.resources.find((r) => r.kind === 'CronJob' && r.name === 'portfolio-infra-status-writer')!;
    const object = structuredClone(writer.object) as any;
    object.spec.jobTemplate.spec.template.spec.containers[0].command = ['node', 'dist/status-writer/mian.js'];
    const findings = runPolicy({ ...repo, resources: repo.resources.map((r) => (r === writer ? { ...writer, object } : r)) } as Repo, checks);
    expect(findings).toEqual([]);
  });

  it("leaves a chart's optional references alone: its hooks for what a user may add", () => {
    const chart = api2(renameStatus('argocd-repo-server-tls'), { id: 'x#0', app: 'x', source: 'chart x 1.0.0' });
    expect(judge(chart)).toEqual({ failed: [], notJudged: [] });
  });
});
