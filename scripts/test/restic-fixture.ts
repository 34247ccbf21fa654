/**
 * restic repositories for tests, made by restic itself, whose password opens
 * them in a millisecond.
 *
 * restic tunes its key derivation (scrypt) when a repository is created so
 * that opening it costs about half a second of CPU: that is what guards a
 * real password, and the backup keeps it. The backup tests open their
 * repositories some sixty times a run, and those key derivations were about
 * 30 of the suite's CPU-seconds. So the template every test repository is
 * copied from is what `restic init` wrote (its `config`, in
 * fixtures/restic-repository/), with its one key re-written for the same
 * master key under cheap scrypt parameters, sealed exactly as restic seals a
 * key (AES-256-CTR, then Poly1305-AES over the ciphertext: restic's
 * internal/crypto, the format of restic 0.14 through 0.18). It is checked in
 * because `restic init` itself costs 2.8 CPU-seconds (it calibrates the key
 * derivation); `npm run test:restic-fixture` makes it again with the
 * installed restic. Every repository a test uses is laid out from it with a fresh id in
 * its config, so no two share restic's cache. Everything after the open is
 * restic's own work on a real repository; a key restic could not open fails
 * the first restic call of every backup test.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes, scryptSync } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { poly1305 } from '@noble/ciphers/_poly1305.js';
import { run } from '../lib/exec.ts';

/** restic's crypto.Key: an AES-256 key and a Poly1305-AES key (k for AES-128 on the nonce, r for the polynomial). */
interface SealKey {
  encrypt: Buffer;
  macK: Buffer;
  macR: Buffer;
}

/** The password the fixture's key is sealed under. */
export const RESTIC_TEST_PASSWORD = 'test-password';

/** scrypt parameters a test can afford on every restic call (restic checks only that N is a power of two). */
const CHEAP = { N: 1024, r: 8, p: 1 } as const;

function poly1305Aes(key: SealKey, nonce: Buffer, message: Buffer): Buffer {
  const aes = createCipheriv('aes-128-ecb', key.macK, null).setAutoPadding(false);
  return Buffer.from(poly1305(message, Buffer.concat([key.macR, aes.update(nonce)])));
}

/** restic's sealed form: nonce (16 bytes), AES-256-CTR ciphertext, Poly1305-AES of the ciphertext. */
function seal(key: SealKey, plaintext: Buffer): Buffer {
  const nonce = randomBytes(16);
  const ciphertext = createCipheriv('aes-256-ctr', key.encrypt, nonce).update(plaintext);
  return Buffer.concat([nonce, ciphertext, poly1305Aes(key, nonce, ciphertext)]);
}

function open(key: SealKey, sealed: Buffer, what: string): Buffer {
  const nonce = sealed.subarray(0, 16);
  const ciphertext = sealed.subarray(16, -16);
  if (!poly1305Aes(key, nonce, ciphertext).equals(sealed.subarray(-16)))
    throw new Error(`restic fixture: ${what} does not authenticate under the test password`);
  return createDecipheriv('aes-256-ctr', key.encrypt, nonce).update(ciphertext);
}

/** restic's crypto.KDF: 64 bytes of scrypt, the AES key then the MAC key as k || r. */
function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): SealKey {
  const bytes = scryptSync(password, salt, 64, { ...params, maxmem: 256 * params.N * params.r + 1024 * 1024 });
  return { encrypt: bytes.subarray(0, 32), macK: bytes.subarray(32, 48), macR: bytes.subarray(48, 64) };
}

interface KeyFile {
  kdf: string;
  N: number;
  r: number;
  p: number;
  salt: string;
  data: string;
}

/** The name of a repository's one key file (a key's file name is the SHA-256 of its bytes). */
function onlyKey(keys: string): string {
  const [name, ...others] = readdirSync(keys);
  if (!name || others.length) throw new Error(`restic fixture: expected one key in ${keys}`);
  return name;
}

