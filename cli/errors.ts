/**
 * The command line's exit codes (docs/cli.md, "Exit codes"): stable, so a script can tell a locked
 * agent from a wrong passphrase from a reference to nothing. `vault run` exits with its program's
 * code once the program has started.
 */
export const EXIT = {
  OK: 0,
  /** Anything not named below. */
  FAILED: 1,
  /** A command or option that does not exist, or a missing argument. */
  USAGE: 2,
  /** Not signed in, or the sign-in expired and could not be renewed. */
  SIGNED_OUT: 3,
  /** The agent holds no key: `vault unlock` first. */
  LOCKED: 4,
  /** The master passphrase does not open the vault. */
  WRONG_PASSPHRASE: 5,
  /** An entry, field or reference that names nothing. */
  NOT_FOUND: 6,
  /** The server could not be reached, or refused the request. */
  SERVER: 7,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure with the message the person reads and the exit code a script reads. */
export class CliError extends Error {
  constructor(
    message: string,
    /** One of EXIT, or (for `vault run`) the shell's 127 for a program that does not exist. */
    readonly exitCode: number = EXIT.FAILED,
    /** A short machine-readable name, for `--json` output and the agent's answers. */
    readonly code = codeName(exitCode),
  ) {
    super(message);
    this.name = "CliError";
  }
}

function codeName(exit: number): string {
  const found = Object.entries(EXIT).find(([, v]) => v === exit);
  return found ? found[0] : "FAILED";
}

export const usage = (message: string) => new CliError(message, EXIT.USAGE);
