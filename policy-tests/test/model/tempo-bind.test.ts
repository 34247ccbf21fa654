/** Where Tempo's OTLP receiver listens (model/tempo/receivers.ts): an unset endpoint is the collector's localhost default. */
import { describe, expect, it } from 'vitest';
import { loopbackBind } from '../../model/tempo/receivers.ts';

describe("an OTLP receiver's bind address", () => {
  it('is loopback where no endpoint is set, or a loopback host is written', () => {
    expect(loopbackBind(undefined)).toBe("localhost:4317 (the collector's default since v0.116)");
    expect(loopbackBind('')).toMatch(/^localhost:4317/);
    for (const endpoint of ['localhost:4317', '127.0.0.1:4317', '[::1]:4317', 'LOCALHOST:4317']) expect(loopbackBind(endpoint), endpoint).toBe(endpoint);
  });
  it('reaches beyond the pod on every interface, or a name or address of its own', () => {
    for (const endpoint of ['0.0.0.0:4317', ':4317', '[::]:4317', '${env:MY_POD_IP}:4317']) expect(loopbackBind(endpoint), endpoint).toBeUndefined();
  });
});
