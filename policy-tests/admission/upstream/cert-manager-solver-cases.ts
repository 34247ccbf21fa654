/**
 * cert-manager's solver picker tests (pkg/util/solverpicker/solverpicker_test.go, `TestPick`), read as data: each
 * row's issuer solvers, Order labels and ACME authorization (its identifier, `*.` before it for a wildcard, and the
 * challenge types the CA offers) written as v1 JSON by the same reading as the Issuer tests
 * (cert-manager-issuer-cases.ts), and given to the gate's port (model/certificates/acme-solvers.ts). A row agrees when the
 * gate picks the solver the row expects (the same object) with the same challenge type, or none where it expects none.
 */
import { pickSolver } from '../../model/certificates/acme-solvers.ts';
import { count, emptyAgreement, type Agreement, type UpstreamTable, countUnread } from './agreement.ts';
import { definitionsOf, environment, mapTableRows, structsOf, toV1 } from './cert-manager-go.ts';
import { blockAt, GoUnsupported } from './go-literals.ts';

type Go = Record<string, any>;

export interface SolverCase {
  name: string;
  domain: string;
  challenges: string[];
  solvers: unknown[];
  labels: Record<string, string>;
  /** The solver the row expects (v1 JSON) and its challenge type; undefined for none. */
  expected?: { solver: unknown; challenge: string };
}

export type SolverTable = UpstreamTable<SolverCase>;

/** TestPick's rows, from the test file and the v1 types' sources of one checkout. */
export function certManagerSolverCases(testSource: string, v1Sources: readonly string[]): SolverTable {
  const structs = structsOf(v1Sources);
  const table: SolverTable = { cases: [], unread: [] };
  const start = testSource.indexOf('func TestPick(');
  if (start === -1) return table;
  // A challenge dereferenced into a list (`*acmeChallengeHTTP01`) is read as the challenge.
  const body = blockAt(testSource, testSource.indexOf('{', start)).replace(/([{,]\s*)\*(\w+)/g, '$1$2');
  const env = environment('', definitionsOf(testSource, body, []), {});
  for (const { name, row, why } of mapTableRows(body, env)) {
    try {
      if (!row) throw new GoUnsupported(why!);
      const issuer = toV1(row.issuer, String((row.issuer as Go)['@type'] ?? 'Issuer'), structs) as Go;
      const order = toV1(row.order ?? {}, 'Order', structs) as Go;
      const authz = toV1(row.authz ?? {}, 'ACMEAuthorization', structs) as Go;
      const identifier = typeof authz.identifier === 'string' ? authz.identifier : '';
      const expected = row.expectedSolver
        ? {
            solver: toV1(row.expectedSolver, 'ACMEChallengeSolver', structs),
            challenge: String((toV1(row.expectedChallenge, 'ACMEChallenge', structs) as Go)?.type),
          }
        : undefined;
      table.cases.push({
        name,
        domain: authz.wildcard === true ? `*.${identifier}` : identifier,
        challenges: ((authz.challenges ?? []) as Go[]).map((c) => String(c.type)),
        solvers: (issuer.spec?.acme?.solvers ?? []) as unknown[],
        labels: (order.metadata?.labels ?? {}) as Record<string, string>,
        ...(expected ? { expected } : {}),
      });
    } catch (err) {
      table.unread.push({ name: `TestPick/${name}`, why: (err as Error).message });
    }
  }
  return table;
}

/** How many rows the gate picks as cert-manager does. */
export function certManagerSolverAgreement(table: SolverTable): Agreement {
  const a = emptyAgreement();
  for (const c of table.cases) {
    const picked = pickSolver(c.domain, c.challenges, c.solvers, c.labels);
    const got = picked ? { solver: c.solvers[picked.index], challenge: picked.challenge } : undefined;
    const ok = JSON.stringify(got) === JSON.stringify(c.expected);
    count(a, { group: 'TestPick', ok, file: `TestPick/${c.name}`, why: `the gate picks ${JSON.stringify(got)}, cert-manager ${JSON.stringify(c.expected)}` });
  }
  countUnread(a, table.unread);
  return a;
}
