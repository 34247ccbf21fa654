/**
 * Where a web app serves its pages (`urlBase`), on the real Sonarr, Cleanuparr and Tdarr: each host's routes to the
 * app forward the whole of its URL base, as its variable sets it; a probe asks inside the base of an app that answers
 * 404 outside it; and what the gate cannot read (a base from a Secret, a route through a middleware that may rewrite
 * the path, an app whose facts say nothing of its pages) is said not judged, never passed.
 */
import { describe, expect, it } from 'vitest';
import { imageNeedsCheck } from '../../checks/images/index.ts';
import { runChecks } from '../../model/checks/runner.ts';
import { objects, type Obj } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const named = (kind: string, name: string) => repo.resources.find((r) => r.kind === kind && r.name === name)!;

type Change = { app: string; env?: Obj[]; path?: string; pathType?: string; middleware?: string; probe?: string };

/** The app's Deployment and Ingress changed as asked, and the findings of the image check that speak of its pages or probes. */
function judged({ app, env = [], path, pathType, middleware, probe }: Change): string[] {
  const [deployment, ingress] = [named('Deployment', app), named('Ingress', app)];
  const object = structuredClone(deployment.object) as Obj;
  const container = objects((((object.spec as Obj).template as Obj).spec as Obj).containers)[0]!;
  container.env = [...objects(container.env), ...env];
  if (probe) for (const p of ['livenessProbe', 'readinessProbe']) ((container[p] as Obj).httpGet as Obj).path = probe;
  const route = structuredClone(ingress.object) as Obj;
  const entry = objects((objects((route.spec as Obj).rules)[0]!.http as Obj).paths)[0]!;
  if (path) entry.path = path;
  if (pathType) entry.pathType = pathType;
  if (middleware) (route.metadata as Obj).annotations = { 'traefik.ingress.kubernetes.io/router.middlewares': middleware };
  const changed = [{ ...deployment, object } as Resource, { ...ingress, object: route } as Resource];
  const resources = [...repo.resources.filter((r) => r !== deployment && r !== ingress), ...changed];
  return runChecks({ ...repo, resources }, [imageNeedsCheck])
    .findings.filter((f) => /serves its pages|URL base|pages there/.test(f.message))
    .map((f) => `${f.severity ?? 'error'}: ${f.message}`);
}

const value = (name: string, v: string): Obj => ({ name, value: v });

describe('urlBase on Sonarr (a redirect into its base outside it)', () => {
  it('passes a route of the root, with or without a base, and a route of the base it is given, as it normalizes it', () => {
    expect(judged({ app: 'sonarr' })).toEqual([]);
    expect(judged({ app: 'sonarr', env: [value('SONARR__SERVER__URLBASE', '/sonarr')] })).toEqual([]);
    expect(judged({ app: 'sonarr', env: [value('SONARR__SERVER__URLBASE', 'sonarr/')], path: '/sonarr' })).toEqual([]);
    expect(judged({ app: 'sonarr', env: [value('SONARR__SERVER__URLBASE', '/media/sonarr')], path: '/media' })).toEqual([]);
  });

  it('fails a route below the root without a base, one below the base, and an Exact one, naming the variable', () => {
    expect(judged({ app: 'sonarr', path: '/sonarr' })).toEqual([
      expect.stringMatching(
        /^error: Ingress sonarr routes sonarr\.lan\.example\.net\/sonarr \(Prefix\) .* serves its pages under \/ \(SONARR__SERVER__URLBASE unset\)/,
      ),
    ]);
    expect(judged({ app: 'sonarr', env: [value('SONARR__SERVER__URLBASE', '/sonarr')], path: '/sonarr/ui' })).toEqual([
      expect.stringMatching(/serves its pages under \/sonarr \(SONARR__SERVER__URLBASE "\/sonarr"\)/),
    ]);
    expect(judged({ app: 'sonarr', env: [value('SONARR__SERVER__URLBASE', '/sonarr')], path: '/sonarrx' })).toHaveLength(1);
    expect(judged({ app: 'sonarr', pathType: 'Exact' })).toEqual([expect.stringMatching(/routes sonarr\.lan\.example\.net\/ \(Exact\)/)]);
  });

  it('says a base set from a Secret, and a route through a middleware that may rewrite the path, not judged', () => {
    const fromSecret = { name: 'SONARR__SERVER__URLBASE', valueFrom: { secretKeyRef: { name: 'sonarr-api-key', key: 'base' } } };
    expect(judged({ app: 'sonarr', env: [fromSecret], path: '/sonarr' })).toEqual([
      expect.stringMatching(/^not-judged: container sonarr sets SONARR__SERVER__URLBASE from a source whose value is not read/),
    ]);
    expect(judged({ app: 'sonarr', path: '/sonarr', middleware: 'media-strip@kubernetescrd' })).toEqual([
      expect.stringMatching(/^not-judged: Ingress sonarr routes .* through a middleware that may rewrite the path/),
    ]);
  });
});

describe('urlBase on Cleanuparr (a 404 outside its base)', () => {
  it('fails each probe that asks outside its base, and passes one inside it', () => {
    const base = [value('BASE_PATH', '/cleanuparr')];
    expect(judged({ app: 'cleanuparr', env: base })).toEqual([
      expect.stringMatching(
        /^error: container cleanuparr's livenessProbe asks .* for \/health, outside its URL base \/cleanuparr \(BASE_PATH "\/cleanuparr"\)/,
      ),
      expect.stringMatching(/^error: container cleanuparr's readinessProbe asks/),
    ]);
    expect(judged({ app: 'cleanuparr', env: base, probe: '/cleanuparr/health' })).toEqual([]);
    expect(judged({ app: 'cleanuparr', probe: '/health' })).toEqual([]);
  });
});

describe('an app whose facts say nothing of its pages (Tdarr)', () => {
  it('passes its route of the root, and says one below it not judged', () => {
    expect(judged({ app: 'tdarr' })).toEqual([]);
    expect(judged({ app: 'tdarr', path: '/tdarr' })).toEqual([
      expect.stringMatching(/^not-judged: Ingress tdarr routes tdarr\.lan\.example\.net\/tdarr \(Prefix\) .* say not where it serves its pages/),
    ]);
  });
});
