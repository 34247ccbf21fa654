/**
 * The addresses a program gives its clients for itself (`selfUrl`), each read from a variable: one URL (the API's
 * BASE_URL, which its OpenAPI document lists as its server), or a list of them cut at a separator (Plex's
 * customConnections, which the home-operations image writes from PLEX_ADVERTISE_URL: "a comma-separated list of URLs
 * (either HTTP or HTTPS)", Plex's Network settings). A client that follows one whose host no route reaches goes
 * elsewhere, and the program starts all the same.
 */
export type SelfUrl = string | { name: string; separator: string };

const NAME = /^\w+$/;

export const SELF_URL_FIELD = {
  keys: ['name', 'separator'],
  valid: (v: unknown): boolean =>
    Array.isArray(v) &&
    v.every((s: unknown) => {
      if (typeof s === 'string') return NAME.test(s);
      const { name, separator } = (s ?? {}) as Record<string, unknown>;
      return typeof name === 'string' && NAME.test(name) && typeof separator === 'string' && separator.length === 1;
    }),
  says: 'selfUrl lists the variables naming its own address: a name, or {name, separator} for a list of URLs cut at one character',
};

/** The variable a selfUrl entry reads. */
export const selfUrlName = (s: SelfUrl): string => (typeof s === 'string' ? s : s.name);

/** The URLs a variable's value names: the whole value, or each item of its list, trimmed, an empty one left out. */
export const selfUrlValues = (s: SelfUrl, text: string): string[] =>
  typeof s === 'string'
    ? [text]
    : text
        .split(s.separator)
        .map((t) => t.trim())
        .filter((t) => t !== '');
