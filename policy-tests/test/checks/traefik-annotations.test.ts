/**
 * closure-traefik-annotations: the portfolio's Ingress (a Traefik of the repository serves its class) and the Service
 * it sends to, annotated as Traefik would drop or ignore them; an annotation on a kind Traefik never reads it on.
 */
import { describe, expect, it } from 'vitest';
import { traefikAnnotationsCheck } from '../../checks/closure/traefik-annotations.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const find = (kind: string, name: string) => repo.resources.find((r) => r.kind === kind && r.name === name)!;

/** The findings with `annotations` added to each named object. */
const judged = (changes: Array<[Resource, Record<string, string>]>) => {
  const changed = new Map(
    changes.map(([r, annotations]) => {
      const object = structuredClone(r.object) as { metadata: { annotations?: Record<string, string> } };
      object.metadata.annotations = { ...object.metadata.annotations, ...annotations };
      return [r, { ...r, object } as Resource];
    }),
  );
  return runPolicy({ ...repo, resources: repo.resources.map((r) => changed.get(r) ?? r) }, [traefikAnnotationsCheck]).map((f) => f.message);
};

describe('closure-traefik-annotations', () => {
  const ingress = find('Ingress', 'portfolio-api');
  const service = find('Service', 'portfolio-api');
  const deployment = find('Deployment', 'portfolio-api');

  it('passes the real repository', () => {
    expect(runPolicy(repo, [traefikAnnotationsCheck])).toEqual([]);
  });

  it('says a router field Traefik does not have, with the key meant, and that the Ingress is dropped', () => {
    expect(judged([[ingress, { 'traefik.ingress.kubernetes.io/router.entrypionts': 'websecure' }]])).toEqual([
      'Ingress portfolio-api: annotation "traefik.ingress.kubernetes.io/router.entrypionts": field not found, node: entrypionts (no field of router is named so) (did you mean "traefik.ingress.kubernetes.io/router.entryPoints"?); Traefik drops the whole Ingress: every request to its routes is a 404',
    ]);
  });

  it('says a key outside router.* on the Ingress is ignored, and a service.* field on its Service is read', () => {
    expect(
      judged([
        [ingress, { 'traefik.ingress.kubernetes.io/service.serversscheme': 'https' }],
        [service, { 'traefik.ingress.kubernetes.io/service.serversscheme': 'https', 'traefik.ingress.kubernetes.io/service.passhostheader': 'yes' }],
      ]),
    ).toEqual([
      'Ingress portfolio-api: annotation "traefik.ingress.kubernetes.io/service.serversscheme": Traefik decodes service.* on the Service an Ingress sends to, not on an Ingress; Traefik ignores it',
      'Service portfolio-api: annotation "traefik.ingress.kubernetes.io/service.passhostheader": service.passHostHeader is a boolean, and "yes" does not parse as one; Traefik builds no route to the Service: every request to it is a 404',
    ]);
  });

  it("holds the entry points a router names to the ones its proxy's rendered workload listens on, or says it cannot", () => {
    const withProxy = (annotations: Record<string, string>) => {
      const object = structuredClone(ingress.object) as { metadata: { annotations: Record<string, string> } };
      Object.assign(object.metadata.annotations, annotations);
      // The public proxy as its chart renders it: one flag per port of its values.
      const proxy = {
        ...deployment,
        name: 'ingress-public-traefik',
        rendered: { id: 'ingress-public#0', app: 'ingress-public', source: 'chart traefik 41.3.0' },
        object: {
          kind: 'Deployment',
          metadata: { name: 'ingress-public-traefik' },
          spec: {
            template: {
              spec: {
                containers: [
                  {
                    name: 'traefik',
                    args: ['--entryPoints.web.address=:8000/tcp', '--entrypoints.websecure.address=:8443/tcp', '--entryPoints.websecure.http.tls=true'],
                  },
                ],
              },
            },
          },
        },
      } as Resource;
      const resources = [...repo.resources.map((r) => (r === ingress ? ({ ...r, object } as Resource) : r)), proxy];
      return runPolicy({ ...repo, resources }, [traefikAnnotationsCheck]).map((f) => f.message);
    };
    expect(withProxy({ 'traefik.ingress.kubernetes.io/router.entrypoints': 'web, websecure' })).toEqual([]);
    expect(withProxy({ 'traefik.ingress.kubernetes.io/router.entrypoints': 'websecrue' })).toEqual([
      'Ingress portfolio-api names entry point(s) "websecrue" (did you mean "websecure"?), which ingress-public does not listen on (it has web, websecure): Traefik builds no router (no valid entryPoint for this router): every request to its routes is a 404',
    ]);
    expect(withProxy({ 'traefik.ingress.kubernetes.io/router.entryPoints': 'websecure,' })).toEqual([
      'Ingress portfolio-api names entry point(s) "", which ingress-public does not listen on (it has web, websecure): Traefik serves its routes on websecure alone',
    ]);
    const object = structuredClone(ingress.object) as { metadata: { annotations: Record<string, string> } };
    object.metadata.annotations['traefik.ingress.kubernetes.io/router.entrypoints'] = 'websecure';
    const unrendered = runPolicy({ ...repo, resources: repo.resources.map((r) => (r === ingress ? ({ ...r, object } as Resource) : r)) }, [
      traefikAnnotationsCheck,
    ]);
    expect(unrendered.map((f) => [f.severity, f.message])).toEqual([
      ['not-judged', 'the entry points of ingress-public are not known: its chart is not rendered'],
    ]);
  });

  it('says a path matcher Traefik does not have where the Ingress has an ImplementationSpecific path', () => {
    expect(judged([[ingress, { 'traefik.ingress.kubernetes.io/router.pathmatcher': 'PathRegexp' }]])).toEqual([]);
    // The portfolio's path is a Prefix: Traefik never asks the matcher.
    expect(judged([[ingress, { 'traefik.ingress.kubernetes.io/router.pathmatcher': 'pathprefix' }]])).toEqual([]);
    const object = structuredClone(ingress.object) as {
      metadata: { annotations: Record<string, string> };
      spec: { rules: Array<{ http: { paths: Array<Record<string, unknown>> } }> };
    };
    object.metadata.annotations['traefik.ingress.kubernetes.io/router.pathMatcher'] = 'pathprefix';
    object.spec.rules[0]!.http.paths[0]!.pathType = 'ImplementationSpecific';
    const findings = runPolicy({ ...repo, resources: repo.resources.map((r) => (r === ingress ? ({ ...r, object } as Resource) : r)) }, [
      traefikAnnotationsCheck,
    ]);
    expect(findings.map((f) => f.message)).toEqual([
      'Ingress portfolio-api: invalid router path matcher "pathprefix": must be one of Path, PathPrefix, PathRegexp (did you mean "PathPrefix"?); Traefik skips its ImplementationSpecific path(s) /api, and every request to them is a 404',
    ]);
  });

  it('says an annotation on a kind Traefik never reads it on', () => {
    expect(judged([[deployment, { 'traefik.ingress.kubernetes.io/router.middlewares': 'portfolio-portfolio-headers@kubernetescrd' }]])).toEqual([
      'Deployment portfolio-api: annotation "traefik.ingress.kubernetes.io/router.middlewares": Traefik reads its annotations only on an Ingress and the Services it sends to; it ignores it',
    ]);
  });
});