/** Opens a key file with `password` under the parameters it names; returns the master key it seals. */
function openKey(file: KeyFile, password: string): { plain: Buffer; master: SealKey } {
  if (file.kdf !== 'scrypt') throw new Error(`restic fixture: unknown key derivation "${file.kdf}"`);
  const plain = open(derive(password, Buffer.from(file.salt, 'base64'), file), Buffer.from(file.data, 'base64'), 'the key');
  const master = JSON.parse(plain.toString('utf8')) as { mac: { k: string; r: string }; encrypt: string };
  return {
    plain,
    master: { encrypt: Buffer.from(master.encrypt, 'base64'), macK: Buffer.from(master.mac.k, 'base64'), macR: Buffer.from(master.mac.r, 'base64') },
  };
}

/** Re-writes a new repository's one key under cheap parameters. */
function cheapenKey(repository: string, password: string): void {
  const keys = join(repository, 'keys');
  const name = onlyKey(keys);
  const file = JSON.parse(readFileSync(join(keys, name), 'utf8')) as KeyFile & Record<string, unknown>;
  const { plain } = openKey(file, password);
  const salt = randomBytes(64);
  const text = JSON.stringify({ ...file, ...CHEAP, salt: salt.toString('base64'), data: seal(derive(password, salt, CHEAP), plain).toString('base64') });
  rmSync(join(keys, name));
  writeFileSync(join(keys, createHash('sha256').update(text).digest('hex')), text);
}

/** The template every test repository is made from: restic's own `config` and one cheap key, checked in. */
export const FIXTURE = join(import.meta.dirname, 'fixtures', 'restic-repository');

/** The fixture, read once: its key file, its master key, and its config's contents. */
export interface ResticTemplate {
  keyName: string;
  keyText: string;
  master: SealKey;
  config: Record<string, unknown>;
}

/**
 * The checked-in fixture, opened with `password`: no restic process and no costly key derivation (restic's
 * `init` spends about 2.8 CPU-seconds calibrating and deriving; five test files made one each).
 */
export function loadTemplate(password: string): ResticTemplate {
  const keyName = onlyKey(join(FIXTURE, 'keys'));
  const keyText = readFileSync(join(FIXTURE, 'keys', keyName), 'utf8');
  const { master } = openKey(JSON.parse(keyText) as KeyFile, password);
  const config = JSON.parse(open(master, readFileSync(join(FIXTURE, 'config')), 'the config').toString('utf8')) as Record<string, unknown>;
  return { keyName, keyText, master, config };
}

/** A new empty repository at `path`, as `restic init` lays one out: the template's key, and its config with an id of its own. */
export function copyTemplate(template: ResticTemplate, path: string): void {
  for (const folder of ['keys', 'index', 'locks', 'snapshots', ...Array.from({ length: 256 }, (_, i) => `data/${i.toString(16).padStart(2, '0')}`)])
    mkdirSync(join(path, folder), { recursive: true });
  writeFileSync(join(path, 'keys', template.keyName), template.keyText);
  const config = { ...template.config, id: randomBytes(32).toString('hex') };
  writeFileSync(join(path, 'config'), seal(template.master, Buffer.from(JSON.stringify(config))));
}

/** Makes the fixture again with the installed restic: `restic init`, then its one key re-sealed under cheap parameters. */
export async function remakeFixture(password: string): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'restic-fixture-'));
  try {
    await run('restic', ['init', '--quiet'], { env: { ...process.env, RESTIC_REPOSITORY: scratch, RESTIC_PASSWORD: password } });
    cheapenKey(scratch, password);
    rmSync(FIXTURE, { recursive: true, force: true });
    mkdirSync(join(FIXTURE, 'keys'), { recursive: true });
    copyFileSync(join(scratch, 'config'), join(FIXTURE, 'config'));
    const key = onlyKey(join(scratch, 'keys'));
    copyFileSync(join(scratch, 'keys', key), join(FIXTURE, 'keys', key));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
