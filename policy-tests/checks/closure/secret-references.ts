/**
 * secret-store-reference: every remote ref an ExternalSecret reads through a 1Password SDK store is one that
 * provider resolves. External Secrets 2.9's `onepasswordSDK` provider resolves `op://<vault>/<key>` for a `data[]`
 * entry and never reads its `property` (that is the Connect provider's form), so the key must name the field itself:
 * `item/[section/]field`, in the characters 1Password's secret reference syntax takes; it implements no versions. A
 * reference it cannot resolve leaves the ExternalSecret failing to sync: its Secret is never written, and every pod
 * that reads it waits (CreateContainerConfigError). A `dataFrom.extract` names a whole item and may keep a property.
 */
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { objects } from '../../model/core/dig.ts';
import { scalarText } from '../../model/core/text.ts';
import { onePasswordReferenceProblem, onePasswordVaultOf, type RemoteRef } from '../../model/cluster/external-secrets.ts';

const CONSEQUENCE = 'the ExternalSecret never syncs, and its Secret is never written';

export const secretReferenceCheck: PolicyCheck = {
  id: 'secret-store-reference',
  description: `Every data[] remote ref an ExternalSecret reads through a 1Password SDK store (onepasswordSDK with a vault) is a secret reference that provider resolves: its key item/[section/]field (the provider resolves op://<vault>/<key> and reads no property), each name in the characters 1Password's syntax takes, no version; otherwise ${CONSEQUENCE} (invariants P1).`,
  invariants: ['P1'],
  remediation:
    'write the field into the key (key: sonarr/api-key), with no property and no version; name a part by its 1Password ID where its name holds other characters',
  reads: { kinds: ['ExternalSecret', 'ClusterSecretStore', 'SecretStore', 'Application'], renders: true },
  exemptible: false,
  run(ctx) {
    for (const es of ctx.resources.filter((r) => r.kind === 'ExternalSecret' && r.apiVersion.startsWith('external-secrets.io/'))) {
      const vault = onePasswordVaultOf(ctx.repo, ctx.resources, es);
      if (vault === undefined) continue;
      const data = objects((es.object.spec as { data?: unknown } | undefined)?.data) as { remoteRef?: RemoteRef }[];
      data.forEach((d, i) => {
        const ref = d.remoteRef ?? {};
        const at = (field: string) => ({ resource: es, path: ['spec', 'data', i, 'remoteRef', field] });
        const key = scalarText(ref.key ?? '');
        // The provider drops one leading slash: the reference is op://<vault>/<path>.
        const path = key.replace(/^\//, '');
        const problem = onePasswordReferenceProblem(vault, key);
        if (ref.version !== undefined && ref.version !== '')
          ctx.fail(
            at('version'),
            `the 1Password SDK provider implements no versions: reading ${key} at version ${scalarText(ref.version)} fails, so ${CONSEQUENCE}`,
          );
        if (ref.property !== undefined && ref.property !== '')
          ctx.fail(
            at('property'),
            `the 1Password SDK provider reads no property for a data[] entry: it resolves op://${vault}/${path}, not its field ${scalarText(ref.property)}${problem ? ', and that names no field' : ''}; write key: ${path}/${scalarText(ref.property)}`,
          );
        else if (problem) ctx.fail(at('key'), `op://${vault}/${path} is no secret reference 1Password resolves (${problem}), so ${CONSEQUENCE}`);
      });
    }
  },
};
