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

  it('says an annotation on a kind Traefik never reads it on', () => {
    expect(judged([[deployment, { 'traefik.ingress.kubernetes.io/router.middlewares': 'portfolio-portfolio-headers@kubernetescrd' }]])).toEqual([
      'Deployment portfolio-api: annotation "traefik.ingress.kubernetes.io/router.middlewares": Traefik reads its annotations only on an Ingress and the Services it sends to; it ignores it',
    ]);
  });
});
