/**
 * Go's encoding/csv reading the first record of a text with its defaults (a comma between fields, no comment
 * character, quotes strict), as pflag's StringSlice reads a flag's value (readAsCSV): a field that begins with `"` is
 * quoted (`""` a quote in it, a comma or a line break kept) and must end with `"` before a comma or the end of the
 * line; a `"` anywhere in a field that is not quoted is refused. Read from encoding/csv's reader.go (readRecord).
 */

const BARE_QUOTE = 'bare " in non-quoted-field';
const QUOTE = 'extraneous or missing " in quoted-field';

/** The fields of the first record of `text`, or the error csv.Reader.Read returns (an empty text is no record). */
export function goCsvRecord(text: string): { fields: string[] } | { error: string } {
  if (text === '') return { error: 'EOF' };
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    if (text[i] !== '"') {
      const end = text.slice(i).search(/[,\n]/);
      const field = end === -1 ? text.slice(i) : text.slice(i, i + end);
      if (field.includes('"')) return { error: `parse error on line 1, column ${i + field.indexOf('"') + 1}: ${BARE_QUOTE}` };
      fields.push(field.replace(/\r$/, ''));
      if (end === -1 || text[i + end] === '\n') return { fields };
      i += end + 1;
      continue;
    }
    let field = '';
    let at = i + 1;
    for (;;) {
      const quote = text.indexOf('"', at);
      if (quote === -1) return { error: `parse error on line 1, column ${text.length + 1}: ${QUOTE}` };
      field += text.slice(at, quote);
      if (text[quote + 1] === '"') {
        field += '"';
        at = quote + 2;
        continue;
      }
      const next = text[quote + 1];
      if (next !== undefined && next !== ',' && next !== '\n' && !(next === '\r' && text[quote + 2] === '\n'))
        return { error: `parse error on line 1, column ${quote + 2}: ${QUOTE}` };
      fields.push(field);
      if (next !== ',') return { fields };
      i = quote + 2;
      break;
    }
  }
}
