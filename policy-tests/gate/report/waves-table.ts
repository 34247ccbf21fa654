/**
 * The sync waves as a table for apps/platform/README.md, generated from the
 * repository (npm run readme:checks), so the README never disagrees with git.
 */
import { applications, ROOT_APP_FILE } from '../../model/argocd/argocd.ts';
import type { Repo } from '../../model/repository/repo.ts';
import { waveOf } from '../../model/controller/waves.ts';

export const WAVES_START = '<!-- waves:start -->';
export const WAVES_END = '<!-- waves:end -->';

export function wavesTable(repo: Repo): string {
  const rows = new Map<number, string[]>();
  const add = (wave: number, what: string) => rows.set(wave, [...(rows.get(wave) ?? []), what]);
  const namespaces = repo.resources.filter((r) => r.kind === 'Namespace' && r.file.startsWith('clusters/'));
  for (const wave of new Set(namespaces.map(waveOf)))
    add(wave, `the namespaces (${namespaces.filter((n) => waveOf(n) === wave).length}, \`clusters/home/namespaces.yaml\`)`);
  for (const app of applications(repo)) if (app.resource.file !== ROOT_APP_FILE) add(waveOf(app.resource), `\`${app.name}\``);
  const lines = ['| Wave | What syncs |', '|---|---|'];
  for (const wave of [...rows.keys()].sort((a, b) => a - b)) lines.push(`| ${wave} | ${rows.get(wave)!.sort().join(', ')} |`);
  return lines.join('\n');
}
