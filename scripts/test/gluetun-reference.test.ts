/**
 * npm run gluetun:reference: the reference read from a local clone of gluetun at a tag (its Dockerfile's ENV with the
 * defaults, its settings' reader calls with their old names, its providers and VPN types), and the refusals: no --from
 * (a usage error), a tag the clone lacks, sources that no longer read as expected.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { dockerfileEnv, main, readerCalls } from '../media/gluetun-reference.ts';
import { capture } from '../../test-support/capture-io.ts';
import { taggedClone, type TaggedClone } from '../../test-support/tagged-clone.ts';

const DOCKERFILE = `FROM alpine
LABEL a=b \\
    c=d
ENV VPN_SERVICE_PROVIDER=pia \\
    VPN_TYPE=openvpn \\
    # Firewall
    FIREWALL_INPUT_PORTS= \\
    PUBLICIP_FILE="/tmp/gluetun/ip"
RUN true
`;
const FIREWALL_GO = `package settings

func (f *Firewall) read(r *reader.Reader) (err error) {
	f.InputPorts, err = r.CSVUint16("FIREWALL_INPUT_PORTS")
	f.OutboundSubnets, err = r.CSVNetipPrefixes(
		"FIREWALL_OUTBOUND_SUBNETS", reader.RetroKeys("EXTRA_SUBNETS"))
	f.Password = r.Get("FIREWALL_PASSWORD", reader.ForceLowercase(false))
	return nil
}
`;
const PROVIDERS_GO = `package providers

const (
	Custom  = "custom"
	Mullvad = "mullvad"
	Pia     = "private internet access"
)

func All() []string {
	return []string{
		Mullvad,
		Pia,
	}
}
`;
const PROVIDER_GO = `package settings

func (p *Provider) validate(vpnType string) (err error) {
	if vpnType == vpn.OpenVPN {
		validNames = providers.AllWithCustom()
	} else { // Wireguard
		validNames = []string{
			providers.Custom,
			providers.Mullvad,
		}
	}
	return nil
}
`;
const PORT_FORWARD_GO = `package settings

func (p PortForwarding) Validate(vpnProvider string) (err error) {
	validProviders := []string{
		providers.Pia,
	}
	return validate.IsOneOf(providerSelected, validProviders...)
}
`;
const VPN_GO = 'package vpn\n\nconst (\n\tOpenVPN   = "openvpn"\n\tWireguard = "wireguard"\n)\n';

describe("gluetun's Dockerfile and reader calls", () => {
  it('reads the ENV instruction through a comment line, each variable with its default', () => {
    expect(dockerfileEnv(DOCKERFILE)).toEqual({ FIREWALL_INPUT_PORTS: '', PUBLICIP_FILE: '/tmp/gluetun/ip', VPN_SERVICE_PROVIDER: 'pia', VPN_TYPE: 'openvpn' });
  });
  it('reads each call over lines, with its old names and whether it keeps the case', () => {
    expect(readerCalls(FIREWALL_GO)).toEqual([
      { method: 'CSVUint16', name: 'FIREWALL_INPUT_PORTS', retro: [], keepsCase: false },
      { method: 'CSVNetipPrefixes', name: 'FIREWALL_OUTBOUND_SUBNETS', retro: ['EXTRA_SUBNETS'], keepsCase: false },
      { method: 'Get', name: 'FIREWALL_PASSWORD', retro: [], keepsCase: true },
    ]);
  });

  it('reads a call of old names alone (IsRetro, a literal or the constant declared nearest before it) as old names of the current key', () => {
    const go = `func a(r *reader.Reader) {
	port, err := r.Uint16Ptr("",
		reader.RetroKeys("HTTPPROXY_PORT", "PROXY_PORT"),
		reader.IsRetro("HTTPPROXY_LISTENING_ADDRESS"))
	const currentKey = "HTTPPROXY_LISTENING_ADDRESS"
	return r.String(currentKey)
}
func b(r *reader.Reader) {
	const currentKey = "SHADOWSOCKS_LISTENING_ADDRESS"
	port, err := r.Uint16Ptr("SHADOWSOCKS_PORT", reader.IsRetro(currentKey))
}`;
    expect(readerCalls(go)).toEqual([
      { method: 'Uint16Ptr', name: 'HTTPPROXY_LISTENING_ADDRESS', retro: ['HTTPPROXY_PORT', 'PROXY_PORT'], keepsCase: false, retroOnly: true },
      { method: 'Uint16Ptr', name: 'SHADOWSOCKS_LISTENING_ADDRESS', retro: ['SHADOWSOCKS_PORT'], keepsCase: false, retroOnly: true },
    ]);
  });
});

describe('gluetun:reference', () => {
  let clone: TaggedClone;
  let upstream: string;
  let root: string;
  beforeAll(async () => {
    clone = await taggedClone('gluetun', 'v3.50.0', {
      files: {
        Dockerfile: DOCKERFILE,
        'internal/configuration/settings/firewall.go': FIREWALL_GO,
        'internal/configuration/settings/firewall_test.go': 'package settings\n\nvar r *reader.Reader\nvar _ = r.String("TEST_ONLY")\n',
        'internal/configuration/settings/provider.go': PROVIDER_GO,
        'internal/configuration/settings/portforward.go': PORT_FORWARD_GO,
        'internal/constants/providers/providers.go': PROVIDERS_GO,
        'internal/constants/vpn/protocol.go': VPN_GO,
      },
      rootDirs: ['apps/media/gluetun/facts'],
    });
    ({ upstream, root } = clone);
  });
  afterAll(() => clone.dispose());

  it('writes the reference of the tag: the declared variables, the reads but tests, the old names, providers and types', async () => {
    const { out, io } = capture();
    expect(await main(['--from', upstream, '--ref', 'v3.50.0', '--root', root], io)).toBe(0);
    expect(out.stdout).toBe('wrote apps/media/gluetun/facts/settings-reference.yaml: 4 declared variables, 3 read, 1 old names, gluetun 3.50.0\n');
    const written = parse(await readFile(join(root, 'apps/media/gluetun/facts/settings-reference.yaml'), 'utf8'));
    expect(written).toMatchObject({
      version: '3.50.0',
      source: { ref: 'v3.50.0' },
      settings: { FIREWALL_INPUT_PORTS: { read: 'CSVUint16' }, FIREWALL_PASSWORD: { read: 'Get', keepsCase: true } },
      deprecated: { EXTRA_SUBNETS: 'FIREWALL_OUTBOUND_SUBNETS' },
      vpnTypes: ['openvpn', 'wireguard'],
      providers: {
        custom: 'custom',
        all: ['mullvad', 'private internet access'],
        wireguard: ['custom', 'mullvad'],
        portForwarding: ['private internet access'],
      },
    });
    expect(written.settings.TEST_ONLY).toBeUndefined();
  });

  it('a tag the clone lacks is one line and exit 1; without --from a usage error; --chart-version is no option of it', async () => {
    const missing = capture();
    expect(await main(['--from', upstream, '--ref', 'v9.9.9', '--root', root], missing.io)).toBe(1);
    expect(missing.out.stderr).toMatch(/^gluetun:reference: cannot (read|search) .+ at v9\.9\.9 .+\n$/);
    const usage = capture();
    expect(await main(['--ref', 'v3.50.0', '--root', root], usage.io)).toBe(2);
    const chart = capture();
    expect(await main(['--from', upstream, '--chart-version', '1.0.0', '--root', root], chart.io)).toBe(2);
  });
});
