import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
// @ts-expect-error plain ESM helper shared with bench/reset.mjs
import { startResetSite } from "./reset-site-lib.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    resetSiteOrigin: string;
    resetImap: { port: number; user: string; password: string; mailboxes: Record<string, string> };
  }
}

export const RESET_MAILBOX_USER = "reset-owner@example.test";
/**
 * One mailbox per test file that reads reset mail: the watcher takes any fresh mail from the
 * site's sender, so two files sharing a mailbox could take each other's messages.
 */
const FILE_MAILBOXES = { chat: "reset-chat@example.test", otp: "reset-otp@example.test" };

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

/** A private Dovecot (shared/recipes/dovecot-imap-test.conf) holding the reset mailbox. */
async function startDovecot(users: string[], password: string) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "reset-imap-"));
  for (const sub of ["run", "mail"]) mkdirSync(join(dir, sub), { recursive: true });
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, "users"), users.map((u) => `${u}:{PLAIN}${password}::::::\n`).join(""), { mode: 0o644 });
  writeFileSync(
    join(dir, "dovecot.conf"),
    `protocols = imap
listen = 127.0.0.1
base_dir = ${dir}/run
state_dir = ${dir}/run
log_path = ${dir}/dovecot.log
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:${dir}/mail/%u
default_internal_user = dovecot
default_login_user = dovenull
default_internal_group = dovecot
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/users
}
userdb {
  driver = static
  args = uid=dovecot gid=dovecot home=${dir}/mail/%u
}
service imap-login {
  inet_listener imap {
    port = ${port}
  }
}
service anvil {
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
first_valid_uid = 0
`,
  );
  const maildirs = new Map(users.map((u) => [u, join(dir, "mail", u)]));
  const uid = Number(execFileSync("id", ["-u", "dovecot"]).toString().trim());
  const gid = Number(execFileSync("id", ["-g", "dovecot"]).toString().trim());
  chownSync(join(dir, "mail"), uid, gid);
  for (const maildir of maildirs.values()) {
    for (const sub of ["new", "cur", "tmp"]) mkdirSync(join(maildir, sub), { recursive: true });
    execFileSync("chown", ["-R", `${uid}:${gid}`, maildir]);
  }
  const r = spawnSync("/usr/sbin/dovecot", ["-c", join(dir, "dovecot.conf")], { stdio: "ignore" });
  if (r.status !== 0) throw new Error(`dovecot failed to start (exit ${r.status})`);
  for (let i = 0; i < 50; i++) {
    const up = await new Promise<boolean>((res) => {
      const s = new Socket();
      s.once("connect", () => (s.destroy(), res(true)));
      s.once("error", () => res(false));
      s.connect(port, "127.0.0.1");
    }).catch(() => false);
    if (up) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  return {
    port,
    maildirs,
    stop() {
      const pidFile = join(dir, "run", "master.pid");
      if (existsSync(pidFile)) {
        try {
          process.kill(Number(readFileSync(pidFile, "utf8").trim()));
        } catch {}
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** vitest globalSetup: the local website whose forgot-password form mails into a real Dovecot. */
export default async function setup(project: TestProject) {
  const password = randomBytes(12).toString("base64url");
  const dovecot = await startDovecot([RESET_MAILBOX_USER, ...Object.values(FILE_MAILBOXES)], password);
  const site = await startResetSite({ mailboxFor: (email: string) => dovecot.maildirs.get(email) ?? null });
  project.provide("resetSiteOrigin", site.origin);
  project.provide("resetImap", { port: dovecot.port, user: RESET_MAILBOX_USER, password, mailboxes: FILE_MAILBOXES });
  return async () => {
    await site.stop();
    dovecot.stop();
  };
}
