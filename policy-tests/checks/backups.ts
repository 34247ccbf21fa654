/** Backup coverage (B3): every app config volume is copied off-site by a VolSync ReplicationSource. */
import { writtenByExternalSecret } from '../lib/external-secrets.ts';
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
      for (const pvc of ctx.resources.filter((r) => r.kind === 'PersistentVolumeClaim' && r.name.endsWith('-config'))) {
        const covered = sources.some((s) => s.namespace === pvc.namespace && (s.object.spec as { sourcePVC?: string })?.sourcePVC === pvc.name);
        if (!covered) ctx.fail(pvc, ['metadata', 'name'], `config volume ${pvc.namespace}/${pvc.name} has no ReplicationSource: it is not copied off-site`);
      }
      for (const source of sources) {
        const repository = (source.object.spec as { restic?: { repository?: string } })?.restic?.repository;
        if (!writtenByExternalSecret(ctx.repo, repository, source.namespace ?? '')) ctx.fail(source, ['spec', 'restic', 'repository'], `the restic repository Secret ${repository ?? '(none)'} is not written by an ExternalSecret`);
      }
    },
  },
];
