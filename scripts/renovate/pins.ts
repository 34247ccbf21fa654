/**
 * Every pinned version string in the repository, found by what a pin looks
 * like (an image reference, a version, a commit SHA after `@`, a `NAME=1.2.3`
 * assignment), not by where Renovate is told to look. That independence is the
 * point: a pin written somewhere no Renovate manager reads is still found here,
 * and the coverage check then names it.
 */
import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { isMap, isPair, isScalar, isSeq, LineCounter, parseAllDocuments, visit, type Node } from 'yaml';

export interface Pin {
  /** Path from the repository root, with forward slashes. */
  file: string;
  line: number;
  /** The key the value sits under (YAML and JSON), the instruction (Dockerfile), or the variable (shell). */
  key: string;
  /** The whole string the pin was found in, e.g. `ghcr.io/x/y:1.2.3`. */
  text: string;
  /** The part Renovate would change: a tag, a version, a digest or a commit SHA. */
  version: string;
}

/**
 * What is never scanned: dependencies and build output, the lock files package
 * managers write, code (a pin lives in a manifest, not in a program), prose,
 * Renovate's own config, and test folders, the same ones Renovate's
 * config:recommended ignores (their fixtures are never deployed).
 */
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'reports', '.cache', '.scratch', 'dist', 'test', 'tests', '__tests__', '__fixtures__', 'fixtures']);
const SKIPPED_FILES = /(^|\/)(package-lock\.json|\.github\/renovate\.json5)$|\.(ts|mts|cts|js|mjs|cjs|md|txt|lock)$/;

const VERSION = /^[\^~=]?v?\d+\.\d+\.\d+(?:[-+.][0-9A-Za-z.-]+)?$/;
/** An address or a range of them (`192.168.1.240-192.168.1.249`), not a version. */
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}(?!\d)/;
const IMAGE_REF = /^(?<name>[a-z0-9][a-z0-9._-]*(?::\d+)?(?:\/[a-z0-9._-]+)+)(?::(?<tag>\w[\w.-]{0,127}))?(?:@(?<digest>sha256:[0-9a-f]{64}))?$/;
const ACTION_REF = /^[\w.-]+\/[\w./-]+@(?<ref>[0-9a-f]{40}|v?\d[\w.-]*)$/;
const URL_VERSION = /^https?:\/\/\S*?\/(?<version>v\d+\.\d+\.\d+)(?:\/|$)/;
/** falcoctl's short artifact references: `falco-rules:5`. */
const SHORT_ARTIFACT = /^[a-z0-9][a-z0-9-]*:(?<tag>\w[\w.-]*)$/;

/** The files of `root` worth scanning, as repository paths. */
export async function scannedFiles(root: string, dir = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(root, dir), { withFileTypes: true })) {
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) out.push(...(await scannedFiles(root, path)));
    } else if (entry.isFile() && !SKIPPED_FILES.test(path)) {
      out.push(path);
    }
  }
  return out.sort();
}

/** Every pin in the repository at `root`. */
export async function findRepositoryPins(root: string): Promise<Pin[]> {
  const pins: Pin[] = [];
  for (const file of await scannedFiles(root)) pins.push(...findPins(file, await readFile(join(root, file), 'utf8')));
  return pins;
}

/** The pins in one file, by its kind. */
export function findPins(file: string, text: string): Pin[] {
  const name = basename(file);
  if (/\.(ya?ml|json)$/.test(name)) return documentPins(file, text);
  if (/^Dockerfile(\..+)?$|\.Dockerfile$/.test(name)) return dockerfilePins(file, text);
  if (name === '.node-version' || name === '.nvmrc') return versionFilePins(file, text);
  if (/\.sh$/.test(name) || text.startsWith('#!/usr/bin/env bash') || text.startsWith('#!/bin/sh') || text.startsWith('#!/bin/bash'))
    return shellPins(file, text);
  return [];
}

