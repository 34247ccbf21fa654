/**
 * What go-yaml v2 refuses of a text the `yaml` library reads. kubectl and Argo CD read every manifest, and Helm every
 * values file, with sigs.k8s.io/yaml, whose parser is go-yaml v2 (go.yaml.in/yaml/v2 2.4): YAML 1.1's scanner, which
 * refuses some of what YAML 1.2, and so the `yaml` library, reads. A manifest the gate read and Argo CD cannot is a
 * source that fails to render, after the merge; these are those refusals, each in go-yaml's words
 * (scannerc.go and parserc.go at v2.4.0, which go.yaml.in/yaml/v2 2.4.3, Argo CD v3.5.1's pin through sigs.k8s.io/yaml
 * 1.6.0, carries unchanged: its three commits since move the import path):
 * - a tab where go-yaml expects a token to start: in a block's indentation at a line's start, and after a `-` or `?`
 *   indicator ("found character that cannot start any token"), or before a plain scalar's indentation on the lines
 *   it reads on ("found a tab character that violates indentation");
 * - a tab in a block scalar's indentation ("found a tab character where an indentation space is expected");
 * - the escape `\/`, which YAML 1.2 added ("found unknown escape character");
 * - a `%YAML` directive of another version than 1.1 ("found incompatible YAML document"), an unknown directive;
 * - an anchor or alias whose name is not letters, digits, `_` and `-`.
 * Measured against go-yaml v2's own verdicts on the YAML test suite (`npm run conformance -- --yaml-test-matrix`).
 */
import { Parser, type CST } from 'yaml';
import { goMendedText } from './go-quoted.ts';

export interface GoRefusal {
  /** Where go-yaml stops, in the text as the `yaml` library reads it (go-quoted.ts' mended text: the same lines), and its document. */
  offset: number;
  doc: number;
  /** go-yaml's words. */
  message: string;
  /** Set where the splitter before go-yaml refuses it (separatorRefusals). */
  bySplitter?: true;
}

/**
 * What can start a refusal: a tab, `\/`, a directive, or an anchor or alias (a `&` or `*` where a node starts) whose
 * name go-yaml would not take. A text without any is read alike, and is not walked at all (most texts: a `*` in a
 * cron schedule or a glob is not where a node starts).
 */
