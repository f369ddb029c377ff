/**
 * `vault run` and `vault inject`: references resolved by the agent, all of them before anything
 * starts or is written (one that names nothing fails the command as it is), the secrets given to
 * one program's environment or one output file only, and masked in what the program prints.
 */
import { spawn } from "node:child_process";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import type { Writable } from "node:stream";
import { ask } from "./agent-client";
import { CliError, EXIT } from "./errors";
import { fillTemplate, isReference, templateReferences } from "./references";
import { machineToken, readToken } from "./tokens";

export const MASK = "<concealed by vault>";

/** By the agent, or with VAULT_TOKEN set by the token alone (one logged read, with `reason`). */
async function resolveAll(refs: string[], reason: string | null): Promise<Map<string, string>> {
  if (refs.length === 0) return new Map();
  const token = machineToken();
  if (token) return (await readToken(token, reason)).resolve(refs);
  const answer = await ask({ op: "resolve", refs });
  return new Map(Object.entries(answer.values as Record<string, string>));
}

/**
 * Copies a program's output with every secret replaced by MASK. Output is held back by one byte
 * less than the longest secret, so a secret cut across two reads is still found; what is held is
 * let out after a short quiet spell, so a prompt without a newline is not kept from the person.
 */
export class Masker {
  private held = "";
  private timer: NodeJS.Timeout | undefined;
  private readonly secrets: string[];
  private readonly keep: number;

  constructor(
    values: Iterable<string>,
    private readonly out: Writable,
  ) {
    // Bytes as latin1 text, so a multi-byte character split across reads still matches.
    this.secrets = [...new Set(values)]
      .filter((v) => v.length > 0)
      .map((v) => Buffer.from(v, "utf8").toString("latin1"))
      .sort((a, b) => b.length - a.length);
    this.keep = Math.max(0, ...this.secrets.map((s) => s.length - 1));
  }

  private masked(text: string): string {
    let t = text;
    for (const s of this.secrets) t = t.split(s).join(MASK);
    return t;
  }

  write(chunk: Buffer) {
    clearTimeout(this.timer);
    const text = this.held + chunk.toString("latin1");
    let cut = Math.max(0, text.length - this.keep);
    // Never cut inside a secret that starts before the cut and ends after it (moving the cut back
    // to one such start may put it inside another: again until none straddles it).
    for (let moved = true; moved; ) {
      moved = false;
      for (const s of this.secrets) {
        const at = text.indexOf(s, Math.max(0, cut - s.length + 1));
        if (at !== -1 && at < cut) {
          cut = at;
          moved = true;
        }
      }
    }
    this.out.write(Buffer.from(this.masked(text.slice(0, cut)), "latin1"));
    this.held = text.slice(cut);
    if (this.held) this.timer = setTimeout(() => this.flush(), 50);
  }

  flush() {
    clearTimeout(this.timer);
    if (this.held) this.out.write(Buffer.from(this.masked(this.held), "latin1"));
    this.held = "";
  }
}

/** Runs `argv` with its reference variables resolved; resolves to the program's exit code. */
export async function runWith(
  argv: string[],
  opts: { mask: boolean; reason?: string | null },
): Promise<number> {
  if (argv.length === 0)
    throw new CliError("vault run needs a program: vault run -- <command>", EXIT.USAGE);
  const refVars = Object.entries(process.env).filter(
    (e): e is [string, string] => typeof e[1] === "string" && isReference(e[1]),
  );
  const values = await resolveAll([...new Set(refVars.map(([, v]) => v))], opts.reason ?? null);
  // The token reads nothing more: the program does not get it.
  const env = { ...process.env };
  delete env.VAULT_TOKEN;
  for (const [name, ref] of refVars) env[name] = values.get(ref)!;
  const child = spawn(argv[0]!, argv.slice(1), {
    env,
    stdio: ["inherit", opts.mask ? "pipe" : "inherit", opts.mask ? "pipe" : "inherit"],
  });
  const maskers = opts.mask
    ? [new Masker(values.values(), process.stdout), new Masker(values.values(), process.stderr)]
    : [];
  if (opts.mask) {
    child.stdout!.on("data", (d: Buffer) => maskers[0]!.write(d));
    child.stderr!.on("data", (d: Buffer) => maskers[1]!.write(d));
  }
  const forward = (sig: NodeJS.Signals) => () => child.kill(sig);
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(sig, forward(sig));
  return new Promise((resolve, reject) => {
    child.on("error", (e: NodeJS.ErrnoException) =>
      reject(
        new CliError(
          e.code === "ENOENT"
            ? `No program named ${argv[0]}`
            : `${argv[0]} did not start: ${e.message}`,
          e.code === "ENOENT" ? 127 : EXIT.FAILED,
        ),
      ),
    );
    child.on("close", (code, signal) => {
      for (const m of maskers) m.flush();
      // A program ended by a signal: the shell's convention, 128 + its number.
      resolve(code ?? 128 + (signal ? (osSignals[signal] ?? 0) : 0));
    });
  });
}

const osSignals: Partial<Record<NodeJS.Signals, number>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGKILL: 9,
  SIGTERM: 15,
};

/** Fills `{{ vault://... }}` slots; the output file (0600) is written whole or not at all. */
export async function inject(
  input: string | null,
  output: string | null,
  reason: string | null = null,
): Promise<string | null> {
  const template = readFileSync(input ?? 0, "utf8");
  const filled = fillTemplate(template, await resolveAll(templateReferences(template), reason));
  if (!output) return filled;
  const tmp = `${output}.${process.pid}.tmp`;
  writeFileSync(tmp, filled, { mode: 0o600 });
  renameSync(tmp, output);
  return null;
}
