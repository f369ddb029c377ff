// A small website with a real forgot-password flow, for the reset tests and bench: the forgot
// form mails a reset link into a Maildir that Dovecot serves, the reset page checks the token and
// the password rules, and the login proves the new password.
import { randomBytes } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";

const page = (title, body) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

export const RULES = { minLength: 12, maxLength: 64 };
export function passwordOk(pw) {
  return (
    typeof pw === "string" &&
    pw.length >= RULES.minLength &&
    pw.length <= RULES.maxLength &&
    /[A-Z]/.test(pw) &&
    /[a-z]/.test(pw) &&
    /[0-9]/.test(pw)
  );
}

function readBody(req) {
  return new Promise((resolve) => {
    let s = "";
    req.on("data", (c) => (s += c));
    req.on("end", () => {
      const type = req.headers["content-type"] ?? "";
      if (type.includes("json")) {
        try {
          return resolve(JSON.parse(s || "{}"));
        } catch {
          return resolve({});
        }
      }
      resolve(Object.fromEntries(new URLSearchParams(s)));
    });
  });
}

/** Writes one multipart (text and HTML) message into a Maildir's new/ folder, owned by dovecot. */
export function deliverMail(maildir, { from, to, subject, text, html }) {
  for (const sub of ["new", "cur", "tmp"]) mkdirSync(join(maildir, sub), { recursive: true });
  const boundary = `b${randomBytes(8).toString("hex")}`;
  const msg = [
    `From: Test Site <${from}>`,
    `To: ${to}`,
    `Subject: ${subject}`,
    `Date: ${new Date().toUTCString()}`,
    `Message-ID: <${randomBytes(8).toString("hex")}@reset-site.test>`,
    "MIME-Version: 1.0",
    `Content-Type: multipart/alternative; boundary="${boundary}"`,
    "",
    `--${boundary}`,
    "Content-Type: text/plain; charset=utf-8",
    "",
    text,
    `--${boundary}`,
    "Content-Type: text/html; charset=utf-8",
    "",
    html,
    `--${boundary}--`,
    "",
  ].join("\r\n");
  const name = `${Date.now()}.M${randomBytes(4).toString("hex")}P${process.pid}.reset-site`;
  writeFileSync(join(maildir, "new", name), msg);
  try {
    execFileSync("chown", ["-R", "dovecot:dovecot", maildir]);
  } catch {}
}

export function deliverResetMail(maildir, { from, to, subject, link }) {
  deliverMail(maildir, {
    from,
    to,
    subject,
    text: `Someone asked to reset your password. Open this link: ${link}\r\nUnsubscribe: https://unsubscribe.example/none`,
    html: `<p>Someone asked to reset your password.</p><p><a href="https://help.example/faq">Help</a> <a href="${link.replace(/&/g, "&amp;")}">Reset your password</a></p>`,
  });
}

const codePage = (flow, email, error = "") =>
  page(
    "Enter your code",
    `<h1>Enter the code we sent you</h1>${error}<form method="post" action="/${flow}/verify"><input type="hidden" name="email" value="${email}"><input name="code" autocomplete="one-time-code" inputmode="numeric"><button type="submit">Continue</button></form>`,
  );

const newPasswordPage = (token) =>
  page(
    "Choose a new password",
    `<form method="post" action="/reset"><input type="hidden" name="token" value="${token}"><input type="password" name="password" autocomplete="new-password"><input type="password" name="confirm" autocomplete="new-password"><button type="submit">Set password</button></form>`,
  );

/**
 * Starts the site. `mailboxFor(email)` names the Maildir for a user's address, or null for
 * addresses whose mail is lost (the no-email failure path).
 */
