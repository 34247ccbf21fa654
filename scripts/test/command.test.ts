/** The operators' scripts share one contract: --help 0, wrong arguments 2, failures 1, one line each, causes named. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../policy-tests/model/repository/repo.ts';
import { exec, olderNode } from '../../test-support/exec.ts';
import { falcoFactsCommand } from '../falco-facts.ts';
import { falcoFieldsCommand } from '../falco-fields.ts';
import { conformanceCommand } from '../conformance.ts';
import { describeError, runCommand, UsageError } from '../lib/command.ts';
import { silenceTestCommand } from '../watchdog-silence-test.ts';
import { freePort } from './backup-helpers.ts';
import { capture } from '../../test-support/capture-io.ts';
import { run, runToEnd } from '../lib/exec.ts';
import { quietWarnings } from '../quiet-warnings.mjs';

/** npm's scripts (package.json), and one of them as the words npm gives its shell. */
const scripts = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const npmScript = (name: string): string[] => scripts[name]!.split(' ');
/** The machine's own Node, when it is older than the scripts run on (test-support/exec.ts). */
const older = await olderNode();

const probe = (run: () => Promise<number>) => ({
  name: 'probe',
  usage: 'probe <thing> [--flag]',
  help: 'A probe command.',
  options: { flag: { type: 'boolean' as const } },
  positionals: { min: 1, max: 1 },
  run,
});

describe('runCommand', () => {
  it('--help prints usage and help on stdout and exits 0, without running', async () => {
    const { out, io } = capture();
    expect(
      await runCommand(
        probe(() => Promise.reject(new Error('ran'))),
        ['--help'],
        io,
      ),
    ).toBe(0);
    expect(out).toEqual({ stdout: 'usage: probe <thing> [--flag]\n\nA probe command.\n', stderr: '' });
  });

  it.each([
    [['--nope', 'x'], "probe: Unknown option '--nope' (usage: probe <thing> [--flag])\n"],
    [['x', 'y'], 'probe: unexpected argument "y" (usage: probe <thing> [--flag])\n'],
    [[], 'probe: missing argument (usage: probe <thing> [--flag])\n'],
  ])('%j is a usage error: one line, exit 2', async (argv, line) => {
    const { out, io } = capture();
    expect(
      await runCommand(
        probe(() => Promise.resolve(0)),
        argv,
        io,
      ),
    ).toBe(2);
    expect(out).toEqual({ stdout: '', stderr: line });
  });

  it('a failure at run time is one line and exit 1; a UsageError from the body is exit 2', async () => {
    const failing = capture();
    expect(
      await runCommand(
        probe(() => Promise.reject(new Error('disk full\n    at somewhere (file.ts:1:1)'))),
        ['x'],
        failing.io,
      ),
    ).toBe(1);
    expect(failing.out.stderr).toBe('probe: disk full\n');
    const wrong = capture();
    expect(
      await runCommand(
        probe(() => Promise.reject(new UsageError('no such thing'))),
        ['x'],
        wrong.io,
      ),
    ).toBe(2);
    expect(wrong.out.stderr).toBe('probe: no such thing (usage: probe <thing> [--flag])\n');
  });
});

