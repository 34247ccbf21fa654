/**
 * JSON Schemas (2020-12, as OpenAPI 3.1 uses) of every payload. The route
 * table references them, the OpenAPI document publishes them, and ajv
 * validates the status file and the tests' responses against them.
 */
export type JsonSchema = Record<string, unknown>;

const str = { type: 'string' } as const;
const url = { type: 'string', format: 'uri' } as const;
const timestamp = { type: 'string', format: 'date-time' } as const;

const object = (properties: Record<string, unknown>, required = Object.keys(properties)): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  required,
  properties,
});

export const ErrorEnvelope = object({
  error: object({ status: { type: 'integer', minimum: 400, maximum: 599 }, message: str }),
});

export const Health = object({ status: { const: 'ok' } });

export const DiscoveryIndex = object({
  name: str,
  version: { const: 'v1' },
  docs: url,
  openapi: url,
  endpoints: { type: 'array', items: object({ method: { enum: ['GET', 'POST'] }, path: str, desc: str }) },
  notes: str,
});

/** Shape of the OpenAPI document itself, as far as the OpenAPI 3.1 specification defines it. */
export const OpenApiDocument = {
  type: 'object',
  required: ['openapi', 'info', 'servers', 'paths'],
  properties: {
    openapi: { const: '3.1.0' },
    info: { type: 'object', required: ['title', 'version'], properties: { title: str, version: { const: 'v1' } } },
    servers: { type: 'array', minItems: 1, items: { type: 'object', required: ['url'], properties: { url: str } } },
    paths: { type: 'object' },
  },
} satisfies JsonSchema;

export const Profile = object({
  name: str,
  role: str,
  location: str,
  url,
  summary: str,
  socials: { type: 'array', items: object({ label: str, href: url }) },
  certifications: { type: 'array', items: object({ title: str, issuer: str, date: { type: 'string', description: 'month and year, e.g. "March 2025"' } }) },
  skills: {
    type: 'array',
    items: object({ label: str, level: { type: 'integer', minimum: 1, maximum: 5, description: '1 (learning) to 5 (expert)' }, group: str }),
  },
});

export const ARGO_SYNC = ['Synced', 'OutOfSync', 'Unknown'] as const;
export const ARGO_HEALTH = ['Healthy', 'Progressing', 'Degraded', 'Suspended', 'Missing', 'Unknown'] as const;

export const InfraStatus = object(
  {
    generatedAt: timestamp,
    build: str,
    argocd: object({ sync: { enum: ARGO_SYNC }, health: { enum: ARGO_HEALTH } }),
    nodes: object({ ready: { type: 'integer', minimum: 0 }, total: { type: 'integer', minimum: 0 } }),
    versions: object({ kubernetes: str, talos: str }),
    cert: object({ notAfter: timestamp }),
    history: {
      type: 'array',
      maxItems: 30,
      items: object({ d: { type: 'string', format: 'date' }, ok: { type: 'integer', minimum: 0 }, total: { type: 'integer', minimum: 0 } }),
    },
    source: { const: 'snapshot', description: 'present only when the status file is not mounted and the built-in snapshot is served' },
  },
  ['generatedAt', 'build', 'argocd', 'nodes', 'versions', 'cert', 'history'],
);

export const BlogListing = object({
  source: url,
  count: { type: 'integer', minimum: 0, maximum: 5 },
  posts: {
    type: 'array',
    maxItems: 5,
    items: object({
      title: str,
      url,
      publishedAt: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$', description: 'ISO 8601 UTC with milliseconds' },
      published: { type: 'string', description: "the feed's original RFC 2822 date text" },
    }),
  },
});

export const EchoRequest: JsonSchema = { type: 'object', description: 'any JSON object (at most 16 KiB)' };
export const EchoResponse = object({ ok: { const: true }, echo: { type: 'object' } });

export const COMPONENT_SCHEMAS = { ErrorEnvelope, Health, DiscoveryIndex, OpenApiDocument, Profile, InfraStatus, BlogListing, EchoRequest, EchoResponse };
export type SchemaName = keyof typeof COMPONENT_SCHEMAS;
