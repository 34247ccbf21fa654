/**
 * The items the secret store must hold, as a table for docs/bare-metal-to-running.md, generated from the
 * ExternalSecrets (npm run readme:checks): every item a `remoteRef` or a `dataFrom.extract` reads, with the
 * properties it reads (for an extracted item, the fields its template reads) and who reads it. An item the bootstrap doc leaves out is a Secret never written, found
 * after the first sync; generated, the list cannot leave one out.
 */
import { dig, objects } from '../../model/core/dig.ts';
import { vaultField, type RemoteRef } from '../../model/cluster/external-secrets.ts';
import type { Repo } from '../../model/repository/repo.ts';

export const STORE_ITEMS_START = '<!-- store-items:start -->';
export const STORE_ITEMS_END = '<!-- store-items:end -->';
export const STORE_ITEMS_FILE = 'docs/bare-metal-to-running.md';

interface Item {
  /** Properties read one by one; empty when only the whole item is extracted. */
  properties: Set<string>;
  whole: boolean;
  readers: Set<string>;
}

/**
 * The fields an ExternalSecret's template reads from what the store hands it (`{{ .name }}`, `{{ index . "na-me" }}`),
 * less the keys its data[] entries supply; undefined without a template, or when it also reads templateFrom.
 */
function templateFields(es: unknown): string[] | undefined {
  const data = dig(es, ['spec', 'target', 'template', 'data']);
  if (!data || typeof data !== 'object' || dig(es, ['spec', 'target', 'template', 'templateFrom']) !== undefined) return undefined;
  const supplied = new Set((objects(dig(es, ['spec', 'data'])) as { secretKey?: string }[]).map((d) => d.secretKey));
  const names = new Set<string>();
  for (const value of Object.values(data))
    for (const [action] of String(value).matchAll(/\{\{[^}]*\}\}/g))
      for (const m of action.matchAll(/index\s+\.\s+"([^"]+)"|(?<![\w)\]])\.([A-Za-z_]\w*)/g)) names.add(m[1] ?? m[2]!);
  return [...names].filter((n) => !supplied.has(n));
}

export function storeItemsTable(repo: Repo): string {
  const items = new Map<string, Item>();
  const item = (key: string) => items.get(key) ?? items.set(key, { properties: new Set(), whole: false, readers: new Set() }).get(key)!;
  for (const es of repo.resources.filter((r) => r.kind === 'ExternalSecret')) {
    const reader = `${es.namespace ?? ''}/${es.name}`;
    for (const d of objects(dig(es.object, ['spec', 'data'])) as { remoteRef?: RemoteRef }[]) {
      const named = d.remoteRef && vaultField(d.remoteRef);
      if (!named) continue;
      const it = item(named.item);
      if (named.field) it.properties.add(named.field);
      else it.whole = true;
      it.readers.add(reader);
    }
    const extracts = (objects(dig(es.object, ['spec', 'dataFrom'])) as { extract?: { key?: string } }[]).flatMap((d) =>
      d.extract?.key ? [d.extract.key] : [],
    );
    // One extracted item under a template: its fields are the names the template reads that no data[] entry supplies.
    const read = extracts.length === 1 ? templateFields(es.object) : undefined;
    for (const key of extracts) {
      const it = item(key);
      if (read?.length) read.forEach((f) => it.properties.add(f));
      else it.whole = true;
      it.readers.add(reader);
    }
  }
  const lines = ['| Item | Fields | Read by (namespace/ExternalSecret) |', '|---|---|---|'];
  for (const [key, it] of [...items].sort(([a], [b]) => a.localeCompare(b))) {
    const fields = [...[...it.properties].sort().map((p) => `\`${p}\``), ...(it.whole ? ['the whole item'] : [])].join(', ');
    lines.push(`| \`${key}\` | ${fields} | ${[...it.readers].sort().join(', ')} |`);
  }
  return lines.join('\n');
}
