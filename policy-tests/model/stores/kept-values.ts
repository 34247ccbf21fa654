/**
 * Large values kept whole, one file per key, only the newest few: the gate's verdict on a whole tree (a few hundred
 * kilobytes) is one such value. The journal the other stores append to (store-journal.ts) is read and verified whole
 * on every run, which suits many small entries and not a handful of large ones: a run asks for one verdict, and reads
 * only that verdict's file.
 *
 * Each file is named by its key (a digest of the gate's code, Node's version and every input: outcome-store.ts'
 * rule), holds the value's JSON under an HMAC of key and JSON with the store folder's secret, and is written
 * atomically. A file the secret did not sign, a torn one, or one whose JSON does not parse is a miss, never trusted.
 * Past `keep` files the oldest are removed. Where the stores are off or unusable, nothing is kept: slower, never wrong.
 */
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { digest, keyPrefix, storeFolder } from './outcome-store.ts';
import { mac, verifies } from './store-journal.ts';
import { writeFileAtomic } from './write-atomic.ts';

/** Where a kept value of `store` lives for these inputs, and the folder's secret; undefined when nothing is kept. */
function placeOf(store: string, inputs: readonly string[]): { dir: string; key: string; secret: Buffer } | undefined {
  const folder = storeFolder();
  if (folder === null) return undefined;
  let prefix: string;
  try {
    prefix = keyPrefix(store);
  } catch {
    return undefined;
  }
  const key = digest([prefix, ...inputs].join('\0'));
  return { dir: join(folder.dir, store), key, secret: folder.secret };
}

/** The value kept for these inputs, if a signed, whole one is there. */
export function keptValue<T>(store: string, inputs: readonly string[]): T | undefined {
  const place = placeOf(store, inputs);
  return place && (readKept(place.dir, place.key, place.secret) as T | undefined);
}

/** Keeps a value for these inputs, and only the newest `keep` values of the store. Never fails the run. */
export function keepValue(store: string, inputs: readonly string[], value: unknown, keep = KEPT): void {
  const place = placeOf(store, inputs);
  if (place) writeKept(place.dir, { key: place.key, secret: place.secret, value }, keep);
}

/** Values a store keeps by default: a few trees (branches switched between, a pull request and its base). */
export const KEPT = 8;

/** The value in `dir` under `key`, if `secret` signed it whole. */
export function readKept(dir: string, key: string, secret: Buffer): unknown {
  let text: string;
  try {
    text = readFileSync(join(dir, key), 'utf8');
  } catch {
    return undefined;
  }
  const newline = text.indexOf('\n');
  if (newline < 0) return undefined;
  const json = text.slice(newline + 1);
  if (!verifies(secret, key, json, text.slice(0, newline))) return undefined;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}

/** Writes a value into `dir` under its key, signed, then removes all but the newest `keep` values. Never throws. */
export function writeKept(dir: string, entry: { key: string; secret: Buffer; value: unknown }, keep: number): void {
  try {
    const json = JSON.stringify(entry.value);
    writeFileAtomic(join(dir, entry.key), `${mac(entry.secret, entry.key, json)}\n${json}`);
    const kept = readdirSync(dir)
      .filter((name) => !name.includes('.partial-'))
      .map((name) => ({ name, at: statSync(join(dir, name)).mtimeMs }))
      .sort((a, b) => b.at - a.at);
    for (const old of kept.slice(keep)) rmSync(join(dir, old.name), { force: true });
  } catch {
    // A read-only cache, or another run removing the same file: the next run computes again.
  }
}