const MAY_BE_REFUSED = /\t|\\\/|^%|(?:^[ \t]*(?:-[ \t]+)*|[:?-][ \t]+|[[{,][ \t]*)[&*](?![0-9A-Za-z_-]+(?:[\s?:,\]}%@`]|$))/m;

/** A refusal's words, and who refuses: the readers of the cluster's side, not the YAML specification. */
export const goRefusalMessage = (r: GoRefusal, readers: string) =>
  r.bySplitter
    ? `${r.message} (Argo CD and kubectl cut a manifest at each line that starts with ---, and refuse one that goes on with more than a comment)`
    : `${r.message} (go-yaml v2, which ${readers} read YAML with, refuses this; YAML 1.2 allows it)`;
/** What to write instead. */
export const goRefusalFix = (r: GoRefusal) =>
  r.bySplitter
    ? "start the document's content on the line after ---"
    : 'write it as YAML 1.1 reads it: spaces, not tabs, for indentation; no `\\/` escape; no %YAML 1.2; anchors of letters, digits, _ and -';

const TAB_TOKEN = 'found character that cannot start any token';
const TAB_PLAIN = 'found a tab character that violates indentation';
const TAB_BLOCK = 'found a tab character where an indentation space is expected';

interface Leaf {
  type: string;
  offset: number;
  end: number;
  source: string;
  /** The column of the innermost block collection it sits in (go-yaml's parser.indent); -1 at a document's top. */
  blockIndent: number;
  inFlow: boolean;
  doc: number;
  /** A block scalar's header (`|2-`), and where its body starts. */
  header?: string;
  bodyOffset?: number;
}

type Node = CST.Token | CST.SourceToken | undefined;

/** The CST's tokens in text order, each with the block indentation and flow context go-yaml's scanner would be in. */
function leaves(text: string): Leaf[] {
  const out: Leaf[] = [];
  let doc = -1;
  const visit = (node: Node, blockIndent: number, inFlow: boolean): void => {
    if (!node) return;
    const source = 'source' in node ? (node as { source: string }).source : '';
    const add = () => out.push({ type: node.type, offset: node.offset, end: node.offset + source.length, source, blockIndent, inFlow, doc });
    switch (node.type) {
      case 'document':
        doc++;
        node.start.forEach((t) => visit(t, -1, false));
        visit(node.value, -1, false);
        node.end?.forEach((t) => visit(t, -1, false));
        return;
      case 'doc-end':
        node.end?.forEach((t) => visit(t, blockIndent, inFlow));
        add();
        return;
      case 'block-map':
      case 'block-seq':
        for (const item of node.items) {
          item.start.forEach((t) => visit(t, node.indent, false));
          if ('key' in item) visit(item.key ?? undefined, node.indent, false);
          if ('sep' in item) item.sep?.forEach((t) => visit(t, node.indent, false));
          visit(item.value, node.indent, false);
        }
        return;
      case 'flow-collection':
        visit(node.start, blockIndent, inFlow);
        for (const item of node.items) {
          item.start.forEach((t) => visit(t, blockIndent, true));
          if ('key' in item) visit(item.key ?? undefined, blockIndent, true);
          if ('sep' in item) item.sep?.forEach((t) => visit(t, blockIndent, true));
          visit(item.value, blockIndent, true);
        }
        node.end.forEach((t) => visit(t, blockIndent, inFlow));
        return;
      case 'block-scalar': {
        const props = node.props as CST.SourceToken[];
        const last = props[props.length - 1];
        const header = props.find((p) => p.type === 'block-scalar-header')?.source ?? '';
        const bodyOffset = last ? last.offset + last.source.length : node.offset;
        out.push({
          type: node.type,
          offset: node.offset,
          end: bodyOffset + node.source.length,
          source: node.source,
          blockIndent,
          inFlow,
          doc,
          header,
          bodyOffset,
        });
        return;
      }
      case 'scalar':
      case 'single-quoted-scalar':
      case 'double-quoted-scalar':
        add();
        node.end?.forEach((t) => visit(t, blockIndent, inFlow));
        return;
      default:
        add();
    }
  };
  for (const token of new Parser().parse(text)) visit(token, -1, false);
  return out.sort((a, b) => a.offset - b.offset);
}

/** `\/` in a double-quoted scalar: YAML 1.2's escape, which go-yaml v2 does not know. */
function escapeRefusals(leaf: Leaf): GoRefusal[] {
  for (let i = 1; i < leaf.source.length - 1; i++) {
    if (leaf.source[i] !== '\\') continue;
    if (leaf.source[i + 1] === '/') return [{ offset: leaf.offset + i, doc: leaf.doc, message: 'found unknown escape character' }];
    i++;
  }
  return [];
}

/** A directive go-yaml's parser refuses: `%YAML` other than 1.1, or a name other than YAML and TAG. */
function directiveRefusal(leaf: Leaf): GoRefusal[] {
  const [name, version] = leaf.source.slice(1).split(/[ \t]+/);
  if (name === 'YAML') return version === '1.1' ? [] : [{ offset: leaf.offset, doc: leaf.doc + 1, message: 'found incompatible YAML document' }];
  return name === 'TAG' ? [] : [{ offset: leaf.offset, doc: leaf.doc + 1, message: 'found unknown directive name' }];
}

/** A block scalar's lines as go-yaml reads their indentation (yaml_parser_scan_block_scalar_breaks). */
function blockScalarRefusals(leaf: Leaf): GoRefusal[] {
  const increment = Number(/[1-9]/.exec(leaf.header ?? '')?.[0] ?? 0);
  let indent = increment === 0 ? 0 : leaf.blockIndent >= 0 ? leaf.blockIndent + increment : increment;
  let maxIndent = 0;
  let at = leaf.bodyOffset!;
  for (const line of leaf.source.split('\n')) {
    let col = 0;
    while ((indent === 0 || col < indent) && line[col] === ' ') col++;
    maxIndent = Math.max(maxIndent, col);
    if ((indent === 0 || col < indent) && line[col] === '\t') return [{ offset: at + col, doc: leaf.doc, message: TAB_BLOCK }];
    const content = col < line.length && line[col] !== '\r';
    if (content && indent === 0) indent = Math.max(maxIndent, leaf.blockIndent + 1, 1);
    at += line.length + 1;
  }
  return [];
}

/** Spans no line-start tab rule reads (flow collections, quoted and block scalars), merged and in text order. */
function skippedSpans(all: readonly Leaf[]): { offset: number; end: number }[] {
  const spans = [
    ...flowSpans(all),
    ...all.filter((l) => l.inFlow || l.type === 'single-quoted-scalar' || l.type === 'double-quoted-scalar' || l.type === 'block-scalar'),
  ].sort((a, b) => a.offset - b.offset);
  const merged: { offset: number; end: number }[] = [];
  for (const s of spans) {
    const last = merged[merged.length - 1];
    if (last && s.offset <= last.end) last.end = Math.max(last.end, s.end);
    else merged.push({ offset: s.offset, end: s.end });
  }
  return merged;
}

/**
 * A tab in a line's leading white space in block context, where go-yaml's scanner looks for a token (or, on the lines
 * a plain scalar reads on, before that scalar's indentation); and a tab after a `-` or `?`. One pass over the lines
 * and the tokens, both in text order: a text of many lines costs no more than its length.
 */
function tabRefusals(text: string, all: readonly Leaf[]): GoRefusal[] {
  const out: GoRefusal[] = [];
  const spans = skippedSpans(all);
  let next = 0;
  let span = 0;
  let current: Leaf | undefined;
  let significant: Leaf | undefined;
  for (let start = 0; start < text.length; start = text.indexOf('\n', start) + 1 || text.length) {
    const ws = /^[ \t]*/.exec(text.slice(start, start + 256))![0];
    const tab = ws.indexOf('\t');
    if (tab === -1) continue;
    const at = start + tab;
    while (next < all.length && all[next]!.offset < at) {
      current = all[next++];
      if (current!.type !== 'space' && current!.type !== 'newline' && current!.end <= at) significant = current;
    }
    while (span < spans.length && spans[span]!.end <= at) span++;
    if (span < spans.length && spans[span]!.offset < at) continue;
    const within = current?.type === 'scalar' && current.end > at ? current : undefined;
    const before = within ?? significant;
    if (before?.inFlow) continue;
    const doc = before?.doc ?? all[next]?.doc ?? 0;
    if (before?.type !== 'scalar') out.push({ offset: at, doc: Math.max(doc, 0), message: TAB_TOKEN });
    else if (tab < before.blockIndent + 1) out.push({ offset: at, doc, message: TAB_PLAIN });
  }
  all.forEach((l, i) => {
    const after = all[i + 1];
    if (
      (l.type === 'seq-item-ind' || l.type === 'explicit-key-ind') &&
      !l.inFlow &&
      after?.type === 'space' &&
      after.offset === l.end &&
      after.source.includes('\t')
    )
      out.push({ offset: after.offset + after.source.indexOf('\t'), doc: l.doc, message: TAB_TOKEN });
  });
  return out;
}

/** Each flow collection's span, from its opening bracket to its closing one. */
function flowSpans(all: readonly Leaf[]): { offset: number; end: number }[] {
  const spans: { offset: number; end: number }[] = [];
  const open: number[] = [];
  for (const l of all) {
    if (l.type === 'flow-map-start' || l.type === 'flow-seq-start') open.push(l.offset);
    else if ((l.type === 'flow-map-end' || l.type === 'flow-seq-end') && open.length) spans.push({ offset: open.pop()!, end: l.end });
  }
  return spans;
}

/**
 * Whether go-yaml's scanner takes an anchor or alias so written (yaml_parser_scan_anchor): a name of letters, digits,
 * `_` and `-`, then the end of the text, a blank or one of ?:,]}%@` (which it leaves to what follows).
 */
const goAnchorName = (written: string): boolean => /^[0-9A-Za-z_-]+([?:,\]}%@`].*)?$/s.test(written);

let last: { text: string; refusals: GoRefusal[] } | undefined;

/** What go-yaml v2 refuses in the text, first in the text first; none for most texts, which are not walked. */
export function goYamlRefusals(text: string): GoRefusal[] {
  if (!MAY_BE_REFUSED.test(text)) return [];
  // The loader asks twice of a file it walks (its fast reader, then the `yaml` library's reading).
  if (last?.text !== text) last = { text, refusals: walked(text) };
  return last.refusals;
}

/**
 * Walked on the text as the `yaml` library reads it where it reads it as go-yaml does (go-quoted.ts): a quoted scalar's
 * line that starts with a tab is inside the scalar there, as go-yaml reads it. Offsets are that text's (the same lines).
 */
function walked(original: string): GoRefusal[] {
  const text = goMendedText(original) ?? original;
  const all = leaves(text);
  const out: GoRefusal[] = [...tabRefusals(text, all)];
  for (const leaf of all) {
    if (leaf.type === 'double-quoted-scalar') out.push(...escapeRefusals(leaf));
    else if (leaf.type === 'directive') out.push(...directiveRefusal(leaf));
    else if (leaf.type === 'block-scalar') out.push(...blockScalarRefusals(leaf));
    else if ((leaf.type === 'anchor' || leaf.type === 'alias') && !goAnchorName(leaf.source.slice(1)))
      out.push({ offset: leaf.offset + 1, doc: leaf.doc, message: 'did not find expected alphabetic or numeric character' });
  }
  return out.sort((a, b) => a.offset - b.offset);
}

/** A line that starts with `---` and goes on with something other than blanks or a comment. */
const BAD_SEPARATOR = /^---[ \t]*([^\s#].*)$/gm;

/**
 * What the splitter before go-yaml refuses: Argo CD's repo-server (directory sources, and every tool's output through
 * gitops-engine's SplitYAML) and kubectl cut a manifest into documents with apimachinery's YAMLReader
 * (pkg/util/yaml/decoder.go, since v0.22), at each line that starts with `---`, and refuse one that goes on with
 * anything but blanks or a comment: "invalid Yaml document separator". YAML reads `--- !!map`, `--- {a: 1}` or
 * `--- |` as a document's start; the whole source fails to render. Each such line, in the document it starts.
 */
export function separatorRefusals(text: string): GoRefusal[] {
  const lines = [...text.matchAll(BAD_SEPARATOR)];
  if (lines.length === 0) return [];
  const starts = [...new Parser().parse(text)].filter((t) => t.type === 'document').map((t) => t.offset);
  return lines.map((m) => ({
    offset: m.index,
    doc: Math.max(0, starts.filter((s) => s <= m.index).length - 1),
    message: `invalid Yaml document separator: ${m[1]!.trim()}`,
    bySplitter: true as const,
  }));
}

/**
 * What Argo CD's splitter and go-yaml refuse of a manifest it reads with them, placed in the text the `yaml` library
 * read (`read`: the mended one, where go-quoted.ts mended it; its lines are the text's). The splitter reads the text
 * as written; go-yaml, what that text means. Not a `.json` file, nor one that starts with `{`, which the repo-server
 * reads with encoding/json (repository.go; apimachinery's YAMLOrJSONDecoder sniffs the `{`).
 */
export function manifestRefusals(file: string, text: string, read = text): GoRefusal[] {
  if (file.endsWith('.json') || /^\s*\{/.test(text)) return [];
  const lineStarts = read === text ? undefined : [0, ...[...read.matchAll(/\n/g)].map((m) => m.index + 1)];
  const inRead = (r: GoRefusal): GoRefusal => (lineStarts ? { ...r, offset: lineStarts[text.slice(0, r.offset).split('\n').length - 1]! } : r);
  return [...separatorRefusals(text).map(inRead), ...goYamlRefusals(text)].sort((a, b) => a.offset - b.offset);
}
