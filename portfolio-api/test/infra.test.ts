/** GET /api/v1/infra: the status file, read fresh, validated, with the snapshot fallback. */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SNAPSHOT } from '../src/infra/snapshot.ts';
import { startApi, type Api } from './harness.ts';
import { CLUSTER_VERSIONS } from './cluster-versions.ts';

let api: Api;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.stop());
beforeEach(() => rmSync(api.config.statusFile, { recursive: true, force: true }));

export const validStatus = {
  generatedAt: '2026-11-22T04:00:00.000Z',
  build: 'portfolio-api 1.0.0',
  argocd: { sync: 'Synced', health: 'Healthy' },
  nodes: { ready: 6, total: 6 },
  versions: CLUSTER_VERSIONS,
  cert: { notAfter: '2027-02-01T00:00:00.000Z' },
  history: [{ d: '2026-11-22', ok: 48, total: 48 }],
};

const error = (r: { body: unknown }) => (r.body as { error: { status: number; message: string } }).error;

describe('infra', () => {
  it('serves the built-in snapshot, marked source: snapshot, when no file is mounted', async () => {
    const r = await api.call('/api/v1/infra');
    expect(r.status).toBe(200);
    expect(r.body).toEqual(SNAPSHOT);
    expect((r.body as { source: string }).source).toBe('snapshot');
  });

  it('keeps the snapshot on the versions of the cluster facts', () => {
    expect(SNAPSHOT.versions).toEqual(CLUSTER_VERSIONS);
  });

  it('reads the file fresh on every request', async () => {
    writeFileSync(api.config.statusFile, JSON.stringify(validStatus));
    expect((await api.call('/api/v1/infra')).body).toEqual(validStatus);
    writeFileSync(api.config.statusFile, JSON.stringify({ ...validStatus, nodes: { ready: 5, total: 6 } }));
    expect((await api.call('/api/v1/infra')).body).toMatchObject({ nodes: { ready: 5, total: 6 } });
  });

  it('answers a clear error envelope for a corrupt, invalid or unreadable file, and keeps serving', async () => {
    const cases: [string, () => void, RegExp][] = [
      ['truncated JSON', () => writeFileSync(api.config.statusFile, JSON.stringify(validStatus).slice(0, 40)), /not valid JSON/],
      [
        'wrong types',
        () => writeFileSync(api.config.statusFile, JSON.stringify({ ...validStatus, nodes: { ready: 'six', total: 6 } })),
        /does not match its schema: \/nodes\/ready must be integer/,
      ],
      ['missing field', () => writeFileSync(api.config.statusFile, JSON.stringify({ ...validStatus, cert: undefined })), /must have required property 'cert'/],
      [
        'unknown argocd state',
        () => writeFileSync(api.config.statusFile, JSON.stringify({ ...validStatus, argocd: { sync: 'Maybe', health: 'Healthy' } })),
        /argocd\/sync/,
      ],
      ['a file pretending to be the snapshot', () => writeFileSync(api.config.statusFile, JSON.stringify({ ...validStatus, source: 'snapshot' })), /snapshot/],
      ['binary garbage', () => writeFileSync(api.config.statusFile, Buffer.from([0xff, 0xfe, 0x00, 0x01])), /not valid JSON/],
      ['a directory', () => mkdirSync(api.config.statusFile), /unreadable \(EISDIR\)/],
      ['over 1 MiB', () => writeFileSync(api.config.statusFile, ' '.repeat(1024 * 1024 + 1)), /larger than/],
    ];
    for (const [name, setup, message] of cases) {
      rmSync(api.config.statusFile, { recursive: true, force: true });
      setup();
      const r = await api.call('/api/v1/infra');
      expect(r.status, name).toBe(503);
      expect(error(r).message, name).toMatch(message);
      expect((await api.call('/api/health')).status).toBe(200);
    }
  });
});
