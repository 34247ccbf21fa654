/** The keys a Secret has where a program the repository runs writes it: kube-webhook-certgen's `create`. */
import { describe, expect, it } from 'vitest';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';
import { containerVariable, envFromVariables, givenVariables, keysOf, mayStartWith, secretTypeOf } from '../../model/cluster/provided-keys.ts';

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

describe('a container variable as the kubelet sets it', () => {
  const object = (kind: string, name: string, fields: Record<string, unknown>): Resource =>
    ({ kind, name, namespace: 'media', object: { kind, metadata: { name, namespace: 'media' }, ...fields } }) as unknown as Resource;
  const base64 = (text: string) => Buffer.from(text).toString('base64');
  const resources = [
    object('Secret', 'chart', { data: { MODE: base64('from-secret'), ONLY_SECRET: base64('s') }, stringData: { WRITTEN: 'plain' } }),
    object('ConfigMap', 'settings', { data: { MODE: 'from-configmap', PORT: '8080' } }),
    object('ExternalSecret', 'vault', { spec: { data: [{ secretKey: 'TOKEN', remoteRef: { key: 'k' } }] } }),
    object('ExternalSecret', 'everything', { spec: { dataFrom: [{ extract: { key: 'k' } }] } }),
  ];
  const variable = (container: Record<string, unknown>) => containerVariable({ repo, resources }, 'media', container);

  it('takes env over every envFrom source, and a later source over an earlier one', () => {
    const read = variable({
      env: [
        { name: 'PORT', value: '9' },
        { name: 'REF', valueFrom: { secretKeyRef: { name: 'x', key: 'y' } } },
      ],
      envFrom: [{ secretRef: { name: 'chart' } }, { configMapRef: { name: 'settings' } }],
    });
    expect([read('PORT'), read('REF'), read('MODE'), read('ONLY_SECRET'), read('WRITTEN'), read('UNSET')]).toEqual([
      '9',
      null,
      'from-configmap',
      's',
      'plain',
      undefined,
    ]);
  });

  it("cuts a source's prefix before its keys, and reads no value it cannot know", () => {
    expect(variable({ envFrom: [{ prefix: 'APP_', configMapRef: { name: 'settings' } }] })('APP_PORT')).toBe('8080');
    expect(variable({ envFrom: [{ prefix: 'APP_', configMapRef: { name: 'settings' } }] })('PORT')).toBeUndefined();
    // An ExternalSecret's key holds what the store hands over; its other names it does not set.
    const vault = variable({ envFrom: [{ secretRef: { name: 'vault' } }] });
    expect([vault('TOKEN'), vault('MODE')]).toEqual([null, undefined]);
    // A source whose keys cannot be known (dataFrom, or nothing here writes it) may set any name.
    expect(variable({ envFrom: [{ secretRef: { name: 'everything' } }] })('MODE')).toBeNull();
    expect(variable({ envFrom: [{ secretRef: { name: 'elsewhere' } }] })('MODE')).toBeNull();
  });

  it('lists what the envFrom sources set, each by the last source that holds it, a prefix before its keys, env names left out', () => {
    const set = envFromVariables({ repo, resources }, 'media', {
      env: [{ name: 'PORT', value: '9' }],
      envFrom: [{ secretRef: { name: 'chart' } }, { configMapRef: { name: 'settings' } }, { prefix: 'V_', secretRef: { name: 'vault' } }],
    });
    expect(Object.fromEntries(set)).toEqual({
      MODE: { source: 1, setting: { value: 'from-configmap' } },
      ONLY_SECRET: { source: 0, setting: { value: 's' } },
      WRITTEN: { source: 0, setting: { value: 'plain' } },
      V_TOKEN: { source: 2, setting: 'held' },
    });
  });

  it("gives a container's environment as env entries, its sources' first and its env over them, and the sources whose keys are unknown", () => {
    const { entries, unread } = givenVariables({ repo, resources }, 'media', {
      env: [{ name: 'PORT', value: '9' }],
      envFrom: [{ configMapRef: { name: 'settings' } }, { prefix: 'X_', secretRef: { name: 'everything' } }, { prefix: 'V_', secretRef: { name: 'vault' } }],
    });
    expect(entries).toEqual([
      { name: 'MODE', value: 'from-configmap', at: ['envFrom', 0] },
      { name: 'V_TOKEN', valueFrom: { envFrom: 2 }, at: ['envFrom', 2] },
      { name: 'PORT', value: '9', at: ['env', 0] },
    ]);
    expect(unread).toEqual([{ source: 1, prefix: 'X_' }]);
    // A plain Secret's key is given set, never its text: no reader may print a Secret's value in a finding.
    expect(givenVariables({ repo, resources }, 'media', { envFrom: [{ secretRef: { name: 'chart' } }] }).entries).toContainEqual({
      name: 'WRITTEN',
      valueFrom: { envFrom: 0 },
      at: ['envFrom', 0],
    });
    expect([mayStartWith('X_', 'FALCOCTL_'), mayStartWith('', 'FALCOCTL_'), mayStartWith('FAL', 'FALCOCTL_'), mayStartWith('FALCOCTL_A', 'FALCOCTL_')]).toEqual(
      [false, true, true, true],
    );
  });

  it('knows no value of a name two objects write', () => {
    const twice = [...resources, object('Secret', 'chart', { data: { MODE: base64('other') } })];
    expect(containerVariable({ repo, resources: twice }, 'media', { envFrom: [{ secretRef: { name: 'chart' } }] })('MODE')).toBeNull();
  });
});
