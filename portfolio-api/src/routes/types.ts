/** What a route is: the shape of the route table's rows, and what a handler may use. */
import type { Request } from 'express';
import type { SwrCache } from '../blog/cache.ts';
import type { Post } from '../blog/feed.ts';
import type { Config } from '../config.ts';
import type { SchemaName } from '../openapi/schemas.ts';

export interface RouteContext {
  config: Config;
  blog: SwrCache<Post[]>;
  routes: readonly RouteDef[];
  /** False once SIGTERM arrived: health fails so the pod leaves the Service. */
  isReady: () => boolean;
}

export interface RouteDef {
  method: 'GET' | 'POST';
  path: string;
  operationId: string;
  /** One line, shown in the index and the docs. */
  summary: string;
  auth: 'public' | 'apiKey';
  cacheControl: string;
  /** Why this Cache-Control; published in the docs. */
  cacheNote: string;
  response: SchemaName;
  requestBody?: SchemaName;
  /** Error statuses this route itself can answer (404/405/500 apply everywhere). */
  errors: number[];
  handler: (ctx: RouteContext, req: Request) => unknown;
}
