/**
 * network-policy-webhook-path beyond its mutation (a webhook served by the API's Service, which its policies shut to
 * the API server): the API server is let in by a NetworkPolicy rule with no peer or Cilium's entities that hold it,
 * never by a namespace or pod peer; an address block or one node entity is said not judged; a CRD's conversion
 * webhook and an APIService are judged like a webhook configuration's. And closure-service holds the Service each
 * calls to exist with the port it dials.
 */
import { describe, expect, it } from 'vitest';
import { webhookPathCheck } from '../../checks/network-policy/webhook-path.ts';
import { serviceClosureCheck } from '../../checks/closure/services.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const template = repo.resources.find((r) => r.kind === 'Service' && r.name === 'portfolio-api')!;
const API_VERSIONS: Record<string, string> = {
  ValidatingWebhookConfiguration: 'admissionregistration.k8s.io/v1',
  CustomResourceDefinition: 'apiextensions.k8s.io/v1',
  APIService: 'apiregistration.k8s.io/v1',
  NetworkPolicy: 'networking.k8s.io/v1',
  CiliumNetworkPolicy: 'cilium.io/v2',
};
const make = (kind: string, name: string, namespace: string | undefined, body: Record<string, unknown>) => {
  const apiVersion = API_VERSIONS[kind]!;
  return {
    ...template,
    apiVersion,
    kind,
    name,
    namespace,
    object: { apiVersion, kind, metadata: { name, ...(namespace ? { namespace } : {}) }, ...body },
  } as unknown as Resource;
};
const service = { namespace: 'portfolio', name: 'portfolio-api', port: 80 };
const webhook = (failurePolicy = 'Fail') =>
  make('ValidatingWebhookConfiguration', 'content', undefined, {
    webhooks: [{ name: 'content.example.dev', failurePolicy, clientConfig: { service }, sideEffects: 'None', admissionReviewVersions: ['v1'] }],
  });
/** The API's own ingress policy with one more rule, in the kind given. */
const letIn = (rule: Record<string, unknown>, kind = 'NetworkPolicy') =>
  kind === 'NetworkPolicy'
    ? make(kind, 'api-server-in', 'portfolio', {
        spec: { podSelector: { matchLabels: { 'app.kubernetes.io/name': 'portfolio-api' } }, policyTypes: ['Ingress'], ingress: [rule] },
      })
    : make(kind, 'api-server-in', 'portfolio', {
        spec: { endpointSelector: { matchLabels: { 'app.kubernetes.io/name': 'portfolio-api' } }, ingress: [rule] },
      });
const findings = (...extra: Resource[]) =>
  runPolicy({ ...repo, resources: [...repo.resources, ...extra] } as Repo, [webhookPathCheck]).map((f) => [f.severity ?? 'fail', f.message]);
