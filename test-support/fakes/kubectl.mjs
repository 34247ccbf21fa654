#!/usr/bin/env node
/**
 * The kubectl contract fake (kubectl-core.ts) as a process of its own: the
 * arguments and, when one of them is `-`, standard input in; its output and
 * exit status out. The state file and the etcd endpoint come from
 * $FAKE_KUBECTL_STATE and $FAKE_ETCD_ENDPOINT. Node runs the TypeScript core
 * as it is (type stripping). The `kubectl` script beside this one is the
 * same fake answered by a server in the test's own process, when one runs.
 */
import { readFileSync } from 'node:fs';
import { fakeFailure, fakeKubectl } from './kubectl-core.ts';

const args = process.argv.slice(2);
const result = await fakeKubectl({
  args,
  stdin: args.includes('-') ? readFileSync(0, 'utf8') : '',
  state: process.env.FAKE_KUBECTL_STATE,
  etcd: process.env.FAKE_ETCD_ENDPOINT,
}).catch(fakeFailure);
process.stdout.write(result.stdout);
process.stderr.write(result.stderr);
process.exitCode = result.code;
