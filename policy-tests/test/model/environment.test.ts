/** A container's environment as the kubelet makes it (model/cluster/environment.ts), with its `$(NAME)` expansion held to Kubernetes' own cases. */
import { describe, expect, it } from 'vitest';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';
import { containerEnvironment, expand, givenVariablePath, mayStartWith, secretKeyOf, serviceLinkVariables } from '../../model/cluster/environment.ts';

const repo = await loadRepo(REPO_ROOT);
const object = (kind: string, name: string, fields: Record<string, unknown>): Resource =>
  ({ kind, name, namespace: 'media', object: { kind, metadata: { name, namespace: 'media' }, ...fields } }) as unknown as Resource;
const base64 = (text: string) => Buffer.from(text).toString('base64');
const resources = [
  object('Secret', 'chart', { data: { MODE: base64('from-secret'), ONLY_SECRET: base64('s') }, stringData: { WRITTEN: 'plain' } }),
  object('ConfigMap', 'settings', { data: { MODE: 'from-configmap', PORT: '8080' } }),
  object('ExternalSecret', 'vault', { spec: { data: [{ secretKey: 'TOKEN', remoteRef: { key: 'k' } }] } }),
  object('ExternalSecret', 'everything', { spec: { dataFrom: [{ extract: { key: 'k' } }] } }),
];
const environment = (container: Record<string, unknown>, secretText = true) => containerEnvironment({ repo, resources }, 'media', container, { secretText });
const variable = (container: Record<string, unknown>) => environment(container).text;

