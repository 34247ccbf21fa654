/** Mutations for media-gluetun-settings: the VPN container given what gluetun 3.40.4 exits on, or a variable it does not read. */
import type { Mutation } from '../support/mutation-runner.ts';
import { after, appendConfigMap, inFile, swap } from './edits.ts';

const GLUETUN = 'apps/media/gluetun/deployment.yaml';
const CHECK = 'media-gluetun-settings';

/** The VPN container's envFrom of ConfigMap gluetun-settings, put before its env. */
export const GLUETUN_ENV_FROM = '          envFrom:\n            - configMapRef:\n                name: gluetun-settings\n';

/** ConfigMap gluetun-settings beside the VPN pod, holding `data`, appended to its file. */
export const settingsConfigMap = (data: Record<string, string>) => appendConfigMap(GLUETUN, { name: 'gluetun-settings', namespace: 'media-vpn', data });

/** The VPN container given `data` by ConfigMap gluetun-settings, which its envFrom names before its env. */
export const settingsFromEnvFrom =
  (data: Record<string, string>): Mutation['mutate'] =>
  (c) => {
    swap(
      GLUETUN,
      '          env:\n            - name: VPN_SERVICE_PROVIDER\n',
      `${GLUETUN_ENV_FROM}          env:\n            - name: VPN_SERVICE_PROVIDER\n`,
    )(c);
    settingsConfigMap(data)(c);
  };

export const gluetunSettingsMutations: Mutation[] = [
  {
    check: CHECK,
    why: 'port forwarding turned on for Mullvad, which gluetun 3.40.4 runs it for no more (Perfect Privacy, Private Internet Access, PrivateVPN and ProtonVPN alone): PortForwarding.Validate refuses the settings and gluetun exits at start',
    mutate: swap(
      GLUETUN,
      '              value: wireguard\n',
      '              value: wireguard\n            - name: VPN_PORT_FORWARDING\n              value: "on"\n',
    ),
    at: after(GLUETUN, 'name: VPN_PORT_FORWARDING', 'value: "on"'),
  },
  {
    check: CHECK,
    why: "a Service named openvpn for a VPN server on the LAN (no selector: its endpoints are written by hand), beside the VPN pod: the kubelet's service links give the pod OPENVPN_PORT=udp://<its cluster IP>:1194, which gluetun reads (before OPENVPN_ENDPOINT_PORT, its new name) as a port, and it exits at start",
    mutate: (c) =>
      c.write(
        'apps/media/gluetun/service.yaml',
        `${c.read('apps/media/gluetun/service.yaml')}---\napiVersion: v1\nkind: Service\nmetadata:\n  name: openvpn\n  namespace: media-vpn\nspec:\n  ports:\n    - name: openvpn\n      port: 1194\n      protocol: UDP\n`,
      ),
    at: inFile('apps/media/gluetun/service.yaml', 'name: openvpn'),
  },
  {
    check: CHECK,
    why: 'the provider misspelt (mulvad): gluetun takes no such provider for Wireguard, and exits at start',
    mutate: swap(GLUETUN, '              value: mullvad\n', '              value: mulvad\n'),
    at: 'value: mulvad',
  },
  {
    check: CHECK,
    why: 'a space after a comma in the input ports: gosettings parses " 9696" as it is, and gluetun exits at start',
    mutate: swap(GLUETUN, 'value: "8080,9696,9710,9713"', 'value: "8080, 9696,9710,9713"'),
    at: 'value: "8080, 9696,9710,9713"',
  },
  {
    check: CHECK,
    why: 'FIREWALL_INPUT_PORTS misspelt: gluetun reads no such variable, and the ports meant are never opened',
    mutate: swap(GLUETUN, '            - name: FIREWALL_INPUT_PORTS\n', '            - name: FIREWALL_INPUT_PORT\n'),
    at: 'name: FIREWALL_INPUT_PORT',
  },
  {
    check: CHECK,
    why: 'HEALTH_SUCCESS_WAIT_DURATION given "5", meant as seconds: Go reads no duration without its unit, and gluetun exits at start',
    mutate: swap(
      GLUETUN,
      '            - name: WIREGUARD_PRIVATE_KEY\n',
      '            - name: HEALTH_SUCCESS_WAIT_DURATION\n              value: "5"\n            - name: WIREGUARD_PRIVATE_KEY\n',
    ),
    at: 'value: "5"',
  },
  {
    check: CHECK,
    why: 'the health wait given "5" by a ConfigMap the VPN container takes through envFrom: the kubelet sets the variable from its key, Go reads no duration without its unit, and gluetun exits at start',
    mutate: settingsFromEnvFrom({ UMASK: '002', HEALTH_SUCCESS_WAIT_DURATION: '5' }),
    at: '- configMapRef:',
  },
  {
    check: CHECK,
    why: "the health wait read from a ConfigMap's key by the env entry's configMapKeyRef, which holds \"5\": the kubelet sets the key's value, and gluetun exits at start",
    mutate: (c) => {
      swap(
        GLUETUN,
        '            - name: WIREGUARD_PRIVATE_KEY\n',
        '            - name: HEALTH_SUCCESS_WAIT_DURATION\n              valueFrom:\n                configMapKeyRef:\n                  name: gluetun-settings\n                  key: health-wait\n            - name: WIREGUARD_PRIVATE_KEY\n',
      )(c);
      settingsConfigMap({ 'health-wait': '5' })(c);
    },
    at: 'valueFrom:',
  },
  {
    check: CHECK,
    why: 'FIREWALL_INPUT_PORT misspelt as a key of a ConfigMap only the VPN container takes through envFrom: gluetun reads no such variable, and the ports meant are never opened',
    mutate: settingsFromEnvFrom({ FIREWALL_INPUT_PORT: '9696' }),
    at: '- configMapRef:',
  },
];
