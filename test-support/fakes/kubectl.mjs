#!/usr/bin/env node
/**
 * A contract fake of kubectl 1.36 (client and server), for the subcommands
 * npm run bootstrap uses: `version -o json`, `apply [--server-side]
 * [--force-conflicts] [--field-manager=NAME] -f FILE|-` (a client-side apply
 * stores kubectl.kubernetes.io/last-applied-configuration on the live object,
 * as kubectl 1.36 does; a server-side one does not), `-n NS get secret NAME --ignore-not-found
 * -o name`, `-n argocd get applications.argoproj.io -o json`, `kustomize DIR`
 * and `version --client` (as kubectl prints them, exit statuses included).
 * The cluster is a JSON file ($FAKE_KUBECTL_STATE): what was applied, every
 * call (argv and the stdin it got), and a script: `unreachable`, the
 * Applications the root app brings (name, wave), one to report Degraded, or
 * `stall` (apps never become ready). Each `get applications` advances the
 * lowest wave that is not ready yet, as Argo CD with waves does.
 *
 * With FAKE_ETCD_ENDPOINT set it also stands in for the API server the etcd
 * backup engine talks to: a ConfigMap applied (`apply -f -`, JSON on stdin)
 * is kept, as an API server with JSON storage keeps it, under
 * /registry/configmaps/<ns>/<name> in that real etcd, so the key lands in the
 * etcd's snapshots; `get configmap NAME -o jsonpath={.data.KEY}` reads it back.
 * Without a state file ($FAKE_KUBECTL_STATE) nothing is recorded.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const statePath = process.env.FAKE_KUBECTL_STATE;
const state = statePath ? JSON.parse(readFileSync(statePath, 'utf8')) : {};
state.calls ??= [];
state.applied ??= [];
const args = process.argv.slice(2);
const stdin = args.includes('-') ? readFileSync(0, 'utf8') : '';
state.calls.push({ argv: args, stdin });
const save = () => statePath && writeFileSync(statePath, JSON.stringify(state, null, 2));
const fail = (message, code = 1) => {
  save();
  process.stderr.write(`${message}\n`);
  process.exit(code);
};

// Global flags come first, as in `kubectl --kubeconfig X --context Y apply ...`.
const rest = [];
let namespace = 'default';
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--kubeconfig' || args[i] === '--context') i++;
  else if (args[i] === '-n' || args[i] === '--namespace') namespace = args[++i];
  else rest.push(args[i]);
}
const [verb, ...more] = rest;

if (verb === 'version' && more.includes('--client')) {
  process.stdout.write('Client Version: v1.36.3\nKustomize Version: v5.8.1\n');
  save();
  process.exit(0);
}
if (verb === 'kustomize') {
  process.stdout.write('apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: argocd-server\n  namespace: argocd\n');
  save();
  process.exit(0);
}
if (state.unreachable) fail('The connection to the server 127.0.0.1:6443 was refused - did you specify the right host or port?');
if (verb === 'version') {
  process.stdout.write(JSON.stringify({ clientVersion: { gitVersion: 'v1.36.3' }, serverVersion: { gitVersion: 'v1.36.3' } }));
  save();
  process.exit(0);
}
const etcdEndpoint = process.env.FAKE_ETCD_ENDPOINT;
const etcdctl = (...etcdArgs) =>
  execFileSync('etcdctl', [`--endpoints=${etcdEndpoint}`, ...etcdArgs], {
    env: { ...process.env, ETCDCTL_API: '3' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 120_000,
    killSignal: 'SIGKILL',
  });
if (etcdEndpoint && verb === 'apply') {
  const object = JSON.parse(stdin);
  if (object.kind !== 'ConfigMap') fail(`error: this fake keeps only ConfigMaps in etcd, not ${object.kind}`);
  etcdctl('put', `/registry/configmaps/${object.metadata.namespace ?? namespace}/${object.metadata.name}`, JSON.stringify(object));
  process.stdout.write(`configmap/${object.metadata.name} configured\n`);
  save();
  process.exit(0);
}
if (etcdEndpoint && verb === 'get' && more[0] === 'configmap') {
  const value = etcdctl('get', `/registry/configmaps/${namespace}/${more[1]}`, '--print-value-only').trim();
  if (!value) fail(`Error from server (NotFound): configmaps "${more[1]}" not found`);
  const field = /^jsonpath=\{\.data\.([\w-]+)\}$/.exec(more[more.indexOf('-o') + 1] ?? '');
  process.stdout.write(field ? (JSON.parse(value).data?.[field[1]] ?? '') : value);
  save();
  process.exit(0);
}
if (verb === 'apply') {
  const file = more[more.indexOf('-f') + 1];
  const text = file === '-' ? stdin : readFileSync(file, 'utf8');
  // yaml is loaded only for a YAML apply: most calls (get, version) never need it, and each call is a process.
  const objects = text.trim().startsWith('{')
    ? [JSON.parse(text)]
    : (await import('yaml'))
        .parseAllDocuments(text)
        .map((d) => d.toJS())
        .filter(Boolean);
  const serverSide = more.includes('--server-side');
  state.stored ??= {};
  for (const o of objects) {
    const id = `${o.kind}/${o.metadata?.namespace ?? ''}/${o.metadata?.name}`;
    const known = state.applied.includes(id);
    if (!known) state.applied.push(id);
    // As kubectl: a client-side apply keeps the whole object it applied in an annotation on the live object; server-side keeps none.
    const annotations = {
      ...(o.metadata?.annotations ?? {}),
      ...(serverSide ? {} : { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(o) }),
    };
    state.stored[id] = { ...o, metadata: { ...o.metadata, annotations } };
    process.stdout.write(
      `${o.kind.toLowerCase()}/${o.metadata?.name} ${known ? (more.includes('--server-side') ? 'serverside-applied' : 'unchanged') : more.includes('--server-side') ? 'serverside-applied' : 'created'}\n`,
    );
  }
  save();
  process.exit(0);
}
if (verb === 'get' && more[0] === 'secret') {
  if (state.applied.includes(`Secret/${namespace}/${more[1]}`)) process.stdout.write(`secret/${more[1]}\n`);
  else if (!more.includes('--ignore-not-found')) fail(`Error from server (NotFound): secrets "${more[1]}" not found`);
  save();
  process.exit(0);
}
if (verb === 'get' && more[0] === 'applications.argoproj.io') {
  const rootApplied = state.applied.some((id) => id.startsWith('Application/argocd/root'));
  state.ready ??= [];
  const apps = rootApplied ? (state.apps ?? []) : [];
  const pending = apps.filter((a) => !state.ready.includes(a.name));
  const wave = Math.min(...pending.map((a) => a.wave));
  const items = apps.map((a) => {
    const isReady = state.ready.includes(a.name);
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
  if (!state.stall) for (const a of pending.filter((p) => p.wave === wave && p.name !== state.degrade)) state.ready.push(a.name);
  process.stdout.write(JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
  save();
  process.exit(0);
}
fail(`error: unknown command "${rest.join(' ')}" for "kubectl"`);
