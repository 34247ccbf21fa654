/**
 * What an image needs of the container that runs it, each need a judge of one container (`Held`): where its
 * publisher pushes it and in which tag scheme, the release it works with, root at start and its capabilities, a
 * writable temporary directory and the directories it writes, s6-overlay's /run, its probes' paths, and the settings
 * it reads from the environment (env-needs.ts). Each failure says its own mend.
 */
import { listensNeed } from './listens.ts';
import { selfUrlNeed } from './self-url.ts';
import { dig, objects, str } from '../../model/core/dig.ts';
import { scalarText } from '../../model/core/text.ts';
import { capabilitiesOf, imageParts, workloadContainers, type ContainerRef, type PodSpecRef } from '../../model/core/workloads.ts';
import { imageKey } from '../../model/repository/image-facts.ts';
import { nearestName, suggesting } from '../../model/core/did-you-mean.ts';
import { textOf, type Held } from './variables.ts';
import { urlBaseNeed } from './url-base.ts';
import { conditionalEnvNeed, envFormatNeed, envSinceNeed, envTogetherNeed, slippedVariableNeed } from './env-needs.ts';
import { dropsToPuid, skipsEntrypoint } from '../../model/repository/run-as.ts';
import { optionsNeed } from './options.ts';
import { probePathNeed } from './probe-paths.ts';

/** Where Python's tempfile looks for a temporary directory, after $TMPDIR, $TEMP and $TMP. */
const TEMP_DIRS = ['/tmp', '/var/tmp', '/usr/tmp'];
/** Volume sources a container can write through. */
const WRITABLE_SOURCES = ['emptyDir', 'persistentVolumeClaim', 'ephemeral', 'hostPath', 'nfs'];

/** Whether a writable volume (not mounted read-only) is mounted in the container at one of `paths`. */
function writableAt(pod: PodSpecRef, c: ContainerRef, paths: ReadonlySet<string>): boolean {
  const volumes = new Map(objects(pod.spec.volumes).map((v) => [v.name, v]));
  return (objects(c.container.volumeMounts) as { name?: string; mountPath?: string; readOnly?: boolean }[]).some((m) => {
    const volume = volumes.get(m.name);
    return (
      m.readOnly !== true && paths.has(str(m.mountPath).replace(/\/+$/, '')) && volume !== undefined && WRITABLE_SOURCES.some((k) => volume[k] !== undefined)
    );
  });
}

/**
 * Where the runtime may put a temporary file: Python's tempfile takes the first writable of $TMPDIR, $TEMP and $TMP,
 * then /tmp, /var/tmp and /usr/tmp; Node's os.tmpdir() the first of $TMPDIR, $TMP and $TEMP that is set, else /tmp,
 * without asking whether it can write there (a trailing slash dropped).
 */
function tempDirs(variable: Held['variable'], runtime: 'python' | 'node'): Set<string> {
  const set = (names: string[]) => names.map((n) => textOf(variable(n))).filter((v): v is string => v !== undefined && v !== '');
  if (runtime === 'python') return new Set([...set(['TMPDIR', 'TEMP', 'TMP']), ...TEMP_DIRS]);
  return new Set([(set(['TMPDIR', 'TMP', 'TEMP'])[0] ?? '/tmp').replace(/(.)\/+$/, '$1')]);
}

/** s6-overlay's switch for a /run the kubelet made world-writable (preinit tests "0$VAR" -ne 0). */
const S6_K8S_RUN = 'S6_YES_I_WANT_A_WORLD_WRITABLE_RUN_BECAUSE_KUBERNETES';

function tempDirNeed({ ctx, pod, c, image, need, where, variable }: Held): void {
  if (!need.tempDir || dig(c.container, ['securityContext', 'readOnlyRootFilesystem']) !== true) return;
  const runtime = need.tempDir === 'node' ? 'node' : 'python';
  const dirs = tempDirs(variable, runtime);
  if (!writableAt(pod, c, dirs))
    ctx.fail(
      where,
      runtime === 'python'
        ? `container ${c.name} runs ${image} on a read-only root filesystem with no writable volume at $TMPDIR, /tmp, /var/tmp or /usr/tmp, but the image writes a temporary file at start (${need.source}): it stops there`
        : `container ${c.name} runs ${image} on a read-only root filesystem with no writable volume at ${[...dirs][0]}, where Node's os.tmpdir() points (its first set of $TMPDIR, $TMP and $TEMP, else /tmp), but the image writes a temporary file there (${need.source}): it stops there`,
      runtime === 'python' ? 'mount an emptyDir at /tmp, or where $TMPDIR points' : `mount an emptyDir at ${[...dirs][0]}`,
    );
}

