/**
 * Traefik v3.7's reading of its Ingress and Service annotations (model/traefik/annotations.ts), case by case as its
 * provider and paerser's decoder treat them: read, ignored, switched off, or the object dropped.
 */
import { describe, expect, it } from 'vitest';
import { readTraefikAnnotations, traefikAnnotationKeys } from '../../model/traefik/annotations.ts';

const effects = (annotations: Record<string, string>, target: 'router' | 'service' = 'router') =>
  readTraefikAnnotations(annotations, target).map((r) => [r.key.replace('traefik.ingress.kubernetes.io/', ''), r.effect]);

describe("Traefik's Ingress annotations", () => {
  it('reads its fields, case aside, with values of their types', () => {
    expect(
      effects({
        'traefik.ingress.kubernetes.io/router.middlewares': 'a-b@kubernetescrd, c-d@kubernetescrd',
        'traefik.ingress.kubernetes.io/router.EntryPoints': 'websecure',
        'traefik.ingress.kubernetes.io/router.priority': '-12',
        'traefik.ingress.kubernetes.io/router.tls': 'true',
        'traefik.ingress.kubernetes.io/router.tls.certresolver': 'le',
        'traefik.ingress.kubernetes.io/router.tls.domains.0.main': 'example.net',
        'traefik.ingress.kubernetes.io/router.tls.domains.0.sans': 'a.example.net,b.example.net',
        'traefik.ingress.kubernetes.io/router.observability.accesslogs': 'F',
        'kubernetes.io/ingress.class': 'gateway',
        'traefik.ingress.kubernetes.io/router': 'x',
      }),
    ).toEqual([['router', 'ignored']]);
    expect(
      effects(
        { 'traefik.ingress.kubernetes.io/service.passhostheader': 'false', 'traefik.ingress.kubernetes.io/service.sticky.cookie.maxage': '60' },
        'service',
      ),
    ).toEqual([]);
  });

  it('drops the object on a name no field has, a value its type refuses, or a misplaced node', () => {
    expect(
      effects({
        'traefik.ingress.kubernetes.io/router.midlewares': 'a-b@kubernetescrd',
        'traefik.ingress.kubernetes.io/router.priority': '10s',
        'traefik.ingress.kubernetes.io/router.priority.x': '1',
        'traefik.ingress.kubernetes.io/router.tls.domains.0.mian': 'example.net',
        'traefik.ingress.kubernetes.io/router.tls.certresolver.': 'le',
        'traefik.ingress.kubernetes.io/router.observability.tracing': 'yes',
      }).map(([, e]) => e),
    ).toEqual(['drops', 'drops', 'drops', 'drops', 'drops', 'drops']);
    expect(effects({ 'traefik.ingress.kubernetes.io/service.sticky.cookie.secure': 'on' }, 'service')).toEqual([['service.sticky.cookie.secure', 'drops']]);
    expect(readTraefikAnnotations({ 'traefik.ingress.kubernetes.io/router.midlewares': 'x' }, 'router')[0]).toMatchObject({
      why: 'field not found, node: midlewares (no field of router is named so)',
      misnamed: true,
    });
  });

  it('ignores a key outside router.* (service.* on a Service), a label:"-" field, and switches off a block not given true', () => {
    expect(
      effects({
        'traefik.ingress.kubernetes.io/rotuer.middlewares': 'a-b@kubernetescrd',
        'traefik.ingress.kubernetes.io/service.serversscheme': 'https',
        'traefik.ingress.kubernetes.io/router.tls.resolvedoptions': 'x',
        'traefik.ingress.kubernetes.io/router.tls': 'yes',
      }),
    ).toEqual([
      ['rotuer.middlewares', 'ignored'],
      ['service.serversscheme', 'ignored'],
      ['router.tls.resolvedoptions', 'ignored'],
      ['router.tls', 'off'],
    ]);
    expect(effects({ 'traefik.ingress.kubernetes.io/router.middlewares': 'x' }, 'service')).toEqual([['router.middlewares', 'ignored']]);
  });

  it('lists the keys it reads, a list element written .0.', () => {
    expect(traefikAnnotationKeys('router')).toContain('router.tls.domains.0.sans');
    expect(traefikAnnotationKeys('router')).toContain('router.tls');
    expect(traefikAnnotationKeys('router')).not.toContain('router.tls.resolvedOptions');
    expect(traefikAnnotationKeys('service')).toContain('service.sticky.cookie.httpOnly');
  });
});
