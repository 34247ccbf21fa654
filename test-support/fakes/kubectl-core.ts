/**
 * A contract fake of kubectl 1.36 (client and server), for the subcommands
 * npm run bootstrap uses: `version -o json`, `apply [--server-side]
 * [--force-conflicts] [--field-manager=NAME] -f FILE|-` (a client-side apply
 * stores kubectl.kubernetes.io/last-applied-configuration on the live object,
 * as kubectl 1.36 does; a server-side one does not), `-n NS get secret NAME --ignore-not-found
 * -o name`, `-n argocd get applications.argoproj.io -o json`
 * and `version --client` (as kubectl prints them, exit statuses included).
 * The cluster is a JSON file (`state`, from $FAKE_KUBECTL_STATE): what was
 * applied, every call (argv and the stdin it got), and a script:
 * `unreachable`, the Applications the root app brings (name, wave), one to
 * report Degraded, or `stall` (apps never become ready). Each `get
 * applications` advances the lowest wave that is not ready yet, as Argo CD
 * with waves does; a root app whose project was never applied is reported as
 * Argo CD's controller leaves it (Unknown, InvalidSpecError), its apps absent.
 *
 * With an etcd endpoint (`etcd`, from $FAKE_ETCD_ENDPOINT) it also stands in
 * for the API server the etcd backup engine talks to: a ConfigMap applied
 * (`apply -f -`, JSON on stdin) is kept, as an API server with JSON storage
 * keeps it, under /registry/configmaps/<ns>/<name> in that real etcd, so the
 * key lands in the etcd's snapshots; `get configmap NAME -o
 * jsonpath={.data.KEY}` reads it back. Without a state file nothing is
 * recorded.
 *
 * One call in, its exit status and output out: kubectl.mjs runs it as a
 * process of its own, kubectl-server.ts for the `kubectl` client script.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

export interface FakeCall {
  args: string[];
  stdin: string;
  /** The state file ($FAKE_KUBECTL_STATE). */
  state?: string;
  /** A real etcd to keep ConfigMaps in ($FAKE_ETCD_ENDPOINT). */
  etcd?: string;
}

export interface FakeResult {
  code: number;
  stdout: string;
  stderr: string;
}

interface AppScript {
  name: string;
  wave: number;
}

interface State {
  calls: { argv: string[]; stdin: string }[];
  applied: string[];
  stored?: Record<string, unknown>;
  ready?: string[];
  apps?: AppScript[];
  degrade?: string;
  stall?: boolean;
  unreachable?: boolean;
}

type Manifest = { kind: string; metadata?: { name?: string; namespace?: string; annotations?: Record<string, string> } } & Record<string, unknown>;

/** etcdctl against the fake's etcd, as the API server would write it; killed if it hangs. */
function etcdctl(endpoint: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'etcdctl',
      [`--endpoints=${endpoint}`, ...args],
      { env: { ...process.env, ETCDCTL_API: '3' }, encoding: 'utf8', timeout: 120_000, killSignal: 'SIGKILL' },
      (err, stdout) => (err ? reject(err) : resolve(stdout)),
    );
  });
}

async function applied(text: string): Promise<Manifest[]> {
  if (text.trim().startsWith('{')) return [JSON.parse(text) as Manifest];
  // yaml is loaded only for a YAML apply: most calls (get, version) never need it.
  const { parseAllDocuments } = await import('yaml');
  return parseAllDocuments(text)
    .map((d) => d.toJS() as Manifest)
    .filter(Boolean);
}

/**
 * The root app as Argo CD's controller leaves it when its project does not exist (refreshAppConditions): Unknown,
 * with an InvalidSpecError, and nothing of it synced.
 */
function unreconciledRoot(state: State): string | undefined {
  const root = state.stored?.['Application/argocd/root'] as { spec?: { project?: string } } | undefined;
  const project = root?.spec?.project ?? 'default';
  if (!root || project === 'default' || state.applied.includes(`AppProject/argocd/${project}`)) return undefined;
  const message = `Application referencing project ${project} which does not exist`;
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'List',
    items: [
      {
        metadata: { name: 'root', namespace: 'argocd' },
        status: { sync: { status: 'Unknown' }, health: { status: 'Unknown' }, conditions: [{ type: 'InvalidSpecError', message }] },
      },
    ],
  });
}

