/** The diff as a pull request comment (Markdown, capped), JSON, or plain text. */
import type { ResourceChange, Risk } from './changes.ts';

export const MARKDOWN_CAP = 60 * 1024;

const show = (v: unknown) => (v === undefined ? '(none)' : JSON.stringify(v));

function lines(c: ResourceChange): string[] {
  const head = `${c.change === 'added' ? '+' : c.change === 'removed' ? '-' : '~'} ${c.kind} ${c.namespace ? `${c.namespace}/` : ''}${c.name}`;
  return [head, ...c.fields.map((f) => `    ${f.path}: ${show(f.from)} -> ${show(f.to)}`)];
}

export function text(changes: readonly ResourceChange[], risks: readonly Risk[]): string {
  const out: string[] = [];
  if (risks.length) out.push(`RISKS (${risks.length})`, ...risks.map((r) => `  [${r.flag}] ${r.app}: ${r.reason}`), '');
  for (const app of [...new Set(changes.map((c) => c.app))]) out.push(`${app}:`, ...changes.filter((c) => c.app === app).flatMap(lines).map((l) => `  ${l}`));
  out.push(`${changes.length} resource(s) changed, ${risks.length} risk(s)`);
  return out.join('\n');
}

export function json(changes: readonly ResourceChange[], risks: readonly Risk[]): string {
  return JSON.stringify({ risks, changes }, null, 2);
}

/** Risks first, then one collapsible section per Application; cut at `cap` bytes, saying so. */
export function markdown(changes: readonly ResourceChange[], risks: readonly Risk[], cap = MARKDOWN_CAP): string {
  const cut = '\n\n**Cut short**: this comment stops at 60 KB. The full diff is in the `rendered-diff` artifact (`npm run diff -- <base> -o json`).\n';
  const fits = (text: string) => Buffer.byteLength(text + cut) <= cap;
  let body = '## Rendered diff\n\n';
  body += risks.length ? `### ⚠️ ${risks.length} risk(s)\n\n` : 'No risk flagged.\n\n';
  for (const r of risks) {
    const line = `- **${r.flag}** (${r.app}): ${r.reason}\n`;
    if (!fits(body + line)) return body + cut;
    body += line;
  }
  body += `\n${changes.length} resource(s) changed in ${new Set(changes.map((c) => c.app)).size} Application(s).\n`;
  for (const app of [...new Set(changes.map((c) => c.app))]) {
    const section = ['', `<details><summary><code>${app}</code>: ${changes.filter((c) => c.app === app).length} change(s)</summary>`, '', '```diff', ...changes.filter((c) => c.app === app).flatMap(lines), '```', '</details>'].join('\n');
    if (!fits(body + section)) return body + cut;
    body += section;
  }
  return `${body}\n`;
}
