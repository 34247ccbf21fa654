/**
 * The mount options of an NFS PersistentVolume as the node mounts it. The kubelet runs `mount -t nfs -o <options>`;
 * mount.nfs (nfs-utils, `opt_map`) takes the generic options (ro, noatime, _netdev, ...) as mount flags and hands the
 * rest to the kernel's NFS client, which refuses a parameter it does not know or a value it cannot parse
 * (fs/nfs/fs_context.c, `nfs_fs_parameters`, Linux 6.18: "nfs: Unknown parameter"), unless `sloppy` is given. The
 * mount fails ("mount.nfs: an incorrect mount option was specified"), and every pod of every claim bound to the
 * volume stays ContainerCreating. The API server takes any text.
 */
import { nearestName, suggesting } from '../../model/core/did-you-mean.ts';

/** The generic options mount.nfs (and libmount before it) reads as mount flags or for itself, never handing them on. */
const GENERIC = new Set(
  [
    'defaults ro rw exec noexec suid nosuid dev nodev sync async dirsync remount bind rbind auto noauto users nousers',
    'user nouser owner noowner group nogroup _netdev comment mand nomand atime noatime diratime nodiratime relatime',
    'norelatime strictatime nostrictatime lazytime nolazytime iversion noiversion quota noquota usrquota grpquota nofail',
  ]
    .join(' ')
    .split(' '),
);

/** The kernel's flags; those it declares with fsparam_flag_no are also taken with `no` before them. */
const FLAGS = 'bg fg hard soft softerr rdma tcp udp v2 v3 v4 v4.0 v4.1 v4.2 sloppy'.split(' ');
const FLAGS_NO = 'ac acl cto alignwrite fsc intr lock migration posix rdirplus resvport sharecache softreval trunkdiscovery'.split(' ');

/** The kernel's options of a whole number (u32). */
const NUMBERS = new Set(
  'acdirmax acdirmin acregmax acregmin actimeo bsize minorversion mountport mountvers namlen nconnect max_connect port retrans rsize timeo wsize'.split(' '),
);

const TRANSPORTS = ['udp', 'udp6', 'tcp', 'tcp6', 'rdma', 'rdma6'];
const FLAVORS = ['krb5', 'krb5i', 'krb5p', 'lkey', 'lkeyi', 'lkeyp', 'none', 'null', 'spkm3', 'spkm3i', 'spkm3p', 'sys'];

/** The kernel's options of a value from a table (a list, where `:` joins several, for sec=), and those of free text. */
const CHOICES: Record<string, readonly string[]> = {
  vers: ['2', '3', '4', '4.0', '4.1', '4.2'],
  nfsvers: ['2', '3', '4', '4.0', '4.1', '4.2'],
  proto: TRANSPORTS,
  mountproto: TRANSPORTS.filter((t) => !t.startsWith('rdma')),
  local_lock: ['all', 'flock', 'posix', 'none'],
  lookupcache: ['all', 'none', 'pos', 'positive'],
  write: ['lazy', 'eager', 'wait'],
  xprtsec: ['none', 'tls', 'mtls'],
  fatal_neterrors: ['default', 'ENETDOWN:ENETUNREACH', 'ENETUNREACH:ENETDOWN', 'none'],
  rdirplus: ['none', 'force'],
};
const TEXT = new Set(['addr', 'clientaddr', 'mountaddr', 'mounthost', 'retry', 'source', 'fsc', 'cert_serial', 'privkey_serial']);

const FLAG_NAMES = new Set([...FLAGS, ...FLAGS_NO, ...FLAGS_NO.map((f) => `no${f}`)]);

/** Whether the kernel's option takes a value (`fsc` and `rdirplus` are taken with or without one). */
const takesValue = (name: string): boolean => NUMBERS.has(name) || name in CHOICES || TEXT.has(name) || name === 'sec';
const KNOWN = [...GENERIC, ...FLAG_NAMES, ...NUMBERS, ...Object.keys(CHOICES), ...TEXT, 'sec'];

/** Why a value does not fit its option, where it does not. */
function valueRefusal(name: string, value: string): string | undefined {
  if (NUMBERS.has(name)) return /^\d+$/.test(value) && Number(value) <= 0xffffffff ? undefined : 'takes a whole number';
  if (name === 'sec')
    return value.split(':').every((f) => f === '' || FLAVORS.includes(f)) ? undefined : `takes security flavors (${FLAVORS.join(', ')}) joined by ":"`;
  const choices = CHOICES[name];
  if (choices) return choices.includes(value) ? undefined : `takes one of ${choices.join(', ')}`;
  return TEXT.has(name) && value === '' ? 'takes a value' : undefined;
}

/**
 * Why mount.nfs or the kernel refuses one mount option of an NFS volume, or undefined where both take it. `sloppy`
 * among the options makes the kernel skip what it does not know: the caller judges none then.
 */
export function nfsOptionRefusal(option: string): string | undefined {
  const eq = option.indexOf('=');
  const [name, value] = eq === -1 ? [option, undefined] : [option.slice(0, eq), option.slice(eq + 1)];
  if (name.startsWith('x-')) return undefined;
  if (value === undefined) {
    if (GENERIC.has(name) || FLAG_NAMES.has(name) || name === 'fsc' || name === 'rdirplus') return undefined;
    if (takesValue(name)) return `option "${name}" takes a value (${name}=...)`;
  } else if (takesValue(name)) {
    const why = valueRefusal(name, value);
    return why && `option "${option}": ${name} ${why}`;
  } else if (GENERIC.has(name) || FLAG_NAMES.has(name)) return `option "${name}" takes no value`;
  return `"${name}" is no option mount.nfs or the kernel's NFS client knows${suggesting(nearestName(name, KNOWN))}`;
}
