/**
 * The command line's entry (docs/cli.md): parses `vault <command> [options]`, runs the command,
 * prints its result (plain, or JSON with --json) and exits with a code of EXIT (errors.ts).
 */
import { runAgent } from "./agent";
import { ask } from "./agent-client";
import * as commands from "./commands";
import { CliError, EXIT, usage } from "./errors";
import { COMMANDS, commandHelp, mainHelp, type OptionSpec } from "./help";
import { inject, runWith } from "./run";
import { exportVault, importFile } from "./transfer";
import { listLinks, makeLink, revokeLink } from "./link";
import { fieldsOf } from "./write";
import { createToken, listTokens, revokeToken, tokenReads } from "./tokens";
import { defaultSshSocket, runSshAgent, startSshAgent } from "./ssh-agent";

/** `lists` holds the values of an option given more than once (`many` in its spec), in order. */
type Parsed = {
  opts: Record<string, string | boolean>;
  lists: Record<string, string[]>;
  args: string[];
  rest: string[];
};

export function parse(argv: string[], spec: OptionSpec): Parsed {
  const opts: Record<string, string | boolean> = {};
  const lists: Record<string, string[]> = {};
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") return { opts, lists, args, rest: argv.slice(i + 1) };
    const long = /^--([a-z-]+)(?:=(.*))?$/.exec(a);
    const short = /^-([a-z])$/.exec(a);
    const name = long
      ? long[1]!
      : short
        ? Object.entries(spec).find(([, s]) => s.short === short[1])?.[0]
        : undefined;
    if (!long && !short) {
      args.push(a);
      continue;
    }
    if (!name || !spec[name]) throw usage(`Unknown option ${a}`);
    if (!spec[name].value) {
      if (long?.[2] !== undefined) throw usage(`--${name} takes no value`);
      opts[name] = true;
      continue;
    }
    const value = long?.[2] ?? argv[++i];
    if (value === undefined) throw usage(`--${name} needs a value`);
    opts[name] = value;
    if (spec[name].many) (lists[name] ??= []).push(value);
  }
  return { opts, lists, args, rest: [] };
}

const out = (text: string) => process.stdout.write(text);
const entries = (n: number) => `${n} ${n === 1 ? "entry" : "entries"}`;
const say = (line: string) => process.stderr.write(`${line}\n`);
const printJson = (value: unknown) => out(`${JSON.stringify(value, null, 2)}\n`);

type Listed = { id: string; name: string; website: string | null };
const table = (rows: Listed[]) =>
  rows.map((r) => `${r.name}\t${r.website ?? ""}\t${r.id}\n`).join("");

function exactArgs(args: string[], n: number, name: string) {
  if (args.length !== n) throw usage(`Usage: ${COMMANDS[name]!.usage}`);
}

