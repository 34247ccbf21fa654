/** Bearer API key check in constant time. */
import { createHash, timingSafeEqual } from 'node:crypto';
import { API_KEY_MESSAGE, HttpError } from './errors.ts';

/**
 * Both sides are hashed first, so the comparison always runs over 32 bytes:
 * neither the key's length nor its content leaks through timing.
 */
export function keysMatch(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

export function requireApiKey(authorization: string | undefined, expected: string | undefined): void {
  if (!expected) throw new HttpError(503, 'writes are disabled: no API key is configured on the server');
  const match = /^Bearer ([^\s]+)$/i.exec(authorization ?? '');
  if (!match || !keysMatch(match[1]!, expected)) throw new HttpError(401, API_KEY_MESSAGE, { 'www-authenticate': 'Bearer' });
}
