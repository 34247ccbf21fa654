/**
 * The route table: the single source for the Express routes, the /api/v1
 * index, the OpenAPI document and docs/API.md.
 */
import { profile } from '../content/profile.ts';
import { HttpError } from '../http/errors.ts';
import { requireApiKey } from '../http/auth.ts';
import { readJsonObject } from '../http/json-body.ts';
import { readStatus } from '../infra/status-file.ts';
import { buildIndex, buildOpenApi } from '../openapi/build.ts';
import type { RouteDef } from './types.ts';

export type { RouteContext, RouteDef } from './types.ts';

export const BLOG_TTL_MS = 60 * 60 * 1000;

const listings = new WeakMap<readonly object[], { source: string; count: number; posts: readonly object[] }>();

export const ROUTES: readonly RouteDef[] = [
  {
    method: 'GET',
    path: '/api/health',
    operationId: 'getHealth',
    summary: 'Liveness and readiness of the running process.',
    auth: 'public',
    cacheControl: 'no-store',
    cacheNote: 'computed per request, never cached, so it reflects the running process',
    response: 'Health',
    errors: [503],
    handler: (ctx) => {
      if (!ctx.isReady()) throw new HttpError(503, 'shutting down');
      return { status: 'ok' };
    },
  },
  {
    method: 'GET',
    path: '/api/v1',
    operationId: 'getIndex',
    summary: 'Discovery index: every route of the API, with links to the docs and the OpenAPI document.',
    auth: 'public',
    cacheControl: 'public, max-age=60',
    cacheNote: 'static; changes only when the code does',
    response: 'DiscoveryIndex',
    errors: [],
    handler: (ctx) => buildIndex(ctx.routes, ctx.config),
  },
  {
    method: 'GET',
    path: '/api/v1/openapi.json',
    operationId: 'getOpenApi',
    summary: 'The OpenAPI 3.1 document of this API, generated from the same route table.',
    auth: 'public',
    cacheControl: 'public, max-age=60',
    cacheNote: 'static; changes only when the code does',
    response: 'OpenApiDocument',
    errors: [],
    handler: (ctx) => buildOpenApi(ctx.routes, ctx.config),
  },
  {
    method: 'GET',
    path: '/api/v1/profile',
    operationId: 'getProfile',
    summary: 'Profile: name, role, socials, certifications and skills.',
    auth: 'public',
    cacheControl: 'public, max-age=60',
    cacheNote: 'refreshed on each deploy',
    response: 'Profile',
    errors: [],
    handler: () => profile,
  },
  {
    method: 'GET',
    path: '/api/v1/infra',
    operationId: 'getInfra',
    summary: 'Infrastructure status written by the cluster every 5 minutes, with a 30-day history.',
    auth: 'public',
    cacheControl: 'public, max-age=30',
    cacheNote: 'the status file is read fresh on every request; it changes every 5 minutes',
    response: 'InfraStatus',
    errors: [503],
    handler: (ctx) => readStatus(ctx.config.statusFile),
  },
  {
    method: 'GET',
    path: '/api/v1/blog',
    operationId: 'getBlog',
    summary: 'The latest 5 posts of the blog RSS feed, newest first.',
    auth: 'public',
    cacheControl: 'public, max-age=3600',
    cacheNote: 'the server revalidates the feed hourly (stale-while-revalidate), so a client copy is good for the same hour',
    response: 'BlogListing',
    errors: [502],
    handler: async (ctx) => {
      try {
        const posts = await ctx.blog.get();
        // One listing object per cached feed, so its bytes are serialised once between revalidations.
        let listing = listings.get(posts);
        if (!listing) listings.set(posts, (listing = { source: ctx.config.blogFeedUrl, count: posts.length, posts }));
        return listing;
      } catch (err) {
        throw new HttpError(502, `blog feed unavailable: ${(err as Error).message}`);
      }
    },
  },
  {
    method: 'POST',
    path: '/api/v1/echo',
    operationId: 'postEcho',
    summary: 'Proves the authenticated write path: returns the submitted JSON object; nothing is stored.',
    auth: 'apiKey',
    cacheControl: 'no-store',
    cacheNote: 'a write answer is never cached',
    response: 'EchoResponse',
    requestBody: 'EchoRequest',
    errors: [400, 401, 413, 415, 503],
    handler: async (ctx, req) => {
      // Authenticate before reading a byte of the body.
      requireApiKey(req.headers.authorization, ctx.config.apiKey);
      return { ok: true, echo: await readJsonObject(req) };
    },
  },
];
