/**
 * closure-api-key beyond the mutation lists: a client beside the real repository's Sonarr (the real facts, Services
 * and ExternalSecrets), reaching it through its Service by each form of address, and each way the two keys can
 * agree, differ or be unreadable.
 */
import { describe, expect, it } from 'vitest';
import { apiKeyClosureCheck } from '../../checks/closure/api-keys.ts';
import { runChecks } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';
import { imageNeeds } from '../../model/repository/image-facts.ts';

const repo = await loadRepo(REPO_ROOT);

const object = ([apiVersion, kind]: [string, string], name: string, namespace: string, spec: Record<string, unknown>): Resource =>
  ({ ...repo.resources[0]!, apiVersion, kind, name, namespace, object: { apiVersion, kind, metadata: { name, namespace }, spec } }) as Resource;

/** An exporter in `namespace` that calls `url` with the key in Secret `secret`. */
const exporter = (url: string, secret: string, namespace = 'media') =>
  object(['apps/v1', 'Deployment'], 'x', namespace, {
    template: {
      spec: {
        containers: [
          {
            name: 'exportarr',
            image: 'ghcr.io/onedr0p/exportarr:v2.2.0',
            env: [
              { name: 'URL', value: url },
              { name: 'APIKEY', valueFrom: { secretKeyRef: { name: secret, key: 'api-key' } } },
            ],
          },
        ],
      },
    },
  });

/** An ExternalSecret writing Secret `name` in `namespace` from the store item `item`. */
const fromStore = (name: string, namespace: string, item: string) =>
  object(['external-secrets.io/v1', 'ExternalSecret'], name, namespace, {
    secretStoreRef: { kind: 'ClusterSecretStore', name: 'homelab' },
    target: { name },
    data: [{ secretKey: 'api-key', remoteRef: { key: item, property: 'api-key' } }],
  });

const judge = (...extra: Resource[]) =>
  runChecks({ ...repo, resources: [...repo.resources, ...extra] }, [apiKeyClosureCheck]).findings.map((f) => `${f.severity ?? 'error'}: ${f.message}`);

