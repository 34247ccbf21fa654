/**
 * workload-image-needs on workloads only a chart renders (Loki's liveness probe) and on what it cannot read (a
 * setting an envFrom source may give): each rule on one synthetic workload beside the real repository's facts, since
 * the mutation lists, which break the real repository, have no rendered chart to break.
 */
import { describe, expect, it } from 'vitest';
import { imageNeedsCheck } from '../../checks/images/index.ts';
import { runChecks } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);

const workload = (container: Record<string, unknown>): Resource =>
  ({
    ...repo.resources[0]!,
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    name: 'x',
    namespace: 'monitoring',
    object: {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'x' },
      spec: { template: { spec: { containers: [{ name: 'c', ...container }] } } },
    },
  }) as Resource;

const judge = (container: Record<string, unknown>) =>
  runChecks({ ...repo, resources: [workload(container)] }, [imageNeedsCheck]).findings.map((f) => `${f.severity ?? 'error'}: ${f.message}`);

describe('workload-image-needs beyond the mutation lists', () => {
  const loki = { image: 'docker.io/grafana/loki:3.7.6' };
  it('fails a liveness probe on a path that answers only once the app is ready, and leaves it to the readiness probe', () => {
    expect(judge({ ...loki, livenessProbe: { httpGet: { path: '/ready', port: 3100 } } })).toEqual([
      expect.stringMatching(/^error: container c's livenessProbe asks docker\.io\/grafana\/loki:3\.7\.6 for \/ready, which answers only once it is ready/),
    ]);
    expect(
      judge({
        ...loki,
        readinessProbe: { httpGet: { path: '/ready', port: 3100 } },
        livenessProbe: { httpGet: { path: '/loki/api/v1/status/buildinfo', port: 3100 } },
      }),
    ).toEqual([]);
  });

  it("prints each failure's own mend, not the check's list of every mend", () => {
    const [finding] = runChecks({ ...repo, resources: [workload({ ...loki, livenessProbe: { httpGet: { path: '/ready', port: 3100 } } })] }, [
      imageNeedsCheck,
    ]).findings;
    expect(finding?.fix).toBe('probe a path the process answers as soon as it serves, and leave readiness to the readinessProbe');
  });

  it('says not judged where an envFrom source or a mounted secrets folder may give a setting the image stops without', () => {
    const gluetun = { image: 'qmcgaw/gluetun:v3.40.4', securityContext: { capabilities: { add: ['NET_ADMIN', 'MKNOD'] } } };
    const env = [
      { name: 'VPN_SERVICE_PROVIDER', value: 'Mullvad' },
      { name: 'VPN_TYPE', value: 'wireguard' },
      { name: 'WIREGUARD_PRIVATE_KEY', valueFrom: { secretKeyRef: { name: 'g', key: 'k' } } },
    ];
    expect(judge({ ...gluetun, env })).toEqual([expect.stringMatching(/^error: .*without WIREGUARD_ADDRESSES, which it needs then/)]);
    expect(judge({ ...gluetun, env, envFrom: [{ secretRef: { name: 'g' } }] })).toEqual([
      expect.stringMatching(/^not-judged: .*no WIREGUARD_ADDRESSES in its env/),
    ]);
    expect(judge({ ...gluetun, env, volumeMounts: [{ name: 's', mountPath: '/run/secrets/wireguard_addresses', subPath: 'a' }] })).toEqual([
      expect.stringMatching(/^not-judged: /),
    ]);
    expect(judge({ ...gluetun, env: [...env, { name: 'WIREGUARD_ADDRESSES', value: '10.64.0.2/32' }] })).toEqual([]);
    expect(judge({ ...gluetun, env: [{ name: 'VPN_SERVICE_PROVIDER', value: 'nordvpn' }, ...env.slice(1)] })).toEqual([]);
  });

  it("takes a setting's image default where it is unset, an older name for a needed one, and a value that unmakes the need", () => {
    const gluetun = { image: 'qmcgaw/gluetun:v3.40.4', securityContext: { capabilities: { add: ['NET_ADMIN', 'MKNOD'] } } };
    const needing = (env: unknown[], more: Record<string, unknown> = {}) =>
      judge({ ...gluetun, env, ...more }).filter((m) => /(without|no) OPENVPN_/.test(m.split(' (gluetun cmd')[0]!));
    const mullvad = { name: 'VPN_SERVICE_PROVIDER', value: 'mullvad' };
    // VPN_TYPE unset: the image's openvpn, which needs both.
    expect(needing([mullvad])).toEqual([
      expect.stringMatching(/^error: .*with VPN_TYPE=openvpn \(unset: the image default\), VPN_SERVICE_PROVIDER=mullvad but without OPENVPN_USER/),
      expect.stringMatching(/^error: .*without OPENVPN_PASSWORD/),
    ]);
    // Both unset: the image's pia, and set empty is unset to gluetun.
    expect(needing([{ name: 'VPN_TYPE', value: '' }])).toEqual([
      expect.stringMatching(/VPN_TYPE=openvpn \(unset: the image default\), VPN_SERVICE_PROVIDER=pia \(unset/),
      expect.stringMatching(/OPENVPN_PASSWORD/),
    ]);
    expect(needing([mullvad, { name: 'USER', value: 'u' }, { name: 'OPENVPN_PASSWORD', value: 'p' }])).toEqual([]);
    // An IVPN account ID needs no password; a custom configuration no user.
    expect(
      needing([
        { name: 'VPN_SERVICE_PROVIDER', value: 'IVPN' },
        { name: 'OPENVPN_USER', value: 'i-abcd-efgh-ijkl' },
      ]),
    ).toEqual([]);
    expect(needing([{ name: 'VPN_SERVICE_PROVIDER', value: 'custom' }])).toEqual([]);
    expect(needing([mullvad, { name: 'VPN_TYPE', value: 'wireguard' }])).toEqual([]);
    // A type or provider from a Secret is not read: the need is not held to it.
    expect(needing([mullvad, { name: 'VPN_TYPE', valueFrom: { secretKeyRef: { name: 'g', key: 't' } } }])).toEqual([]);
    expect(needing([mullvad], { volumeMounts: [{ name: 's', mountPath: '/run/secrets' }] })).toEqual([
      expect.stringMatching(/^not-judged: .*no OPENVPN_USER in its env/),
      expect.stringMatching(/^not-judged: .*no OPENVPN_PASSWORD in its env/),
    ]);
  });

  it('reads the settings an envFrom source gives where the repository writes it: its keys, and a plain one its values', () => {
    const gluetun = { image: 'qmcgaw/gluetun:v3.40.4', securityContext: { capabilities: { add: ['NET_ADMIN', 'MKNOD'] } } };
    const key = { name: 'WIREGUARD_PRIVATE_KEY', valueFrom: { secretKeyRef: { name: 'g', key: 'k' } } };
    const source = (kind: string, name: string, fields: Record<string, unknown>): Resource =>
      ({ ...repo.resources[0]!, kind, name, namespace: 'monitoring', object: { kind, metadata: { name, namespace: 'monitoring' }, ...fields } }) as Resource;
    const settings = (data: Record<string, string>) => source('ConfigMap', 'vpn', { data });
    const judgeWith = (objects: Resource[], container: Record<string, unknown>) =>
      runChecks({ ...repo, resources: [workload(container), ...objects] }, [imageNeedsCheck]).findings.map((f) => `${f.severity ?? 'error'}: ${f.message}`);
    const fromSettings = { ...gluetun, env: [key], envFrom: [{ configMapRef: { name: 'vpn' } }] };
    // The provider and the type from the ConfigMap make the need; the ConfigMap holds no addresses: a finding, not "not judged".
    expect(judgeWith([settings({ VPN_SERVICE_PROVIDER: 'Mullvad', VPN_TYPE: 'wireguard' })], fromSettings)).toEqual([
      expect.stringMatching(/^error: .*with VPN_TYPE=wireguard, VPN_SERVICE_PROVIDER=Mullvad but without WIREGUARD_ADDRESSES, which it needs then/),
    ]);
    expect(judgeWith([settings({ VPN_SERVICE_PROVIDER: 'Mullvad', VPN_TYPE: 'wireguard', WIREGUARD_ADDRESSES: '10.64.0.2/32' })], fromSettings)).toEqual([]);
    expect(judgeWith([settings({ VPN_SERVICE_PROVIDER: 'nordvpn', VPN_TYPE: 'wireguard' })], fromSettings)).toEqual([]);
    // An ExternalSecret that writes the key: it is set, whatever the store holds.
    const external = source('ExternalSecret', 'addresses', { spec: { data: [{ secretKey: 'WIREGUARD_ADDRESSES', remoteRef: { key: 'vpn/addresses' } }] } });
    const both = { ...fromSettings, envFrom: [{ configMapRef: { name: 'vpn' } }, { secretRef: { name: 'addresses' } }] };
    expect(judgeWith([settings({ VPN_SERVICE_PROVIDER: 'Mullvad', VPN_TYPE: 'wireguard' }), external], both)).toEqual([]);
    // A setting an envFrom source sets is held to its partner and to the release that reads it, at that envFrom entry.
    const unpackerr = { image: 'ghcr.io/unpackerr/unpackerr:v0.14.5', envFrom: [{ configMapRef: { name: 'vpn' } }] };
    expect(judgeWith([settings({ UN_SONARR_0_URL: 'http://sonarr.media.svc:8989' })], unpackerr)).toEqual([
      expect.stringMatching(/^error: container c sets UN_SONARR_0_URL without UN_SONARR_0_API_KEY: /),
    ]);
    // A URL in the one form Unpackerr takes, and one it drops; one from a Secret is not read.
    expect(judgeWith([settings({ UN_SONARR_0_URL: 'https://sonarr.media.svc:8989', UN_SONARR_0_API_KEY: 'k' })], unpackerr)).toEqual([]);
    expect(judgeWith([settings({ UN_SONARR_0_URL: 'HTTP://sonarr.media.svc:8989', UN_SONARR_0_API_KEY: 'k' })], unpackerr)).toEqual([
      expect.stringMatching(/^error: container c sets UN_SONARR_0_URL to "HTTP:\/\/sonarr\.media\.svc:8989", but .* takes it only in the form/),
    ]);
    const fromSecret = { ...unpackerr, env: [{ name: 'UN_SONARR_0_URL', valueFrom: { secretKeyRef: { name: 's', key: 'url' } } }] };
    expect(judgeWith([settings({ UN_SONARR_0_API_KEY: 'k' })], fromSecret)).toEqual([
      expect.stringMatching(/^not-judged: container c sets UN_SONARR_0_URL from a source whose value is not read/),
    ]);
    const unpoller = { image: 'ghcr.io/unpoller/unpoller:v2.15.3', envFrom: [{ prefix: 'UP_', configMapRef: { name: 'vpn' } }] };
    expect(judgeWith([settings({ UNIFI_CONTROLLER_0_SAVE_SYSLOG: 'true' })], unpoller)).toEqual([
      expect.stringMatching(/^error: .*does not read before 2\.20\.0/),
    ]);
  });

  it("reads s6-overlay's switch from an envFrom source, and says a switch from an unread value not judged", () => {
    const source = (data: Record<string, string>): Resource =>
      ({
        ...repo.resources[0]!,
        kind: 'ConfigMap',
        name: 's6',
        namespace: 'monitoring',
        object: { kind: 'ConfigMap', metadata: { name: 's6' }, data },
      }) as Resource;
    const pod = (container: Record<string, unknown>): Resource => {
      const w = workload(container);
      const spec = { containers: [{ name: 'c', ...container }], volumes: [{ name: 'run', emptyDir: {} }] };
      return { ...w, object: { ...w.object, spec: { template: { spec } } } } as Resource;
    };
    const bazarr = {
      image: 'lscr.io/linuxserver/bazarr:1.5.3',
      securityContext: { runAsUser: 1000, runAsNonRoot: true, allowPrivilegeEscalation: false },
      volumeMounts: [{ name: 'run', mountPath: '/run' }],
      env: [{ name: 'DYNACONF_AUTH__APIKEY', valueFrom: { secretKeyRef: { name: 'k', key: 'k' } } }],
    };
    const judgeWith = (objects: Resource[], container: Record<string, unknown>) =>
      runChecks({ ...repo, resources: [pod(container), ...objects] }, [imageNeedsCheck]).findings.map((f) => `${f.severity ?? 'error'}: ${f.message}`);
    const s6 = 'S6_YES_I_WANT_A_WORLD_WRITABLE_RUN_BECAUSE_KUBERNETES';
    expect(judgeWith([], bazarr)).toEqual([expect.stringMatching(new RegExp(`^error: .*without ${s6}=1`))]);
    expect(judgeWith([source({ [s6]: '1' })], { ...bazarr, envFrom: [{ configMapRef: { name: 's6' } }] })).toEqual([]);
    expect(judgeWith([source({ [s6]: '0' })], { ...bazarr, envFrom: [{ configMapRef: { name: 's6' } }] })).toEqual([
      expect.stringMatching(new RegExp(`^error: .*without ${s6}=1`)),
    ]);
    expect(judgeWith([], { ...bazarr, envFrom: [{ secretRef: { name: 'made-by-hand' } }] })).toEqual([
      expect.stringMatching(new RegExp(`^not-judged: .*with ${s6} from a value the gate does not read`)),
    ]);
  });

  it("holds a container to the image's entrypoint needs only while it runs that entrypoint", () => {
    const tautulli = { image: 'ghcr.io/tautulli/tautulli:v2.16.0', securityContext: { runAsUser: 1000, capabilities: { drop: ['ALL'] } } };
    expect(judge(tautulli)).toHaveLength(2);
    expect(judge({ ...tautulli, command: ['./start.sh'] })).toHaveLength(2);
    expect(judge({ ...tautulli, command: ['python', 'Tautulli.py', '--datadir', '/config'] })).toEqual([]);
  });

  it('fails a setting set on a release before the first that reads it, and says not judged for a tag with no release', () => {
    const env = [{ name: 'UP_UNIFI_CONTROLLER_0_SAVE_SYSLOG', value: 'true' }];
    expect(judge({ image: 'ghcr.io/unpoller/unpoller:v2.15.3', env })).toEqual([expect.stringMatching(/^error: .*does not read before 2\.20\.0/)]);
    expect(judge({ image: 'ghcr.io/unpoller/unpoller:v2.20.0', env })).toEqual([]);
    expect(judge({ image: 'ghcr.io/unpoller/unpoller:latest', env })).toEqual([expect.stringMatching(/^not-judged: .*names no release/)]);
  });
});

describe("workload-image-needs: a container's command names a program its image has", () => {
  const tautulli = { image: 'ghcr.io/tautulli/tautulli:v2.16.0', securityContext: { runAsUser: 0 } };
  const commandFindings = (command: string[]) => judge({ ...tautulli, command }).filter((f) => f.includes(' starts '));
  it('refuses a name one slip from a program the facts list, with the one meant', () => {
    expect(commandFindings(['pyhton', 'Tautulli.py'])).toEqual([
      expect.stringMatching(/^error: container c starts "pyhton", a program .* does not have \(did you mean "python"\?\)/),
    ]);
  });
  it('takes a listed program and a path; says another name not judged, one with a version after a listed one too', () => {
    expect(commandFindings(['python3.12'])).toEqual([expect.stringMatching(/^not-judged: container c starts "python3.12"/)]);
    for (const program of ['python', 'python3', '/usr/local/bin/pyhton']) expect(commandFindings([program]), program).toEqual([]);
    expect(commandFindings(['uv', 'run'])).toEqual([
      expect.stringMatching(/^not-judged: container c starts "uv", which .* facts do not list among its programs \(python, python3\)/),
    ]);
  });
});

describe('workload-image-needs: an image no facts describe, one keystroke from one they do', () => {
  const slips = (image: string) => judge({ image }).filter((f) => f.includes('one keystroke from'));
  it('refuses a changed, dropped, added or swapped letter in one part of the name, registry included, with the image meant', () => {
    for (const image of [
      'ghcr.io/unpackerr/unpackesr:v0.14.5',
      'ghcr.io/unpackerr/unpackrr:v0.14.5',
      'ghcr.io/unpackerr/unpakcerr:v0.14.5',
      'ghcr.io/unpackerrr/unpackerr:v0.14.5',
      'ghrc.io/unpackerr/unpackerr:v0.14.5',
    ])
      expect(slips(image), image).toEqual([
        expect.stringMatching(
          /^error: container c runs \S+, one keystroke from ghcr\.io\/unpackerr\/unpackerr \(described in apps\/media\/facts\/images\.yaml\)/,
        ),
      ]);
  });
  it('leaves an image the facts describe, one two keystrokes away, one off in two parts, and one with a part more', () => {
    for (const image of [
      'ghcr.io/unpackerr/unpackerr:v0.14.5',
      'ghcr.io/unpackerr/unpacker-x:v0.14.5',
      'ghcr.io/unpackerx/unpackesr:v0.14.5',
      'ghcr.io/unpackerr/unpackerr/extra:v1',
      'docker.io/library/busybox:1.37',
    ])
      expect(slips(image), image).toEqual([]);
  });
  it('says an image far from every described one not judged, once for all its containers, and an image one slip away only failed', () => {
    const findings = (images: string[]) =>
      runChecks({ ...repo, resources: images.map((image) => workload({ image })) }, [imageNeedsCheck]).findings.map(
        (f) => `${f.severity ?? 'error'}: ${f.message}`,
      );
    expect(findings(['ghcr.io/evil/sonarr:4.0.16', 'ghcr.io/evil/sonarr:4.0.17'])).toEqual([
      'not-judged: container c runs ghcr.io/evil/sonarr:4.0.16 (and 1 other container), which no image facts describe (*/facts/images.yaml): how the image is built to run, its programs, its user, the folders it writes and where it listens, is not judged',
    ]);
    expect(findings(['ghrc.io/unpackerr/unpackerr:v0.14.5']).map((f) => f.split(':')[0])).toEqual(['error']);
  });
});

describe("workload-image-needs: a temporary directory where the image's runtime looks for one", () => {
  const onVolumeAt = (image: string, mountPath: string, env: { name: string; value: string }[] = []) =>
    runChecks(
      {
        ...repo,
        resources: [
          {
            ...workload({}),
            object: {
              apiVersion: 'apps/v1',
              kind: 'StatefulSet',
              metadata: { name: 'x' },
              spec: {
                template: {
                  spec: {
                    containers: [{ name: 'c', image, env, securityContext: { readOnlyRootFilesystem: true }, volumeMounts: [{ name: 'scratch', mountPath }] }],
                    volumes: [{ name: 'scratch', emptyDir: {} }],
                  },
                },
              },
            },
          } as Resource,
        ],
      },
      [imageNeedsCheck],
    )
      .findings.filter((f) => f.message.includes('read-only root filesystem'))
      .map((f) => f.message);
  const backup = 'ghcr.io/homelab-operator/homelab-backup:1.4.0';
  const pve = 'prompve/prometheus-pve-exporter:3.5.5';
  it('holds a Node image to os.tmpdir(): /tmp, or the first of $TMPDIR, $TMP and $TEMP that is set', () => {
    expect(onVolumeAt(backup, '/tmp')).toEqual([]);
    expect(onVolumeAt(backup, '/scratch', [{ name: 'TMP', value: '/scratch/' }])).toEqual([]);
    expect(onVolumeAt(backup, '/var/tmp')).toEqual([expect.stringContaining('no writable volume at /tmp, where Node')]);
    expect(onVolumeAt(backup, '/tmp', [{ name: 'TMPDIR', value: '/scratch' }])).toEqual([
      expect.stringContaining('no writable volume at /scratch, where Node'),
    ]);
  });
  it("takes any of Python's tempfile candidates for a Python image", () => {
    for (const at of ['/tmp', '/var/tmp', '/usr/tmp']) expect(onVolumeAt(pve, at), at).toEqual([]);
    expect(onVolumeAt(pve, '/scratch')).toEqual([expect.stringContaining('no writable volume at $TMPDIR, /tmp, /var/tmp or /usr/tmp')]);
  });
});

describe("workload-image-needs: a probe's path, held to the server the image's path facts are of", () => {
  // gluetun's facts are of its control server (HTTP_CONTROL_SERVER_ADDRESS, :8000): every path its public role does not list answers 401.
  const gluetun = {
    image: 'qmcgaw/gluetun:v3.40.4',
    securityContext: { capabilities: { add: ['NET_ADMIN', 'MKNOD'] } },
    ports: [
      { name: 'http-control', containerPort: 8000 },
      { name: 'health', containerPort: 9999 },
    ],
  };
  const probing = (port: unknown, path: string, more: Record<string, unknown> = {}) =>
    judge({ ...gluetun, livenessProbe: { httpGet: { path, port } }, ...more }).filter((m) => /probe/i.test(m));

  it('holds a probe of the control server to its public routes, by port name or number', () => {
    expect(probing('http-control', '/v1/publicip/ip')).toEqual([]);
    expect(probing(8000, '/v1/vpn/status')).toEqual([]);
    expect(probing('http-control', '/v1/publicip')).toEqual([expect.stringMatching(/^error: .*for \/v1\/publicip, which it answers only after a login/)]);
    expect(probing(8000, '/v1/vpn/settings')).toEqual([expect.stringMatching(/^error: .*for \/v1\/vpn\/settings, which it answers only after a login/)]);
    // A slash more is another path to the roles' exact match.
    expect(probing(8000, '/v1/publicip/ip/')).toHaveLength(1);
  });

  it('leaves a probe of another port alone: the health server answers any path', () => {
    const env = [{ name: 'HEALTH_SERVER_ADDRESS', value: ':9999' }];
    expect(probing('health', '/', { env })).toEqual([]);
    expect(probing(9999, '/anything', { env })).toEqual([]);
  });

  it('follows the control server to the port its listening address names', () => {
    const moved = { env: [{ name: 'HTTP_CONTROL_SERVER_ADDRESS', value: '0.0.0.0:9000' }], ports: [{ name: 'http-control', containerPort: 9000 }] };
    expect(probing('http-control', '/v1/publicip', moved)).toHaveLength(1);
    // Not held to the paths, as a probe of another port: but nothing listens there now (the facts' listens).
    expect(probing(8000, '/v1/publicip', moved)).toEqual([
      expect.stringMatching(/asks port 8000 of container c, where .* does not listen: it listens on port 9000 \(HTTP_CONTROL_SERVER_ADDRESS\)/),
    ]);
  });

  it('says not judged where a mounted roles file may open other routes, or the address is not read', () => {
    const mounted = (mountPath: string, env: unknown[] = []) => ({ env, volumeMounts: [{ name: 'auth', mountPath }] });
    expect(probing(8000, '/v1/publicip', mounted('/gluetun'))).toEqual([
      expect.stringMatching(/^not-judged: .*the volume mounted at \/gluetun may hold \/gluetun\/auth\/config\.toml/),
    ]);
    expect(probing(8000, '/v1/publicip', mounted('/gluetun/auth/config.toml'))).toHaveLength(1);
    // The roles file named elsewhere: a mount at /gluetun no longer holds it, one at its folder does.
    const named = [{ name: 'HTTP_CONTROL_SERVER_AUTH_CONFIG_FILEPATH', value: '/config/auth.toml' }];
    expect(probing(8000, '/v1/publicip', mounted('/gluetun', named))).toEqual([expect.stringMatching(/^error: /)]);
    expect(probing(8000, '/v1/publicip', mounted('/config/', named))).toEqual([expect.stringMatching(/^not-judged: /)]);
    // A mount beside the file's folder is not above it.
    expect(probing(8000, '/v1/publicip', mounted('/gluetun/aut'))).toEqual([expect.stringMatching(/^error: /)]);
    const secret = [{ name: 'HTTP_CONTROL_SERVER_ADDRESS', valueFrom: { secretKeyRef: { name: 'g', key: 'a' } } }];
    expect(probing(8000, '/v1/publicip', { env: secret })).toEqual([
      expect.stringMatching(/^not-judged: .*read from a value the gate does not read \(HTTP_CONTROL_SERVER_ADDRESS\)/),
    ]);
    expect(probing(8000, '/v1/publicip', { env: [{ name: 'HTTP_CONTROL_SERVER_ADDRESS', value: '8000' }] })).toEqual([
      expect.stringMatching(/^not-judged: .*HTTP_CONTROL_SERVER_ADDRESS is no \[host\]:port/),
    ]);
  });
});

describe("workload-image-needs: where a program listens by an option of its command line (Alloy's --server.http.listen-addr)", () => {
  const alloy = (args: string[], port: unknown, more: Record<string, unknown> = {}) =>
    judge({
      image: 'docker.io/grafana/alloy:v1.18.1',
      args,
      ports: [{ name: 'http-metrics', containerPort: 12345 }],
      livenessProbe: { httpGet: { path: '/-/healthy', port } },
      ...more,
    }).filter((m) => /listen/.test(m));
  const chart = ['run', '/etc/alloy/config.alloy', '--server.http.listen-addr=0.0.0.0:12345'];

  it('takes the option the chart gives, and holds a probe to the port it names', () => {
    expect(alloy(chart, 'http-metrics')).toEqual([]);
    expect(alloy(chart, 12345)).toEqual([]);
    // A port no container of the pod declares is still this container's probe: nothing listens there.
    expect(alloy(chart, 12346)).toEqual([
      expect.stringMatching(
        /^error: container c's livenessProbe asks port 12346 of container c, where .* does not listen: it listens on port 12345 \(--server\.http\.listen-addr\)/,
      ),
    ]);
  });

  it("reads the program's default where the option is not given: loopback alone", () => {
    expect(alloy(['run', '/etc/alloy/config.alloy'], 'http-metrics')).toEqual([
      expect.stringMatching(/listens on 127\.0\.0\.1 \(--server\.http\.listen-addr\), loopback alone/),
    ]);
  });

  it('leaves a command of its own, and an argument it cannot read, unjudged', () => {
    expect(alloy(chart, 12346, { command: ['/bin/sh', '-c'] })).toEqual([]);
    expect(alloy([...chart, 1 as never], 12346)).toEqual([]);
  });

  it('refuses a flag run does not have, as pflag reads the args the ENTRYPOINT is given, and a second path', () => {
    const run = (args: string[]) => judge({ image: 'docker.io/grafana/alloy:v1.18.1', args }).filter((m) => /runs alloy/.test(m));
    expect(run(chart)).toEqual([]);
    expect(run([...chart, '--cluster.enabld'])).toEqual([
      expect.stringMatching(
        /^error: container c runs alloy of docker\.io\/grafana\/alloy:v1\.18\.1 with "--cluster\.enabld", which its flag parser refuses \(unknown flag: --cluster\.enabld \(did you mean "--cluster\.enabled"\?\)/,
      ),
    ]);
    expect(run([...chart, '/etc/alloy/other.alloy'])).toEqual([expect.stringMatching(/accepts 1 arg\(s\), received 2/)]);
  });
});

describe("workload-image-needs: Falco's options, as cxxopts reads the args that name it (the image has no ENTRYPOINT)", () => {
  const falco = (args: unknown[]) => judge({ image: 'docker.io/falcosecurity/falco:0.44.1', args }).filter((m) => /runs falco/.test(m));

  it("takes the chart's args, and refuses an option Falco no longer has, with the one meant", () => {
    expect(falco(['/usr/bin/falco', '--disable-source', 'syscall', '-pk'])).toEqual([]);
    expect(falco(['/usr/bin/falco', '-u'])).toEqual([
      expect.stringMatching(
        /^error: container c runs falco of docker\.io\/falcosecurity\/falco:0\.44\.1 with "-u", which its option parser refuses \(Option 'u' does not exist \(did you mean "-U"\?\); falco 0\.44\.1: .*\): it exits 1 before it serves/,
      ),
    ]);
  });

  it('refuses a configuration option without its value as it loads it, and ends at one that runs something else', () => {
    expect(falco(['/usr/bin/falco', '-o', 'engine.kind'])).toEqual([expect.stringMatching(/"engine\.kind", which it refuses once its options are read/)]);
    expect(falco(['/usr/bin/falco', '--dry-run'])).toEqual([expect.stringMatching(/"--dry-run", with which it exits before it serves/)]);
  });
});

describe('workload-image-needs: kube-state-metrics, as pflag under cobra reads the args its ENTRYPOINT (with its own flags) is given', () => {
  const ksm = (args: unknown[], more: Record<string, unknown> = {}) =>
    judge({ image: 'registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.20.0', args, ...more }).filter((m) => /runs kube-state-metrics/.test(m));
  // What the chart renders: --port, --resources from its collectors, the values' allowlists.
  const chart = ['--port=8080', '--resources=configmaps,nodes,pods', '--metric-labels-allowlist=pods=[app]'];

  it("takes the chart's args, and refuses a collector the builder has not at its word, as it starts", () => {
    expect(ksm(chart)).toEqual([]);
    expect(ksm(['--port=8080', '--resources=configmaps,nodez,pods'])).toEqual([
      expect.stringMatching(
        /^error: container c runs kube-state-metrics of registry\.k8s\.io\/kube-state-metrics\/kube-state-metrics:v2\.20\.0 with "--resources=configmaps,nodez,pods", which it refuses once its flags are read \("nodez" in --resources is none the program knows \(did you mean "nodes"\?\); kube-state-metrics v2\.20\.0 .*\): it exits 1 before it serves/,
      ),
    ]);
  });

  it('refuses a labels allowlist of a resource it has not, or one it cannot read, and an argument', () => {
    expect(ksm([...chart, '--metric-labels-allowlist=pod=[app]'])).toEqual([
      expect.stringMatching(/"pod" in --metric-labels-allowlist is none the program knows/),
    ]);
    expect(ksm([...chart, '--metric-labels-allowlist=pods=[app],'])).toEqual([
      expect.stringMatching(/which its flag parser refuses \(invalid argument .*invalid format/),
    ]);
    expect(ksm([...chart, 'pods'])).toEqual([expect.stringMatching(/unknown command "pods" for "kube-state-metrics"/)]);
  });

  it('leaves a value the kubelet expands, and a command of its own, unjudged', () => {
    expect(ksm(['--resources=$(RESOURCES)'])).toEqual([
      expect.stringMatching(/^not-judged: .*"--resources=\$\(RESOURCES\)", which the kubelet expands from a variable/),
    ]);
    expect(ksm(['--resources=podz'], { command: ['/bin/sh', '-c'] })).toEqual([]);
  });
});

describe('workload-image-needs: falcoctl, as cobra traverses its children to each of its commands, with an entry per command', () => {
  const falcoctl = (args: unknown[]) => judge({ image: 'docker.io/falcosecurity/falcoctl:0.13.0', args }).filter((m) => /runs falcoctl/.test(m));

  it("takes the chart's install and follow, each read by its own entry, and refuses what each checks as it starts", () => {
    expect(falcoctl(['artifact', 'install', '--log-format=json'])).toEqual([]);
    expect(falcoctl(['artifact', 'follow', '--log-format=json', '--every=24h'])).toEqual([]);
    expect(falcoctl(['artifact', 'install', '--log-format=json', '--platform=linux'])).toEqual([
      expect.stringMatching(
        /^error: container c runs falcoctl of docker\.io\/falcosecurity\/falcoctl:0\.13\.0 with "--platform=linux", which it refuses once its flags are read \(--platform "linux": .*OS\/Arch; falcoctl 0\.13\.0: .*\): it exits 1 before it serves/,
      ),
    ]);
    expect(falcoctl(['artifact', 'follow', '--log-format=json', '--every=1h'])).toEqual([]);
    expect(falcoctl(['artifact', 'install', '--every=1h'])).toEqual([expect.stringMatching(/which its flag parser refuses \(unknown flag: --every/)]);
  });

  it('says a word every entry stops at once, with the mend of naming the command, and another command once, not judged', () => {
    expect(falcoctl(['artifact', 'bogus'])).toEqual([
      expect.stringMatching(/"bogus", with which it exits before it serves \(falcoctl artifact has no "bogus" among its commands/),
    ]);
    const found = runChecks({ ...repo, resources: [workload({ image: 'docker.io/falcosecurity/falcoctl:0.13.0', args: ['artifact', 'bogus'] })] }, [
      imageNeedsCheck,
    ]);
    expect(found.findings.map((f) => f.fix)).toEqual(['name falcoctl artifact install first, with its flags after']);
    expect(falcoctl(['version'])).toEqual([expect.stringMatching(/^not-judged: .*falcoctl's version command/)]);
    expect(falcoctl(['artifact', 'follow', '--cron=@daily'])).toEqual([expect.stringMatching(/^not-judged: .*configuration file may set/)]);
  });

  it('says what an exit does to an init container: a failure holds the pod back, an exit 0 lets it start with the work undone', () => {
    const asInit = (args: string[], restartPolicy?: string) => {
      const pod = workload({});
      const spec = (pod.object as { spec: { template: { spec: Record<string, unknown> } } }).spec.template.spec;
      spec.initContainers = [{ name: 'install', image: 'docker.io/falcosecurity/falcoctl:0.13.0', args, restartPolicy }];
      spec.containers = [];
      return runChecks({ ...repo, resources: [pod] }, [imageNeedsCheck]).findings.map((f) => f.message);
    };
    expect(asInit(['artifact', 'install', '--platform=linux'])).toEqual([
      expect.stringMatching(/: it exits 1 before it serves, so the init container fails at every try and the pod never starts$/),
    ]);
    expect(asInit(['artifact', 'install', '--help'])).toEqual([
      expect.stringMatching(/: it exits 0 before it serves: the init container succeeds with its work undone, and the pod starts without it$/),
    ]);
    // A sidecar (an init container that restarts always) restarts as a container does.
    expect(asInit(['artifact', 'follow', '--help'], 'Always')).toEqual([expect.stringMatching(/, and the container restarts for good$/)]);
    // A Job's container: its pod never restarts it, so the run fails, or ends as a success with nothing done.
    const inJob = (args: string[]) => {
      const pod = workload({ image: 'docker.io/falcosecurity/falcoctl:0.13.0', args });
      (pod.object as { spec: { template: { spec: Record<string, unknown> } } }).spec.template.spec.restartPolicy = 'OnFailure';
      return runChecks({ ...repo, resources: [pod] }, [imageNeedsCheck]).findings.map((f) => f.message);
    };
    expect(inJob(['artifact', 'install', '--platform=linux'])).toEqual([
      expect.stringMatching(/, so the run fails, and the Job with it once its retries are spent$/),
    ]);
    expect(inJob(['artifact', 'install', '--help'])).toEqual([expect.stringMatching(/: the run ends as a success with its work undone$/)]);
  });
});

describe("workload-image-needs: a Go program's flags, as kingpin reads the args its image's ENTRYPOINT is given (the SNMP exporter)", () => {
  const snmp = (args: unknown[], more: Record<string, unknown> = {}) =>
    judge({ image: 'quay.io/prometheus/snmp-exporter:v0.30.1', args, ...more }).filter((m) => /snmp_exporter/.test(m));
  // What the chart renders: its own --config.file, then the values' extraArgs.
  const chart = ['--config.file=/config/snmp.yaml', '--config.file=/etc/snmp_exporter/snmp.yml', '--config.expand-environment-variables'];

  it("takes the chart's args, and refuses a flag the exporter does not have at its word, with the one meant", () => {
    expect(snmp(chart)).toEqual([]);
    expect(snmp([...chart.slice(0, 2), '--config.expand-environment-varibales'])).toEqual([
      expect.stringMatching(
        /^error: container c runs snmp_exporter of quay\.io\/prometheus\/snmp-exporter:v0\.30\.1 with "--config\.expand-environment-varibales", which its flag parser refuses \(unknown long flag '--config\.expand-environment-varibales' \(did you mean "--config\.expand-environment-variables"\?\); snmp_exporter v0\.30\.1: .*\): it exits 1 before it serves/,
      ),
    ]);
  });

  it('refuses a value for a flag that takes none, and a flag that makes it exit', () => {
    expect(snmp([...chart.slice(0, 2), '--config.expand-environment-variables=true'])).toEqual([expect.stringMatching(/refuses \(unexpected true /)]);
    expect(snmp([...chart, '--dry-run'])).toEqual([expect.stringMatching(/with which it exits before it serves \(--dry-run makes it exit/)]);
  });

  it('leaves a command that runs another program alone, and reads the program where a command names it', () => {
    expect(snmp(['--bogus'], { command: ['/bin/sh', '-c', 'exec /bin/snmp_exporter "$@"'] })).toEqual([]);
    expect(snmp(['--bogus'], { command: ['/bin/snmp_exporter'] })).toEqual([expect.stringMatching(/unknown long flag '--bogus'/)]);
    expect(snmp(['@/etc/args'])).toEqual([expect.stringMatching(/^not-judged: .*file of arguments .*: what it gives is not judged$/)]);
    expect(snmp(['--log.level=$(LEVEL)'])).toEqual([expect.stringMatching(/^not-judged: .*"--log\.level=\$\(LEVEL\)", which the kubelet expands/)]);
  });
});

describe('workload-image-needs: an exporter listens at each --web.listen-address given (a list flag), :9116 where none is', () => {
  const snmp = (args: string[]) =>
    judge({
      image: 'quay.io/prometheus/snmp-exporter:v0.30.1',
      args: ['--config.file=/config/snmp.yaml', ...args],
      ports: [{ name: 'http', containerPort: 9116 }],
      livenessProbe: { httpGet: { path: '/-/healthy', port: 'http' } },
    }).filter((m) => /listen/.test(m));

  it('takes the default and any list that holds the probed port, and refuses an address moved away from it', () => {
    expect(snmp([])).toEqual([]);
    expect(snmp(['--web.listen-address=127.0.0.1:9117', '--web.listen-address', ':9116'])).toEqual([]);
    expect(snmp(['--web.listen-address=:9117'])).toEqual([
      expect.stringMatching(
        /^error: container c's livenessProbe asks port 9116 of container c, where .* does not listen: it listens on port 9117 \(--web\.listen-address\)/,
      ),
    ]);
  });
});

describe("workload-image-needs: the blackbox exporter's flags, a Uint's text read as strconv.ParseUint reads it", () => {
  const blackbox = (args: unknown[]) => judge({ image: 'quay.io/prometheus/blackbox-exporter:v0.28.0', args }).filter((m) => /blackbox_exporter/.test(m));

  it("takes the chart's args and a history limit in any base Go reads, and refuses a signed one, or one past 64 bits", () => {
    expect(blackbox(['--config.file=/config/blackbox.yaml', '--history.limit=0x100', '--timeout-offset=0.25'])).toEqual([]);
    expect(blackbox(['--config.file=/config/blackbox.yaml', '--history.limit=-1'])).toEqual([
      expect.stringMatching(/with "--history\.limit=-1", which its flag parser refuses \(invalid value "-1" for flag --history\.limit: parse error;/),
    ]);
    expect(blackbox(['--history.limit', '18446744073709551616'])).toEqual([expect.stringMatching(/value out of range/)]);
    expect(blackbox(['--config.check'])).toEqual([expect.stringMatching(/exits before it serves \(--config\.check makes it exit/)]);
  });
});

describe("workload-image-needs: gluetun's servers, each under its switch, older port-only names read first", () => {
  const gluetun = (env: { name: string; value: string }[], port: number) =>
    judge({
      image: 'docker.io/qmcgaw/gluetun:v3.40.4',
      env: [{ name: 'VPN_TYPE', value: 'wireguard' }, ...env],
      ports: [{ name: 'proxy', containerPort: port }],
      readinessProbe: { tcpSocket: { port: 'proxy' } },
    }).filter((m) => /listen/.test(m));

  it('holds a port to the HTTP proxy only where its switch is on, by its address or an older port variable', () => {
    expect(gluetun([{ name: 'HTTPPROXY', value: 'on' }], 8888)).toEqual([]);
    expect(gluetun([{ name: 'PROXY', value: 'Yes' }], 8888)).toEqual([]);
    expect(gluetun([{ name: 'HTTPPROXY', value: 'off' }], 8888)).toEqual([expect.stringMatching(/asks port 8888 .* does not listen/)]);
    expect(
      gluetun(
        [
          { name: 'HTTPPROXY', value: 'on' },
          { name: 'HTTPPROXY_PORT', value: '3128' },
        ],
        3128,
      ),
    ).toEqual([]);
    expect(
      gluetun(
        [
          { name: 'HTTPPROXY', value: 'on' },
          { name: 'HTTPPROXY_LISTENING_ADDRESS', value: ':3128' },
        ],
        8888,
      ),
    ).toEqual([expect.stringMatching(/does not listen: it listens on .*port 3128 \(HTTPPROXY_LISTENING_ADDRESS\)/)]);
  });

  it('takes the DNS server on 53 by the image default, and says a switch from an unread source not judged', () => {
    expect(gluetun([], 53)).toEqual([]);
    expect(gluetun([{ name: 'DOT', value: 'off' }], 53)).toEqual([expect.stringMatching(/does not listen/)]);
    expect(
      judge({
        image: 'docker.io/qmcgaw/gluetun:v3.40.4',
        env: [
          { name: 'VPN_TYPE', value: 'wireguard' },
          { name: 'HTTPPROXY', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
        ],
        ports: [{ name: 'proxy', containerPort: 8888 }],
        readinessProbe: { tcpSocket: { port: 'proxy' } },
      }).filter((m) => /listen/.test(m)),
    ).toEqual([]);
  });
});

describe('workload-image-needs: external-secrets, a cobra root whose webhook and certcontroller commands have entries of their own', () => {
  const eso = (args: unknown[]) => judge({ image: 'ghcr.io/external-secrets/external-secrets:v2.9.0', args }).filter((m) => /runs external-secrets/.test(m));

  it("takes each chart command's args, each read by the entry of its command, and refuses a slip of a flag once", () => {
    expect(eso(['--concurrent=1', '--metrics-addr=:8080', '--loglevel=info', '--zap-time-encoding=epoch', '--enable-vault-token-cache'])).toEqual([]);
    expect(eso(['webhook', '--port=10250', '--cert-dir=/tmp/certs', '--check-interval=5m', '--loglevel=info'])).toEqual([]);
    expect(eso(['certcontroller', '--crd-requeue-interval=5m', '--service-name=external-secrets-webhook', '--loglevel=info'])).toEqual([]);
    expect(eso(['webhook', '--port=10250', '--lookahed-interval=24h'])).toEqual([
      expect.stringMatching(
        /^error: .*"--lookahed-interval=24h", which its flag parser refuses \(unknown flag: --lookahed-interval \(did you mean "--lookahead-interval"\?\)/,
      ),
    ]);
    // A root's flag given to the webhook is the webhook's entry's to refuse, once.
    expect(eso(['webhook', '--concurrent=2'])).toEqual([
      expect.stringMatching(/^error: .*"--concurrent=2", which its flag parser refuses \(unknown flag: --concurrent;/),
    ]);
  });

  it('refuses a log level zap does not read as it starts, and a word no command names before it reads a flag', () => {
    expect(eso(['--concurrent=1', '--loglevel=verbose'])).toEqual([
      expect.stringMatching(/which it refuses once its flags are read \(--loglevel "verbose": unrecognized level/),
    ]);
    expect(eso(['certcontroller', '--loglevel=WARNING'])).toEqual([]);
    expect(eso(['--loglevel=info', 'controller', '--help'])).toEqual([expect.stringMatching(/unknown command "controller" for "external-secrets"/)]);
    expect(eso(['help'])).toEqual([expect.stringMatching(/^not-judged: .*external-secrets's help command/)]);
  });

  it("refuses as it starts a webhook cipher Go's tls.CipherSuites() does not name, the value split at its commas as written", () => {
    expect(eso(['webhook', '--tls-ciphers=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_AES_128_GCM_SHA256', '--tls-ciphers='])).toEqual([]);
    expect(eso(['webhook', '--tls-ciphers=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA'])).toEqual([
      expect.stringMatching(/which it refuses once its flags are read \(--tls-ciphers ".*": unable to fetch tls ciphers/),
    ]);
    // A space or an empty piece is a name of no suite, and an insecure suite is not among tls.CipherSuites().
    expect(eso(['webhook', '--tls-ciphers=TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384'])).toHaveLength(1);
    expect(eso(['webhook', '--tls-ciphers=TLS_AES_128_GCM_SHA256,'])).toHaveLength(1);
  });
});

describe("workload-image-needs: the CSI snapshot controller's flags, as Go's flag package reads the args its ENTRYPOINT is given", () => {
  const snapshot = (args: unknown[]) =>
    judge({ image: 'registry.k8s.io/sig-storage/snapshot-controller:v8.6.0', args }).filter((m) => /runs snapshot-controller/.test(m));
  const chart = ['--feature-gates=CSIVolumeGroupSnapshot=true', '--http-endpoint=:8080', '--leader-election=true', '--leader-election-namespace=$(NAMESPACE)'];

  it("takes the chart's args, and refuses a duration without its unit with exit 2", () => {
    expect(snapshot(chart)).toEqual([]);
    expect(snapshot([...chart, '--retry-interval-max=10'])).toEqual([
      expect.stringMatching(
        /^error: container c runs snapshot-controller of registry\.k8s\.io\/sig-storage\/snapshot-controller:v8\.6\.0 with "--retry-interval-max=10", which its flag parser refuses \(invalid value "10" for flag -retry-interval-max: time: missing unit in duration "10"; .*\): it exits 2 before it serves, and the container restarts for good$/,
      ),
    ]);
  });

  it('refuses a gate it has not as it starts, with the exit klog.Fatal gives', () => {
    expect(snapshot(['--feature-gates=CSIVolumeGroupSnapshots=true'])).toEqual([
      expect.stringMatching(
        /which it refuses once its flags are read \("CSIVolumeGroupSnapshots" in -feature-gates is none the program knows .*: it exits 255 before it serves/,
      ),
    ]);
  });

  it("says a leader election client-go refuses as the program's own refusal, though its panic exits 2", () => {
    expect(snapshot([...chart, '--leader-election-renew-deadline=15s'])).toEqual([
      expect.stringMatching(
        /which it refuses once its flags are read \(-leader-election with .*leaseDuration must be greater than renewDeadline; .*: it exits 2 before it serves/,
      ),
    ]);
  });
});

describe("workload-image-needs: MetalLB's speaker and controller, as Go's flag package reads the args their ENTRYPOINTs are given", () => {
  const metallb = (image: string, args: unknown[]) => judge({ image, args }).filter((m) => /runs (speaker|controller) of/.test(m));

  it('refuses cipher suites without a TLS 1.2 minimum, as each starts', () => {
    expect(metallb('quay.io/metallb/speaker:v0.16.1', ['--port=7472', '--log-level=info'])).toEqual([]);
    expect(metallb('quay.io/metallb/speaker:v0.16.1', ['--port=7472', '--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'])).toEqual([
      expect.stringMatching(
        /^error: container c runs speaker of quay\.io\/metallb\/speaker:v0\.16\.1 with "--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", which it refuses once its flags are read \(.*cannot be configured with TLS 1\.3; .*\): it exits 1 before it serves/,
      ),
    ]);
    expect(metallb('quay.io/metallb/controller:v0.16.1', ['--port=7472', '--webhook-mode=on'])).toEqual([expect.stringMatching(/"on" for -webhook-mode/)]);
  });
});

describe("workload-image-needs: a scrape of the Service Rook's operator makes for the Ceph managers", () => {
  const at = (kind: string, name: string, object: Record<string, unknown>): Resource =>
    ({
      ...repo.resources[0]!,
      kind,
      name,
      namespace: 'rook-ceph',
      apiVersion: String(object.apiVersion),
      object: { kind, metadata: { name, namespace: 'rook-ceph' }, ...object },
    }) as Resource;
  const cluster = at('CephCluster', 'rook-ceph', { apiVersion: 'ceph.rook.io/v1', spec: { cephVersion: { image: 'quay.io/ceph/ceph:v19.2.3' } } });
  const monitor = (endpoint: Record<string, unknown>) =>
    at('ServiceMonitor', 'rook-ceph-mgr', {
      apiVersion: 'monitoring.coreos.com/v1',
      spec: { selector: { matchLabels: { app: 'rook-ceph-mgr', rook_cluster: 'rook-ceph' } }, endpoints: [{ port: 'http-metrics', ...endpoint }] },
    });
  const scrape = (endpoint: Record<string, unknown>, resources = [cluster, monitor(endpoint)]) =>
    runChecks({ ...repo, resources }, [imageNeedsCheck]).findings.map((f) => f.message);

  it('takes /metrics, given or by default, and refuses another path, where the manager answers its HTML index', () => {
    expect(scrape({ path: '/metrics' })).toEqual([]);
    expect(scrape({})).toEqual([]);
    expect(scrape({ path: '/metrics?format=x' })).toEqual([]);
    expect(scrape({ path: '/metric' })).toEqual([
      expect.stringMatching(
        /^ServiceMonitor rook-ceph-mgr scrapes Service rook-ceph-mgr \(port http-metrics\), which Rook's operator makes for the Ceph managers, at \/metric, where they serve no metrics \(.*\): the answer is its index page, HTML, which no scrape parses, so every scrape fails and up is 0$/,
      ),
    ]);
  });

  it('holds nothing where no CephCluster makes the Service, or another port is scraped', () => {
    expect(scrape({ path: '/metric' }, [monitor({ path: '/metric' })])).toEqual([]);
    expect(scrape({ port: 'http-dashboard', path: '/x' })).toEqual([]);
  });
});
