/**
 * An Ingress, an IngressClass and a NetworkPolicy's address blocks as pkg/apis/networking/validation judges them on
 * create.
 */
import { describe, expect, it } from 'vitest';
import { validateBuiltin } from '../../admission/validation/kinds.ts';

const said = (kind: string, o: object) => validateBuiltin(kind, o, 35).map((p) => `${p.path.join('.')}: ${p.message}`);
const backend = { service: { name: 'web', port: { name: 'http' } } };
const ingress = (spec: object, annotations?: object) => ({ metadata: { name: 'web', ...(annotations ? { annotations } : {}) }, spec });
const rule = (host: string, paths: object[]) => ({ host, http: { paths } });

describe('an Ingress', () => {
  it('admits what charts write: a class, a wildcard host, prefix and implementation-specific paths, TLS', () => {
    expect(
      said(
        'Ingress',
        ingress({
          ingressClassName: 'gateway',
          rules: [
            rule('*.example.com', [
              { path: '/', pathType: 'Prefix', backend },
              { path: '', pathType: 'ImplementationSpecific', backend },
            ]),
          ],
          tls: [{ hosts: ['*.example.com'], secretName: 'example-tls' }],
        }),
      ),
    ).toEqual([]);
  });
  it('refuses nothing to route, an IP host, a path that steps or ends oddly, and a backend without one port', () => {
    expect(said('Ingress', ingress({}))).toEqual(['spec: either `defaultBackend` or `rules` must be specified']);
    expect(
      said(
        'Ingress',
        ingress({
          rules: [
            rule('10.0.0.1', [
              { path: '/a//b', pathType: 'Prefix', backend },
              { path: '/a/..', pathType: 'Exact', backend: { service: { name: 'Web', port: { name: 'http', number: 80 } } } },
              { path: 'api', pathType: 'ImplementationSpecific', backend: { service: { name: 'web', port: {} } } },
            ]),
          ],
        }),
      ),
    ).toEqual([
      'spec.rules.0.host: host "10.0.0.1": must be a DNS name, not an IP address',
      `spec.rules.0.http.paths.0.path: path "/a//b": must not contain '//'`,
      `spec.rules.0.http.paths.1.path: path "/a/..": cannot end with '/..'`,
      expect.stringMatching(/^spec\.rules\.0\.http\.paths\.1\.backend\.service\.name: service name "Web": /),
      'spec.rules.0.http.paths.1.backend: cannot set both port name & port number',
      'spec.rules.0.http.paths.2.path: path "api": must be an absolute path',
      'spec.rules.0.http.paths.2.backend: port name or number is required',
    ]);
  });
  it('refuses a bad TLS host or secret name, and an annotation that names another class', () => {
    expect(
      said(
        'Ingress',
        ingress(
          { ingressClassName: 'gateway', defaultBackend: backend, tls: [{ hosts: ['*.*.example.com'], secretName: 'Example_TLS' }] },
          { 'kubernetes.io/ingress.class': 'nginx' },
        ),
      ),
    ).toEqual([
      expect.stringMatching(/^spec\.tls\.0\.hosts\.0: TLS host "\*\.\*\.example\.com": a wildcard DNS-1123 subdomain must start with/),
      expect.stringMatching(/^spec\.tls\.0\.secretName: secretName "Example_TLS": /),
      'metadata.annotations.kubernetes.io/ingress.class: "nginx": must match `ingressClassName` when both are specified',
    ]);
  });
});

describe('an IngressClass and an address block', () => {
  it('refuses a controller that is no domain-prefixed path', () => {
    expect(said('IngressClass', { metadata: { name: 'gateway' }, spec: { controller: 'traefik.io/ingress-controller' } })).toEqual([]);
    expect(said('IngressClass', { metadata: { name: 'gateway' }, spec: { controller: 'traefik' } })).toEqual([
      'spec.controller: controller "traefik": must be a domain-prefixed path (such as "acme.io/foo")',
    ]);
  });
  it('refuses a controller left out or null, which Go decodes as "" (Required value)', () => {
    for (const spec of [{}, { controller: null }, undefined])
      expect(said('IngressClass', { metadata: { name: 'gateway' }, spec }), JSON.stringify(spec)).toEqual(['spec.controller: controller "": Required value']);
  });
  it('refuses parameters whose scope and namespace disagree (Cluster where none is given)', () => {
    const cls = (parameters: object) => ({ metadata: { name: 'gateway' }, spec: { controller: 'traefik.io/ingress-controller', parameters } });
    const ref = { apiGroup: 'traefik.io', kind: 'IngressClassParams', name: 'main' };
    expect(said('IngressClass', cls({ ...ref, scope: 'Namespace', namespace: 'traefik' }))).toEqual([]);
    expect(said('IngressClass', cls({ ...ref, namespace: 'traefik' }))).toEqual([
      "spec.parameters.namespace: namespace: Forbidden: `parameters.scope` is set to 'Cluster'",
    ]);
    expect(said('IngressClass', cls({ ...ref, scope: 'Namespace' }))).toEqual([
      "spec.parameters.namespace: namespace: Required value: `parameters.scope` is set to 'Namespace'",
    ]);
    expect(said('IngressClass', cls({ ...ref, scope: 'Global' }))).toEqual([
      'spec.parameters.scope: scope: Unsupported value: "Global": supported values: "Cluster", "Namespace"',
    ]);
  });
  it('refuses an exception that is not strictly inside its block', () => {
    const policy = (except: string[]) => ({
      metadata: { name: 'egress' },
      spec: { podSelector: {}, egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except } }] }] },
    });
    expect(said('NetworkPolicy', policy(['10.1.0.0/16', '10.2.3.4/32']))).toEqual([]);
    expect(said('NetworkPolicy', policy(['10.0.0.0/8', '192.168.0.0/16', 'fd00::/8', '10.0.0.0/40']))).toEqual([
      'spec.egress.0.to.0.ipBlock.except.0: except "10.0.0.0/8": must be a strict subset of `cidr`',
      'spec.egress.0.to.0.ipBlock.except.1: except "192.168.0.0/16": must be a strict subset of `cidr`',
      'spec.egress.0.to.0.ipBlock.except.2: except "fd00::/8": must be a strict subset of `cidr`',
      'spec.egress.0.to.0.ipBlock.except.3: except "10.0.0.0/40" prefix length out of range',
    ]);
  });
});
