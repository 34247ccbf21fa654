/**
 * The items the secret store must hold, as a table for docs/bare-metal-to-running.md, generated from the
 * ExternalSecrets (npm run readme:checks): every item a `remoteRef` or a `dataFrom.extract` reads, with the
 * properties it reads and who reads it. An item the bootstrap doc leaves out is a Secret never written, found
 * after the first sync; generated, the list cannot leave one out.
 */
import { dig } from '../../model/core/dig.ts';
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

export function storeItemsTable(repo: Repo): string {
  const items = new Map<string, Item>();
  const item = (key: string) => items.get(key) ?? items.set(key, { properties: new Set(), whole: false, readers: new Set() }).get(key)!;
  for (const es of repo.resources.filter((r) => r.kind === 'ExternalSecret')) {
    const reader = `${es.namespace ?? ''}/${es.name}`;
    for (const d of (dig(es.object, ['spec', 'data']) ?? []) as { remoteRef?: { key?: string; property?: string } }[]) {
      if (!d.remoteRef?.key) continue;
      const it = item(d.remoteRef.key);
      if (d.remoteRef.property) it.properties.add(d.remoteRef.property);
      else it.whole = true;
      it.readers.add(reader);
    }
    for (const d of (dig(es.object, ['spec', 'dataFrom']) ?? []) as { extract?: { key?: string } }[]) {
      if (!d.extract?.key) continue;
      const it = item(d.extract.key);
      it.whole = true;
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