export async function startResetSite({ mailboxFor, port = 0 }) {
  const users = new Map();
  const tokens = new Map();
  const codes = new Map();
  const stats = { forgotRequests: 0, resets: 0, rejected: 0, codesRejected: 0 };
  let origin = "";
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", origin);
    const send = (status, html, headers = {}) => {
      res.writeHead(status, { "content-type": "text/html; charset=utf-8", ...headers });
      res.end(html);
    };
    const json = (status, obj) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(obj));
    };
    if (req.method === "POST" && url.pathname === "/__test/users") {
      const b = await readBody(req);
      users.set(String(b.email).toLowerCase(), String(b.password));
      return json(201, { ok: true });
    }
    if (req.method === "GET" && url.pathname === "/__test/stats") return json(200, stats);
    // The mail transport's delivery into a test mailbox (the vault's mailbox check message).
    if (req.method === "POST" && url.pathname === "/__test/deliver") {
      const b = JSON.parse(
        await new Promise((r) => {
          let d = "";
          req.on("data", (c) => (d += c));
          req.on("end", () => r(d));
        }),
      );
      const box = mailboxFor(String(b.to).toLowerCase());
      if (!box) return json(404, { error: "no such mailbox" });
      deliverMail(box, {
        from: String(b.from ?? "vault@localhost"),
        to: String(b.to),
        subject: String(b.subject),
        text: String(b.text),
        html: `<pre>${String(b.text).replace(/</g, "&lt;")}</pre>`,
      });
      return json(201, { ok: true });
    }
    // The "phone" of the otp-phone flow: the code a user would read from a text message.
    if (req.method === "GET" && url.pathname === "/__test/code")
      return json(200, {
        code: codes.get(String(url.searchParams.get("email")).toLowerCase())?.code ?? null,
      });
    if (req.method === "GET" && url.pathname === "/login") {
      return send(
        200,
        page(
          "Sign in",
          `<h1>Sign in</h1>
<form method="post" action="/login"><input type="email" name="email" autocomplete="username webauthn"><input type="password" name="password"><button type="submit">Sign in</button></form>
<a href="/forgot-password">Forgot password?</a> <a href="/signup">Create an account</a>
<a href="https://accounts.google.com/o/oauth2/v2/auth?client_id=x">Continue with Google</a>
<button type="button" id="passkey">Sign in with a passkey</button>
<script>if (window.PublicKeyCredential) document.getElementById("passkey").hidden = false;</script>`,
        ),
      );
    }
    if (req.method === "GET" && url.pathname === "/plain-login") {
      return send(
        200,
        page(
          "Sign in",
          `<form><input name="username"><input type="password" name="pw"><input type="submit" value="Log in"></form><a href="/help/reset-password">Trouble signing in?</a>`,
        ),
      );
    }
    if (req.method === "GET" && url.pathname === "/redirect")
      return send(302, "", { location: url.searchParams.get("to") ?? "/login" });
    if (req.method === "GET" && url.pathname === "/not-html") return json(200, { hello: "world" });
    if (req.method === "POST" && url.pathname === "/login") {
      const b = await readBody(req);
      const ok = users.get(String(b.email ?? "").toLowerCase()) === b.password;
      return json(ok ? 200 : 401, { ok });
    }
    if (
      req.method === "GET" &&
      (url.pathname === "/forgot-password" || url.pathname === "/forgot-captcha")
    ) {
      const captcha =
        url.pathname === "/forgot-captcha"
          ? `<div class="g-recaptcha" data-sitekey="x"></div><iframe title="reCAPTCHA" src="about:blank"></iframe>`
          : "";
      return send(
        200,
        page(
          "Forgot password",
          `<h1>Reset your password</h1><form method="post" action="/forgot-password"><label>Email <input type="email" name="email"></label>${captcha}<button type="submit">Send reset link</button></form>`,
        ),
      );
    }
    if (req.method === "POST" && url.pathname === "/forgot-password") {
      stats.forgotRequests++;
      const b = await readBody(req);
      const email = String(b.email ?? "").toLowerCase();
      const box = users.has(email) ? mailboxFor(email) : null;
      if (box) {
        const token = randomBytes(16).toString("hex");
        tokens.set(token, { email, expires: Date.now() + 15 * 60_000 });
        deliverResetMail(box, {
          from: "no-reply@localhost",
          to: email,
          subject: "Reset your password",
          link: `${origin}/reset?token=${token}&utm=mail`,
        });
      }
      return send(
        200,
        page(
          "Check your email",
          "<p>If the address is registered, we sent you an email with a link.</p>",
        ),
      );
    }
    if (req.method === "GET" && url.pathname === "/reset") {
      const t = tokens.get(url.searchParams.get("token") ?? "");
      if (!t || t.expires < Date.now())
        return send(400, page("Invalid link", "<p>This link is invalid or expired.</p>"));
      return send(200, newPasswordPage(url.searchParams.get("token")));
    }
    // Code flows: /otp mails a six-digit code; /otp-phone "texts" it (the mail only says so).
    const codeFlow = /^\/(otp|otp-phone)\/(forgot|verify)$/.exec(url.pathname);
    if (codeFlow && req.method === "GET" && codeFlow[2] === "forgot") {
      return send(
        200,
        page(
          "Forgot password",
          `<h1>Reset your password</h1><form method="post" action="/${codeFlow[1]}/forgot"><label>Email <input type="email" name="email"></label><button type="submit">Send code</button></form>`,
        ),
      );
    }
    if (codeFlow && req.method === "POST" && codeFlow[2] === "forgot") {
      stats.forgotRequests++;
      const email = String((await readBody(req)).email ?? "").toLowerCase();
      const box = users.has(email) ? mailboxFor(email) : null;
      if (box) {
        const code = String(100000 + (randomBytes(4).readUInt32BE() % 900000));
        codes.set(email, { code, expires: Date.now() + 10 * 60_000 });
        const text =
          codeFlow[1] === "otp"
            ? `Your verification code is ${code}. It expires in 10 minutes.`
            : "We sent a verification code to the phone number ending in 42.";
        deliverMail(box, {
          from: "no-reply@localhost",
          to: email,
          subject: codeFlow[1] === "otp" ? "Your verification code" : "Password reset requested",
          text,
          html: `<p>${text}</p>`,
        });
      }
      return send(200, codePage(codeFlow[1], email));
    }
    if (codeFlow && req.method === "POST" && codeFlow[2] === "verify") {
      const b = await readBody(req);
      const email = String(b.email ?? "").toLowerCase();
      const want = codes.get(email);
      if (!want || want.expires < Date.now() || want.code !== String(b.code ?? "").trim()) {
        stats.codesRejected++;
        return send(
          400,
          codePage(codeFlow[1], email, "<p class=error>That code is not right.</p>"),
        );
      }
      codes.delete(email);
      const token = randomBytes(16).toString("hex");
      tokens.set(token, { email, expires: Date.now() + 15 * 60_000 });
      return send(200, newPasswordPage(token));
    }
    if (req.method === "POST" && url.pathname === "/reset") {
      const b = await readBody(req);
      const t = tokens.get(String(b.token ?? ""));
      if (!t || t.expires < Date.now())
        return send(400, page("Invalid link", "<p>This link is invalid or expired.</p>"));
      if (!passwordOk(b.password) || b.password !== b.confirm) {
        stats.rejected++;
        return send(
          400,
          page(
            "Choose a new password",
            "<p class=error>Password does not meet the requirements.</p>",
          ),
        );
      }
      tokens.delete(String(b.token));
      users.set(t.email, String(b.password));
      stats.resets++;
      return send(200, page("Password changed", "<p>Your password has been changed.</p>"));
    }
    return send(404, page("Not found", "<p>Not found</p>"));
  });
  await new Promise((r) => server.listen(port, r));
  origin = `http://localhost:${server.address().port}`;
  return {
    origin,
    port: server.address().port,
    users,
    stop: () => new Promise((r) => server.close(r)),
  };
}
