/**
 * The ConfigMaps and Secrets the programs the repository runs write through the API server, as their images' facts
 * say (apiRequests, each read with its container's variables): what provides, at run time, an object no manifest
 * declares (the status page's ConfigMap, the backups' sentinel). A PUT or PATCH names the object it writes. A POST to
 * the collection creates one whose name is in its body, which the facts do not hold: it is taken for the one the same
 * program writes by name in that namespace, and where the program writes none there by name, what it creates is not known.
 */
import type { CheckContext } from '../checks/kit.ts';
import { factApiRuns } from './api-clients.ts';

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
  for (const run of factApiRuns(ctx)) {
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
  return { named, keys, unnamed, ...(unread ? { unread } : {}) };
}