describe('closure-api-key beyond the mutation lists', () => {
  it('passes the real repository with nothing to say: every app its clients call takes its key from a place its facts name (Bazarr too)', () => {
    expect(judge()).toEqual([]);
  });

  it('says it cannot judge a client of an app whose facts name no place it reads its key from', () => {
    expect(judge(exporter('http://plex.media.svc:32400', 'plex-key'))).toEqual([
      expect.stringMatching(
        /^not-judged: container exportarr sends APIKEY to http:\/\/plex\.media\.svc:32400, whose app reads its API key from a place its image facts do not name/,
      ),
    ]);
  });

  it("reaches the app through its Service by the long name, the short one and the Service's name alone, and holds the key to the app's", () => {
    expect(judge(exporter('http://sonarr:8989', 'sonarr-api-key')).filter((f) => !f.includes('6767'))).toEqual([]);
    for (const url of ['http://sonarr.media.svc.cluster.local:8989', 'http://sonarr.media:8989', 'http://sonarr:8989'])
      expect(
        judge(exporter(url, 'radarr-api-key')).filter((f) => f.startsWith('error')),
        url,
      ).toEqual([
        expect.stringMatching(
          /^error: container exportarr sends Deployment sonarr's sonarr \(URL=.*\) the key in Secret media\/radarr-api-key key api-key, but the app takes its own key \(SONARR__AUTH__APIKEY\) from Secret media\/sonarr-api-key key api-key: another key, so every call gets 401$/,
        ),
      ]);
  });

  it('takes another Secret copied from the same store item as the same key, in another namespace too', () => {
    expect(
      judge(exporter('http://sonarr.media.svc:8989', 'tv-key', 'monitoring'), fromStore('tv-key', 'monitoring', 'sonarr')).filter((f) => f.startsWith('error')),
    ).toEqual([]);
    expect(
      judge(exporter('http://sonarr.media.svc:8989', 'tv-key', 'monitoring'), fromStore('tv-key', 'monitoring', 'radarr')).filter((f) => f.startsWith('error')),
    ).toEqual([
      expect.stringMatching(
        /the key in Secret monitoring\/tv-key key api-key, but the app takes its own key \(SONARR__AUTH__APIKEY\) from Secret media\/sonarr-api-key/,
      ),
    ]);
  });

  it('says not judged where a Secret is no store item copied as it is, and is silent where the address reaches no pod', () => {
    expect(judge(exporter('http://sonarr.media.svc:8989', 'handmade')).filter((f) => !f.includes('6767'))).toEqual([
      "not-judged: container exportarr sends Deployment sonarr's sonarr the key in Secret media/handmade key api-key, and the app takes its own from Secret media/sonarr-api-key key api-key: whether they hold the same key is not read",
    ]);
    // A port the Service does not have, or a Service that does not exist, is closure-service's finding.
    expect(
      judge(exporter('http://sonarr.media.svc:9999', 'radarr-api-key'), exporter('http://nothing.media.svc:8989', 'radarr-api-key')).filter(
        (f) => !f.includes('6767'),
      ),
    ).toEqual([]);
  });

  it("reads a client whose address and key an envFrom ConfigMap and Secret give, as the kubelet sets them, and holds the key to the app's", () => {
    const client = (secret: string) =>
      object(['apps/v1', 'Deployment'], 'x', 'media', {
        template: {
          spec: {
            containers: [
              {
                name: 'exportarr',
                image: 'ghcr.io/onedr0p/exportarr:v2.2.0',
                envFrom: [{ configMapRef: { name: 'x-address' } }, { prefix: 'API', secretRef: { name: secret } }],
              },
            ],
          },
        },
      });
    const address = {
      ...object(['v1', 'ConfigMap'], 'x-address', 'media', {}),
      kind: 'ConfigMap',
      object: { kind: 'ConfigMap', metadata: { name: 'x-address' }, data: { URL: 'http://sonarr:8989' } },
    } as Resource;
    // Its key is key KEY of the Secret (APIKEY after the prefix API), which an ExternalSecret copies from a store item.
    const keyed = (name: string, item: string) =>
      ({
        ...fromStore(name, 'media', item),
        object: {
          ...fromStore(name, 'media', item).object,
          spec: { ...(fromStore(name, 'media', item).object.spec as object), data: [{ secretKey: 'KEY', remoteRef: { key: item, property: 'api-key' } }] },
        },
      }) as Resource;
    const findings = (secret: string, item: string) => judge(client(secret), address, keyed(secret, item)).filter((f) => !f.includes('6767'));
    expect(findings('x-key', 'sonarr').filter((f) => f.startsWith('error'))).toEqual([]);
    expect(findings('x-key', 'radarr')).toEqual([
      expect.stringMatching(
        /^error: container exportarr sends Deployment sonarr's sonarr \(URL=http:\/\/sonarr:8989\) the key in Secret media\/x-key key KEY, but the app takes its own key/,
      ),
    ]);
  });

  it('reads apiKey and keyFor from the facts, and refuses a pair whose two names do not both have a *', () => {
    const facts = (images: unknown[]) =>
      imageNeeds({ dataFiles: new Map([['a/facts/images.yaml', { file: 'a/facts/images.yaml', data: { images } }]]) } as never, () => true);
    expect(facts([{ image: 'x/y', source: 's', apiKey: 'Y__AUTH__APIKEY', keyFor: [{ url: 'Z_*_URL', key: 'Z_*_KEY' }] }]).problems).toEqual([]);
    expect(facts([{ image: 'x/y', source: 's', keyFor: [{ url: 'Z_*_URL', key: 'Z_KEY' }] }]).problems).toEqual([
      { file: 'a/facts/images.yaml', message: expect.stringMatching(/keyFor lists \{url, key\}/), path: ['images', 0] },
    ]);
    expect(facts([{ image: 'x/y', source: 's', apiKey: 'A_*' }]).problems).toEqual([
      {
        file: 'a/facts/images.yaml',
        message: 'a/facts/images.yaml entry 1: apiKey names the variable the app reads its own API key from',
        path: ['images', 0],
      },
    ]);
  });
});
