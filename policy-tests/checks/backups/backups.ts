/**
 * Backups: every app config volume is copied off-site (B3); every declared
 * backup target has its backup and backup-check CronJobs, named so that
 * BackupJobStale watches them, and the monthly restore-test exists under the
 * name RestoreTestFailed reads (B1, B2); and those jobs are run the way a
 * 2 a.m. failure needs them run (B1). B4 (the apps' own backups kept 14 days) is
 * media-manager-settings' row; the scripts' 14 days are proven by their tests.
 */
import { targetsOfDocument, TARGET_FILES, volumeOnlyApps, type Target } from '../../model/apps/backup-targets.ts';
import { localRepositoryProblems, resticRepositoryProblems, sharedRepositoryProblems } from './restic-repository.ts';
import { copiesOfClaim } from './claim-copies.ts';
import { judgeDatabasePath } from './database-files.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { perRepo } from '../../model/repository/per-repo.ts';
import type { PathSegment } from '../../model/core/positions.ts';
import { alertRules } from '../../model/monitoring/prometheus-rules.ts';
import type { DataFile, Repo } from '../../model/repository/repo.ts';
import { dig, isMap, objects } from '../../model/core/dig.ts';
import { containersOf, podSpecOf } from '../../model/core/workloads.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { scalarText } from '../../model/core/text.ts';
import { prometheusMatch } from '../../model/core/re2.ts';
import { withKeyProviders } from '../../model/cluster/provided-keys.ts';
import { IMAGE_FACTS_GLOB } from '../../model/repository/image-facts.ts';

/** The image built from scripts/backup/Dockerfile; every backup job runs it. */
export const BACKUP_IMAGE = 'ghcr.io/homelab-operator/homelab-backup';
const DAILY = /^\d{1,2} \d{1,2} \* \* \*$/;
const MONTHLY = /^\d{1,2} \d{1,2} \d{1,2} \* \*$/;

interface DeclaredTarget {
  target: Target;
  file: DataFile;
}

/** The declared targets with the file that declares them; malformed files are findings of backup-jobs. */
export const declaredTargets = perRepo(
  (repo: Repo): { targets: DeclaredTarget[]; volumeOnly: Map<string, Set<string>>; problems: { file: string; message: string }[] } => {
    const targets: DeclaredTarget[] = [];
    /** By namespace: the apps whose config volume is their only backup. */
    const volumeOnly = new Map<string, Set<string>>();
    const problems: { file: string; message: string }[] = [];
    for (const name of TARGET_FILES) {
      const file = repo.dataFiles.get(name);
      if (!file) {
        problems.push({ file: name, message: `${name} is missing: the backup targets of its namespace are declared there` });
        continue;
      }
      if (file.errors.length) continue; // reported by the loader
      try {
        targets.push(...targetsOfDocument(file.data, name).map((target) => ({ target, file })));
        volumeOnly.set((file.data as { namespace: string }).namespace, new Set(volumeOnlyApps(file.data)));
      } catch (err) {
        problems.push({ file: name, message: (err as Error).message });
      }
    }
    return { targets, volumeOnly, problems };
  },
);

/** What the backup alerts watch, read from the rules themselves: BackupJobStale's cronjob regex and RestoreTestFailed's cronjob name. */
/** A PromQL regex matched as Prometheus matches it, with its text for messages; undefined where Go cannot compile it. */
function wholeRegex(source: string): { test(text: string): boolean; source: string } | undefined {
  try {
    const re = prometheusMatch(source);
    return { test: (text) => re.test(text), source };
  } catch {
    return undefined;
  }
}

const watchedJobs = perRepo((repo: Repo): { stale?: { test(text: string): boolean; source: string }; restoreTest?: string } => {
  const rules = alertRules(repo);
  const regex = /cronjob=~"([^"]+)"/.exec(rules.find((r) => r.alert === 'BackupJobStale')?.expr ?? '')?.[1];
  const restoreTest = /cronjob="([^"]+)"/.exec(rules.find((r) => r.alert === 'RestoreTestFailed')?.expr ?? '')?.[1];
  // PromQL regex matchers are fully anchored, Go's RE2 (a regex it cannot compile watches nothing).
  return { stale: regex ? wholeRegex(regex) : undefined, restoreTest };
});

export const jobNamesOf = (t: Target) => ({ backup: t.engine === 'etcd' ? 'etcd-backup' : `${t.name}-db-backup`, check: `${t.name}-backup-check` });

