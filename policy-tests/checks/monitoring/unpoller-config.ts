/**
 * unpoller-config-loads: the gateway exporter starts with the settings its environment gives it, as unpoller reads them
 * (model/unpoller/cnfg.ts: golift.io/cnfg's reading, against the reference the repository keeps of the variables
 * unpoller reads at the version it runs). A value cnfg cannot parse as its setting's type (a boolean `yes`, a duration
 * without its unit, an empty number) stops unpoller at start: no gateway metrics and no system log. A variable it never
 * reads (a misspelt name, one in lower case, a list's `_1` without its `_0`) does nothing: the setting meant, a
 * certificate pin among them, is not made.
 *
 * Its variables are its env and the keys of the Secrets and ConfigMaps its envFrom names, as the repository writes
 * them (givenVariables); an envFrom source whose keys are unknown and that may set an UP_ variable is said not judged.
 */
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { programContainers } from '../../model/checks/program-containers.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { withKeyProviders } from '../../model/cluster/provided-keys.ts';
import { givenVariablePath, containerEnvironment, mayStartWith } from '../../model/cluster/environment.ts';
import { UNPOLLER_IMAGE, UNPOLLER_REFERENCE, unpollerReference } from '../../model/unpoller/reference.ts';
import { unpollerProblems } from '../../model/unpoller/cnfg.ts';

const REFRESH = 'npm run unpoller:reference -- --from <clone of unpoller/unpoller> --ref <the image tag>';

export const unpollerConfigCheck: PolicyCheck = {
  id: 'unpoller-config-loads',
  description: `The gateway exporter starts with the settings its environment gives it (its env, and the keys of the Secrets and ConfigMaps its envFrom names), as unpoller reads them at the version it runs (the reference ${UNPOLLER_REFERENCE} keeps): each UP_ variable one it reads, by its upper-case name, a list's items from _0 up, and each value one golift.io/cnfg parses as its setting's type; otherwise unpoller exits at start (no gateway metrics, no system log) or the setting meant does nothing (A5).`,
  invariants: ['A5'],
  remediation: `set the variable the finding names as unpoller reads it at the version the image runs (a boolean as true or false, a duration with its unit, a list from _0); after an unpoller upgrade, refresh ${UNPOLLER_REFERENCE} (${REFRESH})`,
  reads: { kinds: withKeyProviders('Deployment', 'StatefulSet', 'DaemonSet'), files: [UNPOLLER_REFERENCE] },
  exemptible: false,
  run(ctx) {
    const program = { name: 'unpoller', image: UNPOLLER_IMAGE, file: UNPOLLER_REFERENCE, refresh: REFRESH, what: "unpoller's settings" };
    for (const { workload: w, container, at, name, reference } of programContainers(ctx, program, unpollerReference(ctx.repo))) {
      const { entries, unread } = containerEnvironment(ctx, namespaceOrDestination(ctx.repo, w), container);
      const may = unread.filter((u) => mayStartWith(u.prefix, `${reference.prefix}_`));
      for (const u of may)
        ctx.notJudged(
          { resource: w, path: [...at, 'envFrom', u.source] },
          `container ${name}: the ${reference.prefix}_ variables an envFrom source whose keys the repository does not say may give unpoller are not judged`,
        );
      for (const p of unpollerProblems(entries, reference, { whole: may.length === 0 })) {
        const entry = entries[p.index]!;
        const path = [...at, ...givenVariablePath(entry, p.on === 'name' || entry.value === undefined ? 'name' : 'value')];
        if (p.notJudged) ctx.notJudged({ resource: w, path }, `container ${name}: ${p.message}`);
        else ctx.fail({ resource: w, path }, `container ${name}: ${p.message}`);
      }
    }
  },
};