describe('a container variable as the kubelet sets it', () => {
  it('takes env over every envFrom source, and a later source over an earlier one', () => {
    const read = variable({
      env: [
        { name: 'PORT', value: '9' },
        { name: 'REF', valueFrom: { secretKeyRef: { name: 'x', key: 'y' } } },
      ],
      envFrom: [{ secretRef: { name: 'chart' } }, { configMapRef: { name: 'settings' } }],
    });
    expect([read('PORT'), read('REF'), read('MODE'), read('ONLY_SECRET'), read('WRITTEN'), read('UNSET')]).toEqual([
      '9',
      null,
      'from-configmap',
      's',
      'plain',
      undefined,
    ]);
  });

  it("cuts a source's prefix before its keys, and reads no value it cannot know", () => {
    expect(variable({ envFrom: [{ prefix: 'APP_', configMapRef: { name: 'settings' } }] })('APP_PORT')).toBe('8080');
    expect(variable({ envFrom: [{ prefix: 'APP_', configMapRef: { name: 'settings' } }] })('PORT')).toBeUndefined();
    // An ExternalSecret's key holds what the store hands over; its other names it does not set.
    const vault = variable({ envFrom: [{ secretRef: { name: 'vault' } }] });
    expect([vault('TOKEN'), vault('MODE')]).toEqual([null, undefined]);
    // A source whose keys cannot be known (dataFrom, or nothing here writes it) may set any name.
    expect(variable({ envFrom: [{ secretRef: { name: 'everything' } }] })('MODE')).toBeNull();
    expect(variable({ envFrom: [{ secretRef: { name: 'elsewhere' } }] })('MODE')).toBeNull();
    // ...and one after a known source makes what that source set unknown again, where a later known source does not.
    expect(environment({ envFrom: [{ configMapRef: { name: 'settings' } }, { secretRef: { name: 'everything' } }] }).setting('PORT')).toBe('maybe');
    expect(environment({ envFrom: [{ secretRef: { name: 'everything' } }, { configMapRef: { name: 'settings' } }] }).setting('PORT')).toEqual({
      value: '8080',
    });
  });

  it("gives a container's environment as env entries, its sources' first and its env over them, and the sources whose keys are unknown", () => {
    const { entries, unread } = environment(
      {
        env: [{ name: 'PORT', value: '9' }],
        envFrom: [{ configMapRef: { name: 'settings' } }, { prefix: 'X_', secretRef: { name: 'everything' } }, { prefix: 'V_', secretRef: { name: 'vault' } }],
      },
      false,
    );
    expect(entries).toEqual([
      { name: 'MODE', value: 'from-configmap', at: ['envFrom', 0] },
      { name: 'V_TOKEN', valueFrom: { envFrom: 2 }, at: ['envFrom', 2] },
      { name: 'PORT', value: '9', at: ['env', 0], valueAt: 'value' },
    ]);
    expect(unread).toEqual([{ source: 1, prefix: 'X_' }]);
    // A plain Secret's key is given set, never its text, unless its text is asked for: no finding may print a Secret's value.
    expect(environment({ envFrom: [{ secretRef: { name: 'chart' } }] }, false).entries).toContainEqual({
      name: 'WRITTEN',
      valueFrom: { envFrom: 0 },
      at: ['envFrom', 0],
    });
    expect(environment({ envFrom: [{ secretRef: { name: 'chart' } }] }, false).text('WRITTEN')).toBeNull();
    expect([mayStartWith('X_', 'FALCOCTL_'), mayStartWith('', 'FALCOCTL_'), mayStartWith('FAL', 'FALCOCTL_'), mayStartWith('FALCOCTL_A', 'FALCOCTL_')]).toEqual(
      [false, true, true, true],
    );
  });

  it("reads an env entry's ConfigMap key as the kubelet does, skips an optional one that is missing, and reads a Secret's only when asked", () => {
    const container = {
      envFrom: [{ configMapRef: { name: 'settings' } }],
      env: [
        { name: 'FROM_MAP', valueFrom: { configMapKeyRef: { name: 'settings', key: 'PORT' } } },
        // Optional and missing: the kubelet skips it, and what the source set stays.
        { name: 'MODE', valueFrom: { configMapKeyRef: { name: 'settings', key: 'NOPE', optional: true } } },
        { name: 'MISSING', valueFrom: { configMapKeyRef: { name: 'settings', key: 'NOPE' } } },
        { name: 'SECRET', valueFrom: { secretKeyRef: { name: 'chart', key: 'WRITTEN' } } },
        { name: 'FIELD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      ],
    };
    const asked = environment(container);
    expect(['FROM_MAP', 'MODE', 'MISSING', 'SECRET', 'FIELD'].map(asked.text)).toEqual(['8080', 'from-configmap', null, 'plain', null]);
    const given = environment(container, false);
    expect(given.text('SECRET')).toBeNull();
    const fromMap = given.entries.find((e) => e.name === 'FROM_MAP')!;
    expect(fromMap).toEqual({ name: 'FROM_MAP', value: '8080', at: ['env', 0], valueAt: 'valueFrom' });
    expect(givenVariablePath(fromMap, 'value')).toEqual(['env', 0, 'valueFrom']);
    expect(given.entries.map((e) => e.name)).toEqual(['MODE', 'PORT', 'FROM_MAP', 'MISSING', 'SECRET', 'FIELD']);
    const secret = given.entries.find((e) => e.name === 'SECRET')!;
    expect(secretKeyOf(container, secret)).toEqual({ secret: 'chart', key: 'WRITTEN' });
  });

  it('expands a value by what is set before it, and leaves a reference it cannot read unread', () => {
    const read = environment({
      envFrom: [{ configMapRef: { name: 'settings' } }],
      env: [
        { name: 'URL', value: 'http://host:$(PORT)/$(LATER)' },
        { name: 'LATER', value: 'x' },
        { name: 'AGAIN', value: '$(LATER)-$$(PORT)' },
        { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'vault', key: 'TOKEN' } } },
        { name: 'HEADER', value: 'Bearer $(TOKEN)' },
        { name: 'LINK', value: '$(DB_SERVICE_HOST)' },
      ],
    });
    expect(['URL', 'AGAIN', 'HEADER', 'LINK'].map(read.text)).toEqual(['http://host:8080/$(LATER)', 'x-$(PORT)', null, null]);
    const header = read.entries.find((e) => e.name === 'HEADER')!;
    expect([header.valueFrom, givenVariablePath(header, 'value')]).toEqual([{ expands: 'Bearer $(TOKEN)' }, ['env', 4, 'value']]);
  });

  it('knows no value of a name two objects write', () => {
    const twice = [...resources, object('Secret', 'chart', { data: { MODE: base64('other') } })];
    expect(
      containerEnvironment({ repo, resources: twice }, 'media', { envFrom: [{ secretRef: { name: 'chart' } }] }, { secretText: true }).text('MODE'),
    ).toBeNull();
  });
});

