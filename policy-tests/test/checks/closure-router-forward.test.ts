/**
 * The router's port forward (the cluster facts' nodeNetwork.forwards) on the rendered proxies: the public proxy's
 * Service asks MetalLB for the forwarded address and serves each forwarded port there, or closure-load-balancer fails.
 */
import { describe, expect, it } from 'vitest';
import { describeMutations, useSetupCopy } from '../support/mutation-runner.ts';
import { routerForwardMutations, standInTraefik } from '../mutations/router-forward.ts';
import { copyGateOptions } from '../support/helpers.ts';
import { allFindings, runGate } from '../../gate/gate.ts';

describeMutations('the router forward bites on a broken copy of the real repository, the proxies rendered', routerForwardMutations, standInTraefik());

describe('the repository as it is, the proxies rendered', () => {
  const rendered = useSetupCopy(standInTraefik());

  it("gives no finding, and judges the forward: the public proxy's Service asks for 192.168.1.240 and serves 80 and 443", async () => {
    const { copy, options } = rendered();
    const result = await runGate({ ...copyGateOptions(copy.root), ...options });
    expect(allFindings(result)).toEqual([]);
    expect(result.notJudged.filter((f) => f.check === 'closure-load-balancer').map((f) => f.message)).toEqual([]);
  });
});
