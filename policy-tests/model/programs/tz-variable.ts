/**
 * How a program reads the `TZ` variable, as glibc's tzset does: an empty value is UTC; a value with a leading `:` or
 * none names a file of the tz database under /usr/share/zoneinfo (or an absolute path); a value no file holds is read
 * as a POSIX rule, the `:` aside (`CET-1CEST,M3.5.0,M10.5.0/3`), from its start: a standard part that does not parse
 * leaves the program in UTC, without a word, and what follows one that does is read as far as it goes. Go's time
 * package and .NET read a file alone (Go's initLocal: any other value is UTC), so a name no file holds is UTC for
 * every runtime, and a POSIX rule is read by the C library's programs only. The names are the tz database's, as the runtime's ICU knows them (model/core/time.ts loadLocation,
 * written as the database writes them: the lookup is a file's, case and all), less the names ICU alone keeps: the
 * three-letter IDs of old Java (`PST`, `IST`, `AST`), which no zoneinfo file holds, and its `SystemV/` zones.
 */
import { oneSlipApart } from '../core/did-you-mean.ts';
import { loadLocation, zoneNames } from '../core/time.ts';

/** The tz database's names with no slash (its `backward` links and its old rule zones): any other name without one is no file. */
const BARE_NAMES = new Set(
  'CET CST6CDT Cuba EET EST EST5EDT Egypt Eire Factory GB GB-Eire GMT GMT+0 GMT-0 GMT0 Greenwich HST Hongkong Iceland Iran Israel Jamaica Japan Kwajalein Libya MET MST MST7MDT NZ NZ-CHAT Navajo PRC PST8PDT Poland Portugal ROC ROK Singapore Turkey UCT UTC Universal W-SU WET Zulu posixrules'.split(
    ' ',
  ),
);

/** Where the tz database's files are, as an absolute `TZ` names one. */
const ZONEINFO = '/usr/share/zoneinfo/';

// A POSIX rule (glibc's __tzset_parse_tz): a name of three letters or more (or `<...>` of letters, digits and signs),
// an offset of hours (more than 24 is taken as 24) with optional minutes and seconds, then optionally a summer name,
// its offset, and the rule's two dates (`Jn` from 1 to 365, `n` from 0, or `Mm.w.d`), each with an optional time.
const NAME = '(?:[A-Za-z]{3,}|<[A-Za-z0-9+-]{3,}>)';
const OFFSET = '[+-]?\\d+(?::\\d+){0,2}';
const DATE = '(?:J\\d{1,3}|\\d{1,3}|M(?:[1-9]|1[0-2])\\.[1-5]\\.[0-6])(?:/[+-]?\\d+(?::\\d+){0,2})?';
const POSIX_RULE = new RegExp(`^${NAME}${OFFSET}(?:${NAME}(?:${OFFSET})?(?:,${DATE},${DATE})?)?$`);
/** The standard part glibc reads first: where it parses, the zone is its offset, whatever follows; where not, UTC. */
const STANDARD_PART = new RegExp(`^${NAME}[+-]?\\d`);

/** Whether `name` is a file of the tz database, as the runtime knows them. */
function zoneFile(name: string): boolean {
  if (name === 'posixrules') return true;
  if (name === '' || name === 'Local' || name.startsWith('SystemV/') || (!name.includes('/') && !BARE_NAMES.has(name))) return false;
  // ICU reads a link's name in any case, and says only the zone it links to: the database starts each part of its
  // names with a capital (`Canada/Pacific`), and a file is looked up case and all.
  return name.split('/').every((part) => /^[A-Z]/.test(part)) && loadLocation(name).ok;
}

export type TimeZoneReading =
  | { reading: 'zone' }
  | { reading: 'rule' }
  | { reading: 'unknown' }
  | { reading: 'utc'; near?: string }
  | { reading: 'start'; near?: string };

/**
 * How a program reads a `TZ` value: `zone` where it runs in a zone of the database, `rule` where it is a POSIX rule
 * (the C library's programs run in it, Go's and .NET's in UTC), `unknown` where it names an absolute path outside the
 * database (a file the gate cannot see), `utc` where it names neither and the program runs in UTC, and `start` where no file holds it and it reads as a POSIX rule only from its start, as far as that parses (`Ind0ian/Maldives`
 * is the rule `Ind0ian`, UTC with summer time all year): `near` is the zone either is one slip from, if any.
 */
export function readTimeZone(text: string): TimeZoneReading {
  if (text === '') return { reading: 'zone' };
  const name = text.startsWith(':') ? text.slice(1) : text;
  if (name.startsWith('/')) return name.startsWith(ZONEINFO) ? readTimeZone(name.slice(ZONEINFO.length)) : { reading: 'unknown' };
  // A path's doubled slashes name the same file.
  if (zoneFile(name.replace(/\/{2,}/g, '/'))) return { reading: 'zone' };
  if (POSIX_RULE.test(name)) return { reading: 'rule' };
  // A name written in another case, or one keystroke off, is the zone it was meant to be.
  const lower = name.toLowerCase();
  const near = zoneNames().find((zone) => zone.toLowerCase() === lower || oneSlipApart(zone.toLowerCase(), lower));
  const reading = STANDARD_PART.test(name) ? 'start' : 'utc';
  return near ? { reading, near } : { reading };
}
