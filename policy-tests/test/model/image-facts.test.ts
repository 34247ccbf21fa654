/**
 * The image facts as the gate reads them (`*\/facts/images.yaml`): the repository's own read whole, and each field
 * that cannot mean what it says refused with its entry, so a typo in the facts is a finding rather than a need
 * silently dropped.
 */
import { describe, expect, it } from 'vitest';
import { argoGlobMatch } from '../../model/core/glob.ts';
import { IMAGE_FACTS_GLOB, imageKey, imageNeeds } from '../../model/repository/image-facts.ts';
import { settingsCall } from '../../model/programs/api-server-calls.ts';
import { isUnderBase, urlBaseOf } from '../../model/programs/url-base.ts';
import { expandRequest, runsProgram } from '../../model/apps/api-requests.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const isFacts = (file: string) => argoGlobMatch(IMAGE_FACTS_GLOB, file);
const read = (images: unknown[]) =>
  imageNeeds({ dataFiles: new Map([['apps/x/facts/images.yaml', { file: 'apps/x/facts/images.yaml', data: { images } }]]) } as never, isFacts);

describe('imageNeeds', () => {
  it("reads the repository's facts without a problem, the entrypoint's needs and paired settings included", () => {
    const { needs, problems } = imageNeeds(repo, isFacts);
    expect(problems).toEqual([]);
    expect(needs.get('ghcr.io/tautulli/tautulli')).toMatchObject({ entrypoint: ['./start.sh'], root: { capabilities: expect.arrayContaining(['SETUID']) } });
    expect(needs.get('ghcr.io/unpackerr/unpackerr')?.envTogether).toContainEqual({ set: 'UN_SONARR_*_URL', needs: 'UN_SONARR_*_API_KEY' });
    expect(needs.get(imageKey('docker.io/qmcgaw/gluetun:v3.40.4'))?.entrypoint).toBeUndefined();
  });

  it('refuses a tag pattern that is not an anchored regular expression, and a new name or a partner with a tag', () => {
    for (const tagPattern of ['\\d+', '^(\\d+$', 5])
      expect(read([{ image: 'a/b', source: 's', tagPattern }]).problems[0]?.message).toMatch(/entry 1: tagPattern is a regular expression, anchored/);
    expect(read([{ image: 'a/b', source: 's', tagPattern: '^v\\d+\\.\\d+\\.\\d+$' }]).problems).toEqual([]);
    expect(read([{ image: 'a/b', source: 's', movedTo: 'c/b:1.0' }]).problems[0]?.message).toMatch(/entry 1: movedTo names the image, without a tag/);
    expect(read([{ image: 'a/b', source: 's', movedTo: 'c/b' }]).problems).toEqual([]);
    expect(read([{ image: 'a/b', source: 's', releasedWith: 'a/server:1.0' }]).problems[0]?.message).toMatch(
      /entry 1: releasedWith names the image, without a tag/,
    );
    expect(imageNeeds(repo, isFacts).needs.get('ghcr.io/haveagitgat/tdarr_node')?.releasedWith).toBe('ghcr.io/haveagitgat/tdarr');
  });

  it('reads the Falco rules an image trips, and refuses a process name longer than the kernel keeps or an executable that is not a path', () => {
    expect(imageNeeds(repo, isFacts).needs.get('quay.io/metallb/speaker')?.trips).toEqual([
      { rule: 'Packet socket created in container', process: 'speaker', exe: '/speaker' },
    ]);
    const trip = { rule: 'Packet socket created in container', process: 'speaker', exe: '/speaker' };
    for (const trips of [
      [],
      [{ ...trip, process: 'gluetun-entrypoint' }],
      [{ ...trip, exe: 'speaker' }],
      [{ ...trip, rule: '' }],
      [{ ...trip, before: '2.7' }],
      // semver writes no leading zero: 2.07.5 is no release its comparison reads (the fuzzer met 2.02.0 thrown).
      [{ ...trip, before: '2.07.5' }],
      [trip.rule],
    ])
      expect(read([{ image: 'a/b', source: 's', trips }]).problems[0]?.message).toMatch(/entry 1: trips lists \{rule, process, exe, before\?\}/);
    expect(read([{ image: 'a/b', source: 's', trips: [{ ...trip, process: 'gluetun-entrypo', before: '2.7.5' }] }]).problems).toEqual([]);
    expect(read([{ image: 'a/b', source: 's', envSince: [{ name: 'A', since: '2.02.0' }] }]).problems[0]?.message).toMatch(/envSince lists \{name, since\}/);
    expect(read([{ image: 'a/b', source: 's', envSince: [{ name: 'A', since: '2.20.0' }] }]).problems).toEqual([]);
  });

  it('reads the requests a program sends the API server, and refuses one without its command or args, or a request that is no method and path', () => {
    const writer = imageNeeds(repo, isFacts).needs.get('ghcr.io/homelab-operator/portfolio-api')?.apiRequests?.[0];
    expect(writer).toMatchObject({ command: ['node', 'dist/status-writer/main.js'], requests: expect.arrayContaining(['GET /api/v1/nodes']) });
    for (const apiRequests of [
      [{ requests: ['GET /api'] }],
      [{ args: ['x'], requests: [] }],
      [{ args: ['x'], requests: ['get /api'] }],
      [{ args: ['x'], requests: ['GET api/v1/nodes'] }],
      [{ args: [], requests: ['GET /api'] }],
      [{ args: ['x'], requests: ['GET /api'], dataKeys: 'status.json' }],
      [{ args: ['x'], requests: ['GET /api'], dataKeys: [''] }],
      [],
    ])
      expect(read([{ image: 'a/b', source: 's', apiRequests }]).problems[0]?.message).toMatch(
        /entry 1: apiRequests lists \{command\?, args\?, requests, dataKeys\?\}/,
      );
    expect(
      read([
        { image: 'a/b', source: 's', apiRequests: [{ args: ['x'], requests: ['PUT /api/v1/namespaces/${NS:-a}/configmaps/${CM}'], dataKeys: ['a.json'] }] },
      ]).problems,
    ).toEqual([]);
  });

  it('expands a request as the container sets its variables: the default where one is unset or empty, and says which it cannot read', () => {
    const env: Record<string, string | null> = { NS: 'lab', EMPTY: '', SECRET: null as never };
    const value = (name: string) => (name in env ? env[name] : undefined);
    expect(expandRequest('GET /api/v1/namespaces/${NS:-a}/configmaps/${CM:-b}', value)).toEqual({ method: 'GET', url: '/api/v1/namespaces/lab/configmaps/b' });
    expect(expandRequest('GET /x/${EMPTY:-d}/${NONE}', value)).toEqual({ method: 'GET', url: '/x/d/' });
    expect(expandRequest('GET /x/${SECRET:-d}', value)).toEqual({ unread: 'SECRET' });
    expect(runsProgram({ args: ['backup', 'etcd'], requests: [] }, { args: ['backup', 'etcd'], command: ['x'] })).toBe(true);
    expect(runsProgram({ args: ['backup', 'etcd'], requests: [] }, { args: ['backup', 'sonarr'] })).toBe(false);
    expect(runsProgram({ command: ['node', 'a.js'], requests: [] }, {})).toBe(false);
  });

  it('refuses a startedFrom without the resource and the path an operator reads the image from', () => {
    const startedFrom = { kind: 'ConfigMap', name: 'rook-csi-operator-image-set-configmap', path: 'data.provisioner' };
    for (const bad of [{ ...startedFrom, path: '' }, { kind: 'ConfigMap', name: 'x' }, 'ConfigMap/x'])
      expect(read([{ image: 'a/b', source: 's', startedFrom: bad }]).problems[0]?.message).toMatch(/entry 1: startedFrom is \{kind, name, path\}/);
    expect(read([{ image: 'a/b', source: 's', startedFrom }]).problems).toEqual([]);
  });

  it('refuses the capabilities of an image that starts as root unless each is named as a pod names it', () => {
    for (const capabilities of [undefined, 'CHOWN', ['CHOWN', ''], ['chown'], [7]])
      expect(read([{ image: 'a/b', source: 's', startsAs: 'root', capabilities }]).problems[0]?.message, JSON.stringify(capabilities)).toMatch(
        /entry 1: an image that starts as root lists the capabilities its init uses, each as the pod names it/,
      );
    expect(read([{ image: 'a/b', source: 's', startsAs: 'root', capabilities: ['CHOWN', 'NET_ADMIN'] }]).problems).toEqual([]);
  });

  it('reads the addresses a program publishes: a variable, or one holding a list cut at one character; refuses anything else', () => {
    for (const selfUrl of [['BASE URL'], [{ name: 'X' }], [{ name: 'X', separator: ', ' }], [{ name: 'X', separator: ',', sep: ',' }], 'X'])
      expect(read([{ image: 'a/b', source: 's', selfUrl }]).problems[0]?.message).toMatch(
        /entry 1: (selfUrl lists the variables naming its own address|.*sep)/,
      );
    expect(read([{ image: 'a/b', source: 's', selfUrl: ['BASE_URL', { name: 'PLEX_ADVERTISE_URL', separator: ',' }] }]).problems).toEqual([]);
  });

  it('reads where an app serves its pages: a fixed absolute path, or the variable that sets it and what it answers outside; refuses anything else', () => {
    for (const urlBase of ['sonarr', { env: 'URL BASE', outside: 'redirect' }, { env: 'X' }, { env: 'X', outside: '404' }, ['/']])
      expect(read([{ image: 'a/b', source: 's', urlBase }]).problems[0]?.message).toMatch(
        /entry 1: urlBase is the absolute path the app serves its pages under/,
      );
    expect(read([{ image: 'a/b', source: 's', urlBase: { env: 'X', outside: 'notFound', default: '/' } }]).problems[0]?.message).toMatch(
      /urlBase\.default is no field of the image facts/,
    );
    expect(
      read([
        { image: 'a/b', source: 's', urlBase: '/' },
        { image: 'a/c', source: 's', urlBase: { env: 'BASE_PATH', outside: 'notFound' } },
      ]).problems,
    ).toEqual([]);
    expect(imageNeeds(repo, isFacts).needs.get('lscr.io/linuxserver/sonarr')?.urlBase).toEqual({ env: 'SONARR__SERVER__URLBASE', outside: 'redirect' });
  });

  it('reads a URL base as the apps do: slashes doubled or trailing dropped, one leading one given, the root where unset', () => {
    expect(['', '  ', '/', 'sonarr', '/sonarr/', '//media//sonarr//'].map((text) => urlBaseOf({ env: 'X', outside: 'redirect' }, text))).toEqual([
      '/',
      '/',
      '/',
      '/sonarr',
      '/sonarr',
      '/media/sonarr',
    ]);
    expect(urlBaseOf({ env: 'X', outside: 'redirect' }, undefined)).toBe('/');
    expect(urlBaseOf('/', 'ignored')).toBe('/');
    expect([
      isUnderBase('/sonarr/api/v3', '/sonarr'),
      isUnderBase('/sonarr', '/sonarr'),
      isUnderBase('/sonarrx', '/sonarr'),
      isUnderBase('/health', '/'),
    ]).toEqual([true, true, false, true]);
  });

  it('refuses written directories that are not absolute paths', () => {
    for (const writesTo of [[], ['transcode'], '/transcode'])
      expect(read([{ image: 'a/b', source: 's', writesTo }]).problems[0]?.message).toMatch(/entry 1: writesTo lists the absolute directories/);
    expect(read([{ image: 'a/b', source: 's', writesTo: ['/transcode'] }]).problems).toEqual([]);
  });

  it('refuses a field the facts do not have, with the one it likely meant, where nothing would read it', () => {
    expect(read([{ image: 'a/b', source: 's', startedForm: { kind: 'K', name: 'n', path: 'p' } }]).problems[0]?.message).toBe(
      'apps/x/facts/images.yaml entry 1: startedForm is no field of the image facts (did you mean "startedFrom"?), so nothing reads it',
    );
    expect(read([{ image: 'a/b', source: 's', envFormat: [{ name: 'A_URL', pattern: '^https?://.*$' }] }]).problems).toEqual([]);
    // Inside a field too: the condition of a need misspelt would make it a need always there.
    expect(read([{ image: 'a/b', source: 's', envNeeds: [{ wheo: { A: ['b'] }, needs: ['C'] }] }]).problems.map((p) => [p.message, p.path])).toEqual([
      [
        'apps/x/facts/images.yaml entry 1: envNeeds.0.wheo is no field of the image facts (did you mean "when"?), so nothing reads it',
        ['images', 0, 'envNeeds', 0, 'wheo'],
      ],
    ]);
    expect(read([{ image: 'a/b', source: 's', startedFrom: { kind: 'K', name: 'n', paht: 'p' } }]).problems.map((p) => p.path)).toContainEqual([
      'images',
      0,
      'startedFrom',
      'paht',
    ]);
  });

  it('refuses an entrypoint that is not a list of strings', () => {
    for (const entrypoint of ['/init', [], [1]])
      expect(read([{ image: 'a/b', source: 's', entrypoint }]).problems[0]?.message).toMatch(/entry 1: entrypoint is the image's ENTRYPOINT/);
  });

  it('refuses a pair of settings without exactly one * in each name', () => {
    for (const pair of [{ set: 'A_URL', needs: 'A_*_KEY' }, { set: 'A_*_*', needs: 'A_*' }, { set: 'A_*_URL' }, { set: 'A-*', needs: 'B_*' }])
      expect(read([{ image: 'a/b', source: 's', envTogether: [pair] }]).problems[0]?.message).toMatch(/entry 1: envTogether lists \{set, needs\}/);
    expect(read([{ image: 'a/b', source: 's', envTogether: [{ set: 'UN_*_URL', needs: 'UN_*_API_KEY' }] }]).problems).toEqual([]);
  });

  it('refuses probe-path lists that are empty or not absolute paths', () => {
    for (const [field, paths] of [
      ['openPaths', []],
      ['pollPaths', ['metrics']],
      ['pollPaths', '/metrics'],
      ['readyPaths', [1]],
    ] as const)
      expect(read([{ image: 'a/b', source: 's', [field]: paths }]).problems[0]?.message).toMatch(new RegExp(`entry 1: ${field} lists the absolute paths`));
    expect(imageNeeds(repo, isFacts).needs.get('ghcr.io/unpoller/unpoller')?.pollPaths).toEqual(['/metrics']);
    expect(imageNeeds(repo, isFacts).needs.get('grafana/loki')?.readyPaths).toEqual(['/ready']);
  });

  it('refuses a form read as written when empty unless it names one variable', () => {
    const format = (rule: Record<string, unknown>) => read([{ image: 'a/b', source: 's', envFormat: [{ pattern: '^[0-9]+$', ...rule }] }]).problems;
    expect(format({ name: 'PGID', empty: true })).toEqual([]);
    expect(format({ name: 'UN_*_GID', empty: true })[0]?.message).toMatch(/envFormat lists \{name, pattern, empty\?\}/);
    expect(format({ name: 'PGID', empty: 'yes' })[0]?.message).toMatch(/envFormat lists \{name, pattern, empty\?\}/);
  });

  it('refuses a need whose conditions, defaults or older names cannot be read', () => {
    for (const need of [
      { whenNot: { A: 'x' }, needs: ['B'] },
      { when: {}, needs: ['B'] },
      { defaults: { A: '' }, needs: ['B'] },
      { defaults: { A: ['x'] }, needs: ['B'] },
      { defaults: 'abc', needs: ['B'] },
      { aliases: { B: 'C' }, needs: ['B'] },
    ])
      expect(read([{ image: 'a/b', source: 's', envNeeds: [need] }]).problems[0]?.message, JSON.stringify(need)).toMatch(
        /entry 1: envNeeds lists \{when\?, whenNot\?/,
      );
    expect(
      read([{ image: 'a/b', source: 's', envNeeds: [{ whenNot: { A: ['x'] }, defaults: { A: 'y' }, needs: ['B'], aliases: { B: ['C'] } }] }]).problems,
    ).toEqual([]);
  });

  it('reads the server the paths are of, and refuses one without its address variable and port, or a replacing file that is no absolute path', () => {
    for (const pathsServer of [
      { address: 'X', default: 0 },
      { address: 'not a name', default: 80 },
      { default: 80 },
      { address: 'X', default: 80, replacedBy: { variable: 'F', default: 'auth.toml' } },
      { address: 'X', default: 80, replacedBy: { default: '/auth.toml' } },
      ['X', 80],
    ])
      expect(read([{ image: 'a/b', source: 's', openPaths: ['/'], pathsServer }]).problems[0]?.message, JSON.stringify(pathsServer)).toMatch(
        /entry 1: pathsServer is \{address, default, replacedBy\?\}/,
      );
    expect(read([{ image: 'a/b', source: 's', pathsServer: { address: 'X', default: 80, port: 1 } }]).problems[0]?.message).toMatch(
      /pathsServer\.port is no field of the image facts/,
    );
    expect(imageNeeds(repo, isFacts).needs.get('qmcgaw/gluetun')?.pathsServer).toEqual({
      address: 'HTTP_CONTROL_SERVER_ADDRESS',
      default: 8000,
      replacedBy: { variable: 'HTTP_CONTROL_SERVER_AUTH_CONFIG_FILEPATH', default: '/gluetun/auth/config.toml' },
    });
  });

  it("refuses a conditional need that cannot be read, and reads the VPN image's", () => {
    for (const envNeeds of [
      [{ when: {}, needs: ['A'] }],
      [{ when: { A: 'x' }, needs: ['B'] }],
      [{ when: { A: ['x'] }, needs: [] }],
      [{ when: { A: ['x'] }, needs: ['B'], orFilesUnder: ['run'] }],
    ])
      expect(read([{ image: 'a/b', source: 's', envNeeds }]).problems[0]?.message).toMatch(
        /entry 1: envNeeds lists \{when\?, whenNot\?, defaults\?, needs, aliases\?, orFilesUnder\?\}/,
      );
    expect(imageNeeds(repo, isFacts).needs.get('qmcgaw/gluetun')?.envNeeds?.[0]).toMatchObject({ needs: ['WIREGUARD_PRIVATE_KEY', 'WIREGUARD_ADDRESSES'] });
    // A need with no condition is always there: the managers' API keys.
    expect(read([{ image: 'a/b', source: 's', envNeeds: [{ needs: ['A'] }] }]).problems).toEqual([]);
    expect(imageNeeds(repo, isFacts).needs.get('lscr.io/linuxserver/sonarr')?.envNeeds).toEqual([{ needs: ['SONARR__AUTH__APIKEY'] }]);
  });
});

describe('settingsCall', () => {
  const sidekick = imageNeeds(repo, isFacts).needs.get(imageKey('docker.io/falcosecurity/falcosidekick'));
  const call = (env: Record<string, string | null>, container: Record<string, unknown> = {}) =>
    settingsCall(sidekick, container, (name) => (name in env ? env[name]! : undefined));

  it("reads falcosidekick's outputs that reach the API server: PolicyReport, or a function output given a kubeconfig", () => {
    expect(sidekick?.apiServerWhen).toHaveLength(4);
    expect(call({})).toEqual({ calls: false });
    expect(call({ POLICYREPORT_ENABLED: 'TRUE' })).toEqual({ calls: true, because: 'POLICYREPORT_ENABLED=TRUE' });
    // strconv.ParseBool refuses a mixed case: mapstructure leaves the output off, and viper's Unmarshal only logs it.
    expect(call({ POLICYREPORT_ENABLED: 'tRUE' })).toEqual({ calls: false });
    expect(call({ POLICYREPORT_ENABLED: 'false', KUBELESS_FUNCTION: 'f', KUBELESS_NAMESPACE: 'n' })).toEqual({ calls: false });
    expect(call({ OPENFAAS_FUNCTIONNAME: 'f', OPENFAAS_KUBECONFIG: '/k' })).toEqual({
      calls: true,
      because: 'OPENFAAS_FUNCTIONNAME set, OPENFAAS_KUBECONFIG set',
    });
    // `*` is any value but an empty one, as the program's `!= ""` reads it.
    expect(call({ OPENFAAS_FUNCTIONNAME: 'f', OPENFAAS_KUBECONFIG: '' })).toEqual({ calls: false });
  });

  it('says what it could not read: a variable set from elsewhere where its entry could still hold, a command of its own', () => {
    expect(call({ POLICYREPORT_ENABLED: null })).toEqual({ unread: expect.stringMatching(/POLICYREPORT_ENABLED comes from an envFrom source/) });
    // The function unset rules its output out, whatever the kubeconfig holds.
    expect(call({ FISSION_KUBECONFIG: null })).toEqual({ calls: false });
    expect(call({}, { args: ['-c', '/etc/sidekick.yaml'] })).toEqual({ unread: expect.stringMatching(/gives its own command or args/) });
    expect(settingsCall(imageNeeds(repo, isFacts).needs.get('quay.io/metallb/speaker'), {}, () => undefined)).toBeUndefined();
  });

  it('reads an image whose program never calls (callsApiServer: false) as calling nothing, unless a command replaces its binary', () => {
    const snmp = imageNeeds(repo, isFacts).needs.get('quay.io/prometheus/snmp-exporter');
    expect(snmp?.callsApiServer).toBe(false);
    expect(settingsCall(snmp, { args: ['--config.file=/config/snmp.yaml'] }, () => null)).toEqual({ calls: false });
    expect(settingsCall(snmp, { command: ['/bin/sh', '-c', 'wget https://kubernetes.default.svc'] }, () => undefined)).toBeUndefined();
    // Any other false flag still says nothing, as if unset.
    expect(read([{ image: 'a/b', source: 's', tempDir: false }]).needs.get('a/b')).not.toHaveProperty('tempDir');
  });

  it('refuses settings that are no map of variables to the values that turn the call on', () => {
    for (const apiServerWhen of [[], [{}], [{ A: [] }], [{ 'A*': ['x'] }], [['A']], { A: ['x'] }, [{ A: 'x' }]])
      expect(read([{ image: 'a/b', source: 's', apiServerWhen }]).problems[0]?.message).toMatch(/entry 1: apiServerWhen lists the settings/);
    expect(read([{ image: 'a/b', source: 's', apiServerWhen: [{ A: ['*'], B: ['1', 'true'] }] }]).problems).toEqual([]);
  });
});
