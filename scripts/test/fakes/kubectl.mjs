#!/usr/bin/env node
// Contract fake of kubectl (v1.33) for the two calls the etcd engine makes
// about its sentinel ConfigMap: `kubectl apply -f -` with one ConfigMap on
// stdin, and `kubectl -n <ns> get configmap <name> -o jsonpath={.data.<key>}`.
// No API server runs here; like one configured for JSON storage, it keeps the
// object under /registry/configmaps/<ns>/<name> in a real etcd
// (FAKE_ETCD_ENDPOINT), so the key lands in that etcd's snapshots.
import { execFileSync } from 'node:child_process';

const etcdctl = (...args) =>
  execFileSync('etcdctl', [`--endpoints=${process.env.FAKE_ETCD_ENDPOINT}`, ...args], {
    env: { ...process.env, ETCDCTL_API: '3' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
const args = process.argv.slice(2);
const namespace = args[0] === '-n' ? args.splice(0, 2)[1] : 'default';

if (args[0] === 'apply' && args[1] === '-f' && args[2] === '-') {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const object = JSON.parse(input);
  if (object.kind !== 'ConfigMap') {
    process.stderr.write(`error: this fake only stores ConfigMaps, not ${object.kind}\n`);
    process.exit(1);
  }
  const key = `/registry/configmaps/${object.metadata.namespace ?? namespace}/${object.metadata.name}`;
  etcdctl('put', key, JSON.stringify(object));
  process.stdout.write(`configmap/${object.metadata.name} configured\n`);
} else if (args[0] === 'get' && args[1] === 'configmap' && args[3] === '-o') {
  const value = etcdctl('get', `/registry/configmaps/${namespace}/${args[2]}`, '--print-value-only').trim();
  if (!value) {
    process.stderr.write(`Error from server (NotFound): configmaps "${args[2]}" not found\n`);
    process.exit(1);
  }
  const field = /^jsonpath=\{\.data\.([\w-]+)\}$/.exec(args[4] ?? '');
  process.stdout.write(field ? (JSON.parse(value).data?.[field[1]] ?? '') : value);
} else {
  process.stderr.write(`error: unknown command "${args.join(' ')}" for "kubectl"\n`);
  process.exit(1);
}
