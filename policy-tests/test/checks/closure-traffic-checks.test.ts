/**
 * The closure's checks (closure/) of what traffic names bite on a broken copy of the real repository: a Service's
 * pods and ports, an Ingress's class, rules and middlewares, its TLS and the issuers behind it; a LoadBalancer of
 * another provider, and an Ingress served by its default backend. What a pod names: closure-checks.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeMutations } from '../support/mutation-runner.ts';
import { closureMutations, onTraffic } from '../mutations/closure.ts';
import { copyGateOptions, copyRepo, lineOf, useCopyWith, type RepoCopy } from '../support/helpers.ts';
import { throughChain } from '../mutations/edits.ts';
import { allFindings, runGate } from '../../gate/gate.ts';

describeMutations('platform checks (closure/: what traffic names) bite on a broken copy of the real repository', closureMutations.filter(onTraffic));

describe('a chain Middleware is followed to the Middlewares it names', () => {
  let copy: RepoCopy | undefined;
  beforeAll(() => {
    copy = copyRepo();
    throughChain('{name: portfolio-headers}', '{name: portfolio-headers, namespace: portfolio}')(copy);
  });
  afterAll(() => copy?.dispose());

  it('gives no finding where each it names is a Middleware of one type in its namespace', async () => {
    const result = await runGate(copyGateOptions(copy!.root));
    expect(allFindings(result)).toEqual([]);
  });
});

describe("a LoadBalancer of another provider's class is not MetalLB's, and not judged", () => {
  const FILE = 'apps/platform/ingress-public/other-class.yaml';
  const copy = useCopyWith(
    FILE,
    'apiVersion: v1\nkind: Service\nmetadata:\n  name: other-class\n  namespace: ingress\nspec:\n  type: LoadBalancer\n  loadBalancerClass: io.cilium/l2-announcer\n  selector: {app.kubernetes.io/name: traefik}\n  ports: [{name: web, port: 80, targetPort: web}]\n',
  );

  it('gives no finding, and lists the Service as not judged at its class', async () => {
    const result = await runGate(copyGateOptions(copy().root));
    expect(allFindings(result)).toEqual([]);
    expect(result.notJudged.filter((f) => f.check === 'closure-load-balancer' && f.file === FILE).map((f) => `${f.file}:${f.line} ${f.message}`)).toEqual([
      `${FILE}:${lineOf(copy(), FILE, 'loadBalancerClass:')} Service other-class: its loadBalancerClass "io.cilium/l2-announcer" is not MetalLB's, and its provider is not judged`,
    ]);
  });
});

describe('an Ingress with no rules, only a default backend, is served: Traefik reads it there', () => {
  const FILE = 'apps/media/sonarr/ingress.yaml';
  const copy = useCopyWith(
    FILE,
    'apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: sonarr\n  namespace: media\nspec:\n  ingressClassName: private-gateway\n  defaultBackend:\n    service:\n      name: sonarr\n      port:\n        name: http\n',
  );

  it('gives closure-ingress-rules no finding', async () => {
    const result = await runGate(copyGateOptions(copy().root));
    expect(allFindings(result).filter((f) => f.check === 'closure-ingress-rules')).toEqual([]);
  });
});
