/**
 * npm run bootstrap against a contract fake of kubectl 1.36
 * (test-support/fakes/kubectl.mjs): the order, idempotence, the secret's handling, and a
 * clear error with exit 1 when the cluster does not answer or an app degrades. Rendering is
 * real: the pinned Helm and kustomize, through the gate. The CNI's chart is a test chart of
 * the same name and version in a chart cache of the test's own, recorded in a copy of the
 * repository's charts.lock.json: the real values render into it. Argo CD's remote install
 * manifest is a stand-in served over HTTPS on 127.0.0.1 (the objects the repository's patches
 * target), named by the copy's kustomization and pinned by digest in its lock: the real
 * patches are applied to it by the real kustomize.
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../policy-tests/index.ts';
import { CHART_LOCK_FILE, cachedChartPath, digestOf, readLock } from '../../policy-tests/render/charts.ts';
import { serveHttps, type HttpsFiles } from '../../test-support/https-server.ts';
import { toolEnv, writeChart } from '../../test-support/chart-repo.ts';
import { exec, output } from '../../test-support/exec.ts';
import { startKubectlServer, type KubectlServer } from '../../test-support/fakes/kubectl-server.ts';
import { ARGOCD_FIELD_MANAGER, Interrupted, main, readHiddenLine, STORE_SECRET } from '../bootstrap.ts';
import { parse, parseAllDocuments } from 'yaml';

const CILIUM = { repoURL: 'https://helm.cilium.io/', chart: 'cilium', version: '1.19.8' };
/** A stand-in for the Cilium chart: the agent DaemonSet and its ConfigMap from the real values, and a ServiceMonitor whose API comes later. */
const CILIUM_TEST_CHART = {
  name: 'cilium',
  version: '1.19.8',
  files: {
    'templates/agent.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: cilium-config
  namespace: {{ .Release.Namespace }}
data:
  ipam: {{ .Values.ipam.mode | quote }}
  k8s-service-port: {{ .Values.k8sServicePort | quote }}
  kube-proxy-replacement: {{ .Values.kubeProxyReplacement | quote }}
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: cilium
  namespace: {{ .Release.Namespace }}
spec:
  selector:
    matchLabels:
      k8s-app: cilium
  template:
    metadata:
      labels:
        k8s-app: cilium
    spec:
      containers:
        - name: cilium-agent
          image: quay.io/cilium/cilium:v{{ .Chart.Version }}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: cilium-agent
  namespace: {{ .Release.Namespace }}
spec:
  selector:
    matchLabels:
      k8s-app: cilium
  endpoints:
    - port: metrics
`,
  },
};

/** The kubectl fake's client script, answered by a server in this process (test-support/fakes/kubectl-server.ts). */
const FAKE = fileURLToPath(new URL('../../test-support/fakes/kubectl', import.meta.url));
const TOKEN = 'ops_eyJ-secret-service-account-token';
const APPS = [
  { name: 'argocd', wave: -10 },
  { name: 'external-secrets', wave: -8 },
  { name: 'cert-manager', wave: -7 },
  { name: 'media-sonarr', wave: 1 },
];

let dir: string;
let baseEnv: NodeJS.ProcessEnv;
let kubectlServer: KubectlServer | undefined;
let upstream: HttpsFiles | undefined;

const ARGOCD_DIR = 'apps/platform/argocd';
const INSTALL_URL = 'https://raw.githubusercontent.com/argoproj/argo-cd/v3.5.1/manifests/install.yaml';
/** A stand-in for Argo CD's install manifest: the objects the repository's patches target, as the patches name them. */
const standInInstall = (root: string): string =>
  readdirSync(join(root, ARGOCD_DIR, 'patches'))
    .sort()
    .map((f) => readFileSync(join(root, ARGOCD_DIR, 'patches', f), 'utf8'))
    .join('\n---\n');

/** The copy's kustomization names the stand-in's URL, its facts allow that host, and its lock pins the stand-in's digest. */
function pinStandIn(root: string, url: string, install: string): void {
  const kustomization = join(root, ARGOCD_DIR, 'kustomization.yaml');
  writeFileSync(kustomization, readFileSync(kustomization, 'utf8').replace(INSTALL_URL, url));
  const facts = join(root, 'clusters/home/cluster-facts.yaml');
  writeFileSync(
    facts,
    readFileSync(facts, 'utf8').replace(
      '    - host: raw.githubusercontent.com',
      "    - host: 127.0.0.1\n      reason: the test's upstream\n    - host: raw.githubusercontent.com",
    ),
  );
  const lock = readLock(root);
  writeFileSync(
    join(root, CHART_LOCK_FILE),
    `${JSON.stringify({ ...lock, remotes: [{ url, digest: `sha256:${createHash('sha256').update(install).digest('hex')}` }] }, null, 2)}\n`,
  );
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bootstrap-'));
  kubectlServer = await startKubectlServer();
  const root = join(dir, 'repo');
  cpSync(REPO_ROOT, root, { recursive: true, filter: (src) => !/[\\/](node_modules|\.git|dist)$/.test(src) });
  const cache = join(dir, 'charts');
  const install = standInInstall(root);
  upstream = await serveHttps((path) => (path === '/install.yaml' ? install : undefined));
  pinStandIn(root, `${upstream.origin}/install.yaml`, install);
  baseEnv = await toolEnv({
    KUBECTL: FAKE,
    FAKE_KUBECTL_PORT: String(kubectlServer.port),
    SSL_CERT_FILE: upstream.certFile,
    HTTPS_PROXY: '',
    https_proxy: '',
    NO_PROXY: '',
    no_proxy: '',
    HOMELAB_CACHE_DIR: join(dir, 'cache'),
    HOMELAB_REPO_ROOT: root,
    HOMELAB_CHART_CACHE: cache,
  });
  const archive = cachedChartPath(CILIUM, baseEnv);
  mkdirSync(dirname(archive), { recursive: true });
  await output(baseEnv.HELM_BIN!, ['package', writeChart(join(dir, 'chart-src'), CILIUM_TEST_CHART), '--destination', dirname(archive)], { env: baseEnv });
  const lock = readLock(root);
  writeFileSync(
    join(root, CHART_LOCK_FILE),
    `${JSON.stringify({ ...lock, charts: [...lock.charts, { ...CILIUM, digest: digestOf(readFileSync(archive)) }] }, null, 2)}\n`,
  );
});
afterAll(async () => {
  await kubectlServer?.close();
  await upstream?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Calls {
  calls: { argv: string[]; stdin: string }[];
  applied: string[];
}

/** A bootstrap run against the fake cluster `name`: `fresh` writes its state anew; `readToken` and `env` stand in for the terminal and the environment. */
async function run(
  name: string,
  args: string[],
  script: Record<string, unknown>,
  { fresh = true, readToken, env = {} }: { fresh?: boolean; readToken?: () => Promise<string>; env?: NodeJS.ProcessEnv } = {},
) {
  const state = join(dir, `${name}.json`);
  if (fresh) writeFileSync(state, JSON.stringify({ apps: APPS, ...script }));
  let stdout = '';
  let stderr = '';
  let asked = 0;
  const code = await main(
    args,
    { ...baseEnv, FAKE_KUBECTL_STATE: state, ...env },
    { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) },
    readToken ??
      (async () => {
        asked++;
        return `${TOKEN}\n`;
      }),
  );
  return { code, stdout, stderr, asked, state: JSON.parse(readFileSync(state, 'utf8')) as Calls };
}

describe("the bootstrap's credential", () => {
  it('is the Secret the ClusterSecretStore reads and the cluster facts declare as made outside git, with the one key it writes', () => {
    const store = parseAllDocuments(readFileSync(join(REPO_ROOT, 'apps/platform/external-secrets/clustersecretstore.yaml'), 'utf8'))
      .map((d) => d.toJS() as { kind?: string; spec?: { provider?: { onepasswordSDK?: { auth?: { serviceAccountSecretRef?: unknown } } } } })
      .find((d) => d.kind === 'ClusterSecretStore');
    expect(store?.spec?.provider?.onepasswordSDK?.auth?.serviceAccountSecretRef).toEqual(STORE_SECRET);
    const facts = parse(readFileSync(join(REPO_ROOT, 'clusters/home/cluster-facts.yaml'), 'utf8')) as { data: { providedOutsideGit: string } };
    expect(parse(facts.data.providedOutsideGit)).toContainEqual(
      expect.objectContaining({ kind: 'Secret', namespace: STORE_SECRET.namespace, name: STORE_SECRET.name, keys: [STORE_SECRET.key] }),
    );
  });
});

describe('npm run bootstrap', () => {
  it('applies in order (the CNI, namespaces, Argo CD, the credential, the projects, the root app) and waits wave by wave', async () => {
    const r = await run('order', ['--poll', '1ms'], {});
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const applies = r.state.calls.filter((c) => c.argv[0] === 'apply');
    expect(applies.map((c) => c.argv.at(-1))).toEqual([
      '-',
      expect.stringMatching(/clusters\/home\/namespaces\.yaml$/),
      '-',
      '-',
      expect.stringMatching(/clusters\/home\/projects\.yaml$/),
      expect.stringMatching(/clusters\/home\/root\.yaml$/),
    ]);
    expect(applies[1]!.argv).toContain('--server-side');
    // Argo CD as the real kustomize builds it: the repository's patches on the pinned base, in the argocd namespace.
    expect(applies[2]!.stdin).toMatch(/name: argocd-server\n  namespace: argocd/);
    expect(applies[2]!.stdin).toMatch(/name: argocd-cm\n  namespace: argocd/);
    expect(applies[2]!.stdin).toContain('application.resourceTrackingMethod: annotation');
    expect(r.state.calls.map((c) => (c.argv[0] === '-n' ? `${c.argv[2]} ${c.argv[3]}` : c.argv[0])).slice(0, 7)).toEqual([
      'version',
      'apply',
      'apply',
      'apply',
      'get secret',
      'apply',
      'apply',
    ]);
    expect(r.stdout).toMatch(/wave -10: 0\/1, wave -8: 0\/1, wave -7: 0\/1, wave 1: 0\/1/);
    expect(r.stdout).toMatch(/wave -10: 1\/1, wave -8: 1\/1, wave -7: 1\/1, wave 1: 1\/1\ndone: 4 Applications Synced and Healthy\n$/);
  });

  it('fails in one line, naming the condition, when the root app names a project the projects do not hold: Argo CD never reconciles it', async () => {
    const rootFile = join(dir, 'repo', 'clusters/home/root.yaml');
    const before = readFileSync(rootFile, 'utf8');
    try {
      writeFileSync(rootFile, before.replace('project: platform', 'project: lab'));
      const r = await run('no-project', ['--poll', '1ms'], {});
      expect(r.code).toBe(1);
      expect(r.stderr).toBe('bootstrap: app root (wave 0) is not reconciled: Application referencing project lab which does not exist\n');
    } finally {
      writeFileSync(rootFile, before);
    }
  });

  it("installs Cilium first, from its chart and the repository's values, server-side under Argo CD's field manager, leaving its ServiceMonitors to Argo CD", async () => {
    const r = await run('cni', ['--poll', '1ms'], {});
    expect(r.code).toBe(0);
    const cni = r.state.calls.filter((c) => c.argv[0] === 'apply')[0]!;
    expect(cni.argv).toEqual(['apply', '--server-side', '--force-conflicts', `--field-manager=${ARGOCD_FIELD_MANAGER}`, '-f', '-']);
    // The values Talos needs, from apps/platform/cilium/values.yaml, rendered into the chart in kube-system.
    expect(cni.stdin).toMatch(/kind: DaemonSet\nmetadata:\n  name: cilium\n  namespace: kube-system/);
    expect(cni.stdin).toContain('ipam: kubernetes');
    expect(cni.stdin).toMatch(/k8s-service-port: "7445"/);
    expect(cni.stdin).not.toContain('ServiceMonitor');
    expect(r.stdout).toContain(
      '1/7 the CNI (cilium), from Application cilium\n    2 objects applied; 1 left for Argo CD (their API comes with monitoring.coreos.com)',
    );
    const argocd = r.state.calls.findIndex((c) => c.argv[0] === 'apply' && c.stdin.includes('argocd-server'));
    expect(r.state.calls.indexOf(cni)).toBeLessThan(argocd);
  });

  it('fails in one line before touching the cluster when the CNI chart is not in the cache', async () => {
    const r = await run('no-chart', ['--poll', '1ms'], {}, { env: { HOMELAB_CHART_CACHE: join(dir, 'empty-cache') } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^bootstrap: cannot render cilium: .*not in the chart cache: run npm run charts:pull\n$/);
    expect(r.state.calls.filter((c) => c.argv[0] === 'apply')).toEqual([]);
  });

  it('reads the token from standard input, passes it to kubectl only through stdin, and never prints it', async () => {
    const r = await run('secret', ['--poll', '1ms'], {});
    expect(r.asked).toBe(1);
    const withToken = r.state.calls.filter((c) => c.stdin.includes(Buffer.from(TOKEN).toString('base64')));
    expect(withToken).toHaveLength(1);
    expect(JSON.parse(withToken[0]!.stdin)).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'onepassword-service-account', namespace: 'external-secrets' },
      type: 'Opaque',
      data: { token: Buffer.from(TOKEN).toString('base64') },
    });
    // Applied server-side: no annotation on the live Secret holds the token.
    expect(withToken[0]!.argv).toEqual(expect.arrayContaining(['apply', '--server-side', '-f', '-']));
    const stored = (r.state as unknown as { stored: Record<string, { metadata: { annotations: Record<string, string> } }> }).stored[
      'Secret/external-secrets/onepassword-service-account'
    ]!;
    expect(stored.metadata.annotations).toEqual({});
    expect(r.state.calls.some((c) => c.argv.join(' ').includes(TOKEN))).toBe(false);
    expect(`${r.stdout}${r.stderr}`).not.toContain(TOKEN);
  });

  it('is idempotent: a second run keeps the credential without asking and applies the same objects', async () => {
    const first = await run('again', ['--poll', '1ms'], {});
    const applied = [...first.state.applied];
    const second = await run('again', ['--poll', '1ms'], {}, { fresh: false });
    expect(second.code).toBe(0);
    expect(second.asked).toBe(0);
    expect(second.stdout).toContain('external-secrets/onepassword-service-account exists; kept');
    expect(second.state.applied).toEqual(applied);
  });

  it('prints the plan with --dry-run and calls nothing', async () => {
    const r = await run('dry', ['--dry-run', '--context', 'home'], {});
    expect(r.code).toBe(0);
    expect(r.state.calls ?? []).toEqual([]);
    expect(r.stdout.split('\n')[0]).toBe('Plan (--dry-run: nothing is applied):');
    expect(r.stdout).toMatch(/--context home apply --server-side -f clusters\/home\/namespaces\.yaml/);
  });

  it('fails in one line with exit 1 when the cluster does not answer', async () => {
    const r = await run('down', [], { unreachable: true });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'bootstrap: cannot reach the cluster: The connection to the server 127.0.0.1:6443 was refused - did you specify the right host or port?\n',
    );
    expect(r.state.calls.filter((c) => c.argv[0] === 'apply')).toEqual([]);
  });

  it('fails with exit 1 naming the app that degrades, with its condition', async () => {
    const r = await run('degraded', ['--poll', '1ms'], { degrade: 'cert-manager' });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('bootstrap: app cert-manager (wave -7) is Degraded: Deployment "x" exceeded its progress deadline\n');
  });

  it('names the apps that stall, with their conditions, when the wait runs out', async () => {
    const r = await run('stall', ['--poll', '1ms', '--timeout', '1ms'], { stall: true });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('bootstrap: timed out in wave -10: argocd (OutOfSync/Progressing: waiting for wave -10)\n');
  });

  it('refuses a bad duration as a usage error', async () => {
    const r = await run('usage', ['--timeout', 'soon'], {});
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^bootstrap: --timeout must be a duration such as 30m, got "soon"/);
  });
});

describe('the token prompt at a terminal', () => {
  /** A terminal's standard input: the keys it yields, and the raw mode it was set to, in order. */
  const terminal = (keys: string[], fail?: Error) => {
    const modes: boolean[] = [];
    return {
      modes,
      input: {
        isTTY: true,
        setRawMode: (raw: boolean) => modes.push(raw),
        async *[Symbol.asyncIterator]() {
          for (const k of keys) yield k;
          if (fail) throw fail;
        },
      },
    };
  };

  it('reads without echo, lets Backspace edit, ends at Enter, and restores the terminal', async () => {
    const t = terminal(['ops_', 'x', '\u007f', 'tok', '\u007fen', '\r', 'ignored']);
    const shown: string[] = [];
    expect(await readHiddenLine(t.input, (s) => shown.push(s))).toBe('ops_toen');
    expect(t.modes).toEqual([true, false]);
    expect(shown.join('')).not.toMatch(/ops_|toen/);
  });

  it('aborts at Ctrl-C with exit 130, raw mode restored, and nothing applied after it', async () => {
    const t = terminal(['ops_', '\u0003']);
    await expect(readHiddenLine(t.input, () => undefined)).rejects.toBeInstanceOf(Interrupted);
    expect(t.modes).toEqual([true, false]);
    const r = await run('ctrl-c', ['--poll', '1ms'], {}, { readToken: () => readHiddenLine(terminal(['\u0003']).input, () => undefined) });
    expect(r.code).toBe(130);
    expect(r.stderr).toBe('bootstrap: interrupted at the token prompt (Ctrl-C); nothing more was applied\n');
    expect(r.state.calls.some((c) => c.argv.join(' ').includes('root.yaml'))).toBe(false);
  });

  it('restores raw mode when reading fails', async () => {
    const t = terminal(['ops_'], new Error('EIO: the terminal went away'));
    await expect(readHiddenLine(t.input, () => undefined)).rejects.toThrow(/EIO/);
    expect(t.modes).toEqual([true, false]);
  });
});

describe('the kubectl fake', () => {
  const NODE_FAKE = fileURLToPath(new URL('../../test-support/fakes/kubectl.mjs', import.meta.url));
  // Stdin that framing could lose: multi-byte text, a line that looks like a length, trailing newlines.
  const manifest = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: café\n  namespace: media\ndata:\n  n: "12\\n"\n\n\n';
  const calls: [string, string[], string?][] = [
    ['version', ['version', '-o', 'json']],
    ['a YAML apply from stdin', ['apply', '--server-side', '-f', '-'], manifest],
    ['a secret that is not there', ['-n', 'media', 'get', 'secret', 'nope', '-o', 'name']],
    ['an unknown command', ['frobnicate', 'it']],
  ];

  it.each(calls)('answers %s the same through its client script as in a Node process of its own, and records the same call', async (_what, args, input) => {
    const answers = [];
    for (const [bin, port] of [
      [FAKE, String(kubectlServer!.port)],
      [NODE_FAKE, undefined],
    ] as const) {
      const state = join(dir, `fake-${port ?? 'node'}.json`);
      writeFileSync(state, JSON.stringify({ apps: APPS }));
      const r = await exec(bin, args, { env: { ...process.env, FAKE_KUBECTL_STATE: state, FAKE_KUBECTL_PORT: port }, input });
      answers.push({ ...r, state: JSON.parse(readFileSync(state, 'utf8')) as Calls });
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]!.state.calls).toEqual([{ argv: args, stdin: input ?? '' }]);
  });
});
