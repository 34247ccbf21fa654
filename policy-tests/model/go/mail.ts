/**
 * Go's `net/mail.ParseAddress` (message.go, Go 1.24), which kube-openapi's `email` format asks of a custom resource's
 * value: an RFC 5322 address (`a@example.com`, `Name <a@example.com>`, a quoted local part, a domain literal that
 * holds an IP, a comment after the address, a group of one), as Go reads it, with its divergences from the RFC (no
 * folding, specials allowed in a phrase's dot-atoms). RFC 2047 encoded words are read as far as validity needs: one
 * Go cannot decode for its charset fails where Go's fails.
 */
import { isIP } from 'node:net';

class MailError extends Error {}

const isMultibyte = (c: number) => c >= 0x80;
const isVchar = (c: number) => (c >= 0x21 && c <= 0x7e) || isMultibyte(c);
const isWSP = (c: number) => c === 0x20 || c === 0x09;
const isAtext = (c: number, dot: boolean): boolean => (c === 0x2e ? dot : !'()<>[]:;@\\,"'.includes(String.fromCodePoint(c)) && isVchar(c));
const isQtext = (c: number) => c !== 0x5c && c !== 0x22 && isVchar(c);
const isDtext = (c: number) => c !== 0x5b && c !== 0x5d && c !== 0x5c && isVchar(c);

/** The charsets Go's mime.WordDecoder reads without a CharsetReader; net/mail gives it none that reads another. */
const DECODED_CHARSETS = new Set(['utf-8', 'iso-8859-1', 'us-ascii']);

/** `decodeRFC2047Word`'s one failure: an encoded word that decodes, in a charset Go cannot read. */
function encodedWordFails(word: string): boolean {
  const m = /^=\?([^?]+)\?([bBqQ])\?([^?]*)\?=$/.exec(word);
  if (!m || DECODED_CHARSETS.has(m[1]!.toLowerCase())) return false;
  const text = m[3]!;
  const decodes = /[bB]/.test(m[2]!) ? /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text) : !/=(?![0-9A-Fa-f]{2})/.test(text);
  return decodes;
}

class AddrParser {
  s: string;
  constructor(s: string) {
    this.s = s;
  }

  empty = () => this.s.length === 0;
  peek = () => this.s[0];
  consume(c: string): boolean {
    if (this.empty() || this.peek() !== c) return false;
    this.s = this.s.slice(1);
    return true;
  }
  skipSpace(): void {
    this.s = this.s.replace(/^[ \t]+/, '');
  }
  skipCFWS(): boolean {
    this.skipSpace();
    while (this.consume('(')) {
      if (!this.consumeComment().ok) return false;
      this.skipSpace();
    }
    return true;
  }
  consumeComment(): { comment: string; ok: boolean } {
    let depth = 1;
    let comment = '';
    while (!this.empty() && depth !== 0) {
      if (this.peek() === '\\' && this.s.length > 1) this.s = this.s.slice(1);
      else if (this.peek() === '(') depth++;
      else if (this.peek() === ')') depth--;
      if (depth > 0) comment += this.s[0];
      this.s = this.s.slice(1);
    }
    return { comment, ok: depth === 0 };
  }

  /** A run of code points that pass `ok`, taken from the front. */
  private run(ok: (c: number) => boolean): string {
    let i = 0;
    for (const ch of this.s) {
      const c = ch.codePointAt(0)!;
      if (c >= 0xd800 && c <= 0xdfff) throw new MailError('mail: invalid utf-8 in address');
      if (!ok(c)) break;
      i += ch.length;
    }
    const out = this.s.slice(0, i);
    this.s = this.s.slice(i);
    return out;
  }

  consumeAtom(dot: boolean, permissive: boolean): string {
    const atom = this.run((c) => isAtext(c, dot));
    if (atom === '') throw new MailError('mail: invalid string');
    if (!permissive && (atom.startsWith('.') || atom.includes('..') || atom.endsWith('.'))) throw new MailError('mail: dot in atom');
    return atom;
  }

  consumeQuotedString(): string {
    let out = '';
    let escaped = false;
    let i = 1;
    for (;;) {
      if (i >= this.s.length) throw new MailError('mail: unclosed quoted-string');
      const c = this.s.codePointAt(i)!;
      const size = c > 0xffff ? 2 : 1;
      if (escaped) {
        if (!isVchar(c) && !isWSP(c)) throw new MailError('mail: bad character in quoted-string');
        out += String.fromCodePoint(c);
        escaped = false;
      } else if (isQtext(c) || isWSP(c)) out += String.fromCodePoint(c);
      else if (c === 0x22) break;
      else if (c === 0x5c) escaped = true;
      else throw new MailError('mail: bad character in quoted-string');
      i += size;
    }
    this.s = this.s.slice(i + 1);
    return out;
  }

