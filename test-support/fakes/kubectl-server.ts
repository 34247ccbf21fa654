/**
 * Answers the `kubectl` client script (test-support/fakes/kubectl) from the
 * test's own process: each connection is one call, in the script's framing
 * (a length in bytes on a line, then the bytes), answered by the same fake
 * core kubectl.mjs runs. Listens on 127.0.0.1 only.
 */
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { fakeFailure, fakeKubectl, type FakeCall, type FakeResult } from './kubectl-core.ts';

export interface KubectlServer {
  /** For the client's environment: FAKE_KUBECTL_PORT. */
  port: number;
  close(): Promise<void>;
}

/** Reads the framed request from `data`; undefined until all of it has arrived. */
function parseRequest(data: Buffer): FakeCall | undefined {
  let at = 0;
  const line = (): number | undefined => {
    const end = data.indexOf(0x0a, at);
    if (end < 0) return undefined;
    const n = Number(data.subarray(at, end).toString('latin1'));
    at = end + 1;
    return n;
  };
  const field = (): string | undefined => {
    const n = line();
    if (n === undefined || at + n > data.length) return undefined;
    const text = data.subarray(at, at + n).toString('utf8');
    at += n;
    return text;
  };
  const count = line();
  if (count === undefined) return undefined;
  const args: string[] = [];
  for (let i = 0; i < count; i++) {
    const arg = field();
    if (arg === undefined) return undefined;
    args.push(arg);
  }
  const stdin = field();
  const state = field();
  const etcd = field();
  if (stdin === undefined || state === undefined || etcd === undefined) return undefined;
  return { args, stdin, state: state || undefined, etcd: etcd || undefined };
}

function respond(socket: Socket, result: FakeResult): void {
  const out = Buffer.from(result.stdout);
  const err = Buffer.from(result.stderr);
  socket.end(Buffer.concat([Buffer.from(`${result.code}\n${out.length}\n${err.length}\n`), out, err]));
}

export async function startKubectlServer(): Promise<KubectlServer> {
  const server = createServer((socket) => {
    let data = Buffer.alloc(0);
    let answered = false;
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      const call = answered ? undefined : parseRequest(data);
      if (!call) return;
      answered = true;
      // An unreadable state file is still an answer, not a hang.
      fakeKubectl(call).then(
        (result) => respond(socket, result),
        (err: unknown) => respond(socket, fakeFailure(err)),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  };
}
