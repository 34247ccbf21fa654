/**
 * Go's crypto/x509 `CertPool.AppendCertsFromPEM`: whether a bundle holds at least one certificate Go would add. It
 * walks the PEM blocks as encoding/pem decodes them, skips a block that is not a CERTIFICATE or carries headers, and
 * a certificate that does not parse; the parse here is OpenSSL's (Node's X509Certificate), which admits a few
 * certificates Go's stricter parser refuses (a negative serial number, say).
 */
import { X509Certificate } from 'node:crypto';

const BLOCK = /(?:^|\n)-----BEGIN ([^\n]*?)-----[ \t]*\r?\n([\s\S]*?)(?:^|\n)-----END \1-----/g;

/** A block's body as pem.Decode splits it: the `Key: value` lines up to the first line without a colon, then base64. */
function blockBody(text: string): { headers: boolean; der?: Buffer } {
  const lines = text.split('\n');
  const firstData = lines.findIndex((l) => !l.includes(':'));
  const headers = firstData !== 0;
  const data = lines
    .slice(Math.max(firstData, 0))
    .join('')
    .replace(/[ \t\r]/g, '');
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(data)) return { headers };
  return { headers, der: Buffer.from(data, 'base64') };
}

export function appendsCertificates(pem: Buffer | string): boolean {
  const text = Buffer.isBuffer(pem) ? pem.toString('latin1') : pem;
  for (const m of text.matchAll(BLOCK)) {
    if (m[1] !== 'CERTIFICATE') continue;
    const { headers, der } = blockBody(m[2]!);
    if (headers || !der) continue;
    try {
      new X509Certificate(der);
      return true;
    } catch {
      // Go's AppendCertsFromPEM skips a certificate it cannot parse and reads on.
    }
  }
  return false;
}