const cronJob = (ctx: CheckContext, namespace: string, name: string) =>
  ctx.resources.find((r) => r.kind === 'CronJob' && r.namespace === namespace && r.name === name);

/** The first container of a CronJob's pod, with where its fields are. */
export function mainContainer(job: Resource) {
  const pod = podSpecOf(job);
  return pod ? { pod, c: containersOf(pod).find((c) => !c.init) } : undefined;
}

function expectArgs(ctx: CheckContext, job: Resource, args: string[]): void {
  const main = mainContainer(job)?.c;
  const actual = main?.container.args;
  if (JSON.stringify(actual) !== JSON.stringify(args))
    ctx.fail(
      { resource: job, path: main ? [...main.at, actual === undefined ? 'name' : 'args'] : ['spec'] },
      `${job.name} must run args ${JSON.stringify(args)}, not ${JSON.stringify(actual ?? null)}`,
    );
}

function expectSchedule(ctx: CheckContext, job: Resource, pattern: RegExp, every: string): void {
  const schedule = scalarText(dig(job.object, ['spec', 'schedule']) ?? '');
  // The CronJob controller starts no job of a suspended CronJob: its schedule is read, and nothing runs.
  if (dig(job.object, ['spec', 'suspend']) === true)
    ctx.fail(
      { resource: job, path: ['spec', 'suspend'] },
      `${job.name} must run ${every}, and it is suspended (spec.suspend: true): the CronJob controller starts none of its jobs`,
    );
  if (!pattern.test(schedule))
    ctx.fail(
      { resource: job, path: ['spec', 'schedule'] },
      `${job.name} must run ${every} (a fixed minute and hour${every === 'monthly' ? ' on a fixed day of the month' : ', every day'}), not "${schedule}"`,
    );
}

/**
 * A SQLite backup reads the database files on the app's config volume: the job
 * must mount the claim the app mounts at the same path, and (the volume being
 * ReadWriteOnce) run on the app's node.
 */
function expectAppVolume(ctx: CheckContext, job: Resource, t: Target & { engine: 'sqlite' }, file: DataFile): void {
  const app = ctx.resources.find((r) => r.kind === 'Deployment' && r.namespace === t.namespace && r.name === t.deployment);
  const main = mainContainer(job);
  const appPod = app && podSpecOf(app);
  if (!app || !main?.c || !appPod) {
    if (!app) ctx.fail({ resource: job, path: ['metadata', 'name'] }, `${job.name}: the app's Deployment ${t.namespace}/${t.deployment} does not exist`);
    return;
  }
  const claimOf = (pod: { spec: Record<string, unknown> }, volume: unknown) =>
    (objects(pod.spec.volumes) as ({ name?: string; persistentVolumeClaim?: { claimName?: string } } | null)[]).find((v) => v?.name === volume)
      ?.persistentVolumeClaim?.claimName;
  const appMounts = containersOf(appPod).flatMap((c) =>
    (objects(c.container.volumeMounts) as { name: string; mountPath: string }[]).map((m) => ({ ...m, claim: claimOf(appPod, m.name), c })),
  );
  const jobMounts = (objects(main.c.container.volumeMounts) as { name: string; mountPath: string }[]).map((m) => ({
    ...m,
    claim: claimOf(main.pod, m.name),
  }));
  for (const [i, path] of t.paths.entries()) {
    const under = (m: { mountPath: string }) => typeof m.mountPath === 'string' && path.startsWith(`${m.mountPath.replace(/\/$/, '')}/`);
    // In a pod of several apps (the VPN pod) each container mounts its own claim at the same path: any of them may be the one.
    const candidates = appMounts.filter((m) => under(m) && m.claim);
    const jobMount = jobMounts.find(under);
    if (candidates.length === 0)
      ctx.fail({ resource: app, path: ['metadata', 'name'] }, `${t.name}: no volume of ${t.deployment} holds the backup path ${path}`);
    else if (!candidates.some((m) => m.claim === jobMount?.claim && m.mountPath === jobMount?.mountPath))
      ctx.fail(
        { resource: job, path: [...main.c.at, 'volumeMounts'] },
        `${job.name} must mount the claim ${t.deployment} keeps ${path} on (${candidates.map((m) => `${m.claim} at ${m.mountPath}`).join(' or ')}) to read it`,
      );
    if (candidates.length > 0)
      judgeDatabasePath(ctx, t, [...new Set(candidates.map((m) => m.c))], { path, place: { data: file, path: ['targets', t.name, 'paths', i] } });
  }
  const affinity =
    (dig(main.pod.spec, ['affinity', 'podAffinity', 'requiredDuringSchedulingIgnoredDuringExecution']) as
      | { labelSelector?: { matchLabels?: Record<string, string> }; topologyKey?: string }[]
      | undefined) ?? [];
  const appLabels = (dig(app.object, ['spec', 'template', 'metadata', 'labels']) as Record<string, string> | undefined) ?? {};
  const beside = affinity.some(
    (a) =>
      a.topologyKey === 'kubernetes.io/hostname' &&
      Object.entries(a.labelSelector?.matchLabels ?? {}).length > 0 &&
      Object.entries(a.labelSelector!.matchLabels!).every(([k, v]) => appLabels[k] === v),
  );
  if (!beside)
    ctx.fail(
      { resource: job, path: [...main.pod.at, main.pod.spec.affinity ? 'affinity' : 'containers'] },
      `${job.name} must be scheduled on ${t.deployment}'s node (required podAffinity on its pod labels, topologyKey kubernetes.io/hostname): its config volume is ReadWriteOnce`,
    );
}

