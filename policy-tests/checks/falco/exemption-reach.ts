/**
 * An exemption must be able to act (S8). "Drop and execute new binary in
 * container" and any rule like it fire only for an executable in the
 * container's overlay upper layer: a file written into the container's own
 * filesystem. A binary on a volume never trips them, so an exemption by a path
 * that lies on a volume in every container of the image exempts nothing, and
 * reads as if something noisy were known and tamed.
 */
import { pinned, unwrap, type Expr } from '../../model/falco/expr.ts';
import { exemptionsOf, IMAGE_FIELD, NAMESPACE_FIELD } from '../../model/falco/exemptions.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { scalarText } from '../../model/core/text.ts';
import { WORKLOAD_KINDS, workloadContainers } from '../../model/core/workloads.ts';
import { mountedFile } from '../../model/cluster/mounted-files.ts';
import { imageKey } from '../../model/repository/image-facts.ts';
import { forEachTuning } from './tuning-checks.ts';

/** The executable's path, as the upper-layer rules report it. */
const EXE_FIELDS = new Set(['proc.exepath', 'proc.exe']);

/** What one alternative names: the executables' paths (a prefix, or the path), the images and the namespaces. */
function namedBy(clause: Expr): { paths: string[]; images: string[]; namespaces: string[] } {
  const named = { paths: [] as string[], images: [] as string[], namespaces: [] as string[] };
  for (const part of pinned(clause)) {
    const e = unwrap(part);
    if (e.kind !== 'compare' && e.kind !== 'list') continue;
    const values = e.kind === 'compare' ? [e.value] : e.op === 'in' ? e.items : [];
    if (EXE_FIELDS.has(e.field) && ['=', '==', 'startswith', 'in'].includes(e.op)) named.paths.push(...values);
    else if (IMAGE_FIELD.test(e.field) && ['=', '==', 'in'].includes(e.op)) named.images.push(...values);
    else if (e.field === NAMESPACE_FIELD && ['=', '==', 'in'].includes(e.op)) named.namespaces.push(...values);
  }
  return named;
}

export const exemptionReachCheck: PolicyCheck = {
  id: 'falco-exemption-reachable',
  description:
    'An exemption of a rule that fires only for an executable in the container’s own filesystem (the overlay upper layer: "Drop and execute new binary in container", upperLayerHooks in the tuning policy) names a path that rule can see: one that lies on a volume in every container of the image it names exempts nothing, since a binary on a volume never trips the rule (S8).',
  invariants: ['S8'],
  remediation: 'remove the alternative, or name the path in the container’s own filesystem that the alert reports (proc.exepath)',
  reads: { kinds: ['ConfigMap', ...WORKLOAD_KINDS], files: ['security/falco/facts/*'] },
  exemptible: false,
  run(ctx) {
    const containers = [...workloadContainers(ctx.resources)].map(({ resource, pod, c }) => ({
      resource,
      c,
      image: imageKey(scalarText(c.container.image ?? '')),
      // A path under no volume mount is the image's own filesystem (mountedFile), where the rule looks.
      onVolume: (path: string) =>
        mountedFile({ repo: ctx.repo, resources: ctx.resources }, { spec: pod.spec, namespace: resource.namespace }, c.container, path).on !== 'image',
    }));
    const running = (image: string, namespaces: string[]) =>
      containers.filter((x) => x.image === imageKey(image) && (namespaces.length === 0 || namespaces.includes(x.resource.namespace ?? '')));
    forEachTuning(ctx, (tuning, policy, fail) => {
      for (const { item, clauses } of exemptionsOf(tuning, policy)) {
        const rule = policy.upperLayerHooks[item.name];
        if (item.type !== 'macro' || rule === undefined) continue;
        clauses.forEach((clause, n) => {
          const { paths, images, namespaces } = namedBy(clause);
          for (const image of images) {
            const found = running(image, namespaces);
            const dead = paths.filter((p) => found.length > 0 && found.every((x) => x.onVolume(p)));
            if (dead.length === 0) continue;
            const where = clauses.length > 1 ? ` (alternative ${n + 1})` : '';
            fail(
              tuning,
              [item.index, 'condition'],
              `macro "${item.name}"${where} exempts ${dead.join(', ')} in ${image}, which lies on a volume in every container that runs it (${found.map(({ resource, c }) => `${resource.name}/${c.name}`).join(', ')}): "${rule}" fires only for an executable in the container's own filesystem, so the alternative exempts nothing`,
            );
          }
        });
      }
    });
  },
};
