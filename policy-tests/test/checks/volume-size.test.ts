/** workload-volume-size: an emptyDir limit under a block, as the kubelet's eviction manager counts usage. */
import { describe, expect, it } from 'vitest';
import { volumeSizeCheck } from '../../checks/workload-hygiene/volume-size.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const template = repo.resources.find((r) => r.kind === 'Deployment')!;

/** A Deployment whose pod has one emptyDir of each limit. */
const withLimits = (limits: unknown[]): Repo => {
  const volumes = limits.map((sizeLimit, i) => ({ name: `v${i}`, emptyDir: { medium: i % 2 ? 'Memory' : '', sizeLimit } }));
  const object = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'sized', namespace: 'media' },
    spec: { template: { spec: { containers: [], volumes } } },
  };
  return { ...repo, resources: [...repo.resources, { ...template, name: 'sized', object } as Resource] };
};
const messages = (r: Repo) => runPolicy(r, [volumeSizeCheck]).map((f) => f.message);

describe('workload-volume-size', () => {
  it('passes the real repository, a limit of a block or more, zero (no limit) and one the API server refuses', () => {
    expect(messages(repo)).toEqual([]);
    expect(messages(withLimits(['4Ki', '4096', 4096, '16Mi', '0', 0, 'lots', null]))).toEqual([]);
  });

  it('refuses a limit under a block, saying where a missing suffix made it bytes', () => {
    expect(messages(withLimits(['16', 100, '4095', '2k', '16m']))).toEqual([
      'emptyDir v0 of Deployment sized may hold 16 bytes (sizeLimit "16": a quantity with no suffix counts bytes): the first file its program writes takes a 4 KiB block, and the kubelet evicts the pod each time',
      expect.stringMatching(/^emptyDir v1 of Deployment sized may hold 100 bytes \(sizeLimit 100: a quantity with no suffix/),
      expect.stringMatching(/^emptyDir v2 .* may hold 4095 bytes/),
      expect.stringMatching(/^emptyDir v3 .* may hold 2000 bytes \(sizeLimit "2k"\): the first/),
      expect.stringMatching(/^emptyDir v4 .* may hold 1 byte \(sizeLimit "16m"\)/),
    ]);
  });
});
