/**
 * Who a container's app runs as, and what a file's mode lets it do. An NFS
 * share checks the mode bits against the user and groups the client sends, so
 * a folder the app cannot write is refused at its first import, and the API
 * server never sees it.
 *
 * The user is the pod's runAsUser, unless the image's init starts as root and
 * drops to PUID/PGID itself (the image's facts say so): then it is PUID, with
 * PGID as its only group, since s6-setuidgid and gosu set the groups of the
 * image's user and drop the pod's supplementalGroups and fsGroup.
 */
import { dig } from '../core/dig.ts';
import { scalarText } from '../core/text.ts';
import type { ContainerRef, PodSpecRef } from '../core/workloads.ts';
import { holdsBefore, type ImageNeeds } from './image-facts.ts';

export interface RunAs {
  uid: number;
  /** The groups the kernel checks a file's group against; `primaryKnown` false: the image's /etc/passwd adds one more. */
  gids: number[];
  primaryKnown: boolean;
  /** How it is known, for a message: `runAsUser 1000` or `PUID 1000 (its init drops to it)`. */
  by: string;
  /** Where the ids are a Secret's text (PUID/PGID read from one): a message says so and never prints them. */
  secret?: true;
}

export type RunAsAnswer = { runAs: RunAs } | { unknown: string };

/** Whether a container's command replaces the image's ENTRYPOINT, so what only the entrypoint needs never runs. */
export const skipsEntrypoint = (c: ContainerRef, entrypoint: string[] | undefined): boolean => {
  const command = c.container.command;
  return (
    entrypoint !== undefined &&
    Array.isArray(command) &&
    (command.length !== entrypoint.length || command.some((part, i) => scalarText(part) !== entrypoint[i]))
  );
};

/**
 * A reader of a container's variables as the kubelet sets them (model/cluster/provided-keys.ts containerVariable: its
 * env, then the Secrets and ConfigMaps its envFrom names): the text, undefined where unset, null where it is set from
 * a value the gate does not read.
 */
export type VariableText = (name: string) => string | undefined | null;

const id = (value: unknown): number | undefined => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined);
const numeric = (text: string | undefined): number | undefined => (text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined);

/**
 * Whether the image's init starts as root and drops to PUID/PGID in this container: its facts say so, the
 * container runs the entrypoint, and its release is one that does (`before`); undefined when the tag names no release.
 */
export function dropsToPuid(c: ContainerRef, image: string, need: ImageNeeds | undefined): boolean | undefined {
  if (!need?.root || skipsEntrypoint(c, need.entrypoint)) return false;
  return holdsBefore(image, need.root.before);
}

/** The user and groups a container's app runs as, or why that is not known from the repository. */
export function appRunAs(
  pod: PodSpecRef,
  c: ContainerRef,
  app: { image: string; need: ImageNeeds | undefined; variable: VariableText; fromSecret?: (name: string) => boolean },
): RunAsAnswer {
  const { image, need, variable } = app;
  const setting = (key: string): unknown => dig(c.container, ['securityContext', key]) ?? dig(pod.spec, ['securityContext', key]);
  const user = id(setting('runAsUser'));
  const drops = dropsToPuid(c, image, need);
  if (drops === undefined) return { unknown: `${image} names no release, so whether its init drops to PUID/PGID is not known` };
  if (drops && (user === undefined || user === 0)) {
    const [puid, pgid] = [variable('PUID'), variable('PGID')];
    if (puid === null || pgid === null) return { unknown: `its init drops to PUID/PGID, and they are set from a value the gate does not read` };
    const [uid, gid] = [numeric(puid), numeric(pgid)];
    if (uid === undefined || gid === undefined) return { unknown: `its init drops to PUID/PGID, and they are not set to plain numbers here` };
    if (app.fromSecret?.('PUID') || app.fromSecret?.('PGID'))
      return { runAs: { uid, gids: [gid], primaryKnown: true, by: 'the PUID and PGID its Secret holds, which its init drops to', secret: true } };
    return { runAs: { uid, gids: [gid], primaryKnown: true, by: `PUID ${uid} and PGID ${gid}, which its init drops to` } };
  }
  if (user === undefined) return { unknown: `it runs as its image's USER, which the repository does not state (no runAsUser)` };
  const group = id(setting('runAsGroup'));
  const extra = [id(dig(pod.spec, ['securityContext', 'fsGroup'])), ...((dig(pod.spec, ['securityContext', 'supplementalGroups']) as unknown[]) ?? []).map(id)];
  const gids = [...new Set([group, ...extra].filter((g): g is number => g !== undefined))];
  return { runAs: { uid: user, gids, primaryKnown: group !== undefined, by: `runAsUser ${user}${group === undefined ? '' : ` and runAsGroup ${group}`}` } };
}

/** A folder's mode and owner, as chmod and chown take them: `775` and `1026:100`. */
export interface Ownership {
  mode: string;
  owner: string;
}

/**
 * Whether `runAs` may create entries in a folder of that mode and owner (write and search), as the kernel decides:
 * root may; the owner by the owner's bits; a member of the group by the group's; anyone else by the others'. Undefined
 * when it turns on the primary group the image gives, which the repository does not state.
 */
export function mayWriteIn(runAs: RunAs, folder: Ownership): boolean | undefined {
  const [uid, gid] = folder.owner.split(':').map(Number);
  const digits = /^[0-7]{3,4}$/.test(folder.mode) ? folder.mode.slice(-3) : undefined;
  if (digits === undefined || uid === undefined || Number.isNaN(uid)) return undefined;
  const writeAndSearch = (digit: string) => (Number(digit) & 3) === 3;
  if (runAs.uid === 0) return true;
  if (runAs.uid === uid) return writeAndSearch(digits[0]!);
  if (gid !== undefined && runAs.gids.includes(gid)) return writeAndSearch(digits[1]!);
  if (writeAndSearch(digits[2]!)) return true;
  return runAs.primaryKnown || !writeAndSearch(digits[1]!) ? false : undefined;
}
