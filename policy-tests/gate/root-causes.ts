/**
 * One mistake, one answer first. Some findings make many others follow: a
 * root app Argo CD cannot sync discovers no app, and a cluster-facts repoURL
 * no Application reads makes every source "not this repo". Each such cause
 * is marked with how many findings follow from it, and each follower with
 * its cause, so the report can put the cause first and fold the rest under
 * it. Nothing is dropped: the exit status and the machine formats keep
 * every finding.
 */
import { ROOT_APP_FILE } from '../model/argocd/argocd.ts';
import { CLUSTER_FACTS_FILE } from '../model/repository/cluster-facts.ts';
import { formatLocation, type Finding } from '../model/core/findings.ts';
import { isNonManifest } from '../model/repository/data-file.ts';
import { argoGlobMatch } from '../model/core/glob.ts';

/** What the loader says of a data file it cannot read (model/repository/data-file.ts unparsedFinding). */
const UNREAD = new Set(['yaml-syntax', 'duplicate-key', 'nesting-depth']);

interface Rule {
  isCause(f: Finding): boolean;
  follows(f: Finding): boolean;
}

const RULES: readonly Rule[] = [
  // The cluster facts name a repository no Application reads: no app is "this repository's", so the root app applies
  // every file itself and every judgement built on ownership (sources, discovery, projects, waves, duplicates)
  // follows. Until the facts are right, nothing else the gate says can be trusted to be a separate mistake.
  {
    isCause: (f) => f.file === CLUSTER_FACTS_FILE && f.check === 'argocd-source-path',
    follows: () => true,
  },
  // The root app cannot be synced as written: nothing it would discover is discovered.
  {
    isCause: (f) => f.file === ROOT_APP_FILE && f.check !== 'argocd-root-discovery',
    follows: (f) => f.check === 'argocd-root-discovery',
  },
];

/**
 * Marks causes and their followers in place (first rule first: a follower has one cause); returns the causes. `loaded`:
 * the loader's findings, which may cause some of `findings` and follow from none; `reads`: the data files each check
 * declares it reads (globs), by check id.
 */
export function markRootCauses(
  findings: readonly Finding[],
  loaded: readonly Finding[] = [],
  reads: ReadonlyMap<string, readonly string[]> = new Map(),
): Finding[] {
  const causes: Finding[] = [];
  const mark = (cause: Finding, follows: (f: Finding) => boolean) => {
    const followers = findings.filter((f) => f !== cause && f.causedBy === undefined && f.consequences === undefined && follows(f));
    if (followers.length === 0) return;
    for (const f of followers) f.causedBy = formatLocation(cause);
    cause.consequences = followers.length;
    causes.push(cause);
  };
  for (const rule of RULES) {
    const cause = findings.find((f) => f.causedBy === undefined && rule.isCause(f));
    if (cause) mark(cause, (f) => rule.follows(f));
  }
  // A data file that does not parse (Helm values, facts): a check that reads it read nothing, and what it says of the
  // file, or of what the file declares, follows from that.
  for (const cause of [...loaded, ...findings].filter((f) => f.causedBy === undefined && UNREAD.has(f.check) && isNonManifest(f.file)))
    mark(cause, (f) => !UNREAD.has(f.check) && (f.file === cause.file || (reads.get(f.check) ?? []).some((glob) => argoGlobMatch(glob, cause.file))));
  return causes;
}