async function dispatch(name: string, p: Parsed): Promise<number> {
  const { opts, args } = p;
  const json = opts.json === true;
  switch (name) {
    case "login": {
      exactArgs(args, 0, name);
      const r = await commands.login(opts);
      if (json) printJson(r);
      else
        out(
          `Signed in to ${r.server} as ${r.user.email ?? r.user.id}${r.device ? ` (device "${r.device.name}")` : ""}\n`,
        );
      return EXIT.OK;
    }
    case "logout":
      exactArgs(args, 0, name);
      await commands.logout();
      out("Signed out\n");
      return EXIT.OK;
    case "status": {
      exactArgs(args, 0, name);
      const s = await commands.status();
      if (json) printJson(s);
      else if (!s.signedIn) out("Not signed in\n");
      else
        out(
          `Signed in to ${s.server} as ${s.user.email ?? s.user.id}\n${s.unlocked ? `Unlocked: ${s.entries} entries, locks at ${s.lockAt} if idle` : "Locked"}\n`,
        );
      return !s.signedIn ? EXIT.SIGNED_OUT : s.unlocked ? EXIT.OK : EXIT.LOCKED;
    }
    case "unlock": {
      exactArgs(args, 0, name);
      const r = await commands.unlock(opts);
      if (json) printJson(r);
      else out(`Unlocked: ${r.entries} entries\n`);
      return EXIT.OK;
    }
    case "lock":
      exactArgs(args, 0, name);
      await commands.lock();
      out("Locked\n");
      return EXIT.OK;
    case "sync": {
      exactArgs(args, 0, name);
      const r = await ask({ op: "sync" });
      if (json) printJson({ entries: r.entries });
      else out(`Synced: ${r.entries} entries\n`);
      return EXIT.OK;
    }
    case "list":
    case "search": {
      exactArgs(args, name === "list" ? 0 : 1, name);
      const r = await ask(name === "list" ? { op: "list" } : { op: "search", query: args[0]! });
      const rows = r.entries as Listed[];
      if (json) printJson(rows);
      else out(table(rows));
      return name === "search" && rows.length === 0 ? EXIT.NOT_FOUND : EXIT.OK;
    }
    case "get": {
      exactArgs(args, 1, name);
      if (typeof opts.attachment === "string") {
        const r = await commands.getAttachment(args[0]!, opts);
        if (json) printJson(r);
        else out(`Saved ${r.attachment} (${r.bytes} bytes) to ${r.file}\n`);
        return EXIT.OK;
      }
      if (opts.output !== undefined || opts.force !== undefined)
        throw usage("--output and --force go with --attachment");
      const value = await commands.get(args[0]!, opts);
      if (json) printJson({ value });
      else out(process.stdout.isTTY ? `${value}\n` : value);
      return EXIT.OK;
    }
    case "generate": {
      exactArgs(args, 0, name);
      const value = commands.generate(opts);
      if (json) printJson({ value });
      else out(`${value}\n`);
      return EXIT.OK;
    }
    case "create":
    case "edit": {
      exactArgs(args, 1, name);
      const fields = await fieldsOf(opts);
      const r = await ask(
        name === "create"
          ? { op: "create", name: args[0]!, fields }
          : { op: "edit", entry: args[0]!, fields },
      );
      const entry = r.entry as Listed;
      if (json) printJson(entry);
      else out(`${name === "create" ? "Created" : "Saved"} ${entry.name}\t${entry.id}\n`);
      return EXIT.OK;
    }
    case "delete": {
      exactArgs(args, 1, name);
      const entry = (await ask({ op: "delete", entry: args[0]! })).entry as Listed;
      if (json) printJson(entry);
      else out(`Deleted ${entry.name}\t${entry.id}\n`);
      return EXIT.OK;
    }
    case "export": {
      exactArgs(args, 0, name);
      const { result, text } = await exportVault(opts);
      if (text !== null) out(text);
      else if (json) printJson(result);
      else out(`Exported ${entries(result.entries)} to ${result.file}\n`);
      if (result.unreadable) say(`${entries(result.unreadable)} did not open and are not in it`);
      if (result.leftOut) say(`Left out: ${result.leftOut}`);
      return EXIT.OK;
    }
    case "import": {
      exactArgs(args, 1, name);
      const tty = process.stderr.isTTY;
      const r = await importFile(args[0]!, opts, (done, total) => {
        if (tty) process.stderr.write(`\rImporting: ${done} of ${total}`);
        if (tty && done === total) process.stderr.write("\n");
      });
      if (json) printJson(r);
      else {
        out(`Imported ${entries(r.imported)} from ${r.file} (${r.format})\n`);
        if (r.kinds) out(`By kind: ${r.kinds}\n`);
        for (const s of r.skipped) out(`Skipped ${s.name}: ${s.reason}\n`);
        for (const e of r.errors) out(`Failed: ${e}\n`);
      }
      return r.errors.length ? EXIT.SERVER : EXIT.OK;
    }
    case "ssh-agent": {
      exactArgs(args, 0, name);
      const path = typeof opts.socket === "string" ? opts.socket : defaultSshSocket();
      const confirm = opts.confirm === true;
      if (!opts.foreground) await startSshAgent(path, confirm);
      out(`SSH_AUTH_SOCK=${path}; export SSH_AUTH_SOCK;\n`);
      if (opts.foreground)
        await runSshAgent(path, (line) => process.stderr.write(`${line}\n`), confirm);
      return EXIT.OK;
    }
    case "link":
      return link(p);
    case "token":
      return token(p);
    case "run":
      exactArgs(args, 0, name);
      return runWith(p.rest, {
        mask: opts["no-masking"] !== true,
        reason: typeof opts.reason === "string" ? opts.reason : null,
      });
    case "inject": {
      exactArgs(args, 0, name);
      const filled = await inject(
        typeof opts.in === "string" ? opts.in : null,
        typeof opts.out === "string" ? opts.out : null,
        typeof opts.reason === "string" ? opts.reason : null,
      );
      if (filled !== null) out(filled);
      return EXIT.OK;
    }
  }
  throw usage(`Unknown command ${name}`);
}

