/** The keys a Secret has where a program the repository runs writes it: kube-webhook-certgen's `create`. */
import { describe, expect, it } from 'vitest';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';
import { keysOf, secretTypeOf } from '../../model/cluster/provided-keys.ts';

const repo = await loadRepo(REPO_ROOT);

/** A hook Job running one container with this image and these arguments, as a chart renders it. */
const job = (image: string, args: string[]): Resource =>
  ({
    kind: 'Job',
    name: 'admission-create',
    namespace: 'monitoring',
    object: {
      kind: 'Job',
      metadata: { name: 'admission-create', namespace: 'monitoring' },
      spec: { template: { spec: { containers: [{ name: 'create', image, args }] } } },
    },
  }) as unknown as Resource;

const keys = (resources: Resource[], name = 'stack-admission') => {
  const found = keysOf({ repo, resources: [...resources] }, { kind: 'Secret', namespace: 'monitoring', name });
  return found && [...found].sort();
};

describe('the Secret kube-webhook-certgen creates', () => {
  it('holds ca, cert and key, named by its flags in either spelling', () => {
    const args = ['create', '--host=operator,operator.monitoring.svc', '--namespace=monitoring', '--secret-name=stack-admission'];
    expect(keys([job('ghcr.io/jkroepke/kube-webhook-certgen:1.8.7', args)])).toEqual(['ca', 'cert', 'key']);
    expect(
      keys([
        job('registry.k8s.io/ingress-nginx/kube-webhook-certgen:v1.6.4@sha256:abc', [
          'create',
          '--namespace',
          'monitoring',
          '--secret-name',
          'stack-admission',
        ]),
      ]),
    ).toEqual(['ca', 'cert', 'key']);
    expect(keys([job('ghcr.io/jkroepke/kube-webhook-certgen:1.8.7', [...args, '--cert-name=tls.crt', '--key-name', 'tls.key'])])).toEqual([
      'ca',
      'tls.crt',
      'tls.key',
    ]);
  });

  it('is written only by its create command, in the namespace it is told', () => {
    expect(keys([job('ghcr.io/jkroepke/kube-webhook-certgen:1.8.7', ['patch', '--namespace=monitoring', '--secret-name=stack-admission'])])).toBeUndefined();
    expect(keys([job('ghcr.io/jkroepke/kube-webhook-certgen:1.8.7', ['create', '--namespace=other', '--secret-name=stack-admission'])])).toBeUndefined();
    expect(keys([job('ghcr.io/example/not-certgen:1', ['create', '--namespace=monitoring', '--secret-name=stack-admission'])])).toBeUndefined();
  });
});

describe("a Secret's type, as what writes it gives it", () => {
  const object = (kind: string, name: string, rest: object): Resource =>
    ({ kind, name, namespace: 'apps', object: { kind, metadata: { name, namespace: 'apps' }, ...rest } }) as unknown as Resource;
  const typeOf = (resources: Resource[], name = 'pull') => secretTypeOf({ repo, resources }, { namespace: 'apps', name });

  it("reads a plain Secret's type, an ExternalSecret's template's (Opaque without one) and a Certificate's", () => {
    expect(typeOf([object('Secret', 'pull', { type: 'kubernetes.io/dockerconfigjson' })])).toBe('kubernetes.io/dockerconfigjson');
    expect(typeOf([object('ExternalSecret', 'pull', { spec: { target: { template: { type: 'kubernetes.io/dockerconfigjson' } } } })])).toBe(
      'kubernetes.io/dockerconfigjson',
    );
    expect(typeOf([object('ExternalSecret', 'x', { spec: { target: { name: 'pull' } } })])).toBe('Opaque');
    expect(typeOf([object('Certificate', 'c', { spec: { secretName: 'pull' } })])).toBe('kubernetes.io/tls');
  });

  it('knows no type where nothing writes it, or two writers disagree', () => {
    expect(typeOf([])).toBeUndefined();
    expect(typeOf([object('Secret', 'pull', {}), object('Certificate', 'c', { spec: { secretName: 'pull' } })])).toBeUndefined();
  });
});
