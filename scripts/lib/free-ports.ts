/**
 * Free TCP ports on loopback, for the servers the scripts and their tests start there (the drill's etcd, the tests'
 * PostgreSQL and etcd, a port known to be closed). A port is free when picked; a caller that binds it later must
 * handle `address already in use`, as startLoopbackEtcd does.
 */
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';

/**
 * `n` distinct free TCP ports on loopback. They are held together until all are known, so no two picks can be
 * the same port (one taken, freed, then taken again would be).
 */
export async function freePorts(n: number): Promise<number[]> {
  const servers = Array.from({ length: n }, () => createServer().listen(0, '127.0.0.1'));
  await Promise.all(servers.map((s) => once(s, 'listening')));
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

/** A free TCP port on loopback. */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!;
}
