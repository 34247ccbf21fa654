/** pve-exporter-trust on a broken copy of the real repository: the CA variable read as the kubelet sets it, envFrom included. */
import { describe, expect, it } from 'vitest';
import { onBrokenCopy, type RepoCopy } from '../support/helpers.ts';
import { configMapText, swap } from '../mutations/edits.ts';

const EXPORTER = 'monitoring/pve-exporter/deployment.yaml';
const CA_ENV =
  "          env:\n            # Python's requests trusts only its public roots unless given a CA file: the hosts' cluster CA.\n            - name: REQUESTS_CA_BUNDLE\n              value: /etc/pve-exporter/pve-root-ca.pem\n";

/** The CA variable moved out of the container's env into the source its envFrom names (`ref`), with `extra` appended to the file. */
const moved =
  (ref: string, extra = '') =>
  (c: RepoCopy) => {
    swap(EXPORTER, CA_ENV, `          envFrom:\n            - ${ref}:\n                name: pve-exporter-settings\n`)(c);
    c.write(EXPORTER, `${c.read(EXPORTER)}${extra}`);
  };

describe('pve-exporter-trust reads the CA variable as the kubelet sets it', () => {
  it('takes REQUESTS_CA_BUNDLE from a ConfigMap the container names in envFrom', async () => {
    const configMap = `---\n${configMapText({ name: 'pve-exporter-settings', namespace: 'monitoring', data: { REQUESTS_CA_BUNDLE: '/etc/pve-exporter/pve-root-ca.pem' } })}`;
    expect(await onBrokenCopy('pve-exporter-trust', moved('configMapRef', configMap))).toEqual({ failed: [], warned: [], notJudged: [] });
  });

  it('says not judged where a Secret it names holds the variable with a value the gate does not read', async () => {
    const external =
      '---\napiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata:\n  name: pve-exporter-settings\n  namespace: monitoring\nspec:\n  secretStoreRef: {kind: ClusterSecretStore, name: homelab}\n  target: {name: pve-exporter-settings}\n  data:\n    - secretKey: REQUESTS_CA_BUNDLE\n      remoteRef: {key: pve-exporter, property: ca-path}\n';
    const { failed, notJudged } = await onBrokenCopy('pve-exporter-trust', moved('secretRef', external));
    expect(failed).toEqual([]);
    expect(notJudged).toEqual([expect.stringContaining('takes its CA file from REQUESTS_CA_BUNDLE, set from a value the gate does not read')]);
  });
});
