/**
 * Fetching and parsing the blog's RSS feed, defensively: a hostile or broken
 * origin gets a bounded amount of time, bytes and parser work.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { XMLParser } from 'fast-xml-parser';

export const FEED_TIMEOUT_MS = 5_000;
export const FEED_MAX_BYTES = 1024 * 1024;
export const MAX_POSTS = 5;

export interface Post {
  title: string;
  url: string;
  publishedAt: string;
  published: string;
}

export class FeedError extends Error {}

export const MAX_REDIRECTS = 5;

/** Addresses a redirect must not lead to: loopback, private, link-local, carrier-grade NAT, unspecified. */
const INTERNAL = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const)
  INTERNAL.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const)
  INTERNAL.addSubnet(net, prefix, 'ipv6');

function isInternal(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return INTERNAL.check(mapped[1]!, 'ipv4');
  return INTERNAL.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

/**
 * Refuses a redirect to another origin whose host is, or resolves to, an
 * internal address: the feed's origin is the operator's choice, where it
 * redirects is not (a server-side request forgery into the cluster or the LAN).
 */
async function checkRedirect(from: URL, to: URL): Promise<void> {
  if (to.protocol !== 'https:' && to.protocol !== 'http:') throw new FeedError(`feed redirected to a ${to.protocol} URL; refused`);
  if (to.origin === from.origin) return;
  const host = to.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch (err) {
    throw new FeedError(`feed redirected to ${to.host}, which does not resolve: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const internal = addresses.find(isInternal);
  if (internal) throw new FeedError(`feed redirected to ${to.host} (${internal}), a loopback or private address; refused`);
}

/** Reads the response body, aborting as soon as it passes `maxBytes`. */
async function readCapped(response: Response, maxBytes: number, abort: AbortController): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    abort.abort();
    throw new FeedError(`feed is ${declared} bytes, over the ${maxBytes} byte cap`);
  }
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > maxBytes) {
      abort.abort();
      throw new FeedError(`feed is over the ${maxBytes} byte cap`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function fetchFeed(url: string, options: { timeoutMs?: number; maxBytes?: number; fetchImpl?: typeof fetch } = {}): Promise<string> {
  const abort = new AbortController();
  const timer = setTimeout(
    () => abort.abort(new FeedError(`feed did not answer within ${options.timeoutMs ?? FEED_TIMEOUT_MS} ms`)),
    options.timeoutMs ?? FEED_TIMEOUT_MS,
  );
  try {
    const doFetch = options.fetchImpl ?? fetch;
    let current = new URL(url);
    let response: Response;
    // Redirects are followed here, one by one, so each target can be checked before it is asked.
    for (let hops = 0; ; hops++) {
      response = await doFetch(current.href, {
        signal: abort.signal,
        headers: { accept: 'application/rss+xml, application/xml;q=0.9, */*;q=0.1' },
        redirect: 'manual',
      });
      const location = response.headers.get('location');
      if (response.status < 300 || response.status > 399 || !location) break;
      await response.body?.cancel();
      if (hops >= MAX_REDIRECTS) throw new FeedError(`feed redirected more than ${MAX_REDIRECTS} times`);
      const next = new URL(location, current);
      await checkRedirect(current, next);
      current = next;
    }
    if (!response.ok) {
      abort.abort();
      throw new FeedError(`feed answered HTTP ${response.status}`);
    }
    return await readCapped(response, options.maxBytes ?? FEED_MAX_BYTES, abort);
  } catch (err) {
    if (err instanceof FeedError) throw err;
    if (abort.signal.aborted && abort.signal.reason instanceof FeedError) throw abort.signal.reason;
    throw new FeedError(`feed unreachable: ${(err as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
}

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * Decodes only XML's five predefined entities and numeric references, in one
 * pass: the output can never be longer than the input, so there is nothing to
 * expand. DTD-declared entities are never honoured (feeds with a DTD are refused).
 */
export function decodeXmlText(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]{1,6}|#\d{1,7}|amp|lt|gt|quot|apos);/g, (whole, ref: string) => {
    if (ref[0] !== '#') return PREDEFINED[ref]!;
    const code = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

const parser = new XMLParser({
  // No DOCTYPE handling, no entity expansion: external entities (XXE) and billion laughs have nothing to work with.
  processEntities: false,
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (_name, jpath) => jpath === 'rss.channel.item',
});

function text(value: unknown): string {
  if (typeof value === 'string') return decodeXmlText(value).trim();
  if (value && typeof value === 'object' && '#text' in value) return text((value as Record<string, unknown>)['#text']);
  return '';
}

function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
}

/** The newest posts of an RSS 2.0 document; items with no title, a bad link or an unparseable date are skipped. */
export function parseFeed(xml: string, max = MAX_POSTS): Post[] {
  // A feed has no business declaring a DTD; refusing it outright closes XXE and entity bombs at the door.
  if (/<!DOCTYPE/i.test(xml) || /<!ENTITY/i.test(xml)) throw new FeedError('feed declares a DTD or entities; refused');
  let doc: Record<string, unknown>;
  try {
    doc = parser.parse(xml, true) as Record<string, unknown>;
  } catch (err) {
    throw new FeedError(`feed is not well-formed XML: ${(err as Error).message.split('\n')[0]}`);
  }
  const channel = (doc.rss as Record<string, unknown> | undefined)?.channel as Record<string, unknown> | undefined;
  if (!channel) throw new FeedError('feed is not RSS 2.0 (no rss/channel)');
  const items = Array.isArray(channel.item) ? (channel.item as Record<string, unknown>[]) : [];
  const posts: (Post & { time: number })[] = [];
  for (const item of items) {
    const title = text(item.title);
    const link = text(item.link);
    const published = text(item.pubDate);
    const time = Date.parse(published);
    // ISO 8601 has four-digit years: a date JavaScript can hold but that would print as +099999-... is dropped.
    const year = Number.isNaN(time) ? NaN : new Date(time).getUTCFullYear();
    if (!title || !isHttpUrl(link) || !published || !(year >= 0 && year <= 9999)) continue;
    posts.push({ title, url: link, published, publishedAt: new Date(time).toISOString(), time });
  }
  // Newest first; a stable sort keeps the feed's own order for equal dates.
  return posts
    .sort((a, b) => b.time - a.time)
    .slice(0, max)
    .map(({ time: _time, ...post }) => post);
}
