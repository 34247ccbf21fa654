/**
 * sync-ingress-status on rendered output: a stand-in traefik chart of the tests' own, served on 127.0.0.1 and
 * rendered with the real Helm, whose Deployment passes the flags Traefik reads; the check reads those flags.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allFindings, runGate } from '../../gate/gate.ts';
import { pullCharts } from '../../../scripts/charts-pull.ts';
import { startChartRepo, toolEnv, type ChartRepo, type ChartSpec } from '../../../test-support/chart-repo.ts';
import { chartApp, fixtureRepo, repoApp, type FixtureRepo } from '../../../test-support/render-fixtures.ts';

/** Traefik's Deployment as its chart renders the Ingress provider's flags: publishedService on unless the values say off. */
const TRAEFIK: ChartSpec = {
  name: 'traefik',
  version: '41.3.0',
  values: { publishedService: true },
  files: {
    'templates/deployment.yaml': `apiVersion: apps/v1
kind: Deployment
metadata:
  name: traefik
spec:
  selector:
    matchLabels: {app: traefik}
  template:
    metadata:
      labels: {app: traefik}
    spec:
      containers:
        - name: traefik
          image: docker.io/library/traefik:v3.6.2
          args:
            - --providers.kubernetesingress
            - --providers.kubernetesingress.ingressClass=lan
{{- if .Values.publishedService }}
            - --providers.kubernetesingress.ingressendpoint.publishedservice={{ .Release.Namespace }}/traefik
{{- end }}
`,
  },
};

const INGRESS = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  namespace: demo
spec:
  ingressClassName: lan
  rules:
    - host: web.lan
      http:
        paths:
          - path: /
            pathType: Prefix
            backend: {service: {name: web, port: {number: 80}}}
`;

let env: NodeJS.ProcessEnv;
let charts: ChartRepo;
let cache: string;

beforeAll(async () => {
  cache = mkdtempSync(join(tmpdir(), 'ingress-status-cache-'));
  env = await toolEnv({ HOMELAB_CACHE_DIR: cache });
  charts = await startChartRepo(env);
  await charts.publish(TRAEFIK);
});

afterAll(async () => {
  await charts?.close();
  if (cache) rmSync(cache, { recursive: true, force: true });
});

/** What sync-ingress-status makes of a proxy rendered from the stand-in chart and an Ingress of `className`. */
async function statusFindings(publishedService: boolean, className = 'lan'): Promise<{ failed: string[]; notJudged: string[] }> {
  const repo: FixtureRepo = fixtureRepo();
  try {
    repo.write(
      'apps/proxy/application.yaml',
      chartApp('proxy', { repoURL: charts.url, chart: 'traefik', version: '41.3.0' }, { valuesObject: { publishedService } }),
    );
    repo.write('apps/web/application.yaml', repoApp('web', '    path: apps/web\n    directory:\n      exclude: application.yaml'));
    repo.write('apps/web/ingress.yaml', INGRESS.replace('ingressClassName: lan', `ingressClassName: ${className}`));
    expect(await pullCharts({ root: repo.root, env, updateLock: true, out: () => undefined })).toBe(0);
    const result = await runGate({ root: repo.root, cwd: repo.root, env });
    const mine = <T extends { check: string; file: string; message: string }>(list: readonly T[]) =>
      list.filter((f) => f.check === 'sync-ingress-status').map((f) => `${f.file}: ${f.message}`);
    return { failed: mine(allFindings(result)), notJudged: mine(result.notJudged) };
  } finally {
    rmSync(repo.root, { recursive: true, force: true });
  }
}

describe("the status of an Ingress, which Argo CD's health waits for, as the rendered Traefik publishes it", () => {
  it('fails where the rendered Deployment passes no ingressendpoint flag, at the Application that renders it', async () => {
    expect((await statusFindings(false)).failed).toEqual([
      expect.stringMatching(
        /^apps\/proxy\/application\.yaml: Traefik of proxy writes no address into the status of the 1 Ingress\(es\) it serves \(class lan\): Argo CD counts it Progressing for good \(web\)/,
      ),
    ]);
  });

  it('passes where it publishes its Service', async () => {
    expect(await statusFindings(true)).toEqual({ failed: [], notJudged: [] });
  });

  it('says not judged for an Ingress of a class no Traefik of the repository serves', async () => {
    expect(await statusFindings(false, 'nginx')).toEqual({
      failed: [],
      notJudged: [expect.stringMatching(/^apps\/web\/ingress\.yaml: Ingress web of class nginx is served by no Traefik of the repository/)],
    });
  });
});