/** The CronJobs that are backup jobs: those BackupJobStale watches and the restore test. */
export function backupJobs(ctx: CheckContext): Resource[] {
  const { stale, restoreTest } = watchedJobs(ctx.repo);
  return ctx.resources.filter((r) => r.kind === 'CronJob' && (stale?.test(r.name) || r.name === restoreTest));
}

/** Secrets a pod reads: env secretKeyRef, envFrom secretRef and secret volumes, with where each is named. */
export function secretsRead(job: Resource): { name: string; at: PathSegment[] }[] {
  const pod = podSpecOf(job);
  if (!pod) return [];
  const out: { name: string; at: PathSegment[] }[] = [];
  for (const c of containersOf(pod)) {
    (objects(c.container.env) as ({ valueFrom?: { secretKeyRef?: { name?: string } } } | null)[]).forEach(
      (e, i) =>
        e?.valueFrom?.secretKeyRef && out.push({ name: String(e.valueFrom.secretKeyRef.name), at: [...c.at, 'env', i, 'valueFrom', 'secretKeyRef', 'name'] }),
    );
    (objects(c.container.envFrom) as ({ secretRef?: { name?: string } } | null)[]).forEach(
      (e, i) => e?.secretRef && out.push({ name: String(e.secretRef.name), at: [...c.at, 'envFrom', i, 'secretRef', 'name'] }),
    );
  }
  objects(pod.spec.volumes).forEach(
    (v, i) => isMap(v.secret) && out.push({ name: String(v.secret.secretName), at: [...pod.at, 'volumes', i, 'secret', 'secretName'] }),
  );
  return out;
}

