// A private Dovecot (shared/recipes/dovecot-imap-test.conf) for tests and benches, plain ESM so
// bench scripts can use it too. Mailboxes are written as Maildir files directly (fast: no SMTP).
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  appendFileSync,
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export async function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

async function waitForPort(port) {
  for (let i = 0; i < 50; i++) {
    const up = await new Promise((res) => {
      const s = new Socket();
      s.once("connect", () => (s.destroy(), res(true)));
      s.once("error", () => res(false));
      s.connect(port, "127.0.0.1");
    });
    if (up) return;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error(`dovecot did not listen on ${port}`);
}

const ids = () => ({
  uid: Number(execFileSync("id", ["-u", "dovecot"]).toString().trim()),
  gid: Number(execFileSync("id", ["-g", "dovecot"]).toString().trim()),
});

/**
 * Starts Dovecot on a free loopback port. `users` is [{user, password}]; more can be added later
 * with addUser (passwd-file is re-read when it changes). Children run with stdio ignored so the
 * test runner never waits on them.
 */
export async function startDovecot({ users = [], prefix = "imap-", port = 0 } = {}) {
  port ||= await freePort();
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const sub of ["run", "mail"]) mkdirSync(join(dir, sub), { recursive: true });
  chmodSync(dir, 0o755);
  const passdb = join(dir, "users");
  writeFileSync(passdb, "", { mode: 0o644 });
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
  args = scheme=PLAIN username_format=%u ${passdb}
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
  const { uid, gid } = ids();
  chownSync(join(dir, "mail"), uid, gid);
  const maildirOf = (user) => join(dir, "mail", user);

  const addUser = (user, password, messages = []) => {
    const maildir = maildirOf(user);
    for (const sub of ["new", "cur", "tmp"]) mkdirSync(join(maildir, sub), { recursive: true });
    writeMaildir(maildir, messages);
    execFileSync("chown", ["-R", `${uid}:${gid}`, maildir]);
    appendFileSync(passdb, `${user}:{PLAIN}${password}::::::\n`);
  };
  for (const u of users) addUser(u.user, u.password, u.messages ?? []);

  const r = spawnSync("/usr/sbin/dovecot", ["-c", join(dir, "dovecot.conf")], { stdio: "ignore" });
  if (r.status !== 0) throw new Error(`dovecot failed to start (exit ${r.status})`);
  await waitForPort(port);
  return {
    port,
    dir,
    maildirOf,
    addUser,
    /** Replaces a mailbox's messages (Dovecot notices the Maildir change on the next session). */
    replaceMessages(user, messages) {
      const maildir = maildirOf(user);
      for (const sub of ["new", "cur"])
        rmSync(join(maildir, sub), { recursive: true, force: true });
      for (const sub of ["new", "cur"]) mkdirSync(join(maildir, sub), { recursive: true });
      writeMaildir(maildir, messages);
      execFileSync("chown", ["-R", `${uid}:${gid}`, maildir]);
    },
    /** Adds messages to a mailbox, keeping those there (a delivery). */
    appendMessages(user, messages) {
      const maildir = maildirOf(user);
      for (const sub of ["new", "cur"]) mkdirSync(join(maildir, sub), { recursive: true });
      writeMaildir(maildir, messages);
      execFileSync("chown", ["-R", `${uid}:${gid}`, maildir]);
    },
    /** Resolves once the master process has gone, so the port can be used again at once. */
    async stop() {
      const pidFile = join(dir, "run", "master.pid");
      if (existsSync(pidFile)) {
        try {
          const pid = Number(readFileSync(pidFile, "utf8").trim());
          process.kill(pid);
          for (let i = 0; i < 50; i++) {
            process.kill(pid, 0);
            await new Promise((res) => setTimeout(res, 100));
          }
        } catch {}
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let seq = 0;

/** An RFC 5322 message; `body` defaults to a marker the no-body proof looks for. */
export function rfc822({
  from,
  to = "owner@example.test",
  subject,
  date = new Date(),
  body = "BODY-MARKER do not read",
}) {
  return [
    `From: ${from}`,
    `To: ${to}`,
    `Subject: ${subject}`,
    `Date: ${new Date(date).toUTCString()}`,
    `Message-ID: <${randomBytes(8).toString("hex")}@test>`,
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=utf-8",
    "",
    body,
    "",
  ].join("\r\n");
}

/** Writes messages into cur/ unseen (`:2,` with no flags), in order so UIDs follow the array. */
export function writeMaildir(maildir, messages) {
  const base = Math.floor(Date.now() / 1000);
  messages.forEach((m, i) => {
    const name = `${base + i}.M${++seq}P${process.pid}.test:2,`;
    writeFileSync(join(maildir, "cur", name), typeof m === "string" ? m : rfc822(m));
  });
}

/**
 * A TCP proxy in front of Dovecot that records every command line a client sends, keyed by the
 * user of the session's LOGIN (the password is not kept). Tests use it to prove what was fetched.
 */
export async function startRecordingProxy(targetPort) {
  const sessions = [];
  const sockets = new Set();
  const server = createServer((client) => {
    const session = { user: null, commands: [] };
    sessions.push(session);
    const upstream = new Socket();
    sockets.add(client);
    sockets.add(upstream);
    let pending = "";
    client.on("data", (chunk) => {
      pending += chunk.toString("latin1");
      let i;
      while ((i = pending.indexOf("\r\n")) >= 0) {
        const line = pending.slice(0, i);
        pending = pending.slice(i + 2);
        const login = /^\S+ LOGIN "((?:[^"\\]|\\.)*)"/i.exec(line);
        if (login) session.user = login[1].replace(/\\(.)/g, "$1");
        session.commands.push(login ? line.replace(/LOGIN .*/i, "LOGIN <redacted>") : line);
      }
      upstream.write(chunk);
    });
    upstream.on("data", (d) => client.write(d));
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("close", end);
    upstream.on("close", end);
    client.on("error", end);
    upstream.on("error", end);
    upstream.connect(targetPort, "127.0.0.1");
  });
  await new Promise((res) => server.listen(0, "127.0.0.1", res));
  return {
    port: server.address().port,
    commandsFor: (user) => sessions.filter((s) => s.user === user).flatMap((s) => s.commands),
    close: () =>
      new Promise((res) => {
        for (const s of sockets) s.destroy();
        server.close(() => res());
      }),
  };
}
