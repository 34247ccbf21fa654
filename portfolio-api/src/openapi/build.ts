/** The /api/v1 index and the OpenAPI 3.1 document, both derived from the route table. */
import type { Config } from '../config.ts';
import { ERROR_DESCRIPTIONS } from '../http/errors.ts';
import type { RouteDef } from '../routes/types.ts';
import { COMPONENT_SCHEMAS } from './schemas.ts';

export const API_TITLE = 'Portfolio Content API';
export const API_VERSION = 'v1';
/** Statuses any route can answer, whatever the table says. */
export const COMMON_ERRORS = [404, 405, 500] as const;

export function buildIndex(routes: readonly RouteDef[], config: Config) {
  return {
    name: API_TITLE,
    version: API_VERSION,
    docs: config.docsUrl,
    openapi: `${config.baseUrl}/api/v1/openapi.json`,
    endpoints: routes.map((r) => ({ method: r.method, path: r.path, desc: r.summary })),
    notes: 'Reads (GET) are public and need no key. Writes require an API key: send Authorization: Bearer <API_KEY>.',
  };
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

export function errorStatuses(route: RouteDef): number[] {
  return [...new Set([...route.errors, ...COMMON_ERRORS])].sort((a, b) => a - b);
}

export function buildOpenApi(routes: readonly RouteDef[], config: Config) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const responses: Record<string, unknown> = {
      200: {
        description: route.summary,
        headers: { 'Cache-Control': { description: route.cacheNote, schema: { type: 'string', const: route.cacheControl } } },
        content: { 'application/json': { schema: ref(route.response) } },
      },
    };
    for (const status of errorStatuses(route)) {
      responses[status] = { description: ERROR_DESCRIPTIONS[status] ?? 'Error', content: { 'application/json': { schema: ref('ErrorEnvelope') } } };
    }
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.summary,
      description: `${route.summary} Cache-Control: \`${route.cacheControl}\` (${route.cacheNote}).`,
      tags: [route.path.startsWith('/api/v1') ? 'v1' : 'health'],
      security: route.auth === 'apiKey' ? [{ apiKey: [] }] : [],
      ...(route.requestBody ? { requestBody: { required: true, content: { 'application/json': { schema: ref(route.requestBody) } } } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: API_TITLE,
      version: API_VERSION,
      description: 'The public JSON API of the portfolio site. Reads are public; the one write needs an API key.',
      contact: { name: 'Portfolio operator', url: config.docsUrl },
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: config.baseUrl }],
    tags: [
      { name: 'health', description: 'Unversioned liveness probe' },
      { name: 'v1', description: 'Version 1 of the content API' },
    ],
    paths,
    components: {
      schemas: COMPONENT_SCHEMAS,
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY>' } },
    },
  };
}
