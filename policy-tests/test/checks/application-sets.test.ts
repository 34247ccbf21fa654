/**
 * An ApplicationSet the repository applies is expanded as Argo CD's ApplicationSet controller expands it, and what
 * its Applications sync is judged like any other app's, on a copy of the real repository: Go templates through the
 * pinned Helm's engine, fasttemplate here. What Argo CD would fail, or the gate cannot tell, is said at the
 * ApplicationSet and never passes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkIds, copyGateOptions, copyRepo, describeFindings, lineOf, type RepoCopy } from '../support/helpers.ts';
import { applicationSet } from '../support/application-set.ts';
import { platformAllows } from '../mutations/edits.ts';
import { allFindings, runGate } from '../../gate/gate.ts';
import { loadRepo } from '../../model/repository/repo.ts';
import { expandApplicationSets } from '../../model/appset/expand.ts';
import { restrainedApplications } from '../../model/appset/outcomes.ts';
import { applications } from '../../model/argocd/argocd.ts';
import { appWaves, before, placeOf } from '../../model/controller/waves.ts';
import { renderGoTemplates } from '../../render/go-template.ts';

const REPO_URL = 'https://github.com/homelab-operator/homelab-gitops.git';
const SET_FILE = 'clusters/home/extras.yaml';
const WORKLOAD = 'apps/extras/whoami/deployment.yaml';

/** A Deployment the checks refuse on three counts: a host PID namespace, no memory bounds, root allowed. */
const HOST_PID_DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: whoami
  namespace: media
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: whoami
  template:
    metadata:
      labels:
        app.kubernetes.io/name: whoami
    spec:
      hostPID: true
      containers:
        - name: whoami
          image: traefik/whoami:v1.10.3