async function token({ opts, args }: Parsed): Promise<number> {
  const json = opts.json === true;
  const [sub, ...more] = args;
  if (sub === "create") {
    const r = await createToken(more, opts);
    if (json) printJson(r);
    else {
      say(`Token "${r.name}" for ${r.vault}, read-only, expires ${r.expires_at}. Shown only now:`);
      out(`${r.token}\n`);
    }
    return EXIT.OK;
  }
  if (sub === "list" && more.length === 0) {
    const tokens = await listTokens();
    if (json) printJson(tokens);
    else
      out(
        tokens
          .map(
            (t) =>
              `${t.id}\t${t.name}\t${t.state}${t.revoked_reason ? ` (${t.revoked_reason})` : ""}\texpires ${t.expires_at}\tlast used ${t.last_used_at ?? "never"}\n`,
          )
          .join(""),
      );
    return EXIT.OK;
  }
  if (sub === "revoke" && more.length === 1) {
    const t = await revokeToken(more[0]!);
    if (json) printJson(t);
    else out(`Revoked ${t.name}\t${t.id}\n`);
    return EXIT.OK;
  }
  if (sub === "reads" && more.length === 0) {
    const reads = await tokenReads(opts);
    if (json) printJson(reads);
    else
      out(
        reads
          .map((r) => `${r.created_at}\t${r.token_name}\t${r.entries}\t${r.reason ?? ""}\n`)
          .join(""),
      );
    return EXIT.OK;
  }
  throw usage(`Usage: ${COMMANDS.token!.usage}`);
}

async function link({ opts, lists, args }: Parsed): Promise<number> {
  const json = opts.json === true;
  const revoke = typeof opts.revoke === "string" ? opts.revoke : undefined;
  if (opts.list || revoke !== undefined) {
    if (args.length || (opts.list && revoke !== undefined))
      throw usage("--list and --revoke take nothing else");
    if (revoke !== undefined) {
      const r = await revokeLink(revoke);
      if (json) printJson(r);
      else out(`Revoked ${r.id}\n`);
      return EXIT.OK;
    }
    const r = await listLinks();
    if (json) printJson(r);
    else
      out(
        r.links
          .map(
            (l) =>
              `${l.id}\t${l.kind}\t${l.state}\t${l.views_used}/${l.max_views} views\texpires ${l.expires_at}${l.label ? `\t${l.label}` : ""}\n`,
          )
          .join(""),
      );
    return EXIT.OK;
  }
  const r = await makeLink(args, opts, lists);
  if (json) printJson(r);
  else out(`${r.url}\n`);
  return EXIT.OK;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === "__agent") {
    await runAgent();
    return -1;
  }
  if (!name || name === "--help" || name === "-h" || name === "help") {
    const topic = rest[0];
    out(topic && COMMANDS[topic] ? commandHelp(topic) : mainHelp());
    return EXIT.OK;
  }
  if (name === "--version") {
    out("vault 0.1.0\n");
    return EXIT.OK;
  }
  const json = rest.includes("--json");
  try {
    const spec = COMMANDS[name];
    if (!spec) throw usage(`Unknown command "${name}": see vault --help`);
    const p = parse(rest, spec.options);
    if (p.opts.help) {
      out(commandHelp(name));
      return EXIT.OK;
    }
    if (p.rest.length && name !== "run") throw usage(`vault ${name} takes nothing after --`);
    return await dispatch(name, p);
  } catch (e) {
    const f = e instanceof CliError ? e : (await import("./agent")).failureOf(e);
    if (json) printJson({ error: f.message, code: f.code });
    process.stderr.write(`vault: ${f.message}\n`);
    return f.exitCode;
  }
}