describe("the kubelet's $(NAME) expansion, on Kubernetes' own cases (third_party/forked/golang/expansion/expand_test.go)", () => {
  const context: Record<string, string> = { VAR_A: 'A', VAR_B: 'B', VAR_C: 'C', VAR_REF: '$(VAR_A)', VAR_EMPTY: '' };
  const mapping = (name: string) => context[name] ?? `$(${name})`;
  // Each case as upstream writes it: its name, its input, what Expand returns.
  const cases: [string, string, string][] = [
    ['whole string', '$(VAR_A)', 'A'],
    ['repeat', '$(VAR_A)-$(VAR_A)', 'A-A'],
    ['beginning', '$(VAR_A)-1', 'A-1'],
    ['middle', '___$(VAR_B)___', '___B___'],
    ['end', '___$(VAR_C)', '___C'],
    ['compound', '$(VAR_A)_$(VAR_B)_$(VAR_C)', 'A_B_C'],
    ['escape & expand', '$$(VAR_B)_$(VAR_A)', '$(VAR_B)_A'],
    ['compound escape', '$$(VAR_A)_$$(VAR_B)', '$(VAR_A)_$(VAR_B)'],
    ['mixed in escapes', 'f000-$$VAR_A', 'f000-$VAR_A'],
    ['backslash escape ignored', 'foo\\$(VAR_C)bar', 'foo\\Cbar'],
    ['backslash escape ignored', 'foo\\\\$(VAR_C)bar', 'foo\\\\Cbar'],
    ['lots of backslashes', 'foo\\\\\\\\$(VAR_A)bar', 'foo\\\\\\\\Abar'],
    ['nested var references', '$(VAR_A$(VAR_B))', '$(VAR_A$(VAR_B))'],
    ['nested var references second type', '$(VAR_A$(VAR_B)', '$(VAR_A$(VAR_B)'],
    ['value is a reference', '$(VAR_REF)', '$(VAR_A)'],
    ['value is a reference x 2', '%%$(VAR_REF)--$(VAR_REF)%%', '%%$(VAR_A)--$(VAR_A)%%'],
    ['empty var', 'foo$(VAR_EMPTY)bar', 'foobar'],
    ['unterminated expression', 'foo$(VAR_Awhoops!', 'foo$(VAR_Awhoops!'],
    ['expression without operator', 'f00__(VAR_A)__', 'f00__(VAR_A)__'],
    ['shell special vars pass through', '$?_boo_$!', '$?_boo_$!'],
    ['bare operators are ignored', '$VAR_A', '$VAR_A'],
    ['undefined vars are passed through', '$(VAR_DNE)', '$(VAR_DNE)'],
    ['multiple (even) operators, var undefined', '$$$$$$(BIG_MONEY)', '$$$(BIG_MONEY)'],
    ['multiple (even) operators, var defined', '$$$$$$(VAR_A)', '$$$(VAR_A)'],
    ['multiple (odd) operators, var undefined', '$$$$$$$(GOOD_ODDS)', '$$$$(GOOD_ODDS)'],
    ['multiple (odd) operators, var defined', '$$$$$$$(VAR_A)', '$$$A'],
    ['missing open expression', '$VAR_A)', '$VAR_A)'],
    ['shell syntax ignored', '${VAR_A}', '${VAR_A}'],
    ['trailing incomplete expression not consumed', '$(VAR_B)_______$(A', 'B_______$(A'],
    ['trailing incomplete expression, no content, is not consumed', '$(VAR_C)_______$(', 'C_______$('],
    ['operator at end of input string is preserved', '$(VAR_A)foobarzab$', 'Afoobarzab$'],
    ['shell escaped incomplete expr', 'foo-\\$(VAR_A', 'foo-\\$(VAR_A'],
    ['lots of $( in middle', '--$($($($($--', '--$($($($($--'],
    ['lots of $( in beginning', '$($($($($--foo$(', '$($($($($--foo$('],
    ['lots of $( at end', 'foo0--$($($($(', 'foo0--$($($($('],
    ['escaped operators in variable names are not escaped', '$(foo$$var)', '$(foo$$var)'],
    ['newline not expanded', '\n', '\n'],
  ];
  it.each(cases)('%s: %j', (_name, input, expected) => expect(expand(input, mapping)).toBe(expected));

  it('expands each entry by the ones before it (TestMapReference)', () => {
    const read = environment({
      env: [
        { name: 'FOO', value: 'bar' },
        { name: 'ZOO', value: '$(FOO)-1' },
        { name: 'BLU', value: '$(ZOO)-2' },
      ],
    });
    expect(['FOO', 'ZOO', 'BLU'].map(read.text)).toEqual(['bar', 'bar-1', 'bar-1-2']);
  });

  it('reads a multi-byte character after `$` whole, as Go decodes the rune', () => {
    expect(expand('a$é$(VAR_A)', mapping)).toBe('a$éA');
  });
});

