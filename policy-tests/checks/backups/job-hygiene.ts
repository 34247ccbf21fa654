/**
 * The backup jobs' hygiene: what each job may read and run as, kept apart from whether the jobs exist.
 */
import { writtenByExternalSecret } from '../../model/cluster/external-secrets.ts';
import { dig, list, objects } from '../../model/core/dig.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { withKeyProviders } from '../../model/cluster/provided-keys.ts';
import { containerEnvironment, secretShown } from '../../model/cluster/environment.ts';
import { slippedMount } from '../../model/cluster/mounted-files.ts';
import { mistyped } from '../../model/core/did-you-mean.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { BACKUP_ENVIRONMENT, ENGINE_ENVIRONMENT, halfCredentials } from '../../model/apps/backup-environment.ts';
import { TARGET_FILES } from '../../model/apps/backup-targets.ts';
import { BACKUP_IMAGE, backupJobs, declaredTargets, mainContainer, secretsRead } from './backups.ts';
import { scalarText } from '../../model/core/text.ts';
import { claimMount, sharedDirFindings, type BackupDirMount } from './shared-dir.ts';

/**
 * The needs of the command a job runs (its first argument) that neither its env nor the keys of the sources its
 * envFrom names meet, as the kubelet sets the variables (containerVariables); not a need a source whose keys are not
 * known may meet.
 */
function missingEnvironment(ctx: CheckContext, job: Resource, container: Record<string, unknown>): { missing: string[]; unread: string[]; unset: string[] } {
  const [command, target] = [scalarText(dig(container, ['args', 0]) ?? ''), scalarText(dig(container, ['args', 1]) ?? '')];
  const namespace = namespaceOrDestination(ctx.repo, job);
  const engine = declaredTargets(ctx.repo).targets.find((t) => t.target.name === target && t.target.namespace === namespace)?.target.engine;
  const needs = BACKUP_ENVIRONMENT[command] && [...BACKUP_ENVIRONMENT[command], ...((engine && ENGINE_ENVIRONMENT[engine]?.[command]) ?? [])];
  if (!needs) return { missing: [], unread: [], unset: [] };
  const setting = containerEnvironment(ctx, namespace, container, { secretText: true }).setting;
  // The commands read an empty variable as unset (`!env.RESTIC_REPOSITORY`): an empty value meets nothing.
  const variable = (name: string) => {
    const found = setting(name);
    return typeof found === 'object' && found.value === '' ? undefined : found;
  };
  const unmet = needs.filter((need) => need.every((n) => variable(n) === undefined || variable(n) === 'maybe'));
  // Met only, if at all, by a source whose keys the repository does not say (an ExternalSecret's dataFrom without a template).
  const [unread, missing] = [
    unmet.filter((need) => need.some((n) => variable(n) === 'maybe')),
    unmet.filter((need) => need.every((n) => variable(n) === undefined)),
  ];
  return {
    missing: [...missing.map((need) => need.join(' or ')), ...halfCredentials((n) => (variable(n) === 'maybe' ? undefined : variable(n) !== undefined))],
    unread: unread.map((need) => need.join(' or ')),
    // Each name of a need nothing sets: the one a mistyped variable was meant to be.
    unset: missing.flat(),
  };
}

/** The variables the container sets one keystroke (or their letters' case) from a missing one: what was meant, misspelt. */
function slipsOf(unset: readonly string[], container: Record<string, unknown>): string {
  const set = objects(container.env).map((e) => scalarText(e.name ?? ''));
  const slips = unset.flatMap((name) => set.filter((n) => mistyped(n, name)).map((n) => `${n}, one keystroke from ${name}`));
  return slips.length ? ` (it sets ${slips.join(', ')}, which nothing reads)` : '';
}

/** What mends each cause, printed with its finding (the remediation lists them all). */
/** Volume sources whose files live as long as the pod, or are the API's, not the job's to keep. */
const POD_LIFETIME = ['emptyDir', 'ephemeral', 'configMap', 'secret', 'downwardAPI', 'projected'];

