/** What every settings area of every app answers: one field that differs, and how to make live equal declared. */
export interface Drift {
  app: string;
  field: string;
  live: unknown;
  declared: unknown;
  fix: () => Promise<void>;
}
