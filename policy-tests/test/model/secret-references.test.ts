/**
 * 1Password's secret references as External Secrets' 1Password SDK provider builds them (op://<vault>/<key>, the key's
 * one leading slash dropped) and the syntax 1Password documents for them; and the item and field a remote ref names.
 */
import { describe, expect, it } from 'vitest';
import { onBrokenCopy } from '../support/helpers.ts';
import { onePasswordReferenceProblem, templateKeysRead, templateParseProblem, vaultField } from '../../model/cluster/external-secrets.ts';

describe("the 1Password SDK provider's secret references", () => {
  it('takes an item and a field, with an optional section, by name or by ID, and a query after the field', () => {
    for (const key of [
      'sonarr/api-key',
      '/sonarr/api-key',
      'nas snmpv3/SNMP_AUTH_PASSWORD',
      'grafana-admin/login/password',
      'github/one-time password?attribute=otp',
      'abcdefghijklmnopqrstuvwxyz/password',
    ])
      expect(onePasswordReferenceProblem('homelab', key), key).toBeUndefined();
  });

  it('refuses an item alone, too many parts, an empty part and characters the syntax does not take', () => {
    expect(onePasswordReferenceProblem('homelab', 'sonarr')).toBe('it names an item and no field');
    expect(onePasswordReferenceProblem('homelab', 'a/b/c/d')).toContain('4 parts after the vault');
    expect(onePasswordReferenceProblem('homelab', 'sonarr//api-key')).toBe('it has an empty part');
    // TrimPrefix drops one slash: a second leaves an empty item.
    expect(onePasswordReferenceProblem('homelab', '//sonarr/api-key')).toBe('it has an empty part');
    expect(onePasswordReferenceProblem('homelab', 'sonarr/api:key')).toContain('"api:key" holds a character');
    expect(onePasswordReferenceProblem('home/lab', 'sonarr/api-key')).toBeDefined();
  });

  it("reads the item and field of either provider's form", () => {
    expect(vaultField({ key: 'sonarr/api-key' })).toEqual({ item: 'sonarr', field: 'api-key' });
    expect(vaultField({ key: 'sonarr', property: 'api-key' })).toEqual({ item: 'sonarr', field: 'api-key' });
    expect(vaultField({ key: 'github/one-time password?attribute=otp' })).toEqual({ item: 'github', field: 'one-time password' });
    expect(vaultField({ key: 'backup-restic' })).toEqual({ item: 'backup-restic' });
    expect(vaultField({ key: '' })).toBeUndefined();
  });
});

describe("an ExternalSecret template's parse, as External Secrets v2.9.0 parses it", () => {
  it('takes text/template, the sprig functions it vendors and its own; refuses another function, env, and a broken action', () => {
    for (const ok of [
      'plain text, no action',
      '{{ .password | b64dec | quote }}',
      '{{ .archive | pkcs12cert }}{{ .jwk | jwkPublicKeyPem }}{{ .conf | fromYaml | toYaml }}',
      '{{ index . "a-key" | trim | upper }}{{ if eq .x "y" }}z{{ end }}',
    ])
      expect(templateParseProblem('k', ok), ok).toBeUndefined();
    expect(templateParseProblem('k', '{{ .password | b64decode }}')).toMatch(/^template: k:1: function "b64decode" not defined$/);
    // Left out of the sprig map External Secrets vendors, so that no template reads its environment.
    expect(templateParseProblem('k', '{{ env "HOME" }}')).toMatch(/function "env" not defined/);
    expect(templateParseProblem('k', '{{ .password }')).toMatch(/^template: k:1: /);
    expect(templateParseProblem('k', '{{ if .x }}open')).toMatch(/unexpected EOF/);
  });
});

describe("the keys an ExternalSecret's template reads (engine v2, missingkey=error)", () => {
  it('reads the first name of each field chain and each index of the data, in and out of pipelines', () => {
    expect(templateKeysRead('{{ .repository }}/app-config')).toEqual(['repository']);
    expect(templateKeysRead('user: x\ntoken: "{{ .token }}"\npass: {{ .password | b64dec | quote }}')).toEqual(['token', 'password']);
    expect(templateKeysRead('{{ index . "service-account-token" }} {{- .trimmed -}}')).toEqual(['service-account-token', 'trimmed']);
    expect(templateKeysRead('{{ .a.b }} {{ (pkcs12cert .archive).x }}')).toEqual(['a', 'archive']);
  });
  it('reads nothing from text, a quoted dot or a comment, and gives up where `.` moves', () => {
    expect(templateKeysRead('plain text, {{ "x.y" }} {{/* .not */}}')).toEqual([]);
    for (const moved of ['{{ range $k, $v := . }}{{ $k }}{{ end }}', '{{ with .a }}{{ .b }}{{ end }}', '{{ template "t" . }}'])
      expect(templateKeysRead(moved), moved).toBeUndefined();
  });
});

describe("closure-secret-key on the real repository's ExternalSecret templates", () => {
  it('says not judged a template that moves `.`, where the keys it reads are not read', async () => {
    const FILE = 'monitoring/pve-exporter/externalsecret.yaml';
    const { failed, notJudged } = await onBrokenCopy('closure-secret-key', (c) =>
      c.write(FILE, c.read(FILE).replace('pve-root-ca.pem: "{{ .ca }}"', 'pve-root-ca.pem: "{{ range $k, $v := . }}{{ $v }}{{ end }}"')),
    );
    expect(failed).toEqual([]);
    expect(notJudged).toContainEqual(
      "ExternalSecret pve-exporter's template pve-root-ca.pem moves `.` (range, with, a variable, another template): the keys it reads are not judged",
    );
  });

  it('says not judged, once per store entry, what templates read from a dataFrom the repository does not spell', async () => {
    const { failed, notJudged } = await onBrokenCopy('closure-secret-key', () => undefined);
    expect(failed).toEqual([]);
    expect(notJudged).toEqual([
      expect.stringMatching(
        /^the templates of 12 ExternalSecrets \(media\/bazarr-4k-config-restic, .*\) read accessKey, password, repository, secretKey from the store's entries \["volsync-restic"\] \(dataFrom\), whose keys the repository does not say: whether each is there is not judged/,
      ),
      expect.stringMatching(
        /^the templates of 3 ExternalSecrets \(media-vpn\/backup-restic, media\/backup-restic, backups\/backup-restic\) read accessKey, manifestKey, password, repository, secretKey from the store's entries \["backup-restic"\]/,
      ),
    ]);
  });
});
