/** Network policies: what each allows, the CNI that enforces them, the paths a connection takes (ingress, scrapes, dials at both ends and their lookups, the API server both ways), and default deny. */
import { type PolicyCheck, type Area, staticArea } from '../../model/checks/kit.ts';
import { ciliumAcceptedCheck } from './cilium-accepted.ts';
import { cniChecks } from './cni.ts';
import { defaultDenyChecks } from './default-deny.ts';
import { ingressPathCheck } from './ingress.ts';
import { networkPolicyChecks } from './network-policy.ts';
import { nodeCidrCheck } from './node-cidr.ts';
import { podCidrCheck } from './pod-cidr.ts';
import { scrapePathCheck } from './scrape-path.ts';
import { egressPathCheck } from './egress-path.ts';
import { apiEgressCheck } from './api-egress.ts';
import { webhookPathCheck } from './webhook-path.ts';
import { dialIngressCheck } from './dial-ingress.ts';
import { dnsEgressCheck } from './dns-egress.ts';
import { externalIpsCheck } from './external-ips.ts';
import { externalEgressCheck } from './external-egress.ts';

export const networkPolicyAreaChecks: PolicyCheck[] = [
  ...networkPolicyChecks,
  ingressPathCheck,
  scrapePathCheck,
  egressPathCheck,
  dialIngressCheck,
  dnsEgressCheck,
  externalEgressCheck,
  apiEgressCheck,
  webhookPathCheck,
  ...cniChecks,
  ...defaultDenyChecks,
  nodeCidrCheck,
  podCidrCheck,
  ciliumAcceptedCheck,
  externalIpsCheck,
];

export const networkPolicyArea: Area = staticArea('network-policy', networkPolicyAreaChecks);