export const backupChecks: PolicyCheck[] = [
  {
    id: 'backup-coverage',
    description:
      'Every app config volume (a PersistentVolumeClaim named *-config) has a ReplicationSource, not paused, whose restic repository Secret is <claim>-restic (the name the restore guide restores the volume from) and comes from an ExternalSecret with the RESTIC_REPOSITORY and RESTIC_PASSWORD keys VolSync reads, neither written empty (its mover stops on an empty one), and the S3 or B2 credentials restic reads whole (half a pair signs nothing), its repository one restic stores off the cluster (a location its template writes as a local directory is made inside the mover pod, and ends with it; one naming a backend restic does not have is refused), and no two volumes copied to one repository path (a restore takes the newest snapshot there) (B3).',
    invariants: ['B3'],
    remediation: 'add a ReplicationSource (restic mover) for the claim next to it, with its <claim>-restic ExternalSecret',
    reads: { kinds: ['PersistentVolumeClaim', 'ReplicationSource', 'ExternalSecret'] },
    exemptible: false,
    run(ctx) {
      const sources = ctx.resources.filter((r) => r.kind === 'ReplicationSource');
      for (const pvc of ctx.resources.filter((r) => r.kind === 'PersistentVolumeClaim' && r.name.endsWith('-config'))) {
        const covering = sources.filter((s) => s.namespace === pvc.namespace && dig(s.object, ['spec', 'sourcePVC']) === pvc.name);
        if (covering.length === 0)
          ctx.fail(
            { resource: pvc, path: ['metadata', 'name'] },
            `config volume ${pvc.namespace}/${pvc.name} has no ReplicationSource: it is not copied off-site`,
          );
        copiesOfClaim(ctx, pvc, covering);
      }
      for (const source of sources) {
        resticRepositoryProblems(ctx, source);
        localRepositoryProblems(ctx, source);
      }
      sharedRepositoryProblems(ctx, sources);
    },
  },
  {
    id: 'backup-jobs',
    description: `Every app with a config volume is a backup target or listed under volumeOnly with a reason; every target in ${TARGET_FILES.join(' and ')} has a daily backup CronJob (<app>-db-backup, or etcd-backup) and a daily <app>-backup-check, neither suspended, running the backup image's commands for it, named as BackupJobStale's cronjob regex expects; SQLite backups mount the app's claim beside its pod, and back up the database files the app writes where its image's facts list them (databases: under its data folder, as a variable or an option of its command line moves it; any other path holds no file, and every night's backup refuses to run); the monthly restore-test exists under the name RestoreTestFailed reads, not suspended; no backup-named CronJob lacks a target (B1, B2).`,
    invariants: ['B1', 'B2'],
    remediation:
      'declare the target and give the app its two CronJobs (include apps/media/components/db-backup, as apps/media/sonarr/kustomization.yaml does), or rename the job to what the alert rule watches',
    reads: { kinds: withKeyProviders('CronJob', 'Deployment', 'PrometheusRule', 'PersistentVolumeClaim'), files: [...TARGET_FILES, IMAGE_FACTS_GLOB] },
    exemptible: false,
    run(ctx) {
      const { targets, volumeOnly, problems } = declaredTargets(ctx.repo);
      for (const p of problems) ctx.fail({ file: p.file }, p.message);
      // Every app with a config volume in a namespace that declares targets is either a target or says why it is not.
      for (const pvc of ctx.resources.filter((r) => r.kind === 'PersistentVolumeClaim' && r.name.endsWith('-config') && volumeOnly.has(r.namespace ?? ''))) {
        const app = pvc.name.slice(0, -'-config'.length);
        const isTarget = targets.some(({ target: t }) => t.namespace === pvc.namespace && t.name === app);
        if (!isTarget && !volumeOnly.get(pvc.namespace!)!.has(app))
          ctx.fail(
            { resource: pvc, path: ['metadata', 'name'] },
            `${app} has a config volume but is neither a backup target nor listed under volumeOnly (with the reason its database needs no backup) in its namespace's backup-targets.yaml`,
          );
      }
      const { stale, restoreTest } = watchedJobs(ctx.repo);
      if (!stale || !restoreTest)
        ctx.fail(
          { file: 'monitoring/alert-rules' },
          'BackupJobStale (cronjob=~"...") or RestoreTestFailed (cronjob="...") is missing: nothing would watch the backup jobs',
        );
      const expected = new Set<string>();
      for (const { target: t, file } of targets) {
        const names = jobNamesOf(t);
        for (const [role, name] of [
          ['backup', names.backup],
          ['check', names.check],
        ] as const) {
          expected.add(`${t.namespace}/${name}`);
          if (stale && !stale.test(name))
            ctx.fail(
              { data: file, path: ['targets', t.name] },
              `target ${t.name}: job name ${name} does not match BackupJobStale's cronjob regex ${stale.source}`,
            );
          const job = cronJob(ctx, t.namespace, name);
          if (!job) {
            ctx.fail(
              { data: file, path: ['targets', t.name] },
              `target ${t.name} has no CronJob ${t.namespace}/${name}: its ${role === 'backup' ? 'backups are never taken' : 'backups are never verified'}`,
            );
            continue;
          }
          expectArgs(ctx, job, [role === 'backup' ? 'backup' : 'backup-check', t.name]);
          expectSchedule(ctx, job, DAILY, 'daily');
          if (role === 'backup' && t.engine === 'sqlite') expectAppVolume(ctx, job, t, file);
        }
      }
      for (const job of backupJobs(ctx)) {
        if (job.name === restoreTest) continue;
        if (!expected.has(`${job.namespace}/${job.name}`))
          ctx.fail(
            { resource: job, path: ['metadata', 'name'] },
            `CronJob ${job.namespace}/${job.name} is named as a backup job but backs up no declared target in its namespace`,
          );
      }
      const drills = ctx.resources.filter((r) => r.kind === 'CronJob' && r.name === restoreTest);
      if (restoreTest && drills.length === 0)
        ctx.fail(
          { file: TARGET_FILES.find((f) => f.startsWith('apps/platform/'))! },
          `no CronJob named ${restoreTest}: RestoreTestFailed would only ever see a drill that never ran`,
        );
      for (const drill of drills) {
        expectSchedule(ctx, drill, MONTHLY, 'monthly');
        expectArgs(ctx, drill, ['restore-test']);
      }
    },
  },
];
