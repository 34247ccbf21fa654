/** What a run of the workflows shares between its jobs, its steps and the fakes of the actions they use. */

export interface Comment {
  id: number;
  body: string;
  user: { login: string; type: 'Bot' | 'User' };
}

/** What one run shares between its jobs and with the test: the origin, the artifacts, the pull request's comments. */
export interface RunState {
  /** The bare repository standing for github.com's copy. */
  origin: string;
  artifacts: string;
  comments: Comment[];
  github: {
    event_name: string;
    ref: string;
    sha: string;
    repository: string;
    /** The event's payload: a pull request's number, and its head's repository where it comes from a fork. */
    event: { pull_request?: { number: number; head?: { repo?: { full_name: string } } } };
  };
  /** Each uploaded artifact's digest, as the upload recorded it: what a download checks. */
  digests?: Record<string, string>;
}

export interface StepIo {
  workspace: string;
  env: NodeJS.ProcessEnv;
  inputs: Record<string, string>;
  log: (line: string) => void;
  /** Puts a folder first on PATH for the steps after (GITHUB_PATH). */
  addPath: (dir: string) => void;
}

/** One action's fake: what it does to the job's workspace and the run's state. */
export type Action = (run: RunState, io: StepIo) => Promise<void>;
