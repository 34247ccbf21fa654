/**
 * The infrastructure status file, read fresh on every request: absent means
 * "serve the snapshot"; present but unreadable or invalid is an error the
 * caller turns into an envelope. Never a partial document.
 */
import { readFile, stat } from 'node:fs/promises';
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

export async function readStatus(path: string): Promise<InfraStatus> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return SNAPSHOT;
    throw new HttpError(503, `infrastructure status file is unreadable (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (size > MAX_STATUS_BYTES) throw new HttpError(503, `infrastructure status file is larger than ${MAX_STATUS_BYTES} bytes`);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    // Removed between stat and read: the mount went away, which means "not mounted".
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return SNAPSHOT;
    throw new HttpError(503, `infrastructure status file is unreadable (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return parseStatus(text);
}
