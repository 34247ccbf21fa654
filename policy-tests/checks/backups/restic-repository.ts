/**
 * The restic repository Secret a ReplicationSource names, as VolSync's restic mover reads it (mover-restic/entry.sh at
 * v0.16.0): written by an ExternalSecret, with RESTIC_REPOSITORY and RESTIC_PASSWORD, neither empty (the mover stops
 * on an empty one: "must be defined"). Otherwise no copy is made (B3).
 */
import type { CheckContext } from '../../model/checks/kit.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { keysOf } from '../../model/cluster/provided-keys.ts';
import { emptyTemplateKeys, externalSecretsWriting, writtenByExternalSecret } from '../../model/cluster/external-secrets.ts';
import { dig } from '../../model/core/dig.ts';
import { halfCredentials } from '../../model/apps/backup-environment.ts';

/** The keys VolSync's restic mover reads from its repository Secret. */
const VOLSYNC_RESTIC_KEYS = ['RESTIC_REPOSITORY', 'RESTIC_PASSWORD'];

/** The restic repository Secret a ReplicationSource names. */
const repositoryOf = (source: Resource): string | undefined => (source.object.spec as { restic?: { repository?: string } })?.restic?.repository;

export function resticRepositoryProblems(ctx: CheckContext, source: Resource): void {
  const repository = repositoryOf(source);
  const byExternalSecret = writtenByExternalSecret(ctx.repo, repository, source.namespace ?? '');
  if (!byExternalSecret)
    ctx.fail(
      { resource: source, path: ['spec', 'restic', 'repository'] },
      `the restic repository Secret ${repository ?? '(none)'} is not written by an ExternalSecret`,
    );
  // VolSync's restic mover reads the repository and its password from these keys of that Secret, and nothing else.
  const written = keysOf(ctx, { kind: 'Secret', namespace: source.namespace, name: repository });
  if (!written && byExternalSecret)
    ctx.notJudged(
      { resource: source, path: ['spec', 'restic', 'repository'] },
      `the restic repository Secret ${repository}'s keys are the store's (its ExternalSecret's dataFrom, without a template): whether it holds ${VOLSYNC_RESTIC_KEYS.join(' and ')} is not judged`,
    );
  const lacking = written && VOLSYNC_RESTIC_KEYS.filter((k) => !written.has(k));
  if (lacking?.length)
    ctx.fail(
      { resource: source, path: ['spec', 'restic', 'repository'] },
      `the restic repository Secret ${repository} has no ${lacking.join(' or ')}, which VolSync's mover reads: no copy is made`,
    );
  // The mover hands restic the Secret's credentials as they are: half a pair signs nothing.
  const halves = written ? halfCredentials((k) => written.has(k)) : [];
  if (halves.length)
    ctx.fail(
      { resource: source, path: ['spec', 'restic', 'repository'] },
      `the restic repository Secret ${repository} has no ${halves.join(', ')}: restic reads its credentials as a pair, and the bucket refuses an unsigned request, so no copy is made`,
    );
  // The mover's entry.sh stops on an empty one (check_var_defined: "must be defined"): a template that writes it empty.
  for (const { es, key } of emptyTemplateKeys(ctx.resources, source.namespace, repository, VOLSYNC_RESTIC_KEYS))
    ctx.fail(
      { resource: es, path: ['spec', 'target', 'template', 'data', key] },
      `the restic repository Secret ${repository} gets ${key} empty from its template: VolSync's mover stops on it (${key} must be defined), and no copy is made`,
    );
}

/** restic's backends that store off the machine that runs it (internal/location: each scheme a repository names). */
const REMOTE_BACKENDS = ['b2', 'azure', 'gs', 'rclone', 'rest', 's3', 'sftp', 'swift'];

/** What restic's isPath takes for a path whatever colon follows: an absolute one, a parent's, or a drive's. */
const IS_PATH = /^(\.\.[/\\]|[/\\]|[A-Za-z]:[/\\])/;

/**
 * How restic reads a repository location (internal/location.Parse): by the text before its first colon, a backend;
 * else, as a path (none of the backends, and no colon, or a path's `/` or `../` start), a local directory; else it
 * refuses it ("invalid backend").
 */