/** A scalar's pin, if it is one, by its value and the key it sits under. */
export function scalarPin(key: string, value: string): { version: string } | undefined {
  if (key === 'apiVersion') return undefined;
  if (key === 'uses') {
    const ref = ACTION_REF.exec(value)?.groups?.ref;
    return ref ? { version: ref } : undefined;
  }
  const image = IMAGE_REF.exec(value)?.groups;
  if (image && (image.tag || image.digest)) return { version: image.digest ?? image.tag! };
  const url = URL_VERSION.exec(value)?.groups?.version;
  if (url) return { version: url };
  if (key === 'refs') {
    const tag = SHORT_ARTIFACT.exec(value)?.groups?.tag;
    if (tag) return { version: tag };
  }
  if (VERSION.test(value) && !IPV4.test(value)) return { version: value };
  return undefined;
}

function documentPins(file: string, text: string): Pin[] {
  const lines = new LineCounter();
  const pins: Pin[] = [];
  for (const doc of parseAllDocuments(text, { lineCounter: lines })) {
    if (!('contents' in doc) || doc.errors.length > 0) continue;
    visit(doc, {
      Scalar(_key, node, path) {
        const parent = path[path.length - 1];
        // A key is not a pin; a scalar in a sequence takes the key of the sequence.
        if (isPair(parent) && parent.key === node) return;
        const key = keyOf(path);
        // A package's or a chart's own version is what it is, not a pin on something else (a chart's dependencies'
        // versions are pins, which Renovate's helmv3 manager moves; its appVersion may name the image it runs).
        if (key === 'version' && (basename(file) === 'package.json' || basename(file) === 'Chart.yaml') && path.length <= 3) return;
        if (key === undefined || (typeof node.value !== 'string' && typeof node.value !== 'number')) return;
        const value = String(node.value);
        const pin = scalarPin(key, value);
        if (pin) pins.push({ file, line: lines.linePos(node.range?.[0] ?? 0).line, key, text: value, ...pin });
      },
    });
  }
  return pins;
}

/** The nearest mapping key above a node. */
function keyOf(path: readonly unknown[]): string | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const step = path[i];
    if (isPair(step) && isScalar(step.key)) return String(step.key.value);
    if (!isSeq(step as Node) && !isPair(step) && !isMap(step as Node)) break;
  }
  return undefined;
}

function dockerfilePins(file: string, text: string): Pin[] {
  const pins: Pin[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = i + 1;
    const syntax = /^#\s*syntax=(\S+)/.exec(raw)?.[1];
    if (syntax) {
      const pin = scalarPin('syntax', syntax);
      if (pin) pins.push({ file, line, key: 'syntax', text: syntax, ...pin });
      return;
    }
    if (/^\s*#/.test(raw)) return;
    const from = /^\s*FROM\s+(?:--\S+\s+)*(\S+)/i.exec(raw)?.[1];
    if (from) {
      const image = IMAGE_REF.exec(from.includes('/') ? from : `library/${from}`)?.groups;
      if (image && (image.tag || image.digest)) pins.push({ file, line, key: 'FROM', text: from, version: image.digest ?? image.tag! });
      return;
    }
    // ARG/ENV NAME=1.2.3, and a package pinned in an install line: name=1.2.3-1.
    for (const m of raw.matchAll(/(?:^|\s)([A-Za-z0-9][\w.+-]*)=["']?(v?\d+\.\d+[\w.:~+-]*)/g)) {
      if (IPV4.test(m[2]!)) continue;
      pins.push({ file, line, key: m[1]!, text: `${m[1]}=${m[2]}`, version: m[2]! });
    }
  });
  return pins;
}

function shellPins(file: string, text: string): Pin[] {
  const pins: Pin[] = [];
  text.split('\n').forEach((raw, i) => {
    const m = /^\s*(?:export\s+)?([A-Za-z_]\w*)=["']?(v?\d+\.\d+\.\d+[\w.+-]*)["']?\s*$/.exec(raw);
    if (m) pins.push({ file, line: i + 1, key: m[1]!, text: `${m[1]}=${m[2]}`, version: m[2]! });
  });
  return pins;
}

function versionFilePins(file: string, text: string): Pin[] {
  const value = text.trim();
  return value ? [{ file, line: 1, key: basename(file), text: value, version: value }] : [];
}
