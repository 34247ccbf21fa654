/** GET /api/v1/blog: a bounded fetch, a safe parse, and hourly stale-while-revalidate with single flight. */
import { describe, expect, it } from 'vitest';
import { SwrCache } from '../src/blog/cache.ts';
import { decodeXmlText, parseFeed } from '../src/blog/feed.ts';
import { liveServers, rss, startOrigin, type Origin } from './harness.ts';

const items = Array.from({ length: 7 }, (_, i) => ({
  title: `Post ${i + 1} &amp; more`,
  link: `https://blog.example.net/posts/${i + 1}`,
  pubDate: new Date(Date.UTC(2026, 10, 1 + i, 9, 30)).toUTCString().replace('GMT', '+0000'),
}));

const live = liveServers();
const withFeed: typeof live.withFeed = (...args) => live.withFeed(...args);

const serve = (body: string) => (_req: unknown, res: import('node:http').ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/rss+xml' }).end(body);
};

describe('blog listing', () => {
  it('returns the newest 5 posts, newest first, with ISO milliseconds and the original date text', async () => {
    const { api, origin } = await withFeed(serve(rss(items)));
    const r = await api.call('/api/v1/blog');
    expect(r.status).toBe(200);
    const body = r.body as { source: string; count: number; posts: { title: string; publishedAt: string; published: string }[] };
    expect(body.source).toBe(origin.url);
    expect(body.count).toBe(5);
    expect(body.posts.map((p) => p.title)).toEqual(['Post 7 & more', 'Post 6 & more', 'Post 5 & more', 'Post 4 & more', 'Post 3 & more']);
    expect(body.posts[0]!.publishedAt).toBe('2026-11-07T09:30:00.000Z');
    expect(body.posts[0]!.published).toBe(items[6]!.pubDate);
    expect(r.headers.get('cache-control')).toBe('public, max-age=3600');
  });

  it('answers 502 with the envelope when the feed is unreachable and nothing was fetched before', async () => {
    const api = await live.api({ blogFeedUrl: 'http://127.0.0.1:9/rss.xml' });
    const r = await api.call('/api/v1/blog');
    expect(r.status).toBe(502);
    expect((r.body as { error: { status: number } }).error.status).toBe(502);
  });

  it('measures a cold answer from when the request arrived: the latency and the log line hold the origin fetch', async () => {
    const { api } = await withFeed((_req, res) => setTimeout(() => res.writeHead(200).end(rss(items)), 300));
    expect((await api.call('/api/v1/blog')).status).toBe(200);
    const line = api.logs.find((l) => l.msg === 'request' && l.route === '/api/v1/blog') as { durationMs: number } | undefined;
    expect(line?.durationMs).toBeGreaterThanOrEqual(300);
  });

  it('makes one origin fetch for many concurrent cold requests', async () => {
    const { api, origin } = await withFeed((_req, res) => setTimeout(() => res.writeHead(200).end(rss(items)), 200));
    const answers = await Promise.all(Array.from({ length: 25 }, () => api.call('/api/v1/blog')));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(origin.hits).toBe(1);
  });

  it('serves from memory within the hour, then the stale copy while one refresh runs, and keeps it when the refresh fails', async () => {
    let now = Date.parse('2026-11-22T00:00:00Z');
    let feed = rss(items.slice(0, 2));
    let fail = false;
    const { api, origin } = await withFeed((_req, res) => (fail ? res.writeHead(500).end() : res.writeHead(200).end(feed)), { now: () => now });
    expect(((await api.call('/api/v1/blog')).body as { count: number }).count).toBe(2);
    feed = rss(items.slice(0, 4));
    now += 59 * 60 * 1000;
    expect(((await api.call('/api/v1/blog')).body as { count: number }).count).toBe(2);
    expect(origin.hits).toBe(1);
    now += 2 * 60 * 1000; // past the hour: stale copy now, one refresh behind it
    const [a, b] = await Promise.all([api.call('/api/v1/blog'), api.call('/api/v1/blog')]);
    expect([(a.body as { count: number }).count, (b.body as { count: number }).count]).toEqual([2, 2]);
    await expect.poll(() => origin.hits).toBe(2);
    await expect.poll(async () => ((await api.call('/api/v1/blog')).body as { count: number }).count).toBe(4);
    fail = true;
    now += 61 * 60 * 1000;
    expect((await api.call('/api/v1/blog')).status).toBe(200);
    await expect.poll(() => origin.hits).toBe(3);
    const after = await api.call('/api/v1/blog');
    expect(after.status).toBe(200);
    expect((after.body as { count: number }).count).toBe(4);
  });
});