describe("the kubelet's service links (envvars.FromServices)", () => {
  const service = (name: string, namespace: string, spec: Record<string, unknown>) =>
    ({ kind: 'Service', name, namespace, object: { kind: 'Service', metadata: { name, namespace }, spec } }) as unknown as Resource;
  const services = [
    service('openvpn', 'vpn', { ports: [{ name: 'vpn', port: 1194, protocol: 'UDP' }, { port: 8000 }] }),
    service('9-lives.x', 'vpn', { clusterIP: '10.96.4.4', ports: [{ port: 80 }] }),
    service('headless', 'vpn', { clusterIP: 'None', ports: [{ port: 80 }] }),
    service('far', 'vpn', { type: 'ExternalName', externalName: 'example.org', ports: [{ port: 80 }] }),
    service('elsewhere', 'other', { ports: [{ port: 80 }] }),
  ];
  const links = (pod: Record<string, unknown> = {}) =>
    Object.fromEntries(serviceLinkVariables({ services, namespace: 'vpn', pod, allocated: '10.96.0.10' }).map((v) => [v.name, v.value]));

  it("gives each Service of the pod's namespace with a cluster IP its host, ports and Docker-style links, and the API server's own always", () => {
    expect(links()).toEqual({
      KUBERNETES_SERVICE_HOST: '10.96.0.10',
      KUBERNETES_SERVICE_PORT: '443',
      KUBERNETES_SERVICE_PORT_HTTPS: '443',
      KUBERNETES_PORT: 'tcp://10.96.0.10:443',
      KUBERNETES_PORT_443_TCP: 'tcp://10.96.0.10:443',
      KUBERNETES_PORT_443_TCP_PROTO: 'tcp',
      KUBERNETES_PORT_443_TCP_PORT: '443',
      KUBERNETES_PORT_443_TCP_ADDR: '10.96.0.10',
      OPENVPN_SERVICE_HOST: '10.96.0.10',
      OPENVPN_SERVICE_PORT: '1194',
      OPENVPN_SERVICE_PORT_VPN: '1194',
      OPENVPN_PORT: 'udp://10.96.0.10:1194',
      OPENVPN_PORT_1194_UDP: 'udp://10.96.0.10:1194',
      OPENVPN_PORT_1194_UDP_PROTO: 'udp',
      OPENVPN_PORT_1194_UDP_PORT: '1194',
      OPENVPN_PORT_1194_UDP_ADDR: '10.96.0.10',
      OPENVPN_PORT_8000_TCP: 'tcp://10.96.0.10:8000',
      OPENVPN_PORT_8000_TCP_PROTO: 'tcp',
      OPENVPN_PORT_8000_TCP_PORT: '8000',
      OPENVPN_PORT_8000_TCP_ADDR: '10.96.0.10',
      // makeEnvVariableName: `.` and `-` as `_`, upper case, a `_` before a leading digit; a written cluster IP as it is.
      _9_LIVES_X_SERVICE_HOST: '10.96.4.4',
      _9_LIVES_X_SERVICE_PORT: '80',
      _9_LIVES_X_PORT: 'tcp://10.96.4.4:80',
      _9_LIVES_X_PORT_80_TCP: 'tcp://10.96.4.4:80',
      _9_LIVES_X_PORT_80_TCP_PROTO: 'tcp',
      _9_LIVES_X_PORT_80_TCP_PORT: '80',
      _9_LIVES_X_PORT_80_TCP_ADDR: '10.96.4.4',
    });
  });

  it('links none but the API server where the pod sets enableServiceLinks to false', () => {
    expect(Object.keys(links({ enableServiceLinks: false })).every((name) => name.startsWith('KUBERNETES_'))).toBe(true);
  });
});
