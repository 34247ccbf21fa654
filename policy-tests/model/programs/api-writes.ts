/**
 * The ConfigMaps and Secrets the programs the repository runs write through the API server, as their images' facts
 * say (apiRequests, each read with its container's variables, whatever command the container runs): what provides, at run time, an object no manifest
 * declares (the status page's ConfigMap, the backups' sentinel). A PUT or PATCH names the object it writes. A POST to
 * the collection creates one whose name is in its body, which the facts do not hold: it is taken for the one the same
 * program writes by name in that namespace, and where the program writes none there by name, what it creates is not known.
 */
import type { CheckContext } from '../checks/kit.ts';
import { imageProgramRuns } from './api-clients.ts';
import { containersOf, podSpecOf } from '../core/workloads.ts';
import { namespaceOrDestination } from '../argocd/argocd.ts';

const COLLECTIONS = { ConfigMap: 'configmaps', Secret: 'secrets' } as const;
const WRITES = new Set(['POST', 'PUT', 'PATCH']);

export interface ProgramWrites {
  /** `namespace/name` of each object a program writes by name. */
  named: ReadonlySet<string>;
  /** Of those whose program's facts say the data keys it writes (dataKeys), the keys, and who writes them, for a message. */
  keys: ReadonlyMap<string, { keys: ReadonlySet<string>; by: string }>;
  /** Of each namespace where a program creates objects whose names its facts do not say, which program, for a "not judged". */
  unnamed: ReadonlyMap<string, string>;
  /** A program whose write of the kind could not be read (a part set from what the gate does not read): it may write any name. */
  unread?: string;
}

/** What the image facts say the repository's programs write of a kind. */
export function programWrites(ctx: CheckContext, kind: keyof typeof COLLECTIONS): ProgramWrites {
  const collection = COLLECTIONS[kind];
  const path = new RegExp(`^/api/v1/namespaces/([^/?]+)/${collection}(?:/([^/?]+))?/?(?:\\?.*)?$`);
  const named = new Set<string>();
  const keys = new Map<string, { keys: ReadonlySet<string>; by: string }>();
  const unnamed = new Map<string, string>();
  let unread: string | undefined;
  for (const run of imageProgramRuns(ctx)) {
    const who = `${run.workload.kind} ${run.workload.name} runs ${run.program}`;
    const creates = new Set<string>();
    const byName = new Set<string>();
    for (const { text, expanded } of run.requests) {
      if ('unread' in expanded) {
        if (WRITES.has(text.split(' ')[0]!) && text.includes(`/${collection}`))
          unread ??= `${who}, which writes a ${kind} named through ${expanded.unread}, set from what the gate does not read`;
        continue;
      }
      const m = WRITES.has(expanded.method) ? path.exec(expanded.url) : null;
      if (!m) continue;
      if (m[2] === undefined) {
        creates.add(m[1]!);
        continue;
      }
      byName.add(m[1]!);
      named.add(`${m[1]}/${m[2]}`);
      if (run.dataKeys) keys.set(`${m[1]}/${m[2]}`, { keys: new Set(run.dataKeys), by: `${run.workload.kind} ${run.workload.name}` });
    }
    for (const namespace of creates)
      if (!byName.has(namespace)) unnamed.set(namespace, `${who}, which creates ${kind}s in ${namespace} whose names its facts do not say`);
  }
  // A workload that runs no container (the API server refuses it: api-validation's): what it would write is not known.
  for (const r of ctx.resources) {
    const pod = podSpecOf(r);
    const namespace = namespaceOrDestination(ctx.repo, r) ?? '';
    if (pod && containersOf(pod).length === 0 && !unnamed.has(namespace))
      unnamed.set(namespace, `${r.kind} ${r.name}, which runs no container, so what it would write is not known`);
  }
  return { named, keys, unnamed, ...(unread ? { unread } : {}) };
}