describe('describeError names what "fetch failed" hides', () => {
  it('a refused connection', async () => {
    const port = await freePort();
    const err = await fetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(describeError(new Error(`http://127.0.0.1:${port} is unreachable: fetch failed`, { cause: err }))).toBe(
      `http://127.0.0.1:${port} is unreachable: connection refused (ECONNREFUSED 127.0.0.1:${port})`,
    );
  });

  it('a name that does not resolve', async () => {
    const err = await fetch('http://no-such-host.invalid/').catch((e: unknown) => e);
    expect(describeError(err)).toMatch(/^cannot connect: (no such host \(DNS\) \(ENOTFOUND|DNS lookup failed \(EAI_AGAIN)/);
  });

  it('a timeout', async () => {
    const err = await fetch('http://10.255.255.1/', { signal: AbortSignal.timeout(1) }).catch((e: unknown) => e);
    expect(describeError(err)).toMatch(/timed out$/);
  });
});

describe('the scripts on the contract', () => {
  it('falco:facts on a missing file: one line, exit 1; without --version: exit 2', async () => {
    const missing = capture();
    expect(await falcoFactsCommand(['/nonexistent/falco_rules.yaml', '--version', '5.0.0'], missing.io)).toBe(1);
    expect(missing.out.stderr).toBe('falco:facts: cannot read /nonexistent/falco_rules.yaml: ENOENT\n');
    const noVersion = capture();
    expect(await falcoFactsCommand(['rules.yaml'], noVersion.io)).toBe(2);
    expect(noVersion.out.stderr).toMatch(/^falco:facts: --version <x\.y\.z> is required/);
  });

  it('falco:fields reads the field tables of the two checkouts; a missing one is one line, exit 1; a missing flag exit 2', async () => {
    const root = mkdtempSync(join(tmpdir(), 'falco-fields-'));
    try {
      mkdirSync(join(root, 'libs/userspace/libsinsp'), { recursive: true });
      mkdirSync(join(root, 'plugins/plugins/container/src/caps/extract'), { recursive: true });
      writeFileSync(
        join(root, 'libs/userspace/libsinsp/sinsp_filtercheck_thread.cpp'),
        '{PT_CHARBUF, EPF_NONE, PF_NA, "proc.name", "Name", "x"},\n{PT_CHARBUF,\n EPF_ARG_ALLOWED | EPF_NO_RHS,\n PF_NA,\n "proc.aname", "A", "y"},',
      );
      writeFileSync(join(root, 'plugins/plugins/container/src/caps/extract/extract.cpp'), '{ft::FTYPE_STRING, "k8s.ns.name", "Namespace"},');
      const out = join(root, 'fields.json');
      const ok = capture();
      const args = ['--libs', join(root, 'libs'), '--container-plugin', join(root, 'plugins'), '--falco', '0.44.1', '--out', out];
      expect(await falcoFieldsCommand(args, ok.io)).toBe(0);
      expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual({
        falco: '0.44.1',
        fields: { 'k8s.ns.name': 'allowed', 'proc.aname': 'allowed', 'proc.name': 'none' },
      });
      const missing = capture();
      expect(await falcoFieldsCommand(['--libs', '/nonexistent/libs', '--container-plugin', '/x', '--falco', '1'], missing.io)).toBe(1);
      expect(missing.out.stderr).toBe('falco:fields: cannot read /nonexistent/libs/userspace/libsinsp: ENOENT\n');
      const usage = capture();
      expect(await falcoFieldsCommand(['--libs', '/x'], usage.io)).toBe(2);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('conformance --every-policy-version judges the Pod Security fixtures of each version at that version, and totals them', async () => {
    const root = mkdtempSync(join(tmpdir(), 'conformance-'));
    try {
      // A restricted pod running as root: runAsUser refuses it from v1.23, and admits it before.
      const pod =
        'apiVersion: v1\nkind: Pod\nmetadata: {name: runasuser0}\nspec:\n  securityContext: {runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}\n  containers:\n  - name: c\n    image: x\n    securityContext: {runAsUser: 0, allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}\n';
      for (let minor = 0; minor <= 23; minor++)
        for (const level of ['baseline', 'restricted'])
          for (const expect of ['pass', 'fail']) mkdirSync(join(root, 'test/testdata', level, `v1.${minor}`, expect), { recursive: true });
      writeFileSync(join(root, 'test/testdata/restricted/v1.22/pass/runasuser0.yaml'), pod);
      writeFileSync(join(root, 'test/testdata/restricted/v1.23/fail/runasuser0.yaml'), pod);
      const { out, io } = capture();
      expect(await conformanceCommand(['--pod-security', root, '--kubernetes', '1.23', '--every-policy-version'], io)).toBe(0);
      expect(out.stdout.split('\n').filter((l) => /v1\.2[23]/.test(l))).toEqual([
        'Pod Security fixtures, v1.22: 1/1 agree (100.0%)',
        'Pod Security fixtures, v1.23: 1/1 agree (100.0%)',
        'Pod Security fixtures of v1.0 to v1.23: 2/2 agree (100.0%)',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('conformance: measures checkouts given by path and prints the agreement of every CEL suite together', async () => {
    const root = mkdtempSync(join(tmpdir(), 'conformance-'));
    try {
      const library = join(root, 'apiserver/pkg/cel/library');
      const table = join(root, 'ext/pkg/apiserver/schema/cel');
      mkdirSync(library, { recursive: true });
      mkdirSync(table, { recursive: true });
      writeFileSync(join(library, 'library_compatibility_test.go'), 'var names = map[string][]string{\n\t// Kubernetes <1.24>:\n\t"isSorted", "sum",\n}\n');
      writeFileSync(
        join(library, 'semver_test.go'),
        '\tcases := []struct{}{\n\t\t{\n\t\t\texpr: `isSemver("1.2.3")`,\n\t\t\texpectResult: trueVal,\n\t\t},\n\t}\n\ttrueVal := types.Bool(true)\n',
      );
      writeFileSync(
        join(table, 'validation_test.go'),
        'func TestValidationExpressions(t *testing.T) {\n\ttests := []struct {\n\t\tname string\n\t}{\n\t\t{name: "n", obj: objs(int64(1)), schema: schemas(integerType), valid: []string{"self.val1 == 1"}},\n\t}\n}\n',
      );
      writeFileSync(
        join(table, 'celcoststability_test.go'),
        [
          'func TestCelCostStability(t *testing.T) {\n\tcases := []struct {\n\t\tname string\n\t}{\n\t\t{name: "c", obj: objs(int64(2)), schema: schemas(integerType), expectCost: map[string]int64{"self.val1 == 2": 3}},\n\t}\n}\n',
          'func TestCelEstimatedCostStability(t *testing.T) {\n\tcases := []struct {\n\t\tname string\n\t}{\n\t\t{name: "e", schema: schemas(integerType), expectCost: map[string]uint64{"self.val1 == 2": 2}},\n\t}\n}\n',
        ].join('\n'),
      );
      const { out, io } = capture();
      expect(await conformanceCommand(['--apiserver', join(root, 'apiserver'), '--apiextensions', join(root, 'ext'), '--kubernetes', '1.36'], io)).toBe(0);
      expect(out.stdout.split('\n').filter((l) => l.includes('agree ('))).toEqual([
        'CEL library functions up to 1.36: 2/2 agree (100.0%)',
        'CEL library test cases (pkg/cel/library): 1/1 agree (100.0%)',
        'CRD rule cases (TestValidationExpressions): 1/1 agree (100.0%)',
        'CRD rule cases (TestCelCostStability, that each rule holds): 1/1 agree (100.0%)',
        "Estimated cost at CRD create (TestCelEstimatedCostStability), equal to the API server's: 1/1 agree (100.0%)",
        'CEL cases of every suite read: 3/3 agree (100.0%)',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('conformance --argocd reads the repo-server tests as data: walk, find and tool calls on testdata/, a table, and what it cannot judge', async () => {
    const root = mkdtempSync(join(tmpdir(), 'argocd-checkout-'));
    try {
      const dir = join(root, 'reposerver/repository');
      const data = (file: string, text: string) => {
        mkdirSync(dirname(join(dir, 'testdata', file)), { recursive: true });
        writeFileSync(join(dir, 'testdata', file), text);
      };
      data('recurse/a.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n');
      data('recurse/sub/b.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n---\napiVersion: v1\nkind: ConfigMapList\nitems:\n');
      data('kustomization_yaml/kustomization.yaml', 'resources: []\n');
      data('skipped/x.yaml', '# +argocd:skip-file-rendering\nnot: [a, manifest\n');
      data('app-parameters/multi/.argocd-source.yaml', 'kustomize:\n  images: [img:0.2]\n');
      data('app-parameters/multi/.argocd-source-testapp.yaml', 'kustomize:\n  images: [img:0.3]\n');
      symlinkSync('../outside.json', join(dir, 'testdata/recurse/escape.json'));
      writeFileSync(join(dir, 'testdata/outside.json'), '{}');
      const go = [
        'func Test_findManifests(t *testing.T) {',
        '\tnoRecurse := v1alpha1.ApplicationSourceDirectory{Recurse: false}',
        '\tt.Run("flat", func(t *testing.T) {',
        '\t\tmanifests, err := findManifests(logCtx, "./testdata/skipped", "./testdata/skipped", nil, noRecurse, nil, resource.MustParse("0"))',
        '\t\tassert.Empty(t, manifests)',
        '\t\trequire.NoError(t, err)',
        '\t})',
        '\tt.Run("escaping link", func(t *testing.T) {',
        '\t\tmanifests, err := findManifests(logCtx, "./testdata/recurse", "./testdata/recurse", nil, noRecurse, nil, resource.MustParse("0"))',
        '\t\tassert.Empty(t, manifests)',
        '\t\trequire.Error(t, err)',
        '\t})',
        '\tt.Run("size", func(t *testing.T) {',
        '\t\tmanifests, err := findManifests(logCtx, "./testdata/recurse", "./testdata/recurse", nil, noRecurse, nil, resource.MustParse("10"))',
        '\t\tassert.Empty(t, manifests)',
        '\t})',
        '}',
        'func TestFindResources(t *testing.T) {',
        '\ttestCases := []struct {',
        '\t\tname          string',
        '\t\tinclude       string',
        '\t\texpectedNames []string',
        '\t}{{',
        '\t\tname:          "only sub",',
        '\t\tinclude:       "**/*.yaml",',
        '\t\texpectedNames: []string{"b"},',
        '\t}}',
        '\tfor i := range testCases {',
        '\t\ttc := testCases[i]',
        '\t\tt.Run(tc.name, func(t *testing.T) {',
        '\t\t\tobjs, err := findManifests(&log.Entry{}, "testdata/recurse", "testdata", nil, v1alpha1.ApplicationSourceDirectory{',
        '\t\t\t\tRecurse: true,',
        '\t\t\t\tInclude: tc.include,',
        '\t\t\t}, map[string]bool{}, resource.MustParse("0"))',
        '\t\t\trequire.NoError(t, err)',
        '\t\t})',
        '\t}',
        '}',
        'func TestIdentifyAppSourceTypeByAppDirWithKustomizations(t *testing.T) {',
        '\tsourceType, err := GetAppSourceType(t.Context(), &v1alpha1.ApplicationSource{}, "./testdata/kustomization_yaml", "./testdata", "testapp", map[string]bool{}, []string{}, []string{})',
        '\trequire.NoError(t, err)',
        '\tassert.Equal(t, v1alpha1.ApplicationSourceTypeKustomize, sourceType)',
        '}',
        'func TestGenerateManifestsWithAppParameterFile(t *testing.T) {',
        '\tres1, err := service.GenerateManifest(t.Context(), &q)',
        '}',
        'func TestGetAppDetailsWithAppParameterFile(t *testing.T) {',
        '\tt.Run("App specific override", func(t *testing.T) {',
        '\t\trunWithTempTestdata(t, "multi", func(t *testing.T, path string) {',
        '\t\t\tdetails, err := service.GetAppDetails(t.Context(), &apiclient.RepoServerAppDetailsQuery{',
        '\t\t\t\tSource: &v1alpha1.ApplicationSource{Path: path},',
        '\t\t\t\tAppName: "testapp",',
        '\t\t\t})',
        '\t\t\trequire.NoError(t, err)',
        '\t\t\tassert.Equal(t, []string{"img:0.3"}, details.Kustomize.Images)',
        '\t\t})',
        '\t})',
        '}',
      ].join('\n');
      writeFileSync(join(dir, 'repository_test.go'), `${go}\n`);
      const { out, io } = capture();
      expect(await conformanceCommand(['--argocd', root], io)).toBe(0);
      const lines = out.stdout.trimEnd().split('\n');
      // The size case is judged too: past the repo-server's limit (10 bytes) the source fails, and applies nothing.
      // The app-details case is judged through the merge of the folder's parameter files, the app's last.
      expect(lines.at(-1)).toBe('Argo CD repo-server cases: 6/6 applicable agree (100.0%); 0 refused by design, 1 not applicable');
      expect(out.stdout).not.toMatch(/NOT APPLICABLE Test_findManifests\/size/);
      expect(out.stdout).toMatch(/NOT APPLICABLE TestGenerateManifestsWithAppParameterFile: a source whose parameter file the gate merges as Argo CD does/);
      // A case the gate answers otherwise is a disagreement with its reason: the link now stays inside.
      rmSync(join(dir, 'testdata/recurse/escape.json'));
      const again = capture();
      expect(await conformanceCommand(['--argocd', root], again.io)).toBe(0);
      expect(again.out.stdout).toMatch(/DISAGREES Test_findManifests\/escaping link: Argo CD fails the source; the gate accepts it/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("conformance --yaml-test-suite reads every case of the suite's data branch, a case of several too, and counts what the fast reader reads and leaves", async () => {
    const root = mkdtempSync(join(tmpdir(), 'yaml-suite-'));
    try {
      const write = (path: string, text: string) => {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
      };
      write('AB12/in.yaml', 'a: [1, "two"]\nb: |\n  text\n');
      write('CD34/in.yaml', 'a: &x 1\nb: *x\n');
      write('EF56/in.yaml', 'a: [1\n');
      write('EF56/error', '');
      write('GH78/00/in.yaml', 'k: v\n');
      write('GH78/01/in.yaml', '- on\n');
      write('README', 'not a case');
      const { out, io } = capture();
      expect(await conformanceCommand(['--yaml-test-suite', root], io)).toBe(0);
      expect(out.stdout).toBe(
        'YAML test suite, the fast manifest reader against the yaml library: 5/5 agree (100.0%)\n  left                             3/3\n  read                             2/2\n',
      );
      const empty = capture();
      expect(await conformanceCommand(['--yaml-test-suite', join(root, 'GH78/00')], empty.io)).toBe(1);
      expect(empty.out.stderr).toBe(`conformance: ${join(root, 'GH78/00')} holds no case of the YAML test suite (its data branch: <id>/in.yaml)\n`);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('conformance: a missing checkout is one line and exit 1; no checkout or a bad version is a usage error', async () => {
    const missing = capture();
    expect(await conformanceCommand(['--pod-security', '/nonexistent/psa'], missing.io)).toBe(1);
    expect(missing.out.stderr).toMatch(/^conformance: cannot read \/nonexistent\/psa\/test\/testdata\/baseline\/v1\.\d+\/pass: ENOENT\n$/);
    const none = capture();
    expect(await conformanceCommand([], none.io)).toBe(2);
    expect(none.out.stderr).toMatch(
      /^conformance: give --pod-security, --apiserver, --apiextensions, --apimachinery, --kube-openapi, --argocd, --talos, --go-kubernetes, --yaml-test-suite, --yaml-test-matrix, --falco-libs, --falco, --cert-manager, --external-secrets, --metallb, --go, --prometheus, --prometheus-operator, --component-helpers, --kubelet, --kubeconform, --rook, --cron, --blackbox-exporter, --loki, --alertmanager, --tempo, --alloy or --traefik: /,
    );
    const table = capture();
    expect(await conformanceCommand(['--apiextensions', '/nonexistent/ext'], table.io)).toBe(1);
    expect(table.out.stderr).toBe('conformance: cannot read /nonexistent/ext/pkg/apiserver/schema/cel/validation_test.go: ENOENT\n');
    const certManager = capture();
    expect(await conformanceCommand(['--cert-manager', '/nonexistent/cm'], certManager.io)).toBe(1);
    expect(certManager.out.stderr).toBe('conformance: cannot read /nonexistent/cm/internal/apis/certmanager/validation/certificate_test.go: ENOENT\n');
    const helpers = capture();
    expect(await conformanceCommand(['--component-helpers', '/nonexistent/ch'], helpers.io)).toBe(1);
    expect(helpers.out.stderr).toBe('conformance: cannot read /nonexistent/ch/scheduling/corev1/nodeaffinity/nodeaffinity_test.go: ENOENT\n');
    const alloy = capture();
    expect(await conformanceCommand(['--alloy', '/nonexistent/alloy'], alloy.io)).toBe(1);
    expect(alloy.out.stderr).toBe('conformance: /nonexistent/alloy/syntax/parser/testdata holds no .alloy file: not a checkout of grafana/alloy\n');
    const bad = capture();
    expect(await conformanceCommand(['--apiserver', '.', '--kubernetes', '36'], bad.io)).toBe(2);
  });

  it('silence-test against an Alertmanager that is not there names the cause', async () => {
    const port = await freePort();
    const { out, io } = capture();
    expect(await silenceTestCommand(['--alertmanager', `http://127.0.0.1:${port}`], io)).toBe(1);
    expect(out.stderr).toBe(`silence-test: Alertmanager at http://127.0.0.1:${port} gives no answer: connection refused (ECONNREFUSED 127.0.0.1:${port})\n`);
    const none = capture();
    expect(await silenceTestCommand([], none.io)).toBe(2);
  });

  it('a script run as a user runs it (its package.json line, through scripts/run.mjs) prints help, and no stack trace on a bad flag', async () => {
    const [node, ...args] = npmScript('falco:facts');
    expect(node).toBe('node');
    const help = await exec(process.execPath, [...args, '--help'], { cwd: REPO_ROOT });
    expect([help.code, help.stdout.split('\n')[0], help.stderr]).toEqual([0, 'usage: falco:facts <falco_rules.yaml> --version <x.y.z> [--out <file>]', '']);
    const bad = await exec(process.execPath, [...args, '--verison', '5'], { cwd: REPO_ROOT });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^falco:facts: Unknown option '--verison'/)]);
  });

  it("scripts/run.mjs given a script that is not there is a usage error in one line, not the loader's stack trace", async () => {
    expect(await exec(process.execPath, ['scripts/run.mjs', 'validate'], { cwd: REPO_ROOT })).toEqual({
      code: 2,
      stdout: '',
      stderr: 'run.mjs: no script validate (usage: node scripts/run.mjs <script>.ts [arguments])\n',
    });
  });

  it('a script whose reader stops early (| head) ends quietly, with exit 0 and no stack trace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'epipe-'));
    // Lines on and on, each a write of its own after a turn of the event loop, until the pipe is gone.
    writeFileSync(join(dir, 'lines.ts'), 'for (let i = 0; ; i++) { process.stdout.write(`line ${i}\\n`); await new Promise((r) => setImmediate(r)); }\n');
    const child = spawn(process.execPath, ['scripts/run.mjs', join(dir, 'lines.ts')], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      await new Promise<void>((done) => child.stdout.once('data', () => done()));
      child.stdout.destroy();
      const code = await new Promise<number | null>((done) => child.once('close', (c) => done(c)));
      expect([code, stderr]).toEqual([0, '']);
    } finally {
      child.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('every TypeScript script npm runs starts through scripts/run.mjs, which any Node can load', () => {
    const typescript = Object.entries(scripts).filter(([, command]) => /\.ts\b/.test(command));
    expect(typescript.length).toBeGreaterThan(15);
    for (const [name, command] of typescript) expect(command, name).toMatch(/^node scripts\/run\.mjs (scripts|bench)\/\S+\.ts( |$)/);
  });

  it.skipIf(!older)('on a Node older than 24, a script says so in one line and exits 1, with no stack trace', async () => {
    const [, ...args] = npmScript('restore');
    expect(await exec(older!.path, [...args, 'sonarr'], { cwd: REPO_ROOT, env: { ...process.env, npm_lifecycle_event: 'restore' } })).toEqual({
      code: 1,
      stdout: '',
      stderr: `restore: needs Node 24 or later (.node-version); this is Node ${older!.version}: run \`. scripts/use-node.sh\` to put Node 24 on PATH\n`,
    });
  });

  it.skipIf(!older)("the API's npm start on an older Node is one line too", async () => {
    const [, ...args] = (
      JSON.parse(readFileSync(join(REPO_ROOT, 'portfolio-api/package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts.start!.split(' ');
    expect(await exec(older!.path, args, { cwd: join(REPO_ROOT, 'portfolio-api'), env: { ...process.env, npm_lifecycle_event: 'start' } })).toEqual({
      code: 1,
      stdout: '',
      stderr: `start: needs Node 24 or later (.node-version); this is Node ${older!.version}: run \`. scripts/use-node.sh\` to put Node 24 on PATH\n`,
    });
  });

  it('scripts/use-node.sh, sourced, puts Node 24 first on PATH', async () => {
    const r = await exec('bash', ['-c', '. scripts/use-node.sh 2>/dev/null && node -p "process.versions.node.split(\'.\')[0]"'], { cwd: REPO_ROOT });
    expect(r).toEqual({ code: 0, stdout: '24\n', stderr: '' });
  });
});

describe('every tool has a time limit', () => {
  it('a tool past its limit is killed, and says so in one line', async () => {
    await expect(run('sleep', ['30'], { timeoutMs: 300 })).rejects.toThrow(/^sleep: timed out after 300 ms \(killed\)$/);
    await expect(runToEnd('sleep', ['30'], { timeoutMs: 300 })).rejects.toThrow(/^sleep: timed out after 300 ms \(killed\)$/);
  });

  it('a tool within its limit is untouched', async () => {
    expect(await run('sh', ['-c', 'echo ok'], { timeoutMs: 60_000 })).toBe('ok');
    expect(await runToEnd('sh', ['-c', 'exit 3'])).toMatchObject({ exitCode: 3 });
  });

  it("is one line on a script's stderr when it kills a tool: not zx's process lookup's deprecation warning too", async () => {
    // A script run as npm runs it (scripts/run.mjs), whose tool is killed at its limit through zx's process tree lookup.
    const dir = mkdtempSync(join(tmpdir(), 'timeout-line-'));
    try {
      const execModule = pathToFileURL(join(REPO_ROOT, 'scripts/lib/exec.ts')).href;
      writeFileSync(
        join(dir, 'probe.ts'),
        `import { run } from '${execModule}';\ntry { await run('sleep', ['30'], { timeoutMs: 200 }); } catch (err) { process.stderr.write(\`\${(err as Error).message}\\n\`); process.exitCode = 1; }\n`,
      );
      expect(await exec(process.execPath, [join(REPO_ROOT, 'scripts/run.mjs'), join(dir, 'probe.ts')], { cwd: REPO_ROOT })).toEqual({
        code: 1,
        stdout: '',
        stderr: 'sleep: timed out after 200 ms (killed)\n',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('quietWarnings', () => {
  it("drops only Node's DEP0190, in either of emitWarning's forms, and passes every other warning on", () => {
    const seen: unknown[][] = [];
    const proc = { emitWarning: (...args: unknown[]) => void seen.push(args) } as unknown as NodeJS.Process;
    quietWarnings(proc);
    proc.emitWarning('shell args', 'DeprecationWarning', 'DEP0190');
    proc.emitWarning('shell args', { type: 'DeprecationWarning', code: 'DEP0190' });
    proc.emitWarning('buffer', 'DeprecationWarning', 'DEP0005');
    proc.emitWarning('plain');
    expect(seen).toEqual([['buffer', 'DeprecationWarning', 'DEP0005'], ['plain']]);
  });
});
