/**
 * The gateway exporter's checks read its variables as the kubelet sets them: the keys of the Secrets and ConfigMaps
 * its envFrom names, its env over them (unpoller-source's login, unpoller-trust's address and pin).
 */
import { describe, expect, it } from 'vitest';
import { onBrokenCopy, type RepoCopy } from '../support/helpers.ts';
import { appendConfigMap, swap } from '../mutations/edits.ts';

const UNPOLLER = 'monitoring/unpoller/deployment.yaml';
const LOGIN =
  '            - name: UP_UNIFI_DEFAULT_USER\n              valueFrom:\n                secretKeyRef:\n                  name: unpoller\n                  key: username\n            - name: UP_UNIFI_DEFAULT_PASS\n              valueFrom:\n                secretKeyRef:\n                  name: unpoller\n                  key: password\n';

/** The login moved into Secret `secret` (an ExternalSecret's, or one made outside git), which the container's envFrom names. */
const loginFrom = (secret: string, written: boolean) => (c: RepoCopy) => {
  swap(UNPOLLER, LOGIN, '')(c);
  swap(
    UNPOLLER,
    '          env:\n            - name: UP_UNIFI_DEFAULT_URL\n',
    `          envFrom:\n            - secretRef:\n                name: ${secret}\n          env:\n            - name: UP_UNIFI_DEFAULT_URL\n`,
  )(c);
  if (written)
    c.write(
      UNPOLLER,
      `${c.read(UNPOLLER)}---\napiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata:\n  name: ${secret}\n  namespace: monitoring\nspec:\n  secretStoreRef: {kind: ClusterSecretStore, name: homelab}\n  target: {name: ${secret}}\n  data:\n    - secretKey: UP_UNIFI_DEFAULT_USER\n      remoteRef: {key: unifi/unpoller, property: username}\n    - secretKey: UP_UNIFI_DEFAULT_PASS\n      remoteRef: {key: unifi/unpoller, property: password}\n`,
    );
};

describe("the gateway exporter's variables, envFrom included", () => {
  it('unpoller-source takes the login from a Secret an ExternalSecret writes and the container names in envFrom, and fails one made outside git', async () => {
    expect((await onBrokenCopy('unpoller-source', loginFrom('unpoller-login', true))).failed).toEqual([]);
    expect((await onBrokenCopy('unpoller-source', loginFrom('unpoller-login', false))).failed.map((f) => f.message)).toEqual([
      'UP_UNIFI_DEFAULT_USER must come from a Secret written by an ExternalSecret',
      'UP_UNIFI_DEFAULT_PASS must come from a Secret written by an ExternalSecret',
    ]);
  });

  it('unpoller-trust reads the address and the pin a ConfigMap gives, and holds the pin to a mounted file', async () => {
    const pinFrom = (file: string) => (c: RepoCopy) => {
      swap(UNPOLLER, '            - name: UP_UNIFI_DEFAULT_SSL_CERT_PATH_0\n              value: /etc/unpoller/gateway/certificate.pem\n', '')(c);
      swap(
        UNPOLLER,
        '          env:\n            - name: UP_UNIFI_DEFAULT_URL\n',
        '          envFrom:\n            - configMapRef:\n                name: unpoller-pin\n          env:\n            - name: UP_UNIFI_DEFAULT_URL\n',
      )(c);
      appendConfigMap(UNPOLLER, { name: 'unpoller-pin', namespace: 'monitoring', data: { UP_UNIFI_DEFAULT_SSL_CERT_PATH_0: file } })(c);
    };
    expect((await onBrokenCopy('unpoller-trust', pinFrom('/etc/unpoller/gateway/certificate.pem'))).failed).toEqual([]);
    expect((await onBrokenCopy('unpoller-trust', pinFrom('/etc/ssl/gateway.pem'))).failed.map((f) => f.message)).toEqual([
      expect.stringContaining('unpoller pins the certificate in /etc/ssl/gateway.pem, which no volume of the container provides'),
    ]);
  });
});
