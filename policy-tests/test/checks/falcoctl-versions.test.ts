/**
 * falcoctl-config-loads on what only a rendered falco chart shows: the follow sidecar's versions URL held to the
 * webserver of the Falco beside it (model/falco/falco-versions.ts), on a render built here beside the real repository.
 */
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { falcoctlConfigCheck } from '../../checks/falco/falcoctl-config.ts';
import { applications } from '../../model/argocd/argocd.ts';
import type { SourceRender } from '../../model/argocd/rendered.ts';
import { runChecks } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const app = applications(repo).find((a) => a.name === 'falco')!;
const resource = (kind: string, name: string, object: Record<string, unknown>): Resource =>
  ({
    ...repo.resources[0]!,
    apiVersion: kind === 'ConfigMap' ? 'v1' : 'apps/v1',
    kind,
    name,
    namespace: 'security',
    object: { apiVersion: kind === 'ConfigMap' ? 'v1' : 'apps/v1', kind, metadata: { name, namespace: 'security' }, ...object },
    rendered: { id: 'falco#0', app: 'falco', source: 'chart falco 9.1.0' },
  }) as Resource;

/** The chart's render with Falco's webserver and falcoctl's follow as given. */
function render(o: { webserver: Record<string, unknown>; follow?: Record<string, unknown>; args?: string[]; falcoArgs?: string[] }): SourceRender {
  const falcoctl = { artifact: { allowedTypes: ['rulesfile', 'plugin'], follow: { refs: ['falco-rules:5'], every: '168h', ...o.follow } } };
  const containers = [
    { name: 'falco', image: 'docker.io/falcosecurity/falco:0.44.1', args: ['/usr/bin/falco', ...(o.falcoArgs ?? [])] },
    {
      name: 'falcoctl-artifact-follow',
      image: 'docker.io/falcosecurity/falcoctl:0.13.0',
      args: ['artifact', 'follow', '--log-format=json', ...(o.args ?? [])],
    },
  ];
  const resources = [
    resource('ConfigMap', 'falco', { data: { 'falco.yaml': stringify({ webserver: o.webserver }) } }),
    resource('ConfigMap', 'falco-falcoctl', { data: { 'falcoctl.yaml': stringify(falcoctl) } }),
    resource('DaemonSet', 'falco', { spec: { template: { spec: { containers } } } }),
  ];
  return {
    app,
    source: app.sources.find((s) => s.chart === 'falco')!,
    label: 'chart falco 9.1.0',
    status: 'rendered',
    resources,
    values: [],
    nondeterministic: [],
    consumedFiles: [],
  } as SourceRender;
}
const said = (r: SourceRender) =>
  runChecks({ ...repo, resources: [...repo.resources, ...r.resources] }, [falcoctlConfigCheck], [r])
    .findings.filter((f) => /versions/.test(f.message))
    .map((f) => `${f.severity ?? 'error'}: ${f.message}`);
const chartServer = { enabled: true, listen_address: '0.0.0.0', listen_port: 8765, ssl_enabled: false };

describe('falcoctl-config-loads: follow asks the Falco of its pod for its versions', () => {
  it("takes the chart's own: falcoctl's default, or the configuration's URL, against the webserver on 8765", () => {
    expect(said(render({ webserver: chartServer }))).toEqual([]);
    expect(said(render({ webserver: chartServer, follow: { falcoversions: 'http://localhost:8765/versions' } }))).toEqual([]);
  });

  it('fails a webserver moved to another port, turned to HTTPS, and a URL whose path Falco does not serve', () => {
    expect(said(render({ webserver: { ...chartServer, listen_port: 8766 } }))).toEqual([
      expect.stringMatching(
        /^error: falcoctl 0\.13\.0 artifact follow asks http:\/\/localhost:8765\/versions for Falco's versions as it starts, where the Falco of its pod serves on port 8766 \(webserver\.listen_port\), not 8765: it gets none, exits 1/,
      ),
    ]);
    expect(said(render({ webserver: { ...chartServer, ssl_enabled: true } }))).toEqual([expect.stringMatching(/speaks HTTPS alone there/)]);
    expect(said(render({ webserver: chartServer, follow: { falcoversions: 'http://localhost:8765/version' } }))).toEqual([
      expect.stringMatching(/serves its versions at \/versions alone, not \/version/),
    ]);
  });

  it('takes the command line over the configuration, and leaves unjudged what Falco may set itself or another host', () => {
    const moved = { ...chartServer, listen_port: 8766 };
    expect(said(render({ webserver: moved, args: ['--falco-versions', 'http://127.0.0.1:8766/versions'] }))).toEqual([]);
    expect(said(render({ webserver: chartServer, args: ['--falco-versions=http://localhost:9/versions'] }))).toEqual([expect.stringMatching(/not 9:/)]);
    expect(said(render({ webserver: moved, falcoArgs: ['-o', 'webserver.listen_port=8765'] }))).toEqual([
      expect.stringMatching(/^not-judged: .*command line or a file under its config\.d/),
    ]);
    expect(said(render({ webserver: chartServer, follow: { falcoversions: 'http://falco.security.svc:8765/versions' } }))).toEqual([
      expect.stringMatching(/^not-judged: .*another host/),
    ]);
  });
});
