/** What server-side apply cannot type in a pod template (admission/validation/apply-lists.ts). */
import { describe, expect, it } from 'vitest';
import { applyListDuplicates } from '../../admission/validation/apply-lists.ts';
import type { Resource } from '../../model/core/manifest.ts';

const deployment = (container: Record<string, unknown>): Resource =>
  ({
    kind: 'Deployment',
    apiVersion: 'apps/v1',
    name: 'web',
    object: { kind: 'Deployment', spec: { template: { spec: { containers: [{ name: 'web', ...container }] } } } },
  }) as unknown as Resource;

describe("structured-merge-diff's list-map keys in a pod template", () => {
  it('names the second env var of a name, at its entry', () => {
    expect(applyListDuplicates(deployment({ env: [{ name: 'A' }, { name: 'B' }, { name: 'A', value: '2' }] }))).toEqual([
      {
        path: ['spec', 'template', 'spec', 'containers', 0, 'env', 2],
        message: '.spec.template.spec.containers[name="web"].env: duplicate entries for key [name="A"]',
      },
    ]);
  });
  it('keys container ports by port and protocol, TCP where none is given', () => {
    expect(applyListDuplicates(deployment({ ports: [{ containerPort: 53 }, { containerPort: 53, protocol: 'UDP' }] }))).toEqual([]);
    expect(
      applyListDuplicates(deployment({ ports: [{ containerPort: 80 }, { containerPort: 80, protocol: 'TCP', name: 'http' }] })).map((d) => d.message),
    ).toEqual(['.spec.template.spec.containers[name="web"].ports: duplicate entries for key [containerPort=80,protocol="TCP"]']);
  });
  it("keys a pod's imagePullSecrets by name and its hostAliases by ip, which validation lets twice", () => {
    const pod = {
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      name: 'web',
      object: {
        kind: 'Deployment',
        spec: {
          template: {
            spec: {
              containers: [{ name: 'web' }],
              imagePullSecrets: [{ name: 'ghcr' }, { name: 'ghcr' }],
              hostAliases: [{ ip: '10.0.0.1', hostnames: ['a'] }, { ip: '10.0.0.2' }, { ip: '10.0.0.1', hostnames: ['b'] }],
            },
          },
        },
      },
    } as unknown as Resource;
    expect(applyListDuplicates(pod)).toEqual([
      { path: ['spec', 'template', 'spec', 'imagePullSecrets', 1], message: '.spec.template.spec.imagePullSecrets: duplicate entries for key [name="ghcr"]' },
      { path: ['spec', 'template', 'spec', 'hostAliases', 2], message: '.spec.template.spec.hostAliases: duplicate entries for key [ip="10.0.0.1"]' },
    ]);
  });
  it('finds nothing in a pod template whose lists are unique, or in what has no pod template', () => {
    expect(applyListDuplicates(deployment({ env: [{ name: 'A' }], ports: [{ containerPort: 80 }] }))).toEqual([]);
    expect(applyListDuplicates({ kind: 'ConfigMap', object: { data: {} } } as unknown as Resource)).toEqual([]);
  });
});