function applications(state: State): string {
  const unreconciled = unreconciledRoot(state);
  if (unreconciled) return unreconciled;
  const rootApplied = state.applied.some((id) => id.startsWith('Application/argocd/root'));
  const ready = (state.ready ??= []);
  const apps = rootApplied ? (state.apps ?? []) : [];
  const pending = apps.filter((a) => !ready.includes(a.name));
  const wave = Math.min(...pending.map((a) => a.wave));
  const items = apps.map((a) => {
    const isReady = ready.includes(a.name);
    const degraded = a.name === state.degrade && a.wave === wave;
    return {
      metadata: { name: a.name, namespace: 'argocd', annotations: { 'argocd.argoproj.io/sync-wave': String(a.wave) } },
      status: {
        sync: { status: isReady ? 'Synced' : 'OutOfSync' },
        health: {
          status: degraded ? 'Degraded' : isReady ? 'Healthy' : 'Progressing',
          ...(degraded ? { message: 'Deployment "x" exceeded its progress deadline' } : {}),
        },
        ...(isReady ? {} : { conditions: [{ type: 'SyncError', message: `waiting for wave ${a.wave}` }] }),
      },
    };
  });
  if (!state.stall) for (const a of pending.filter((p) => p.wave === wave && p.name !== state.degrade)) ready.push(a.name);
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items });
}

async function apply(state: State, more: string[], stdin: string): Promise<string> {
  const file = more[more.indexOf('-f') + 1]!;
  const objects = await applied(file === '-' ? stdin : readFileSync(file, 'utf8'));
  const serverSide = more.includes('--server-side');
  const stored = (state.stored ??= {});
  let out = '';
  for (const o of objects) {
    const id = `${o.kind}/${o.metadata?.namespace ?? ''}/${o.metadata?.name}`;
    const known = state.applied.includes(id);
    if (!known) state.applied.push(id);
    // As kubectl: a client-side apply keeps the whole object it applied in an annotation on the live object; server-side keeps none.
    const annotations = {
      ...(o.metadata?.annotations ?? {}),
      ...(serverSide ? {} : { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(o) }),
    };
    stored[id] = { ...o, metadata: { ...o.metadata, annotations } };
    out += `${o.kind.toLowerCase()}/${o.metadata?.name} ${serverSide ? 'serverside-applied' : known ? 'unchanged' : 'created'}\n`;
  }
  return out;
}

/** The ConfigMap subcommands of the etcd engine, kept in the real etcd; undefined when the call is not one of them. */
async function etcdCall(
  etcd: string,
  { verb, more, namespace, stdin }: { verb: string | undefined; more: string[]; namespace: string; stdin: string },
): Promise<FakeResult | undefined> {
  if (verb === 'apply') {
    const object = JSON.parse(stdin) as Manifest;
    if (object.kind !== 'ConfigMap') return { code: 1, stdout: '', stderr: `error: this fake keeps only ConfigMaps in etcd, not ${object.kind}\n` };
    await etcdctl(etcd, ['put', `/registry/configmaps/${object.metadata?.namespace ?? namespace}/${object.metadata?.name}`, JSON.stringify(object)]);
    return { code: 0, stdout: `configmap/${object.metadata?.name} configured\n`, stderr: '' };
  }
  if (verb === 'get' && more[0] === 'configmap') {
    const value = (await etcdctl(etcd, ['get', `/registry/configmaps/${namespace}/${more[1]}`, '--print-value-only'])).trim();
    if (!value) return { code: 1, stdout: '', stderr: `Error from server (NotFound): configmaps "${more[1]}" not found\n` };
    const field = /^jsonpath=\{\.data\.([\w-]+)\}$/.exec(more[more.indexOf('-o') + 1] ?? '');
    const data = (JSON.parse(value) as { data?: Record<string, string> }).data;
    return { code: 0, stdout: field ? (data?.[field[1]!] ?? '') : value, stderr: '' };
  }
  return undefined;
}

