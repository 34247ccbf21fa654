/**
 * An NFS volume's mount options as mount.nfs and the kernel's NFS client take them (nfs-mount-options.ts): generic
 * options and the client's parameters, each with the value it parses; anything else fails the mount.
 */
import { describe, expect, it } from 'vitest';
import { nfsOptionRefusal } from '../../checks/closure/nfs-mount-options.ts';

describe('nfsOptionRefusal', () => {
  it("takes the generic options, the client's flags (and their no- forms) and its parameters with values they parse", () => {
    const taken = ['nfsvers=4.1', 'vers=3', 'hard', 'soft', 'noatime', 'ro', '_netdev', 'nofail', 'x-systemd.automount', 'rsize=1048576'];
    const more = ['proto=tcp6', 'sec=krb5:sys', 'nolock', 'noac', 'actimeo=30', 'local_lock=none', 'lookupcache=pos', 'nconnect=4', 'fsc', 'fsc=cache'];
    expect([...taken, ...more].filter((o) => nfsOptionRefusal(o) !== undefined)).toEqual([]);
  });
  it('refuses an option neither knows, and names the one meant', () => {
    expect(nfsOptionRefusal('onatime')).toBe('"onatime" is no option mount.nfs or the kernel\'s NFS client knows (did you mean "noatime"?)');
    expect(nfsOptionRefusal('nfsver=4.1')).toBe('"nfsver" is no option mount.nfs or the kernel\'s NFS client knows (did you mean "nfsvers"?)');
  });
  it('refuses a value the client cannot parse, a flag given a value, and a parameter without one', () => {
    expect(nfsOptionRefusal('nfsvers=4.l')).toBe('option "nfsvers=4.l": nfsvers takes one of 2, 3, 4, 4.0, 4.1, 4.2');
    expect(nfsOptionRefusal('rsize=1M')).toBe('option "rsize=1M": rsize takes a whole number');
    expect(nfsOptionRefusal('sec=krb6')).toMatch(/^option "sec=krb6": sec takes security flavors/);
    expect(nfsOptionRefusal('hard=1')).toBe('option "hard" takes no value');
    expect(nfsOptionRefusal('timeo')).toBe('option "timeo" takes a value (timeo=...)');
  });
});