describe('hostile feeds are refused without harm', () => {
  const hostile: [string, Origin['handler']][] = [
    [
      'billion laughs',
      serve(
        `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><rss version="2.0"><channel><item><title>&lol3;</title><link>https://x.example/</link><pubDate>Sun, 01 Nov 2026 09:00:00 +0000</pubDate></item></channel></rss>`,
      ),
    ],
    [
      'XXE',
      serve(
        `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><rss version="2.0"><channel><item><title>&xxe;</title><link>https://x.example/</link><pubDate>Sun, 01 Nov 2026 09:00:00 +0000</pubDate></item></channel></rss>`,
      ),
    ],
    [
      'a 10 MB feed',
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/rss+xml' });
        const chunk = `<item><title>${'x'.repeat(1000)}</title></item>`;
        let sent = 0;
        const pump = (): void => {
          while (sent < 10_000) {
            sent++;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end('</channel></rss>');
        };
        res.on('error', () => undefined);
        res.write('<rss version="2.0"><channel>');
        pump();
      },
    ],
    ['a feed that never answers', () => undefined],
    ['not XML at all', serve('{"this": "is json"}')],
    ['HTTP 500', (_req, res) => res.writeHead(500).end('oops')],
  ];

  it.each(hostile)('%s: 502 envelope, server healthy', async (_name, handler) => {
    const { api } = await withFeed(handler, { feedTimeoutMs: 500 });
    const r = await api.call('/api/v1/blog');
    expect(r.status).toBe(502);
    expect(r.text).not.toContain('root:');
    expect((await api.call('/api/health')).status).toBe(200);
  });

  it('drops items with invalid dates or links instead of failing the listing', async () => {
    const feed = rss([
      { title: 'good', link: 'https://blog.example.net/good', pubDate: 'Sun, 01 Nov 2026 09:00:00 +0000' },
      { title: 'bad date', link: 'https://blog.example.net/a', pubDate: 'the day after tomorrow' },
      { title: 'no date', link: 'https://blog.example.net/b', pubDate: '' },
      { title: 'bad link', link: 'javascript:alert(1)', pubDate: 'Sun, 01 Nov 2026 09:00:00 +0000' },
      // A date JavaScript holds but ISO 8601 cannot write (it would be served as +099999-01-01T...).
      { title: 'year 99999', link: 'https://blog.example.net/c', pubDate: 'Sat, 01 Jan 99999 00:00:00 GMT' },
    ]);
    const { api } = await withFeed(serve(feed));
    const r = await api.call('/api/v1/blog');
    expect((r.body as { posts: { title: string }[] }).posts.map((p) => p.title)).toEqual(['good']);
  });
});

describe('feed redirects', () => {
  const moved = (to: string) => (_req: unknown, res: import('node:http').ServerResponse) => {
    res.writeHead(302, { location: to }).end();
  };

  it("follows a redirect within the feed's own origin", async () => {
    const { api, origin } = await withFeed((req, res) => (req.url === '/rss.xml' ? moved('/feed/')(req, res) : serve(rss(items))(req, res)));
    expect((await api.call('/api/v1/blog')).status).toBe(200);
    expect(origin.hits).toBe(2);
  });

  it.each([
    ['another port on loopback', (port: number) => `http://127.0.0.1:${port}/rss.xml`],
    ['localhost by name', (port: number) => `http://localhost:${port}/rss.xml`],
    ['a private address', () => 'http://10.0.0.1/rss.xml'],
    ['a link-local address (cloud metadata)', () => 'http://169.254.169.254/latest/meta-data/'],
    ['IPv6 loopback', (port: number) => `http://[::1]:${port}/rss.xml`],
  ])('refuses a redirect to %s, without asking it', async (_what, target) => {
    const internal = await startOrigin(serve(rss(items)));
    try {
      const port = Number(new URL(internal.url).port);
      const { api } = await withFeed(moved(target(port)));
      const r = await api.call('/api/v1/blog');
      expect(r.status).toBe(502);
      expect(internal.hits).toBe(0);
      expect(api.logs.some((l) => /loopback or private address; refused/.test(JSON.stringify(l)))).toBe(true);
    } finally {
      await internal.close();
    }
  });
});

describe('feed parsing units', () => {
  it('decodes only predefined and numeric entities, never growing the text', () => {
    expect(decodeXmlText('a &amp; b &lt;c&gt; &#228; &#x1F600; &unknown; &amp;amp;')).toBe('a & b <c> ä 😀 &unknown; &amp;');
  });

  it('reads CDATA titles and a single item', () => {
    const posts = parseFeed(
      '<rss version="2.0"><channel><item><title><![CDATA[Hello <world>]]></title><link>https://b.example/1</link><pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate></item></channel></rss>',
    );
    expect(posts).toEqual([
      { title: 'Hello <world>', url: 'https://b.example/1', published: 'Mon, 02 Nov 2026 10:00:00 GMT', publishedAt: '2026-11-02T10:00:00.000Z' },
    ]);
  });

  it('backs off after a failed cold fetch instead of hammering the origin', async () => {
    let now = 0;
    let calls = 0;
    const cache = new SwrCache(
      async () => {
        calls++;
        throw new Error('down');
      },
      { ttlMs: 1000, failureBackoffMs: 30_000, now: () => now },
    );
    await expect(cache.get()).rejects.toThrow('down');
    await expect(cache.get()).rejects.toThrow('down');
    expect(calls).toBe(1);
    now = 31_000;
    await expect(cache.get()).rejects.toThrow('down');
    expect(calls).toBe(2);
  });
});
