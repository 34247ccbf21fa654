/**
 * Remote kustomize bases, pinned (render/remote-bases.ts), against a real HTTPS server on 127.0.0.1 with a
 * certificate made here by openssl: a base that serves the locked bytes renders; one whose server starts
 * returning other bytes (a cluster-admin binding added) fails the render, cold or in a new cache; a host the
 * cluster facts do not list is refused before anything is asked of it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRepo } from '../../model/repository/repo.ts';
import { schemaLayer } from '../../gate/pipeline.ts';
import { formatLock } from '../../render/charts.ts';
import { remoteDigest } from '../../render/remote-bases.ts';
import { renderRepo } from '../../render/render.ts';
import { serveHttps, type HttpsFiles } from '../../../test-support/https-server.ts';
import { toolEnv } from '../../../test-support/chart-repo.ts';
import { fixtureRepo, repoApp } from '../../../test-support/render-fixtures.ts';

const REVIEWED = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: upstream\n  namespace: demo\ndata: {a: "1"}\n';
const TAMPERED = `${REVIEWED}---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: take-over\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}\nsubjects: [{kind: ServiceAccount, name: default, namespace: demo}]\n`;

let dir: string;
let upstream: HttpsFiles;
let serving = REVIEWED;
let url: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'remote-bases-'));
  upstream = await serveHttps(() => serving);
  url = `${upstream.origin}/install.yaml`;
  env = await toolEnv({ SSL_CERT_FILE: upstream.certFile, HTTPS_PROXY: '', https_proxy: '', NO_PROXY: '', no_proxy: '' });
});

afterAll(async () => {
  await upstream?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A repository whose one kustomization names the server's file, with the facts' allowed hosts and the lock's digest. */
function repoWith(hosts: string[], digest: string) {
  const repo = fixtureRepo();
  const facts = readFileSync(join(repo.root, 'clusters/home/cluster-facts.yaml'), 'utf8');
  repo.write(
    'clusters/home/cluster-facts.yaml',
    `${facts}  remoteBases: |\n${hosts.map((h) => `    - host: ${h}\n      reason: the test's upstream\n`).join('')}`,
  );
  repo.write('apps/up/application.yaml', repoApp('up', '    path: apps/up'));
  repo.write('apps/up/kustomization.yaml', `resources:\n  - ${url}\n  - local.yaml\n`);
  repo.write('apps/up/local.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: local\n  namespace: demo\ndata: {b: "2"}\n');
  repo.write('charts.lock.json', formatLock({ charts: [], remotes: [{ url, digest }] }));
  return repo;
}

async function render(root: string) {
  const cache = mkdtempSync(join(dir, 'cache-'));
  const repo = await loadRepo(root);
  const result = await renderRepo(repo, { builtinApiVersions: (await schemaLayer()).builtinApiVersions(), env: { ...env, HOMELAB_CACHE_DIR: cache } });
  return result.renders[0]!;
}

describe('a remote kustomize base', () => {
  it('renders from the bytes the lock records, fetched by the gate, not by kustomize', async () => {
    serving = REVIEWED;
    const r = await render(repoWith(['127.0.0.1'], remoteDigest(Buffer.from(REVIEWED))).root);
    expect([r.status, r.message]).toEqual(['rendered', undefined]);
    expect(r.resources.map((x) => x.name).sort()).toEqual(['local', 'upstream']);
  });

  it('fails when its server starts returning other bytes, in a fresh cache, naming both digests', async () => {
    serving = TAMPERED;
    const r = await render(repoWith(['127.0.0.1'], remoteDigest(Buffer.from(REVIEWED))).root);
    expect(r.status).toBe('failed');
    expect(r.message).toContain(
      `the remote base ${url} served content with digest ${remoteDigest(Buffer.from(TAMPERED))}, but charts.lock.json records ${remoteDigest(Buffer.from(REVIEWED))}`,
    );
    expect(r.resources).toEqual([]);
  });

  it('is refused on a host the cluster facts do not list, before anything is asked of it', async () => {
    const before = upstream.requests();
    const r = await render(repoWith(['raw.githubusercontent.com'], remoteDigest(Buffer.from(REVIEWED))).root);
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(/is on 127\.0\.0\.1, which the cluster fact remoteBases does not list/);
    expect(upstream.requests()).toBe(before);
  });
});