function resticLocation(text: string): 'remote' | 'local' | 'invalid' {
  const colon = text.indexOf(':');
  const scheme = colon === -1 ? undefined : text.slice(0, colon);
  if (scheme !== undefined && REMOTE_BACKENDS.includes(scheme)) return 'remote';
  if (scheme === undefined || scheme === 'local' || IS_PATH.test(text)) return 'local';
  return 'invalid';
}

/**
 * A repository restic reads as a local directory is one in the mover's pod, which mounts no share: `restic init`
 * makes it there, each copy succeeds, and every copy ends with the pod; one restic refuses makes no copy. A template's
 * literal text before its first `{{` is judged where it says the scheme; one that starts with a store value says
 * nothing here.
 */
export function localRepositoryProblems(ctx: CheckContext, source: Resource): void {
  const repository = repositoryOf(source);
  for (const es of externalSecretsWriting(ctx.resources, source.namespace, repository)) {
    const text = dig(es.object, ['spec', 'target', 'template', 'data', 'RESTIC_REPOSITORY']);
    if (typeof text !== 'string' || text === '') continue;
    const literal = text.split('{{')[0]!;
    // Text that could still become a backend's name (s, s3) leaves the scheme to the store's value; any other cannot.
    if (literal !== text && /^[A-Za-z0-9]*$/.test(literal)) continue;
    const location = literal !== text && !literal.includes(':') && !IS_PATH.test(literal) ? 'unnamed' : resticLocation(literal);
    if (location === 'remote') continue;
    ctx.fail(
      { resource: es, path: ['spec', 'target', 'template', 'data', 'RESTIC_REPOSITORY'] },
      location === 'local'
        ? `the restic repository ${JSON.stringify(text)} is a local directory to restic: VolSync's mover makes it inside its own pod, each copy succeeds, and every copy ends with the pod (B3)`
        : location === 'unnamed'
          ? `the restic repository ${JSON.stringify(text)} starts with ${JSON.stringify(literal)}, which no backend's name does (${REMOTE_BACKENDS.join(', ')}): restic reads it as a local directory in the mover's pod, whose copies end with it, or refuses it (B3)`
          : `the restic repository ${JSON.stringify(text)} names no backend restic has (${REMOTE_BACKENDS.join(', ')}): it refuses the location ("invalid backend"), and no copy is made (B3)`,
      'write the repository as restic names a remote backend (s3:https://host/bucket/path, b2:bucket:path, rest:https://host/path), or read it from the store',
    );
  }
}

/**
 * Two copies written to one restic repository path: VolSync's restore takes the newest snapshot there, which may be
 * the other volume's, so a restore brings back another app's files (a component's replacement that no longer reaches
 * the template leaves every app at the template's path).
 */
export function sharedRepositoryProblems(ctx: CheckContext, sources: readonly Resource[]): void {
  const byRepository = new Map<string, { path: string; es: Resource; source: Resource; volume: string }[]>();
  for (const source of sources) {
    const repository = repositoryOf(source);
    const [es] = externalSecretsWriting(ctx.resources, source.namespace, repository);
    const path = es && dig(es.object, ['spec', 'target', 'template', 'data', 'RESTIC_REPOSITORY']);
    if (!es || typeof path !== 'string' || path === '') continue;
    // The same text from the same store entries is the same path; other entries may fill the template otherwise.
    const key = JSON.stringify([path, dig(es.object, ['spec', 'secretStoreRef']), dig(es.object, ['spec', 'data']), dig(es.object, ['spec', 'dataFrom'])]);
    const volume = `${source.namespace}/${String(dig(source.object, ['spec', 'sourcePVC']))}`;
    byRepository.set(key, [...(byRepository.get(key) ?? []), { path, es, source, volume }]);
  }
  for (const users of byRepository.values()) {
    const volumes = new Set(users.map((u) => u.volume));
    if (volumes.size < 2) continue;
    for (const { path, es, source, volume } of users)
      ctx.fail(
        { resource: es, path: ['spec', 'target', 'template', 'data', 'RESTIC_REPOSITORY'] },
        `ReplicationSource ${source.name} copies to the restic repository ${path}, which ${[...volumes].filter((v) => v !== volume).join(', ')} also copies to: a restore takes the newest snapshot there, which may be another volume's`,
      );
  }
}
