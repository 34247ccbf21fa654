/**
 * network-policy-external-egress beyond its mutations (the feed's rule narrowed to port 80; a feed URL on 8443): the
 * API's feed URL, its image's default or its variable's, gets out by the rule the egress policies give its host. A
 * pattern, the world entity, a rule with no destination and a block of every IPv4 address let it out; a block of some
 * addresses or a group is not judged; another program of the same image (the status writer) dials nothing.
 */
import { describe, expect, it } from 'vitest';
import { externalEgressCheck } from '../../checks/network-policy/external-egress.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);

/** The repository with the API's egress rule to the feed's host replaced by `rule`. */
function withFeedRule(rule: Record<string, unknown>): Repo {
  const resources = repo.resources.map((r) => {
    if (r.kind !== 'CiliumNetworkPolicy' || r.name !== 'portfolio-api-egress') return r;
    const object = structuredClone(r.object) as { spec: { egress: Record<string, unknown>[] } };
    object.spec.egress = object.spec.egress.map((e) => (e.toFQDNs ? rule : e));
    return { ...r, object } as Resource;
  });
  return { ...repo, resources };
}

/** The repository with the API's container given `env` (added to its own). */
function withApiEnv(env: Record<string, unknown>[]): Repo {
  const resources = repo.resources.map((r) => {
    if (r.kind !== 'Deployment' || r.name !== 'portfolio-api') return r;
    const object = structuredClone(r.object) as { spec: { template: { spec: { containers: { env: unknown[] }[] } } } };
    object.spec.template.spec.containers[0]!.env.push(...env);
    return { ...r, object } as Resource;
  });
  return { ...repo, resources };
}

const findings = (r: Repo) => runPolicy(r, [externalEgressCheck]).map((f) => [f.severity ?? 'fail', f.message]);
const https = [{ ports: [{ port: '443', protocol: 'TCP' }] }];
const REFUSED = /^Deployment portfolio-api \(container api\) dials https:\/\/blog\.example\.net\/rss\.xml \(its image's default, no variable set\) on 443\/TCP/;

describe('network-policy-external-egress', () => {
  it('passes the real repository', () => {
    expect(findings(repo)).toEqual([]);
  });

  it('lets the feed out by a name, a pattern, the world entity, a rule with no destination, or every IPv4 address, on its port', () => {
    expect(findings(withFeedRule({ toFQDNs: [{ matchName: 'BLOG.example.net.' }], toPorts: https }))).toEqual([]);
    expect(findings(withFeedRule({ toFQDNs: [{ matchPattern: '*.example.net' }], toPorts: https }))).toEqual([]);
    expect(findings(withFeedRule({ toEntities: ['world'], toPorts: https }))).toEqual([]);
    expect(findings(withFeedRule({ toPorts: https }))).toEqual([]);
    expect(findings(withFeedRule({ toCIDR: ['0.0.0.0/0'] }))).toEqual([]);
    // A port range that holds 443, and a port without a protocol (any, in a Cilium policy).
    expect(findings(withFeedRule({ toFQDNs: [{ matchName: 'blog.example.net' }], toPorts: [{ ports: [{ port: '400', endPort: 500 }] }] }))).toEqual([]);
  });

  it('fails another name, a pattern one label short, the cluster entity, or another port', () => {
    for (const rule of [
      { toFQDNs: [{ matchName: 'feed.example.net' }], toPorts: https },
      { toFQDNs: [{ matchPattern: '*.net' }], toPorts: https },
      { toEntities: ['cluster'], toPorts: https },
      { toFQDNs: [{ matchName: 'blog.example.net' }], toPorts: [{ ports: [{ port: '80', protocol: 'TCP' }] }] },
      { toFQDNs: [{ matchName: 'blog.example.net' }], toPorts: [{ ports: [{ port: '443', protocol: 'UDP' }] }] },
    ])
      expect(findings(withFeedRule(rule)), JSON.stringify(rule)).toEqual([['fail', expect.stringMatching(REFUSED)]]);
  });

  it('says a block of some addresses, one with addresses cut out, or a group not judged', () => {
    for (const rule of [{ toCIDR: ['203.0.113.0/24'] }, { toCIDRSet: [{ cidr: '0.0.0.0/0', except: ['10.0.0.0/8'] }] }, { toGroups: [{ aws: {} }] }])
      expect(findings(withFeedRule(rule)), JSON.stringify(rule)).toEqual([
        ['not-judged', expect.stringMatching(/whether its egress policies let it out is not known/)],
      ]);
  });

  it("judges the URL its variable sets, at the variable; an empty one is the image's default; one from a Secret is not judged", () => {
    expect(findings(withApiEnv([{ name: 'BLOG_FEED_URL', value: 'http://blog.example.net/rss.xml' }]))).toEqual([
      [
        'fail',
        expect.stringMatching(
          /dials http:\/\/blog\.example\.net\/rss\.xml \(its BLOG_FEED_URL\) on 80\/TCP, and the egress policies .* have no rule that lets it reach blog\.example\.net on that port:/,
        ),
      ],
    ]);
    expect(findings(withApiEnv([{ name: 'BLOG_FEED_URL', value: '' }]))).toEqual([]);
    // A Service's name in the cluster is network-policy-egress-path's.
    expect(findings(withApiEnv([{ name: 'BLOG_FEED_URL', value: 'http://blog.web.svc:8080/rss.xml' }]))).toEqual([]);
    expect(findings(withApiEnv([{ name: 'BLOG_FEED_URL', valueFrom: { secretKeyRef: { name: 'portfolio-api', key: 'feed' } } }]))).toEqual([
      ['not-judged', expect.stringMatching(/sets BLOG_FEED_URL from a value the gate does not read/)],
    ]);
  });
});
