/**
 * Where a web app serves its pages (`urlBase`): under the URL base a variable sets (Sonarr's
 * SONARR__SERVER__URLBASE, Cleanuparr's BASE_PATH), the root where it is unset; or under one fixed path (`/`: an app
 * that cannot be told another, Jellyseerr). A page the app serves links its scripts, styles and API calls under that
 * base, so a route must forward the whole of it; and what the app answers outside it (`outside`) is a redirect into
 * it (the Servarr apps' UrlBaseMiddleware, Bazarr's 404 handler) or a 404 (Cleanuparr), which fails a probe asking
 * there.
 */
export type UrlBase = string | { env: string; outside: 'redirect' | 'notFound' };

const NAME = /^\w+$/;

export const URL_BASE_FIELD = {
  keys: ['env', 'outside'],
  valid: (v: unknown): boolean => {
    if (typeof v === 'string') return v.startsWith('/');
    const { env, outside } = (v ?? {}) as Record<string, unknown>;
    return typeof env === 'string' && NAME.test(env) && (outside === 'redirect' || outside === 'notFound');
  },
  says: 'urlBase is the absolute path the app serves its pages under, or {env, outside: redirect or notFound}: the variable that sets it (the root where unset), and what the app answers outside it',
};

/**
 * A URL base as the apps read one: slashes doubled or trailing dropped, one leading slash given (Servarr's
 * `Trim('/')` and `"/" +`, Bazarr's slash cleaner and `rstrip('/')`, Cleanuparr's `TrimEnd('/')`); `/` the root.
 */
export function normalUrlBase(text: string): string {
  const trimmed = text
    .trim()
    .replace(/\/{2,}/g, '/')
    .replace(/^\/+|\/+$/g, '');
  return `/${trimmed}`;
}

/** The base of an app whose variable holds `text` (undefined: unset); a fixed base is its own. */
export const urlBaseOf = (base: UrlBase, text: string | undefined): string => normalUrlBase(typeof base === 'string' ? base : (text ?? ''));

/** Whether `path` lies under `base`, element by element (`/sonarr/api` is under `/sonarr`, `/sonarrx` is not). */
export const isUnderBase = (path: string, base: string): boolean => base === '/' || path === base || path.startsWith(`${base}/`);
