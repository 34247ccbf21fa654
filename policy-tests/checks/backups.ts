/** Backup coverage (B3): every app config volume is copied off-site by a VolSync ReplicationSource. */
import type { PolicyCheck } from './types.ts';

export const backupChecks: PolicyCheck[] = [
  {
    id: 'backup-coverage',
    description: 'Every app config volume (a PersistentVolumeClaim named *-config) has a ReplicationSource, whose restic repository Secret comes from an ExternalSecret (B3).',
    invariants: ['B3'],
    remediation: 'add a ReplicationSource (restic mover) for the claim next to it, with its <claim>-restic ExternalSecret',
    kinds: ['PersistentVolumeClaim', 'ReplicationSource', 'ExternalSecret'],
    exemptible: false,
    run(ctx) {
      const sources = ctx.resources.filter((r) => r.kind === 'ReplicationSource');
      const secrets = new Set(ctx.resources.filter((r) => r.kind === 'ExternalSecret').map((r) => `${r.namespace}/${(r.object.spec as { target?: { name?: string } })?.target?.name ?? r.name}`));
      for (const pvc of ctx.resources.filter((r) => r.kind === 'PersistentVolumeClaim' && r.name.endsWith('-config'))) {
        const covered = sources.some((s) => s.namespace === pvc.namespace && (s.object.spec as { sourcePVC?: string })?.sourcePVC === pvc.name);
        if (!covered) ctx.fail(pvc, ['metadata', 'name'], `config volume ${pvc.namespace}/${pvc.name} has no ReplicationSource: it is not copied off-site`);
      }
      for (const source of sources) {
        const repository = (source.object.spec as { restic?: { repository?: string } })?.restic?.repository;
        if (!repository || !secrets.has(`${source.namespace}/${repository}`)) ctx.fail(source, ['spec', 'restic', 'repository'], `the restic repository Secret ${repository ?? '(none)'} is not written by an ExternalSecret`);
      }
    },
  },
];