`;

const GIT_DIRECTORIES = ['- git:', `    repoURL: ${REPO_URL}`, '    revision: main', '    directories:', '      - path: apps/extras/*'];

/** A list generator's own template (its lines under the generator), with these lines under its source. */
const generatorTemplate = (source: readonly string[]): string[] => [
  '    template:',
  '      metadata: {}',
  '      spec:',
  '        project: media',
  '        destination: {}',
  '        source:',
  ...source,
];

describe('an ApplicationSet is expanded as Argo CD expands it, and its Applications judged', () => {
  let copy: RepoCopy;
  beforeAll(() => {
    copy = copyRepo();
  });
  afterAll(() => copy.dispose());
  /** The app that applies an ApplicationSet from `path` into argocd (a copy of the backups app), at apps/extras/sets/application.yaml. */
  const writeSetsApp = (path: string) =>
    copy.write(
      'apps/extras/sets/application.yaml',
      copy
        .read('apps/platform/backups/application.yaml')
        .replace('name: backups', 'name: extras-sets')
        .replace('path: apps/platform/backups\n    directory:\n      exclude: application.yaml', `path: ${path}`)
        .replace('namespace: backups', 'namespace: argocd'),
    );
  /** The gate on the copy, which must refuse the whoami Deployment on its three counts and nothing else. */
  const gateRefusingWhoami = async () => {
    const result = await runGate(copyGateOptions(copy.root));
    const findings = allFindings(result);
    expect(checkIds(findings), describeFindings(findings)).toEqual(['pod-security', 'workload-memory', 'workload-privilege']);
    return result;
  };
  const withWorkload = () => {
    copy.reset();
    copy.write('apps/extras/whoami/kustomization.yaml', 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - deployment.yaml\n');
    copy.write(WORKLOAD, HOST_PID_DEPLOYMENT);
  };

  it("goTemplate: a git directories generator's Application syncs a folder whose host PID namespace Pod Security refuses, found in the folder's file", async () => {
    withWorkload();
    copy.write(
      SET_FILE,
      applicationSet(['goTemplate: true', 'goTemplateOptions: ["missingkey=error"]'], GIT_DIRECTORIES, {
        name: 'extra-{{ .path.basename }}',
        path: '{{ .path.path }}',
      }),
    );
    const findings = await copy.gate({});
    expect(checkIds(findings), describeFindings(findings)).toEqual(['pod-security', 'workload-memory', 'workload-privilege']);
    expect(new Set(findings.map((f) => f.file))).toEqual(new Set([WORKLOAD]));
  });

  it('fasttemplate: a list generator makes the same Application, judged the same', async () => {
    withWorkload();
    copy.write(
      SET_FILE,
      applicationSet([], ['- list:', '    elements:', '      - app: whoami', '        folder: apps/extras/whoami'], {
        name: 'extra-{{app}}',
        path: '{{ folder }}',
      }),
    );
    const findings = await copy.gate({});
    expect(checkIds(findings), describeFindings(findings)).toEqual(['pod-security', 'workload-memory', 'workload-privilege']);
  });

  it('a git files generator reads each file as Argo CD does (YAML 1.1: yes is true), one Application per file', async () => {
    withWorkload();
    copy.write('apps/extras/appset/whoami.yaml', 'name: whoami\nenabled: yes\n');
    copy.write(
      SET_FILE,
      applicationSet([], ['- git:', `    repoURL: ${REPO_URL}`, '    revision: main', '    files:', '      - path: apps/extras/appset/*.yaml'], {
        name: 'extra-{{name}}-{{enabled}}',
        path: 'apps/extras/{{name}}',
      }),
    );
    const result = await gateRefusingWhoami();
    expect(result.resources.filter((r) => r.kind === 'Application' && r.filename === SET_FILE).map((r) => `${r.name} ${r.status}`)).toEqual([
      'extra-whoami-true valid',
    ]);
  });

  it("a generator's own template is merged over the ApplicationSet's, as mergeGeneratorTemplate merges it: its path is the one synced", async () => {
    withWorkload();
    const own = generatorTemplate([`          repoURL: ${REPO_URL}`, '          path: apps/extras/whoami']);
    copy.write(
      SET_FILE,
      applicationSet([], ['- list:', '    elements:', '      - app: whoami-db', ...own], { name: 'extra-{{app}}', path: 'apps/extras/{{app}}' }),
    );
    const result = await gateRefusingWhoami();
    const made = result.resources.filter((r) => r.kind === 'Application' && r.filename === SET_FILE);
    expect(made.map((r) => `${r.name} ${r.status}`)).toEqual(['extra-whoami-db valid']);
  });

  it("a finding on what a generator's own template writes lands on that template's line, the rest on the ApplicationSet's", async () => {
    withWorkload();
    const own = generatorTemplate(['          path: apps/extras/missing']);
    copy.write(
      SET_FILE,
      applicationSet([], ['- list:', '    elements:', '      - app: whoami', ...own], { name: 'extra-{{app}}', path: 'apps/extras/{{app}}' }),
    );
    const findings = (await copy.gate({})).filter((f) => f.file === SET_FILE);
    const missing = findings.find((f) => /apps\/extras\/missing/.test(f.message));
    expect(missing, describeFindings(findings)).toBeDefined();
    expect(missing!.line).toBe(lineOf(copy, SET_FILE, 'path: apps/extras/missing'));
  });

  it('a clusters generator makes an Application for the one cluster this lab declares, the local one, judged like the rest', async () => {
    withWorkload();
    copy.write(SET_FILE, applicationSet([], ['- clusters: {}'], { name: 'whoami-{{name}}', path: 'apps/extras/whoami' }));
    const result = await gateRefusingWhoami();
    expect(result.resources.filter((r) => r.kind === 'Application' && r.filename === SET_FILE).map((r) => r.name)).toEqual(['whoami-in-cluster']);
  });

  it('under --no-render a goTemplate ApplicationSet is listed as not rendered: Go templates need the pinned Helm', async () => {
    withWorkload();
    copy.write(SET_FILE, applicationSet(['goTemplate: true'], GIT_DIRECTORIES, { name: 'extra-{{ .path.basename }}', path: '{{ .path.path }}' }));
    const result = await runGate({ ...copyGateOptions(copy.root), render: false });
    expect(result.notRendered.filter((n) => n.file === SET_FILE).map((n) => n.message)).toEqual([
      expect.stringMatching(/cannot tell .*needs Helm, which --no-render does not run/),
    ]);
  });

  it("an Application whose project Argo CD's namespace does not hold is refused by the controller, as validateGeneratedApplications refuses it, and not made", async () => {
    withWorkload();
    copy.write(
      SET_FILE,
      applicationSet(['goTemplate: true'], GIT_DIRECTORIES, { name: 'extra-{{ .path.basename }}', path: '{{ .path.path }}', project: 'nowhere' }),
    );
    const findings = await copy.gate({});
    expect(
      findings.filter((f) => f.file === SET_FILE).map((f) => `${f.check}: ${f.message}`),
      describeFindings(findings),
    ).toEqual([
      expect.stringMatching(/^argocd-applied-files: .*refuses these: argocd\/extra-whoami: application references project nowhere which does not exist/),
    ]);
    // Not made: nothing of it is held to a project, and its folder is synced by no Application.
    expect(findings.some((f) => f.check === 'argocd-project')).toBe(false);
  });

  it("an Application whose destination resolves to no cluster is refused too, in GetDestinationCluster's words", async () => {
    withWorkload();
    copy.write(
      SET_FILE,
      applicationSet(['goTemplate: true'], GIT_DIRECTORIES, { name: 'extra-{{ .path.basename }}', path: '{{ .path.path }}' }).replace(
        'server: https://kubernetes.default.svc',
        'name: elsewhere',
      ),
    );
    const findings = await copy.gate({});
    expect(findings.filter((f) => f.file === SET_FILE).map((f) => f.message)).toContainEqual(
      expect.stringMatching(/extra-whoami: application destination spec is invalid: there are no clusters with this name: elsewhere/),
    );
    expect(findings.some((f) => f.check === 'argocd-destination')).toBe(false);
  });

  it('a templatePatch is applied as Argo CD applies it: the automated sync it adds where a set asks is judged, and the project it names is not taken', async () => {
    withWorkload();
    const set = applicationSet(
      ['goTemplate: true', 'templatePatch: |', '    {{- if .manual }}', '    spec:', '      project: platform', '      syncPolicy: null', '    {{- end }}'],
      ['- list:', '    elements:', '      - app: whoami', '        manual: true'],
      { name: 'extra-{{ .app }}', path: 'apps/extras/{{ .app }}' },
    );
    copy.write(SET_FILE, set);
    const findings = await copy.gate({});
    // The patch took the sync policy away (argocd-sync-policy), and the project stayed media (no finding on a platform app's scope).
    expect(findings.filter((f) => f.file === SET_FILE).map((f) => f.check)).toContain('argocd-sync-policy');
    expect(findings.some((f) => /project platform/.test(f.message))).toBe(false);
  });

  it("a templatePatch's directives do what apimachinery makes them do: a sync policy emptied by $patch: delete is judged, and a patch it refuses fails the ApplicationSet", async () => {
    withWorkload();
    const generators = ['- list:', '    elements:', '      - app: whoami'];
    const template = { name: 'extra-{{app}}', path: 'apps/extras/{{app}}' };
    copy.write(SET_FILE, applicationSet(['templatePatch: |', '  spec:', '    syncPolicy:', '      $patch: delete'], generators, template));
    const emptied = await copy.gate({});
    expect(emptied.filter((f) => f.file === SET_FILE).map((f) => `${f.check}: ${f.message}`)).toEqual([
      expect.stringMatching(/^argocd-sync-policy: .*extra-whoami/),
    ]);
    copy.write(SET_FILE, applicationSet(['templatePatch: |', '  spec:', '    $patch: merge'], generators, template));
    const refused = await copy.gate({});
    expect(refused.filter((f) => f.file === SET_FILE).map((f) => `${f.check}: ${f.message}`)).toEqual([
      expect.stringMatching(/^argocd-applied-files: .*error while applying templatePatch template to json .*unknown patch type: merge in map/),
    ]);
    expect(refused.find((f) => f.file === SET_FILE)!.line).toBe(lineOf(copy, SET_FILE, 'generators:'));
  });

  it('a RollingSync strategy, where argocd-cmd-params-cm turns progressive syncs on, leaves the Applications without automated sync, as the controller makes them', async () => {
    withWorkload();
    copy.write(
      'clusters/home/argocd-cmd-params.yaml',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cmd-params-cm\n  namespace: argocd\ndata:\n  applicationsetcontroller.enable.progressive.syncs: "true"\n',
    );
    const rolling = ['strategy:', '  type: RollingSync', '  rollingSync:', '    steps:', '      - matchExpressions: []'];
    copy.write(SET_FILE, applicationSet(rolling, ['- list:', '    elements:', '      - app: whoami'], { name: 'extra-{{app}}', path: 'apps/extras/{{app}}' }));
    const findings = await copy.gate({});
    expect(findings.filter((f) => f.file === SET_FILE).map((f) => `${f.check}: ${f.message}`)).toEqual([
      expect.stringMatching(/^argocd-sync-policy: .*extra-whoami/),
    ]);
  });

  it('where argocd-cmd-params-cm puts the controller in dry-run mode, nothing it would make is judged as made: the ApplicationSet fails, said why', async () => {
    withWorkload();
    copy.write(
      'clusters/home/argocd-cmd-params.yaml',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cmd-params-cm\n  namespace: argocd\ndata:\n  applicationsetcontroller.dryrun: "True"\n',
    );
    copy.write(SET_FILE, applicationSet([], ['- list:', '    elements:', '      - app: whoami'], { name: 'extra-{{app}}', path: 'apps/extras/{{app}}' }));
    const findings = await copy.gate({});
    expect(findings.filter((f) => f.file === SET_FILE).map((f) => `${f.check}: ${f.message}`)).toEqual([
      expect.stringMatching(/^argocd-applied-files: .*applicationsetcontroller\.dryrun is true: the controller writes no Application/),
    ]);
    // The folder the Application would sync is applied by nothing.
    expect(findings.some((f) => f.check === 'argocd-root-discovery' && f.file === WORKLOAD)).toBe(true);
  });

  it('an ApplicationSet outside the namespaces its controller watches makes nothing: said so, and nothing it would make is judged as made', async () => {
    withWorkload();
    const set = applicationSet([], ['- list:', '    elements:', '      - app: whoami'], { name: 'extra-{{app}}', path: 'apps/extras/{{app}}' }).replace(
      '  namespace: argocd\n',
      '  namespace: media\n',
    );
    copy.write(SET_FILE, set);
    platformAllows('media')(copy);
    const findings = await copy.gate({});
    expect(findings.filter((f) => f.file === SET_FILE).map((f) => `${f.check}: ${f.message}`)).toEqual([
      "argocd-applied-files: ApplicationSet extras: Argo CD's ApplicationSet controller never reads it and makes no Application: it lives in namespace media, and the controller watches argocd (argocd-cmd-params-cm applicationsetcontroller.namespaces)",
    ]);
    expect(findings.some((f) => f.check === 'argocd-root-discovery' && f.file === WORKLOAD)).toBe(true);
    // applicationsetcontroller.namespaces names it (a glob), but SCM providers stay on with none allowed: the
    // controller exits at start, and reads no ApplicationSet at all.
    const params = (data: string) =>
      copy.write(
        'clusters/home/argocd-cmd-params.yaml',
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cmd-params-cm\n  namespace: argocd\ndata:\n${data}`,
      );
    params('  applicationsetcontroller.namespaces: "med*"\n');
    expect((await copy.gate({})).filter((f) => f.file === SET_FILE).map((f) => f.message)).toEqual([
      expect.stringMatching(/never reads it and makes no Application: .*the controller exits at start/),
    ]);
    // With SCM providers off it is read and expanded: its Application lives in media, where the application
    // controller processes none, and what it would sync is judged.
    params('  applicationsetcontroller.namespaces: "med*"\n  applicationsetcontroller.enable.scm.providers: "false"\n');
    const watched = await copy.gate({});
    expect(watched.filter((f) => f.file === SET_FILE).map((f) => `${f.check}: ${f.message}`)).toEqual([
      expect.stringMatching(/^argocd-sync-policy: Application extra-whoami lives in namespace media: /),
    ]);
    expect(watched.some((f) => f.check === 'pod-security' && f.file === WORKLOAD)).toBe(true);
  });

  it("takes an ApplicationSet's applicationsSync policy only where the controller lets it override its own (DefaultPolicy)", async () => {
    copy.reset();
    copy.write(
      SET_FILE,
      applicationSet(['syncPolicy:', '  applicationsSync: create-only'], ['- list:', '    elements:', '      - app: whoami'], {
        name: 'extra-{{app}}',
        path: 'apps/extras/{{app}}',
      }),
    );
    const policies = async () => restrainedApplications(await expandApplicationSets(await loadRepo(copy.root), undefined));
    expect(await policies()).toEqual(new Map([['extra-whoami', 'create-only']]));
    copy.write(
      'clusters/home/argocd-cmd-params.yaml',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cmd-params-cm\n  namespace: argocd\ndata:\n  applicationsetcontroller.policy: sync\n',
    );
    expect(await policies()).toEqual(new Map());
    // The override switch read as the controller reads its environment (ParseBoolFromEnv): "tRuE" is true, "1" is no
    // answer, which leaves the default (off, since a controller policy is set).
    const withOverride = (value: string) =>
      copy.write(
        'clusters/home/argocd-cmd-params.yaml',
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cmd-params-cm\n  namespace: argocd\ndata:\n  applicationsetcontroller.policy: sync\n  applicationsetcontroller.enable.policy.override: "${value}"\n`,
      );
    withOverride('tRuE');
    expect(await policies()).toEqual(new Map([['extra-whoami', 'create-only']]));
    withOverride('1');
    expect(await policies()).toEqual(new Map());
  });

  it('an ApplicationSet a kustomization applies, setting only its namespace, is expanded as it lands, and judged', async () => {
    withWorkload();
    writeSetsApp('apps/extras/sets');
    copy.write(
      'apps/extras/sets/kustomization.yaml',
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: argocd\nresources:\n  - set.yaml\n',
    );
    copy.write(
      'apps/extras/sets/set.yaml',
      applicationSet([], ['- list:', '    elements:', '      - app: whoami'], { name: 'extra-{{app}}', path: 'apps/extras/{{app}}' }).replace(
        '  namespace: argocd\n',
        '',
      ),
    );
    const findings = await copy.gate({});
    expect(checkIds(findings), describeFindings(findings)).toEqual(['pod-security', 'workload-memory', 'workload-privilege']);
  });

  it('an Application it makes syncs a folder beyond the manifest roots as Argo CD reads any path of the checkout: plain or kustomize, judged in its files', async () => {
    for (const kustomize of [false, true]) {
      copy.reset();
      copy.write('extras/whoami/deployment.yaml', HOST_PID_DEPLOYMENT);
      if (kustomize)
        copy.write('extras/whoami/kustomization.yaml', 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - deployment.yaml\n');
      copy.write(
        SET_FILE,
        applicationSet([], ['- git:', `    repoURL: ${REPO_URL}`, '    revision: main', '    directories:', '      - path: extras/*'], {
          name: 'extra-{{path.basename}}',
          path: '{{path}}',
        }),
      );
      const findings = await copy.gate({});
      // The layout's rule says where it stands (manifest-roots); the rest is what its Deployment is.
      expect(checkIds(findings), describeFindings(findings)).toEqual(['manifest-roots', 'pod-security', 'workload-memory', 'workload-privilege']);
      expect(new Set(findings.map((f) => f.file))).toEqual(new Set(['extras/whoami/deployment.yaml']));
    }
  });

  it('an ApplicationSet a chart renders (as the argocd-apps chart writes them) is expanded as Argo CD expands it, and its Applications judged', async () => {
    withWorkload();
    writeSetsApp('apps/extras/sets/chart');
    copy.write('apps/extras/sets/chart/Chart.yaml', 'apiVersion: v2\nname: sets\nversion: 1.0.0\n');
    copy.write(
      'apps/extras/sets/chart/templates/set.yaml',
      applicationSet([], ['- list:', '    elements:', '      - app: whoami'], { name: 'extra-{{`{{app}}`}}', path: 'apps/extras/{{`{{app}}`}}' }),
    );
    const result = await gateRefusingWhoami();
    expect(result.resources.filter((r) => r.kind === 'Application' && r.name === 'extra-whoami')).toHaveLength(1);
  });

  it('an ApplicationSet a kustomization changes is expanded as it lands: only what the changed one makes is judged, nothing of it as written', async () => {
    withWorkload();
    writeSetsApp('apps/extras/sets');
    // The kustomization turns the generator's element from one that names no folder into whoami.
    copy.write(
      'apps/extras/sets/kustomization.yaml',
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - set.yaml\npatches:\n  - target: { kind: ApplicationSet }\n    patch: |-\n      - op: replace\n        path: /spec/generators/0/list/elements/0/app\n        value: whoami\n',
    );
    copy.write(
      'apps/extras/sets/set.yaml',
      applicationSet([], ['- list:', '    elements:', '      - app: nowhere'], { name: 'extra-{{app}}', path: 'apps/extras/{{app}}' }),
    );
    const result = await gateRefusingWhoami();
    expect(result.resources.filter((r) => r.kind === 'Application' && r.name.startsWith('extra-')).map((r) => r.name)).toEqual(['extra-whoami']);
  });

  it("orders a made Application by its ApplicationSet's wave, and nothing of the root app's sync waits for it (but under a RollingSync)", async () => {
    copy.reset();
    const set = applicationSet(['goTemplate: true'], ['- list:', '    elements:', '      - app: whoami'], {
      name: 'extra-{{ .app }}',
      path: 'apps/extras/{{ .app }}',
    }).replace("      name: 'extra-{{ .app }}'", '      name: \'extra-{{ .app }}\'\n      annotations:\n        argocd.argoproj.io/sync-wave: "-50"');
    copy.write(SET_FILE, set);
    const repo = await expandApplicationSets(await loadRepo(copy.root), (jobs) => renderGoTemplates(jobs));
    const apps = applications(repo);
    const place = (name: string) => placeOf(repo, apps.find((a) => a.name === name)!.resource);
    expect(appWaves(repo).get('extra-whoami')).toBe(0);
    // cert-manager syncs before the ApplicationSet's wave; media-sonarr (wave 1) does not wait for the made app, whatever its own annotation says.
    expect(before(place('cert-manager'), place('extra-whoami'))).toBe(true);
    expect(before(place('extra-whoami'), place('media-sonarr'))).toBe(false);
  });

  it('a key the parameters lack, with missingkey=error: Argo CD fails the ApplicationSet and makes nothing, and argocd-applied-files says so', async () => {
    copy.reset();
    copy.write(
      SET_FILE,
      applicationSet(['goTemplate: true', 'goTemplateOptions: ["missingkey=error"]'], ['- list:', '    elements:', '      - app: sonarr'], {
        name: 'copy-{{ .name }}',
        path: 'apps/media/{{ .app }}',
      }),
    );
    const findings = await copy.gate({});
    expect(checkIds(findings), describeFindings(findings)).toEqual(['argocd-applied-files']);
    expect(findings[0]!.message).toMatch(/fails it and makes no Application: .*map has no entry for key "name"/);
    expect(findings[0]!.line).toBe(lineOf(copy, SET_FILE, 'generators:'));
  });

  it('a key the parameters lack, without it: Argo CD writes <no value>, which the gate cannot replay, so it is not judged', async () => {
    copy.reset();
    copy.write(
      SET_FILE,
      applicationSet(['goTemplate: true'], ['- list:', '    elements:', '      - app: sonarr'], { name: 'copy-{{ .name }}', path: 'apps/media/{{ .app }}' }),
    );
    const findings = await copy.gate({});
    expect(findings.map((f) => f.message)).toEqual([expect.stringMatching(/cannot tell which Applications .*\.name is not in every parameter set/)]);
  });

  it("a Go template's syntax error is Argo CD's error too: the ApplicationSet fails", async () => {
    copy.reset();
    copy.write(
      SET_FILE,
      applicationSet(['goTemplate: true'], ['- list:', '    elements:', '      - app: sonarr'], { name: 'copy-{{ if .app }}x', path: 'apps/media/{{ .app }}' }),
    );
    const findings = await copy.gate({});
    expect(findings.map((f) => f.message)).toEqual([expect.stringMatching(/fails it and makes no Application: .*unexpected EOF/)]);
  });
  it("makes none of the Applications a name is given twice, and the rest, as the controller's validation refuses a duplicate name", async () => {
    withWorkload();
    copy.write(
      SET_FILE,
      applicationSet([], ['- list:', '    elements:', '      - app: whoami', '      - app: whoami', '      - app: sonarr'], {
        name: 'extra-{{app}}',
        path: 'apps/extras/whoami',
      }),
    );
    const result = await runGate(copyGateOptions(copy.root));
    const findings = allFindings(result);
    // The whoami pair is never made (so its folder's Deployment is judged by nobody's sync); extra-sonarr is.
    expect(result.resources.filter((r) => r.kind === 'Application' && r.filename === SET_FILE).map((r) => r.name)).toEqual(['extra-sonarr']);
    expect(findings.filter((f) => f.check === 'argocd-applied-files').map((f) => f.message)).toEqual([
      expect.stringMatching(
        /makes the other Applications and refuses these: argocd\/extra-whoami: ApplicationSet extras contains applications with duplicate name: extra-whoami$/,
      ),
    ]);
  });

  it('a git files generator reads its parameter files from any folder: data to it, not manifests, unless an Application applies them too', async () => {
    withWorkload();
    copy.write('apps/extras/params/whoami.json', '{"name": "whoami"}\n');
    const set = (pattern: string) =>
      applicationSet([], ['- git:', `    repoURL: ${REPO_URL}`, '    revision: main', '    files:', `      - path: ${pattern}`], {
        name: 'extra-{{name}}',
        path: 'apps/extras/{{name}}',
      });
    copy.write(SET_FILE, set('apps/extras/params/*.json'));
    const findings = await copy.gate({});
    expect(checkIds(findings), describeFindings(findings)).toEqual(['pod-security', 'workload-memory', 'workload-privilege']);
    // A file no generator reads is a manifest again: one that looks like no Kubernetes object, applied by nobody.
    copy.write(SET_FILE, set('apps/extras/other/*.json'));
    expect(checkIds(await copy.gate({}))).toEqual(expect.arrayContaining(['argocd-root-discovery', 'manifest-shape']));
  });
});
