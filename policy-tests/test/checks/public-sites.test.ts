/**
 * public-sites-served reads the path a watched site asks of the program behind its route: an image whose facts list
 * the paths it answers (`servedPaths`) answers any other with a 404, unless a middleware hands the program another path.
 */
import { describe, expect, it } from 'vitest';
import { siteChecks } from '../../checks/monitoring/sites.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { dig } from '../../model/core/dig.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const probe = repo.resources.find((r) => r.kind === 'Probe' && r.name === 'public-sites')!;
const spec = probe.object.spec as Record<string, unknown>;
const watched = dig(spec, ['targets', 'staticConfig', 'static']) as string[];

/** The repository with the Probe watching `urls` too, and each resource `edit` returns in place of its own. */
function variant(urls: string[], edit: (r: Resource) => Resource = (r) => r): Repo {
  const watching = { ...probe, object: { ...probe.object, spec: { ...spec, targets: { staticConfig: { static: [...watched, ...urls] } } } } };
  return { ...repo, resources: repo.resources.map((r) => (r === probe ? watching : edit(r))) };
}

const messages = (r: Repo) => runPolicy(r, siteChecks).map((f) => f.message);

describe('public-sites-served: the path a watched site asks', () => {
  it('passes the real repository, and each path the API answers', () => {
    expect(messages(repo)).toEqual([]);
    expect(messages(variant(['https://portfolio.example.net/api/v1/profile', 'https://portfolio.example.net/api/v1']))).toEqual([]);
  });

  it('refuses a path the API does not answer, with the paths it does', () => {
    const found = runPolicy(variant(['https://portfolio.example.net/api/helth?probe=1']), siteChecks);
    expect(found.map((f) => f.message)).toEqual([
      expect.stringMatching(
        /^Probe public-sites watches https:\/\/portfolio\.example\.net\/api\/helth\?probe=1, and ghcr\.io\/homelab-operator\/portfolio-api:\S+ behind it answers no \/api\/helth \(its servedPaths in portfolio-api\/deploy\/facts\/images\.yaml\): the answer is a 404/,
      ),
    ]);
    expect(found[0]!.fix).toMatch(/^watch \/api\/health or \/api\/v1 or/);
  });

  it('leaves the path alone where a middleware of the route may rewrite it, or names one the gate cannot find', () => {
    const stripping = (r: Resource): Resource =>
      r.kind === 'Middleware' && r.name === 'portfolio-headers' ? { ...r, object: { ...r.object, spec: { stripPrefix: { prefixes: ['/api'] } } } } : r;
    expect(messages(variant(['https://portfolio.example.net/api/helth'], stripping))).toEqual([]);
    const elsewhere = (r: Resource): Resource =>
      r.kind === 'Ingress' && r.name === 'portfolio-api'
        ? {
            ...r,
            object: {
              ...r.object,
              metadata: { ...(r.object.metadata as object), annotations: { 'traefik.ingress.kubernetes.io/router.middlewares': 'strip@file' } },
            },
          }
        : r;
    expect(messages(variant(['https://portfolio.example.net/api/helth'], elsewhere))).toEqual([]);
  });
});
