/**
 * The Servarr apps' providers (a manager's download clients, Prowlarr's synced apps), as their
 * shared API serves them (ProviderControllerBase and ClientSchema/SchemaBuilder, read at Sonarr
 * v4.0.16, Radarr v6 and Prowlarr v2.1.5): a GET answers every stored key or password as
 * `********`, and a PUT that sends `********` back keeps the stored one; a create or an update of
 * an enabled provider is refused (HTTP 400, FluentValidation's failures) unless its own test
 * passes; `POST <providers>/test` runs that test alone and saves nothing. So a secret is never
 * compared: the provider's test says whether the stored one works.
 */
import type { Drift } from './drift.ts';
import { HttpError, reasonsOf, type HttpClient } from './http.ts';

/** What the apps answer for a stored secret, and take back as "keep the stored one". */
export const MASKED = '********';

export interface ProviderField {
  name: string;
  value?: unknown;
}

export const fieldOf = (provider: { fields: ProviderField[] }, name: string) => provider.fields.find((f) => f.name === name)?.value;

/** The live fields with the declared ones put over them, by name. */
export const withFields = (live: readonly ProviderField[], declared: Record<string, unknown>): ProviderField[] => [
  ...live.filter((f) => !(f.name in declared)),
  ...Object.entries(declared).map(([name, value]) => ({ name, value })),
];

/** The failures of a refused test (HTTP 400), each by its message; any other error is not a test's answer. */
function testFailures(err: unknown): string | undefined {
  return err instanceof HttpError && err.status === 400 ? reasonsOf(err.body) : undefined;
}

/** The provider's own test of what it stores: undefined when it passes, else why it fails. */
function failingTest(api: HttpClient, testPath: string, provider: unknown): Promise<string | undefined> {
  return api.post(testPath, provider).then(
    () => undefined,
    (err: unknown) => {
      const failures = testFailures(err);
      if (failures === undefined) throw err;
      return failures;
    },
  );
}

/**
 * The drift of a stored secret that cannot be read back: the provider's own test of it (`<field>.test`), failing or
 * not; `mend` sends the secret media-settings holds.
 */
export async function secretTestDrift(
  api: HttpClient,
  test: { app: string; field: string; testPath: string; provider: unknown },
  mend: () => Promise<void>,
): Promise<Drift | undefined> {
  const failing = await failingTest(api, test.testPath, test.provider);
  return failing === undefined ? undefined : { app: test.app, field: `${test.field}.test`, live: `failing: ${failing}`, declared: 'passing', fix: mend };
}

/** A secret a change needs, from the variable media-settings reads it from, or one line saying which is not set. */
export function secretNeeded(value: string | undefined, what: string, variable: string): string {
  if (value) return value;
  throw new Error(`${what}, and ${variable} is not set`);
}
