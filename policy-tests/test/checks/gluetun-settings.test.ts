/** media-gluetun-settings on a broken copy of the real repository; what gluetun takes passes (an old name, its words), in media-vpn-sidecars too. */
import { describe, expect, it } from 'vitest';
import { onBrokenCopy } from '../support/helpers.ts';
import { describeMutations } from '../support/mutation-runner.ts';
import { swap } from '../mutations/edits.ts';
import { gluetunSettingsMutations, settingsFromEnvFrom } from '../mutations/gluetun-settings.ts';
import { gluetunProblems, gosettingsValue, readerProblem, type GluetunReference } from '../../model/apps/gluetun.ts';

const GLUETUN = 'apps/media/gluetun/deployment.yaml';
const CHECK = 'media-gluetun-settings';

describeMutations('media-gluetun-settings bites on a broken copy of the real repository', gluetunSettingsMutations);

describe('media-gluetun-settings', () => {
  it("holds the kubelet's service links to what gluetun reads: none where the pod turns them off, a headless Service or another namespace's makes none, the container's own wins", async () => {
    const SERVICES = 'apps/media/gluetun/service.yaml';
    // The media app's Services are in media (the VPN app's kustomization puts all of its own in media-vpn).
    const openvpn =
      (namespace: string, extra = '') =>
      (c: Parameters<ReturnType<typeof swap>>[0]) => {
        const file = namespace === 'media-vpn' ? SERVICES : 'apps/media/sonarr/service.yaml';
        c.write(
          file,
          `${c.read(file)}---\napiVersion: v1\nkind: Service\nmetadata:\n  name: openvpn\n  namespace: ${namespace}\nspec:\n${extra}  ports:\n    - port: 1194\n      protocol: UDP\n`,
        );
      };
    const both =
      (...edits: ((c: Parameters<ReturnType<typeof swap>>[0]) => void)[]) =>
      (c: Parameters<ReturnType<typeof swap>>[0]) =>
        edits.forEach((e) => e(c));
    expect((await onBrokenCopy(CHECK, openvpn('media-vpn'))).failed.map((f) => f.message)).toEqual([
      expect.stringContaining('Service media-vpn/openvpn gives it OPENVPN_PORT=udp://<its cluster IP>:1194'),
    ]);
    const linksOff = swap(GLUETUN, '    spec:\n', '    spec:\n      enableServiceLinks: false\n');
    expect((await onBrokenCopy(CHECK, both(openvpn('media-vpn'), linksOff))).failed).toEqual([]);
    expect((await onBrokenCopy(CHECK, openvpn('media-vpn', '  clusterIP: None\n'))).failed).toEqual([]);
    expect((await onBrokenCopy(CHECK, openvpn('media'))).failed).toEqual([]);
    const own = swap(
      GLUETUN,
      '            - name: VPN_TYPE\n',
      '            - name: OPENVPN_PORT\n              value: "1194"\n            - name: VPN_TYPE\n',
    );
    expect((await onBrokenCopy(CHECK, both(openvpn('media-vpn'), own))).failed).toEqual([]);
  });

  it('passes an old name gluetun still reads, a value in quotes and capitals, and a boolean in another of its words', async () => {
    const takes = (c: Parameters<ReturnType<typeof swap>>[0]) => {
      swap(GLUETUN, '            - name: FIREWALL_OUTBOUND_SUBNETS\n', '            - name: EXTRA_SUBNETS\n')(c);
      swap(GLUETUN, '              value: wireguard\n', `              value: "'WireGuard'"\n`)(c);
      swap(GLUETUN, '              value: "on"\n', '              value: "Yes"\n')(c);
    };
    expect((await onBrokenCopy(CHECK, takes)).failed).toEqual([]);
    // media-vpn-sidecars reads the resolver and the subnets as gluetun does: the old name, another of its words.
    expect((await onBrokenCopy('media-vpn-sidecars', takes)).failed).toEqual([]);
  });

  it('media-vpn-sidecars reads the resolver and the subnets an envFrom ConfigMap gives, as gluetun does', async () => {
    const moved = (keep: string) => (c: Parameters<ReturnType<typeof swap>>[0]) => {
      swap(
        GLUETUN,
        '            - name: DNS_KEEP_NAMESERVER\n              value: "on"\n            - name: FIREWALL_OUTBOUND_SUBNETS\n              value: 10.244.0.0/16,10.96.0.0/12\n',
        '',
      )(c);
      settingsFromEnvFrom({ DNS_KEEP_NAMESERVER: keep, FIREWALL_OUTBOUND_SUBNETS: '10.244.0.0/16,10.96.0.0/12' })(c);
    };
    expect(await onBrokenCopy('media-vpn-sidecars', moved('on'))).toMatchObject({ failed: [], notJudged: [] });
    expect((await onBrokenCopy('media-vpn-sidecars', moved('off'))).failed.map((f) => f.message)).toEqual([
      expect.stringContaining('must keep the cluster resolver'),
    ]);
  });

  it('media-vpn-sidecars still fails a resolver gluetun reads as off', async () => {
    const { failed } = await onBrokenCopy('media-vpn-sidecars', swap(GLUETUN, '              value: "on"\n', '              value: "Disabled"\n'));
    expect(failed.map((f) => f.message)).toEqual([expect.stringContaining('must keep the cluster resolver')]);
  });

  it('reads the settings an envFrom ConfigMap gives (a key gluetun does not read held against it where gluetun alone takes it), and says an unread source not judged', async () => {
    const given = settingsFromEnvFrom;
    expect(await onBrokenCopy(CHECK, given({ HEALTH_SUCCESS_WAIT_DURATION: '5s' }))).toMatchObject({ failed: [], notJudged: [] });
    // A key gluetun does not read, in a source gluetun alone takes, is a setting meant and not made.
    const dedicated = (await onBrokenCopy(CHECK, given({ UMASK: '002', HEALTH_SUCCESS_WAIT_DURATION: '5s' }))).failed;
    expect(dedicated.map((f) => `${f.file} ${f.message}`)).toEqual([
      expect.stringMatching(
        /^apps\/media\/gluetun\/deployment\.yaml container gluetun: .*reads no UMASK.*\(a key of ConfigMap gluetun-settings, which only gluetun takes\)$/,
      ),
    ]);
    // The same source taken by another container of the pod too may hold keys for it: left alone.
    const shared = (c: Parameters<ReturnType<typeof swap>>[0]) => {
      given({ UMASK: '002' })(c);
      swap(
        GLUETUN,
        '          image: lscr.io/linuxserver/prowlarr:2.1.5\n',
        '          image: lscr.io/linuxserver/prowlarr:2.1.5\n          envFrom:\n            - configMapRef:\n                name: gluetun-settings\n',
      )(c);
    };
    expect(await onBrokenCopy(CHECK, shared)).toMatchObject({ failed: [], notJudged: [] });
    // env wins over envFrom: the source's provider is never read.
    expect((await onBrokenCopy(CHECK, given({ VPN_SERVICE_PROVIDER: 'nope' }))).failed).toEqual([]);
    const unread = await onBrokenCopy(
      CHECK,
      swap(
        GLUETUN,
        '          env:\n            - name: VPN_SERVICE_PROVIDER\n',
        '          envFrom:\n            - secretRef:\n                name: made-by-hand\n          env:\n            - name: VPN_SERVICE_PROVIDER\n',
      ),
    );
    expect(unread.failed).toEqual([]);
    expect(unread.notJudged).toEqual([expect.stringContaining('takes variables from an envFrom source whose keys the repository does not say')]);
  });

  it('says a gluetun the reference was not read for is not judged', async () => {
    const { failed, notJudged } = await onBrokenCopy(CHECK, swap(GLUETUN, 'qmcgaw/gluetun:v3.40.4', 'qmcgaw/gluetun:v3.41.1'));
    expect(failed).toEqual([]);
    expect(notJudged).toEqual([expect.stringContaining('runs gluetun v3.41.1, the reference was read for 3.40.4')]);
  });
});