/** What one call does to the cluster, and what kubectl prints for it. */
async function answer(state: State, call: FakeCall): Promise<FakeResult> {
  const ok = (stdout: string): FakeResult => ({ code: 0, stdout, stderr: '' });
  const fail = (message: string): FakeResult => ({ code: 1, stdout: '', stderr: `${message}\n` });
  // Global flags come first, as in `kubectl --kubeconfig X --context Y apply ...`.
  const rest: string[] = [];
  let namespace = 'default';
  for (let i = 0; i < call.args.length; i++) {
    const arg = call.args[i]!;
    if (arg === '--kubeconfig' || arg === '--context') i++;
    else if (arg === '-n' || arg === '--namespace') namespace = call.args[++i]!;
    else rest.push(arg);
  }
  const [verb, ...more] = rest;
  if (verb === 'version' && more.includes('--client')) return ok('Client Version: v1.36.3\nKustomize Version: v5.8.1\n');
  if (state.unreachable) return fail('The connection to the server 127.0.0.1:6443 was refused - did you specify the right host or port?');
  if (verb === 'version') return ok(JSON.stringify({ clientVersion: { gitVersion: 'v1.36.3' }, serverVersion: { gitVersion: 'v1.36.3' } }));
  const kept = call.etcd ? await etcdCall(call.etcd, { verb, more, namespace, stdin: call.stdin }) : undefined;
  if (kept) return kept;
  if (verb === 'apply') return ok(await apply(state, more, call.stdin));
  if (verb === 'get' && more[0] === 'secret') {
    if (state.applied.includes(`Secret/${namespace}/${more[1]}`)) return ok(`secret/${more[1]}\n`);
    return more.includes('--ignore-not-found') ? ok('') : fail(`Error from server (NotFound): secrets "${more[1]}" not found`);
  }
  if (verb === 'get' && more[0] === 'applications.argoproj.io') return ok(applications(state));
  return fail(`error: unknown command "${rest.join(' ')}" for "kubectl"`);
}

/**
 * The requests kubectl sends the API server for one of the etcd engine's calls, in the order it sends them (measured
 * with a real kubectl against a recording API server on 127.0.0.1): `apply -f -` of an object discovers the API
 * (`/api`, `/apis`), reads the OpenAPI it validates against (`/openapi/v3` and the group's document), gets the object,
 * and creates it where it is absent (`exists` false) or patches it; `get configmap NAME` discovers and gets. After a
 * 404 kubectl also gets the namespace, only to word its error; that probe is left out, as its refusal changes nothing.
 * The image's facts list these requests (apps/platform/backups/facts/images.yaml), and the gate authorizes them.
 */
export function kubectlRequests(args: readonly string[], stdin: string, exists: boolean): string[] {
  const namespaceFlag = args.indexOf('-n');
  const discovery = ['GET /api', 'GET /apis'];
  if (args[0] === 'apply') {
    const object = JSON.parse(stdin) as Manifest;
    const collection = `/api/v1/namespaces/${object.metadata?.namespace ?? 'default'}/${object.kind.toLowerCase()}s`;
    const item = `${collection}/${object.metadata?.name}`;
    return [...discovery, 'GET /openapi/v3', 'GET /openapi/v3/api/v1', `GET ${item}`, exists ? `PATCH ${item}` : `POST ${collection}`];
  }
  const [verb, kind, name] = args.slice(namespaceFlag >= 0 ? namespaceFlag + 2 : 0);
  if (verb === 'get' && kind === 'configmap')
    return [...discovery, `GET /api/v1/namespaces/${namespaceFlag >= 0 ? args[namespaceFlag + 1] : 'default'}/configmaps/${name}`];
  throw new Error(`kubectlRequests: not one of the etcd engine's calls: ${args.join(' ')}`);
}

/** The fake's own failure, as one line and exit 1. */
export function fakeFailure(err: unknown): FakeResult {
  return { code: 1, stdout: '', stderr: `kubectl (fake): ${String((err as Error)?.message ?? err).split('\n')[0]}\n` };
}

/** Runs one call against the state file: reads it, records the call, answers, and writes the state back. Rejects only when the state file cannot be read. */
export async function fakeKubectl(call: FakeCall): Promise<FakeResult> {
  const loaded = call.state ? (JSON.parse(readFileSync(call.state, 'utf8')) as Partial<State>) : {};
  const state: State = { ...loaded, calls: loaded.calls ?? [], applied: loaded.applied ?? [] };
  state.calls.push({ argv: call.args, stdin: call.stdin });
  try {
    return await answer(state, call);
  } catch (err) {
    // What the fake itself could not do (an etcdctl that failed, a manifest that does not parse).
    return fakeFailure(err);
  } finally {
    if (call.state) writeFileSync(call.state, JSON.stringify(state, null, 2));
  }
}