const SHUT =
  /sends the API server to Service portfolio\/portfolio-api \(port 80, the port http of Deployment portfolio-api's pods\), and the ingress policies .* let no call of the API server in/;

describe('network-policy-webhook-path', () => {
  it("passes the repository's own webhooks: none is served where a policy isolates its pods", () => {
    expect(findings()).toEqual([]);
  });

  it('fails a webhook whose pods only pods may reach, with what its failurePolicy loses', () => {
    expect(findings(webhook())).toEqual([['fail', expect.stringMatching(new RegExp(`${SHUT.source}.*refused \\(failurePolicy Fail\\)$`))]]);
    expect(findings(webhook('Ignore'))).toEqual([['fail', expect.stringMatching(/goes through unchecked after its timeout \(failurePolicy Ignore\)$/)]]);
    expect(findings(webhook(), letIn({ from: [{ namespaceSelector: {} }] }))).toEqual([['fail', expect.stringMatching(SHUT)]]);
    expect(findings(webhook(), letIn({ fromEndpoints: [{}] }, 'CiliumNetworkPolicy'))).toEqual([['fail', expect.stringMatching(SHUT)]]);
  });

  it("lets the API server in by a rule with no peer, Cilium's kube-apiserver, cluster or all, or ports alone", () => {
    expect(findings(webhook(), letIn({ ports: [{ port: 'http' }] }))).toEqual([]);
    for (const entity of ['kube-apiserver', 'cluster', 'all'])
      expect(findings(webhook(), letIn({ fromEntities: [entity] }, 'CiliumNetworkPolicy'))).toEqual([]);
    expect(findings(webhook(), letIn({ toPorts: [{ ports: [{ port: '3000', protocol: 'TCP' }] }] }, 'CiliumNetworkPolicy'))).toEqual([]);
    // A rule for the Service's port is no rule for the pod's: Cilium sees the pod port after translation.
    expect(
      findings(webhook(), letIn({ fromEntities: ['kube-apiserver'], toPorts: [{ ports: [{ port: '80', protocol: 'TCP' }] }] }, 'CiliumNetworkPolicy')),
    ).toEqual([['fail', expect.stringMatching(SHUT)]]);
  });

  it('judges an address block by the control-plane nodes it holds, and says one node entity is not judged', () => {
    // The cluster facts' nodes, under the repository's Cilium (policyCIDRMatchMode: [nodes]).
    expect(findings(webhook(), letIn({ from: [{ ipBlock: { cidr: '192.168.1.0/24' } }] }))).toEqual([]);
    expect(findings(webhook(), letIn({ from: [{ ipBlock: { cidr: '192.168.1.11/32' } }] }))).toEqual([
      [
        'fail',
        expect.stringMatching(
          /an address block lets the API server through only where it holds every control-plane node of the cluster facts: 192\.168\.1\.11, 192\.168\.1\.12, 192\.168\.1\.13\)/,
        ),
      ],
    ]);
    expect(findings(webhook(), letIn({ fromEntities: ['host'] }, 'CiliumNetworkPolicy'))).toEqual([['not-judged', expect.stringMatching(/is not known/)]]);
  });

  it("judges a CRD's conversion webhook and an APIService like a webhook configuration's", () => {
    const crd = make('CustomResourceDefinition', 'widgets.example.dev', undefined, {
      spec: { conversion: { strategy: 'Webhook', webhook: { clientConfig: { service }, conversionReviewVersions: ['v1'] } } },
    });
    expect(findings(crd)).toEqual([
      ['fail', expect.stringMatching(/^CustomResourceDefinition widgets\.example\.dev's conversion webhook .*cannot be read or written/)],
    ]);
    const api = make('APIService', 'v1beta1.metrics.k8s.io', undefined, { spec: { service } });
    expect(findings(api)).toEqual([['fail', expect.stringMatching(/^APIService v1beta1\.metrics\.k8s\.io .*the aggregated API answers nothing/)]]);
  });
});

describe('closure-service, for the Services the API server calls', () => {
  const closure = (...extra: Resource[]) => {
    const base = runPolicy(repo, [serviceClosureCheck]).map((f) => f.message);
    return runPolicy({ ...repo, resources: [...repo.resources, ...extra] } as Repo, [serviceClosureCheck])
      .map((f) => f.message)
      .filter((m) => !base.includes(m));
  };
  const to = (ref: Record<string, unknown>) =>
    make('ValidatingWebhookConfiguration', 'content', undefined, {
      webhooks: [{ name: 'content.example.dev', clientConfig: { service: ref }, sideEffects: 'None', admissionReviewVersions: ['v1'] }],
    });

  it('fails a webhook sent to a Service or a port that is not there, and passes one that is', () => {
    expect(closure(to(service))).toEqual([]);
    expect(closure(to({ ...service, name: 'portfolio-apii' }))).toEqual([
      expect.stringMatching(
        /sends the API server to Service portfolio\/portfolio-apii, which nothing in the repository provides: each call fails, and each request it intercepts is refused/,
      ),
    ]);
    expect(closure(to({ namespace: 'portfolio', name: 'portfolio-api' }))).toEqual([
      expect.stringMatching(/sends the API server to port 443 of Service portfolio\/portfolio-api, which has no such port/),
    ]);
  });
});