const REF: GluetunReference = {
  version: '3.40.4',
  env: { VPN_SERVICE_PROVIDER: 'pia', VPN_TYPE: 'openvpn', TZ: '' },
  settings: {
    VPN_TYPE: { read: 'String' },
    VPN_SERVICE_PROVIDER: { read: 'String' },
    HEALTH_SUCCESS_WAIT_DURATION: { read: 'Duration' },
    PUID: { read: 'Uint32Ptr' },
  },
  deprecated: { VPNSP: 'VPN_SERVICE_PROVIDER' },
  vpnTypes: ['openvpn', 'wireguard'],
  providers: { custom: 'custom', all: ['mullvad', 'private internet access'], wireguard: ['custom', 'mullvad'] },
};

describe("the port of gluetun's settings reader", () => {
  it('trims spaces and quotes over and over, and lower-cases unless the setting keeps its case', () => {
    expect(gosettingsValue(` "'On'" `, false)).toBe('on');
    expect(gosettingsValue('Key=', true)).toBe('Key=');
  });

  it("parses as gosettings' readers do: base 10 only, a Go duration, ranges", () => {
    expect(readerProblem('Uint16Ptr', '0x10')).toContain('invalid syntax');
    expect(readerProblem('Uint16Ptr', '65536')).toContain('not in range');
    expect(readerProblem('Duration', '5 s')).toBeDefined();
    expect(readerProblem('Duration', '1m30s')).toBeUndefined();
    expect(readerProblem('CSVNetipPrefixes', '10.0.0.0/8,fd00::/8')).toBeUndefined();
    expect(readerProblem('BoolPtr', 'enabled')).toBeUndefined();
  });

  it("takes the image's defaults where nothing is set: OpenVPN with Private Internet Access; Wireguard with it is refused", () => {
    expect(gluetunProblems([], REF, { whole: true })).toEqual([]);
    expect(gluetunProblems([{ name: 'VPN_TYPE', value: 'wireguard' }], REF, { whole: true }).map((p) => p.message)).toEqual([
      expect.stringContaining('refuses VPN provider "private internet access" with wireguard'),
    ]);
  });

  it('reads an old name before the new one, and judges no default where an envFrom may set it', () => {
    const env = [
      { name: 'VPN_TYPE', value: 'wireguard' },
      { name: 'VPN_SERVICE_PROVIDER', value: 'nope' },
      { name: 'VPNSP', value: 'mullvad' },
    ];
    expect(gluetunProblems(env, REF, { whole: true })).toEqual([]);
    expect(gluetunProblems([{ name: 'VPN_TYPE', value: 'wireguard' }], REF, { whole: false })).toEqual([]);
    expect(
      gluetunProblems(
        [
          { name: 'VPN_TYPE', value: 'wireguard' },
          { name: 'VPN_SERVICE_PROVIDER', valueFrom: { secretKeyRef: { name: 'vpn', key: 'provider' } } },
        ],
        REF,
        { whole: true },
      ),
    ).toEqual([]);
  });

  it("reads as gosettings' get does: a name in any case, emptiness before trimming, the winner alone parsed", () => {
    const messages = (env: { name: string; value: string }[]) => gluetunProblems(env, REF, { whole: true }).map((p) => p.message);
    // KeyTransform: gluetun knows vpn-type as VPN_TYPE.
    expect(messages([{ name: 'vpn-type', value: 'wireguard' }])).toEqual([expect.stringContaining('refuses VPN provider')]);
    // " " is set: it wins over nothing else, trims to "", and strconv refuses "" as a number; a boolean reads it as unset.
    expect(messages([{ name: 'PUID', value: ' ' }])).toEqual([expect.stringContaining('cannot read PUID (strconv.ParseUint: parsing "": invalid syntax)')]);
    expect(readerProblem('BoolPtr', '')).toBeUndefined();
    // The old name, set, is the one read: the new one's value is never parsed.
    expect(messages([{ name: 'HEALTH_SUCCESS_WAIT_DURATION', value: 'soon' }])).toEqual([expect.stringContaining('cannot read HEALTH_SUCCESS_WAIT_DURATION')]);
    expect(
      gluetunProblems(
        [
          { name: 'VPNSP', value: 'mullvad' },
          { name: 'VPN_SERVICE_PROVIDER', value: "'" },
        ],
        REF,
        { whole: true },
      ),
    ).toEqual([]);
  });
});
