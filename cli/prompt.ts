/**
 * The master passphrase, typed at a prompt that does not echo or read from a file descriptor the
 * caller opened (`--passphrase-fd 3`). Never an argument: a command line is readable by every user
 * of the machine (ps, /proc) and lands in shell history.
 */
import { readFileSync } from "node:fs";
import { CliError, EXIT, usage } from "./errors";

export function passphraseFromFd(fdText: string): string {
  const fd = Number(fdText);
  if (!Number.isInteger(fd) || fd < 0)
    throw usage(`--passphrase-fd takes a file descriptor number, not "${fdText}"`);
  let text: string;
  try {
    text = readFileSync(fd, "utf8");
  } catch (e) {
    throw usage(`File descriptor ${fd} is not readable: ${(e as Error).message}`);
  }
  // One line: what follows the first newline is not part of the passphrase.
  return text.split(/\r?\n/)[0] ?? "";
}

export function promptPassphrase(prompt = "Master passphrase: "): Promise<string> {
  const input = process.stdin;
  if (!input.isTTY)
    throw new CliError("No terminal to type the passphrase at: use --passphrase-fd", EXIT.USAGE);
  // Echo off before the prompt shows: what is typed as soon as it appears is never echoed.
  input.setRawMode(true);
  process.stderr.write(prompt);
  input.resume();
  input.setEncoding("utf8");
  return new Promise((resolve, reject) => {
    let typed = "";
    const done = (err?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.off("data", onData);
      process.stderr.write("\n");
      if (err) reject(err);
      else resolve(typed);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === "\r" || ch === "\n") return done();
        if (ch === "\u0003") return done(new CliError("Cancelled", EXIT.FAILED));
        if (ch === "\u007f" || ch === "\b") typed = typed.slice(0, -1);
        else if (ch >= " ") typed += ch;
      }
    };
    input.on("data", onData);
  });
}

/** A yes-or-no question at the terminal; anything but "y" or "yes" is no. */
export function confirm(question: string): Promise<boolean> {
  const input = process.stdin;
  process.stderr.write(`${question} [y/N] `);
  input.resume();
  input.setEncoding("utf8");
  return new Promise((resolve) => {
    let typed = "";
    const onData = (chunk: string) => {
      typed += chunk;
      if (!typed.includes("\n")) return;
      input.off("data", onData);
      input.pause();
      resolve(/^\s*y(es)?\s*$/i.test(typed.split("\n")[0]!));
    };
    input.on("data", onData);
    input.once("end", () => resolve(false));
  });
}