/** Each of the node's folders the image's program works in, mounted at its own path from a hostPath volume of that path. */
function nodeFoldersNeed({ ctx, resource, pod, c, image, need, where }: Held): void {
  const trim = (p: unknown) => str(p).replace(/(.)\/+$/, '$1');
  const volumes = new Map(objects(pod.spec.volumes).map((v) => [v.name, v]));
  const mounts = objects(c.container.volumeMounts) as { name?: string; mountPath?: string }[];
  for (const folder of need.nodeFolders ?? []) {
    const fromNode = (m: { name?: string }) => trim(dig(volumes.get(m.name), ['hostPath', 'path'])) === folder;
    if (mounts.some((m) => trim(m.mountPath) === folder && fromNode(m))) continue;
    const elsewhere = mounts.find(fromNode);
    ctx.fail(
      elsewhere ? { resource, path: [...c.at, 'volumeMounts', mounts.indexOf(elsewhere), 'mountPath'] } : where,
      `container ${c.name} runs ${image}, which works in the node's ${folder} at that path, but ${elsewhere ? `mounts it at ${str(elsewhere.mountPath)}` : `no hostPath volume of ${folder} is mounted there`} (${need.source})`,
      `mount a hostPath volume of ${folder} at ${folder}`,
    );
  }
}

function writesToNeed({ ctx, pod, c, image, need, where }: Held): void {
  for (const dir of need.writesTo ?? [])
    if (!writableAt(pod, c, new Set([dir])))
      ctx.fail(
        where,
        `container ${c.name} runs ${image} with no writable volume at ${dir}, where the app writes (${need.source}): the image has no such directory its user may write, so what the app writes there fails`,
        `mount an emptyDir (or a claim, for what must last) at ${dir}`,
      );
}

function s6OverlayNeed({ ctx, pod, c, image, need, where, setting, variable }: Held): void {
  const user = setting('runAsUser');
  if (!need.s6Overlay || skipsEntrypoint(c, need.entrypoint) || user === undefined || user === 0) return;
  const worldWritable = variable(S6_K8S_RUN);
  // Set from a value the gate does not read (an ExternalSecret's key, a Secret made outside git): whether it is a number above 0 is not known.
  const unread = worldWritable === 'held' || worldWritable === 'maybe';
  const missing = [
    ...(writableAt(pod, c, new Set(['/run'])) ? [] : ['a writable volume at /run']),
    ...(unread || /^\d*[1-9]\d*$/.test(textOf(worldWritable) ?? '') ? [] : [`${S6_K8S_RUN}=1`]),
  ];
  if (unread && missing.length === 0)
    return ctx.notJudged(
      where,
      `container ${c.name} starts ${image} as user ${scalarText(user)} with ${S6_K8S_RUN} from a value the gate does not read: whether s6-overlay may take /run is not judged (${need.source})`,
    );
  if (missing.length > 0)
    ctx.fail(
      where,
      `container ${c.name} starts ${image} as user ${scalarText(user)} without ${missing.join(' and ')}: its s6-overlay preinit cannot make the image's /run its own without privileges, and stops before the app starts (${need.source})`,
      `give the container an emptyDir at /run and ${S6_K8S_RUN}=1`,
    );
}

function publishedNeed({ ctx, resource, c, image, need }: Held): void {
  const at = { resource, path: [...c.at, 'image'] };
  if (need.movedTo)
    ctx.fail(
      at,
      `container ${c.name} runs ${image}, a name its publisher no longer pushes to (${need.source}): run ${need.movedTo}, where its releases are`,
      `run ${need.movedTo}`,
    );
  const { tag } = imageParts(image);
  // The pattern is the scheme of release tags: a tag that names no version (latest, a branch) is another scheme's.
  if (need.tagPattern && tag !== undefined && /^v?\d/.test(tag) && !new RegExp(need.tagPattern).test(tag))
    ctx.fail(
      at,
      `container ${c.name} runs ${image}, but its publisher tags its images like ${need.tagPattern} (${need.source}): no tag ${tag} exists, and the kubelet cannot pull it`,
      `run a tag of the publisher's scheme (${need.tagPattern})`,
    );
}