/** Why a volume's files go with the pod (its source, or none: the API server makes a volume with no source an emptyDir), or undefined. */
function podLifetimeSource(volume: Record<string, unknown>): string | undefined {
  const sources = Object.keys(volume).filter((k) => k !== 'name');
  if (sources.length === 0) return 'which names no source (the API server makes it an emptyDir)';
  const source = sources.find((k) => POD_LIFETIME.includes(k));
  return source && `a ${source} volume`;
}

/**
 * BACKUP_DIR of a job's main container: set to a path a volume that outlives the pod is mounted at (a finding where
 * not), and the claim folder it is, where a claim's.
 */
function backupDirMount(ctx: CheckContext, job: Resource, main: NonNullable<ReturnType<typeof mainContainer>>): BackupDirMount | undefined {
  const c = main.c!;
  // As the kubelet sets it: its env, else the key of a Secret or ConfigMap its envFrom names.
  const environment = containerEnvironment(ctx, namespaceOrDestination(ctx.repo, job), c.container, { secretText: true });
  const backupDir = environment.text('BACKUP_DIR');
  const shownDir = secretShown(environment.setting('BACKUP_DIR'), String(backupDir));
  const mounts = objects(c.container.volumeMounts);
  if (backupDir === null)
    ctx.notJudged(
      { resource: job, path: [...c.at, 'name'] },
      `${job.name} sets BACKUP_DIR from a value the gate does not read: whether a volume is mounted there is not judged`,
    );
  // A BACKUP_DIR under no mount, one keystroke from one, is closure-secret-key's finding, with the mount it meant.
  else if (!backupDir || (!mounts.some((m) => m.mountPath === backupDir) && !slippedMount(c.container, backupDir)))
    ctx.fail(
      { resource: job, path: [...c.at, 'name'] },
      `${job.name} must set BACKUP_DIR and mount a volume there${backupDir ? ` (nothing is mounted at ${shownDir})` : ''}`,
      FIX.backupDir,
    );
  if (!backupDir || !mounts.some((m) => m.mountPath === backupDir)) return undefined;
  const mount = mounts.find((m) => m.mountPath === backupDir)!;
  const volume = objects(main.pod.spec.volumes).find((v) => v.name === mount.name);
  const gone = volume && podLifetimeSource(volume);
  if (gone)
    ctx.fail(
      { resource: job, path: [...main.pod.at, 'volumes', objects(main.pod.spec.volumes).indexOf(volume), 'name'] },
      `${job.name} keeps BACKUP_DIR (${shownDir}) on volume ${String(volume.name)}, ${gone}, whose files go with the pod: ${list(c.container.args).includes('restore-test') ? 'the drill finds no backup to restore' : 'each backup is gone as its job ends'}`,
      'mount the backups claim (a persistentVolumeClaim) at BACKUP_DIR',
    );
  const shared = claimMount(volume, mount);
  if (!shared) return undefined;
  const at = [...c.at, 'volumeMounts', mounts.indexOf(mount), ...(mount.subPath === undefined ? [] : ['subPath'])];
  return { job, command: scalarText(dig(c.container, ['args', 0]) ?? ''), namespace: namespaceOrDestination(ctx.repo, job) ?? '', ...shared, at };
}

const FIX = {
  concurrency: 'set concurrencyPolicy: Forbid',
  history: 'set successfulJobsHistoryLimit and failedJobsHistoryLimit between 1 and 10',
  image: `run image ${BACKUP_IMAGE}:<tag>`,
  requests: 'set resources.requests.cpu and resources.requests.memory',
  backupDir: 'set BACKUP_DIR and mount a volume at that path',
  secrets: 'take each Secret the job reads from an ExternalSecret in its namespace',
  environment: 'give the container each variable its command reads (in env, or as a key of a Secret its envFrom names)',
} as const;

