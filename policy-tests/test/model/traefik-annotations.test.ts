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

  it("reads Traefik v3.7.9's own parse cases (annotations_test.go: Test_parseRouterConfig, Test_parseServiceConfig) as Traefik does: none refused", () => {
    const prefix = 'traefik.ingress.kubernetes.io/';
    const router = Object.fromEntries(
      [
        ['router.pathmatcher', 'foobar'],
        ['router.entrypoints', 'foobar,foobar'],
        ['router.middlewares', 'foobar,foobar'],
        ['router.priority', '42'],
        ['router.rulesyntax', 'foobar'],
        ['router.tls', 'true'],
        ['router.tls.certresolver', 'foobar'],
        ['router.tls.domains.0.main', 'foobar'],
        ['router.tls.domains.0.sans', 'foobar,foobar'],
        ['router.tls.domains.1.main', 'foobar'],
        ['router.tls.domains.1.sans', 'foobar,foobar'],
        ['router.tls.options', 'foobar'],
        ['router.observability.accessLogs', 'true'],
        ['router.observability.metrics', 'true'],
        ['router.observability.tracing', 'true'],
      ].map(([k, v]) => [prefix + k, v]),
    );
    // Besides them, ingress.kubernetes.io/foo (no Traefik key) and traefik.ingress.kubernetes.io/foo, which the router's filter leaves out.
    expect(readTraefikAnnotations({ ...router, 'ingress.kubernetes.io/foo': 'bar', [`${prefix}foo`]: 'bar' }, 'router').map((r) => [r.key, r.effect])).toEqual([
      [`${prefix}foo`, 'ignored'],
    ]);
    const service = Object.fromEntries(
      [
        ['service.serversscheme', 'protocol'],
        ['service.serverstransport', 'foobar@file'],
        ['service.passhostheader', 'true'],
        ['service.nativelb', 'true'],
        ['service.sticky.cookie', 'true'],
        ['service.sticky.cookie.httponly', 'true'],
        ['service.sticky.cookie.name', 'foobar'],
        ['service.sticky.cookie.secure', 'true'],
        ['service.sticky.cookie.samesite', 'none'],
        ['service.sticky.cookie.domain', 'foo.com'],
        ['service.sticky.cookie.path', 'foobar'],
        ['service.middlewares', 'middleware1,middleware2'],
      ].map(([k, v]) => [prefix + k, v]),
    );
    expect(readTraefikAnnotations(service, 'service')).toEqual([]);
    expect(readTraefikAnnotations({}, 'router')).toEqual([]);
  });

  it('lists the keys it reads, a list element written .0.', () => {
    expect(traefikAnnotationKeys('router')).toContain('router.tls.domains.0.sans');
    expect(traefikAnnotationKeys('router')).toContain('router.tls');
    expect(traefikAnnotationKeys('router')).not.toContain('router.tls.resolvedOptions');
    expect(traefikAnnotationKeys('service')).toContain('service.sticky.cookie.httpOnly');
  });
});