/** An image that works with another only at one release (a node and its server): every container of that one runs its tag. */
function releasedWithNeed({ ctx, resource, c, image, need }: Held): void {
  if (!need.releasedWith) return;
  const { tag } = imageParts(image);
  const partners = [...workloadContainers(ctx.resources)].map((w) => scalarText(w.c.container.image ?? '')).filter((p) => imageKey(p) === need.releasedWith);
  const others = [...new Set(partners.filter((p) => imageParts(p).tag !== tag))];
  if (others.length > 0)
    ctx.fail(
      { resource, path: [...c.at, 'image'] },
      `container ${c.name} runs ${image} beside ${others.join(', ')}, and the two work together only at one release (${need.source}): it is refused, and does nothing; move both at once`,
      'run both images at the same release, and move them together',
    );
}

function rootNeed({ ctx, resource, c, image, need, where, setting }: Held): void {
  // Only releases before `before` need root; a tag that names no release cannot be placed.
  const drops = dropsToPuid(c, image, need);
  if (drops === undefined)
    return ctx.notJudged(
      { resource, path: [...c.at, 'image'] },
      `${image} names no release, so whether it must start as root (before ${need.root?.before}) is not known`,
    );
  if (!drops || !need.root) return;
  const user = setting('runAsUser');
  if ((user !== undefined && user !== 0) || setting('runAsNonRoot') === true)
    ctx.fail(
      where,
      `container ${c.name} runs ${image} ${user !== undefined && user !== 0 ? `as user ${scalarText(user)}` : 'with runAsNonRoot'}, but it must start as root (${need.source}): it stops at start, and the app never runs`,
      'leave runAsUser and runAsNonRoot unset and set PUID/PGID to the user the app runs as, with a workload-privilege exemption saying why',
    );
  const held = capabilitiesOf(c.container);
  const missing = need.root.capabilities.filter((cap) => !held.has(cap));
  if (missing.length > 0)
    ctx.fail(
      where,
      `container ${c.name} runs ${image} without ${missing.join(', ')}, which it needs as root at start (${need.source}): it stops there, and the app never starts`,
      `add ${missing.join(', ')} to the container's capabilities, with a workload-privilege exemption saying why`,
    );
}

/**
 * A container's command names a program the image has: the runtime looks a name without a slash up on the image's
 * PATH, and one it does not find fails the start (`executable file not found in $PATH`), over and over. The facts
 * list the programs the repository starts, not every one the image has: a name one slip from one of them is refused
 * (but one of them with a version after it), and another the facts do not list is said not judged.
 */
function commandNeed({ ctx, resource, c, image, need }: Held): void {
  const program = dig(c.container, ['command', 0]);
  if (!need.commands || typeof program !== 'string' || program.includes('/') || need.commands.includes(program)) return;
  // A listed program with a version after it (python3.12 beside python) is a name images often have too.
  const versioned = need.commands.some((listed) => program.startsWith(listed) && /^[\d.]+$/.test(program.slice(listed.length)));
  const meant = versioned ? undefined : nearestName(program, need.commands);
  const at = { resource, path: [...c.at, 'command', 0] };
  if (meant === undefined)
    return ctx.notJudged(
      at,
      `container ${c.name} starts ${JSON.stringify(program)}, which ${image}'s facts do not list among its programs (${need.commands.join(', ')}): whether its PATH has it is not judged`,
    );
  ctx.fail(
    at,
    `container ${c.name} starts ${JSON.stringify(program)}, a program ${image} does not have${suggesting(meant)} (${need.source}): the runtime finds no such executable on its PATH, and the container never starts`,
  );
}

/** Every need, in the order a container's findings are reported. */
export const NEEDS: readonly ((held: Held) => void)[] = [
  publishedNeed,
  optionsNeed,
  releasedWithNeed,
  tempDirNeed,
  writesToNeed,
  nodeFoldersNeed,
  envTogetherNeed,
  conditionalEnvNeed,
  envSinceNeed,
  envFormatNeed,
  slippedVariableNeed,
  s6OverlayNeed,
  probePathNeed,
  rootNeed,
  commandNeed,
  listensNeed,
  selfUrlNeed,
  urlBaseNeed,
];
