/**
 * closure-service holds every Service with a selector to pods the cluster runs, and says who reaches the Service
 * when one does: its route, a client at its address, its monitor; a Service nothing reaches is still named.
 */
import { describe, expect, it } from 'vitest';
import { serviceClosureCheck } from '../../checks/closure/services.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);

/** The real repository with the named Services' selectors pointing at a label no pod carries, and `extra` added. */
function withStrayServices(names: string[], extra: Resource[] = []): Repo {
  const resources = repo.resources.map((r) => {
    if (r.kind !== 'Service' || !names.includes(r.name)) return r;
    const object = structuredClone(r.object) as { spec: { selector: Record<string, string> } };
    object.spec.selector = { 'app.kubernetes.io/name': `${r.name}-gone` };
    return { ...r, object } as Resource;
  });
  return { ...repo, resources: [...resources, ...extra] };
}

describe('closure-service: a Service with a selector has pods', () => {
  it('names who reaches each Service that selects no pod, or says nothing does', () => {
    const unreached = {
      ...repo.resources.find((r) => r.kind === 'Service' && r.name === 'sonarr')!,
      name: 'sonarr-spare',
      object: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'sonarr-spare', namespace: 'media' },
        spec: { selector: { app: 'nobody' }, ports: [{ port: 80 }] },
      },
    } as Resource;
    // Without renders the chart-made Services are unknown; only what the selectors break is asked about here.
    const messages = runPolicy(withStrayServices(['sonarr', 'qbittorrent', 'sonarr-metrics'], [unreached]), [serviceClosureCheck])
      .map((f) => f.message)
      .filter((m) => m.startsWith('Service '));
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^Service sonarr selects no pod in media \(app\.kubernetes\.io\/name=sonarr-gone\), so it has no endpoints, and Ingress sonarr routes to it: the route answers 503$/,
        ),
        expect.stringMatching(/^Service qbittorrent selects no pod in media-vpn .*, and .* dials it at .*qbittorrent\.media-vpn\.svc/),
        expect.stringMatching(/^Service sonarr-metrics selects no pod in media .*, and ServiceMonitor \S+ scrapes it/),
        'Service sonarr-spare selects no pod in media (app=nobody), so it has no endpoints: nothing answers at it',
      ]),
    );
    expect(messages).toHaveLength(4);
  });
});
