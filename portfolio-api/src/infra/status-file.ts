/**
 * The infrastructure status file, read fresh on every request: absent means
 * "serve the snapshot"; present but unreadable or invalid is an error the
 * caller turns into an envelope. Never a partial document.
 */
import { statSync, type Stats } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { HttpError } from '../http/errors.ts';
import { SNAPSHOT } from './snapshot.ts';
import type { InfraStatus } from './status.ts';

export type { InfraStatus } from './status.ts';
import { describeErrors, validator } from './validate.ts';

/** A ConfigMap holds at most 1 MiB; anything larger is not ours. */
export const MAX_STATUS_BYTES = 1024 * 1024;

export function parseStatus(text: string): InfraStatus {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new HttpError(503, `infrastructure status file is not valid JSON: ${(err as Error).message}`);
  }
  const validate = validator('InfraStatus');
  if (!validate(data)) throw new HttpError(503, `infrastructure status file does not match its schema: ${describeErrors(validate.errors)}`);
  const status = data as InfraStatus;
  if (status.source !== undefined) throw new HttpError(503, 'infrastructure status file must not claim source "snapshot"');
  return status;
}

/**
 * The last status parsed from each path, with the identity of the file it came
 * from. Every request still looks at the file on disk: it is stat()ed each
 * time, and read and parsed again whenever its device, inode, size,
 * modification or change time differ (a ConfigMap update swaps the file for a
 * new inode; any write moves the change time). An unchanged file is not read
 * and parsed again.
 */
type Identity = Pick<Stats, 'dev' | 'ino' | 'size' | 'mtimeMs' | 'ctimeMs'>;
const lastParsed = new Map<string, { identity: Identity; status: InfraStatus }>();

/** Field by field, with no string built: this runs on every request. */
const sameFile = (a: Identity, b: Identity) => a.ino === b.ino && a.dev === b.dev && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;

export async function readStatus(path: string): Promise<InfraStatus> {
  let stats: Stats | undefined;
  try {
    // A synchronous stat: one syscall on the ConfigMap's local volume, where a trip through libuv's thread
    // pool cost more than the call itself (the route served 0.36 of bare node:http with it, 2026-11-23).
    // No file is the usual case before the writer's first run: an answer, not an exception (an Error and its
    // stack trace on every request cost the route a third of its rate).
    stats = statSync(path, { throwIfNoEntry: false });
  } catch (err) {
    throw new HttpError(503, `infrastructure status file is unreadable (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (!stats) return SNAPSHOT;
  const { dev, ino, size, mtimeMs, ctimeMs } = stats;
  const identity: Identity = { dev, ino, size, mtimeMs, ctimeMs };
  if (identity.size > MAX_STATUS_BYTES) throw new HttpError(503, `infrastructure status file is larger than ${MAX_STATUS_BYTES} bytes`);
  const known = lastParsed.get(path);
  if (known && sameFile(known.identity, identity)) return known.status;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    // Removed between stat and read: the mount went away, which means "not mounted".
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return SNAPSHOT;
    throw new HttpError(503, `infrastructure status file is unreadable (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const status = parseStatus(text);
  lastParsed.set(path, { identity, status });
  return status;
}