  consumeDomainLiteral(): string {
    this.consume('[');
    const dtext = this.run(isDtext);
    if (!this.consume(']')) throw new MailError('mail: unclosed domain-literal');
    // net.ParseIP: Go's reading, which takes no zone.
    if (dtext.includes('%') || isIP(dtext) === 0) throw new MailError('mail: invalid IP address in domain-literal');
    return `[${dtext}]`;
  }

  /** `consumeAddrSpec`: on failure the parser is where it was. */
  consumeAddrSpec(): string | undefined {
    const orig = this.s;
    try {
      this.skipSpace();
      if (this.empty()) throw new MailError('mail: no addr-spec');
      const local = this.peek() === '"' ? this.consumeQuotedString() : this.consumeAtom(true, false);
      if (local === '') throw new MailError('mail: empty quoted string in addr-spec');
      if (!this.consume('@')) throw new MailError('mail: missing @ in addr-spec');
      this.skipSpace();
      if (this.empty()) throw new MailError('mail: no domain in addr-spec');
      const domain = this.peek() === '[' ? this.consumeDomainLiteral() : this.consumeAtom(true, false);
      return `${local}@${domain}`;
    } catch (err) {
      if (!(err instanceof MailError)) throw err;
      this.s = orig;
      return undefined;
    }
  }

  consumePhrase(): string {
    const words: string[] = [];
    for (;;) {
      if (words.length > 0 && !this.skipCFWS()) throw new MailError('mail: misformatted parenthetical comment');
      this.skipSpace();
      if (this.empty()) break;
      try {
        const quoted = this.peek() === '"';
        const word = quoted ? this.consumeQuotedString() : this.consumeAtom(true, true);
        if (!quoted && encodedWordFails(word)) throw new MailError('mail: charset not supported');
        words.push(word);
      } catch (err) {
        if (!(err instanceof MailError)) throw err;
        if (words.length === 0) throw new MailError('mail: missing word in phrase');
        break;
      }
    }
    return words.join(' ');
  }

  /** `parseAddress`: the addresses at the front, a group's among them where `handleGroup`. */
  parseAddress(handleGroup: boolean): string[] {
    this.skipSpace();
    if (this.empty()) throw new MailError('mail: no address');
    const spec = this.consumeAddrSpec();
    if (spec !== undefined) {
      this.skipSpace();
      if (!this.empty() && this.peek() === '(') {
        this.consume('(');
        const { comment, ok } = this.consumeComment();
        if (!ok) throw new MailError('mail: misformatted parenthetical comment');
        if (comment.split(/[ \t]+/).some(encodedWordFails)) throw new MailError('mail: charset not supported');
      }
      return [spec];
    }
    const name = this.peek() !== '<' ? this.consumePhrase() : '';
    this.skipSpace();
    if (handleGroup && this.consume(':')) return this.consumeGroupList();
    if (!this.consume('<'))
      throw new MailError(
        Array.from(name, (c) => c.codePointAt(0)!).every((c) => isAtext(c, true)) ? "mail: missing '@' or angle-addr" : 'mail: no angle-addr',
      );
    const inner = this.consumeAddrSpec();
    if (inner === undefined) throw new MailError('mail: invalid addr-spec');
    if (!this.consume('>')) throw new MailError('mail: unclosed angle-addr');
    return [inner];
  }

  consumeGroupList(): string[] {
    const group: string[] = [];
    this.skipSpace();
    if (this.consume(';')) {
      if (!this.skipCFWS()) throw new MailError('mail: misformatted parenthetical comment');
      return group;
    }
    for (;;) {
      this.skipSpace();
      group.push(...this.parseAddress(false));
      if (!this.skipCFWS()) throw new MailError('mail: misformatted parenthetical comment');
      if (this.consume(';')) {
        if (!this.skipCFWS()) throw new MailError('mail: misformatted parenthetical comment');
        return group;
      }
      if (!this.consume(',')) throw new MailError('mail: expected comma');
    }
  }
}

/** The address `net/mail.ParseAddress` reads in `text`, or undefined where it fails. */
export function parseMailAddress(text: string): string | undefined {
  const p = new AddrParser(text);
  try {
    const addrs = p.parseAddress(true);
    if (!p.skipCFWS() || !p.empty() || addrs.length !== 1) return undefined;
    return addrs[0];
  } catch (err) {
    if (err instanceof MailError) return undefined;
    throw err;
  }
}
