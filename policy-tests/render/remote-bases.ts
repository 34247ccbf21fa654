/**
 * Remote kustomize bases, pinned. A kustomization may name an https file (Argo
 * CD's install manifest at its release tag). Argo CD fetches it again at every
 * sync, so what the gate judged is what the cluster gets only if the bytes are
 * the same: each URL's sha256 is recorded in charts.lock.json (`remotes`),
 * every fetch is checked against it, and the render cache is keyed by that
 * digest, never by the URL. A host is fetched from only when the cluster facts
 * list it (`remoteBases`); any other is refused before it is looked up.
 *
 * The fetch is the gate's own (undici, honouring HTTPS_PROXY, NO_PROXY and
 * SSL_CERT_FILE as kustomize does), so kustomize itself never touches the
 * network: the render builds a copy of the kustomization whose remote entry
 * names the checked file.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { RenderRefused } from './limits.ts';
import { applications, normalizeSourcePath, sourceType } from '../model/argocd/argocd.ts';
import { checkoutView, KUSTOMIZATION_FILES, kustomizeInputs } from '../model/argocd/kustomize.ts';
import type { Repo } from '../model/repository/repo.ts';

export interface RemoteEntry {
  url: string;
  /** `sha256:<hex>` of the bytes the URL served when a person recorded it. */
  digest: string;
}

export const remoteDigest = (bytes: Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** The host of an https URL; a refusal for anything else (a git locator, plain http). */
export function remoteHost(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RenderRefused(`the remote base ${url} is not an https URL: the gate fetches and pins only https files`);
  }
  if (parsed.protocol !== 'https:') throw new RenderRefused(`the remote base ${url} is not fetched over https`);
  return parsed.hostname;
}

/** Refuses a URL whose host the cluster facts do not list, before anything is looked up. */
export function assertAllowedHost(url: string, allowed: readonly string[]): void {
  const host = remoteHost(url);
  if (!allowed.includes(host))
    throw new RenderRefused(
      `the remote base ${url} is on ${host}, which the cluster fact remoteBases does not list: the gate never looks up a host a pull request chooses`,
    );
}

export interface FetchOptions {
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  maxBytes: number;
}

/** The bytes an https URL serves, through the environment's proxy and CA, within the time and size given. */
export async function fetchRemote(url: string, o: FetchOptions): Promise<Buffer> {
  // Loaded when something is fetched: a gate run that fetches nothing (the usual warm run) never loads the HTTP client.
  const { EnvHttpProxyAgent, fetch } = await import('undici');
  const ca = o.env.SSL_CERT_FILE ? readFileSync(o.env.SSL_CERT_FILE) : undefined;
  const dispatcher = new EnvHttpProxyAgent({
    httpProxy: o.env.HTTP_PROXY ?? o.env.http_proxy,
    httpsProxy: o.env.HTTPS_PROXY ?? o.env.https_proxy,
    noProxy: o.env.NO_PROXY ?? o.env.no_proxy,
    ...(ca ? { connect: { ca }, requestTls: { ca }, proxyTls: { ca } } : {}),
  });
  try {
    const res = await fetch(url, { dispatcher, redirect: 'error', signal: AbortSignal.timeout(o.timeoutMs) });
    if (!res.ok) throw new Error(`HTTP ${res.status} fetching ${url}`);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body ?? []) {
      size += (chunk as Uint8Array).byteLength;
      if (size > o.maxBytes) throw new RenderRefused(`the remote base ${url} is larger than ${o.maxBytes} bytes`);
      chunks.push(Buffer.from(chunk as Uint8Array));
    }
    return Buffer.concat(chunks);
  } finally {
    await dispatcher.close();
  }
}

/** Every remote base the repository's kustomizations name, with the kustomization file that names it. */
export function pinnedRemotes(repo: Repo): { url: string; file: string }[] {
  const out = new Map<string, { url: string; file: string }>();
  for (const app of applications(repo))
    for (const source of app.sources) {
      if (sourceType(repo, source) !== 'kustomize') continue;
      const view = checkoutView(repo);
      const inputs = kustomizeInputs(view, normalizeSourcePath(source.path ?? ''));
      for (const url of inputs.remote) {
        const file = inputs.keyFiles.find(
          (f) =>
            (KUSTOMIZATION_FILES as readonly string[]).some((k) => f.endsWith(k)) &&
            view.dataFiles.get(f) &&
            JSON.stringify(view.dataFiles.get(f)!.data).includes(url),
        );
        if (!out.has(url)) out.set(url, { url, file: file ?? app.resource.file });
      }
    }
  return [...out.values()].sort((a, b) => a.url.localeCompare(b.url));
}
