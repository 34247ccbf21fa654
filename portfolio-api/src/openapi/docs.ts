/** docs/API.md, the human-readable reference, rendered from the route table and the schemas. */
import { ERROR_DESCRIPTIONS } from '../http/errors.ts';
import { MAX_BODY_BYTES } from '../http/json-body.ts';
import type { RouteDef } from '../routes/types.ts';
import { API_TITLE, API_VERSION, errorStatuses } from './build.ts';
import { COMPONENT_SCHEMAS, type JsonSchema } from './schemas.ts';

const cell = (s: string) => s.replace(/\|/g, '\\|');

function typeOf(schema: JsonSchema): string {
  if ('const' in schema) return `\`${JSON.stringify(schema.const)}\``;
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => `\`${JSON.stringify(v)}\``).join(' or ');
  if (schema.type === 'array') return `array of ${typeOf((schema.items ?? {}) as JsonSchema)}`;
  const format = schema.format ? ` (${scalarText(schema.format)})` : '';
  return `${scalarText(schema.type ?? 'any')}${format}`;
}

/** One row per field, nested fields as `a.b` and array items as `a[].b`. */
function fieldRows(schema: JsonSchema, prefix = ''): string[] {
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(props).flatMap(([name, sub]) => {
    const path = `${prefix}${name}`;
    const note = [required.has(name) ? 'required' : 'optional', sub.description ? scalarText(sub.description) : ''].filter(Boolean).join('; ');
    const row = `| \`${path}\` | ${cell(typeOf(sub))} | ${cell(note)} |`;
    const items = sub.type === 'array' ? ((sub.items ?? {}) as JsonSchema) : undefined;
    const nested = sub.type === 'object' ? fieldRows(sub, `${path}.`) : items?.type === 'object' ? fieldRows(items, `${path}[].`) : [];
    return [row, ...nested];
  });
}

export function renderApiDocs(routes: readonly RouteDef[]): string {
  const out = [
    `# ${API_TITLE} (${API_VERSION})`,
    '',
    '<!-- Generated from portfolio-api/src/routes/table.ts by `npm run docs -w portfolio-api`. Do not edit. -->',
    '',
    'Reads are public. The one write, `POST /api/v1/echo`, needs `Authorization: Bearer <API_KEY>`. Every response carries `Access-Control-Allow-Origin: *`; `OPTIONS` on any route answers `204` with the allowed methods and headers; `HEAD` works on every GET route. The machine-readable form is `/api/v1/openapi.json` (OpenAPI 3.1.0).',
    '',
    '## Endpoints',
    '',
    '| Method | Path | Auth | Cache-Control | Description |',
    '|---|---|---|---|---|',
    ...routes.map((r) => `| ${r.method} | \`${r.path}\` | ${r.auth === 'apiKey' ? 'API key' : 'public'} | \`${r.cacheControl}\` | ${cell(r.summary)} |`),
    '',
  ];
  for (const r of routes) {
    out.push(
      `## ${r.method} ${r.path}`,
      '',
      `${r.summary} Operation id \`${r.operationId}\`.`,
      '',
      `- Auth: ${r.auth === 'apiKey' ? '`Authorization: Bearer <API_KEY>`, checked before the body is read' : 'none'}`,
      `- Cache-Control: \`${r.cacheControl}\` (${r.cacheNote})`,
    );
    if (r.requestBody) out.push(`- Request: \`Content-Type: application/json\`, any JSON object up to ${MAX_BODY_BYTES / 1024} KiB`);
    out.push(
      '',
      `Response \`200\` (\`${r.response}\`):`,
      '',
      '| Field | Type | Notes |',
      '|---|---|---|',
      ...fieldRows(COMPONENT_SCHEMAS[r.response] as JsonSchema),
      '',
    );
    out.push(
      'Errors (body `{"error": {"status", "message"}}`, `Cache-Control: no-store`):',
      '',
      ...errorStatuses(r).map((s) => `- \`${s}\`: ${ERROR_DESCRIPTIONS[s]}`),
      '',
    );
  }
  return out.join('\n');
}

/** A schema value as text: a scalar as itself, anything else as JSON (String() would print "[object Object]"). */
function scalarText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}
