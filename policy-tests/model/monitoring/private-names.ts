/**
 * Names no public CA can certify: an IP address, a single label, or a name under a suffix a LAN uses (lan, local,
 * home.arpa, ...). A client that checks such a host against the public roots alone refuses it at every connection.
 */
import { isIP } from 'node:net';

const PRIVATE_NAME = /^[^.]+$|\.(lan|local|localdomain|internal|intranet|home|corp|private|home\.arpa)$/i;

/** Whether no public CA can have signed a certificate for `host`. */
export function noPublicCertificate(host: string): boolean {
  return PRIVATE_NAME.test(host) || isIP(host) !== 0;
}