export const backupHygieneChecks: PolicyCheck[] = [
  {
    id: 'backup-job-hygiene',
    description:
      'Every backup, backup-check and restore-test CronJob runs the backup image, forbids overlapping runs, keeps a bounded job history, requests CPU and memory, mounts BACKUP_DIR from a volume that outlives the pod (not an emptyDir, nor a volume with no source, which the API server makes one), a check and a drill at the claim folder a backup of their namespace writes to, reads secrets only from ExternalSecrets, and gives its command the environment it reads (the restic repository and password, the manifest key, the S3 or B2 credentials restic reads whole: half a pair signs nothing, and what the target engine reads: TALOS_NODE and TALOSCONFIG for the etcd backup, whose talosctl finds no configuration in the HOME of the image) (B1).',
    invariants: ['B1'],
    remediation: Object.values(FIX).join('; '),
    // The targets' files: an engine's needs beyond its command's (the etcd engine's TALOS_NODE).
    reads: { kinds: withKeyProviders('CronJob', 'PrometheusRule'), files: [...TARGET_FILES] },
    exemptible: false,
    run(ctx) {
      const dirs: BackupDirMount[] = [];
      for (const job of backupJobs(ctx)) {
        const spec = (job.object.spec ?? {}) as Record<string, unknown>;
        if (spec.concurrencyPolicy !== 'Forbid')
          ctx.fail(
            { resource: job, path: spec.concurrencyPolicy === undefined ? ['spec'] : ['spec', 'concurrencyPolicy'] },
            `${job.name} must set concurrencyPolicy: Forbid (two backups of one target must never run at once)`,
            FIX.concurrency,
          );
        for (const limit of ['successfulJobsHistoryLimit', 'failedJobsHistoryLimit'] as const) {
          const value = spec[limit];
          if (typeof value !== 'number' || value < 1 || value > 10)
            ctx.fail(
              { resource: job, path: value === undefined ? ['spec'] : ['spec', limit] },
              `${job.name} must keep a bounded ${limit} between 1 and 10 (a failed run is what the operator reads at 2 a.m.)`,
              FIX.history,
            );
        }
        const main = mainContainer(job);
        if (!main?.c) continue;
        const c = main.c;
        const image = scalarText(c.container.image ?? '');
        if (!image.startsWith(`${BACKUP_IMAGE}:`))
          ctx.fail(
            { resource: job, path: [...c.at, 'image'] },
            `${job.name} must run the backup image ${BACKUP_IMAGE} built from scripts/backup/Dockerfile, not ${image || '(none)'}`,
            FIX.image,
          );
        for (const kind of ['cpu', 'memory'] as const) {
          if (dig(c.container, ['resources', 'requests', kind]) === undefined)
            ctx.fail({ resource: job, path: [...c.at, c.container.resources ? 'resources' : 'name'] }, `${job.name} must request ${kind}`, FIX.requests);
        }
        const dir = backupDirMount(ctx, job, main);
        if (dir) dirs.push(dir);
        for (const secret of secretsRead(job)) {
          if (!writtenByExternalSecret(ctx.repo, secret.name, job.namespace ?? ''))
            ctx.fail(
              { resource: job, path: secret.at },
              `${job.name} reads Secret ${secret.name}, which no ExternalSecret in ${job.namespace} writes`,
              FIX.secrets,
            );
        }
        const { missing, unread, unset } = missingEnvironment(ctx, job, c.container);
        if (unread.length)
          ctx.notJudged(
            { resource: job, path: [...c.at, 'name'] },
            `${job.name}'s command reads ${unread.join(', ')}, which only a Secret or ConfigMap whose keys the repository does not say may set (an ExternalSecret's dataFrom without a template): not judged`,
          );
        if (missing.length)
          ctx.fail(
            { resource: job, path: [...c.at, 'name'] },
            `${job.name}'s environment lacks ${missing.join(', ')}, which the backup image's ${String(dig(c.container, ['args', 0]))} reads: it fails every run${slipsOf(unset, c.container)}`,
            FIX.environment,
          );
      }
      sharedDirFindings(ctx, dirs);
    },
  },
];
