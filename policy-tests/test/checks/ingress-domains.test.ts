/**
 * closure-ingress-rules on an Ingress host's domain: the one host under a domain one slip from the domain the other
 * Ingresses use is refused at its rule; a second zone of its own, a host beside others under its domain, and a host
 * under a domain shared by several are left alone.
 */
import { describe, expect, it } from 'vitest';
import { ingressRulesCheck } from '../../checks/closure/ingress-rules.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const template = repo.resources.find((r) => r.kind === 'Ingress')!;

const ingress = (name: string, hosts: string[]): Resource =>
  ({
    ...template,
    name,
    object: {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name, namespace: 'media' },
      spec: {
        ingressClassName: 'private-gateway',
        rules: hosts.map((host) => ({
          host,
          http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'radarr', port: { name: 'http' } } } }] },
        })),
      },
    },
  }) as Resource;

const findings = (extra: Resource[]) => runPolicy({ ...repo, resources: [...repo.resources, ...extra] } as Repo, [ingressRulesCheck]);

describe('closure-ingress-rules: a host under a slipped domain', () => {
  it('passes the real repository, a second zone, and a new host under a domain in use', () => {
    expect(findings([])).toEqual([]);
    expect(findings([ingress('books', ['books.lan.example.net', 'wiki.home.arpa', '*.lab.example.net'])])).toEqual([]);
  });

  it('refuses the one host under a domain one slip from another, at its rule, with the name it likely meant', () => {
    const found = findings([ingress('books', ['books.lan.example.net', 'books.lan.exampel.net'])]);
    expect(found.map((f) => [f.line, f.message])).toEqual([
      [
        expect.any(Number),
        expect.stringMatching(
          /^Ingress books serves books\.lan\.exampel\.net, the one host under lan\.exampel\.net, one slip from lan\.example\.net, .*\(did you mean "books\.lan\.example\.net"\?\)/,
        ),
      ],
    ]);
    // A slip within the zone the others use may be a name of that zone; two hosts under the slipped domain make it one the repository uses.
    expect(findings([ingress('books', ['books.lna.example.net'])])).toEqual([]);
    // Two hosts under the slipped domain make it one the repository uses: not judged as a slip.
    expect(findings([ingress('books', ['books.lan.exampel.net', 'wiki.lan.exampel.net'])])).toEqual([]);
  });
});
