/**
 * The command line as a person runs it, against a real local worker and OpenID provider: each
 * call is the real `vault` (cli/bin/vault.mjs) in a child process, with its configuration and
 * agent folders of this file's own, and the provider's login page filled by plain HTTP requests
 * (a browser's part in RFC 8252's flow: follow redirects, keep cookies, post the form).
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "../../scripts/lib/dev-identity.mjs";

export const VAULT_BIN = join(ROOT, "cli", "bin", "vault.mjs");

export type Run = { code: number; stdout: string; stderr: string };

export type CliEnv = Record<string, string>;

/**
 * Starts `vault <args>`. `fd3` is written to file descriptor 3 (for --passphrase-fd 3) and closed;
 * `onStderr` sees the error stream as it arrives (the sign-in address is printed there).
 */
export function vault(
  env: CliEnv,
  args: string[],
  opts: { fd3?: string; onStderr?: (text: string) => void; extraEnv?: CliEnv } = {},
): Promise<Run> {
  const child = spawn(process.execPath, [VAULT_BIN, ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: env.VAULT_CLI_HOME!, ...env, ...opts.extraEnv },
    stdio: ["ignore", "pipe", "pipe", "pipe"],
  });
  const fd3 = child.stdio[3] as NodeJS.WritableStream;
  if (opts.fd3 !== undefined) fd3.end(opts.fd3);
  else fd3.end();
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => {
    stderr += d;
    opts.onStderr?.(stderr);
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/**
 * A browser's part in a sign-in, by plain HTTP: follows redirects keeping cookies, fills the
 * provider's login page with `email` and `password`, sends any other form (the device grant's
 * code and confirm pages) as its hidden fields hold it, and ends at a page with no form (the
 * device grant's success page) or at the command line's loopback port, which it then calls.
 */
export async function signInAtProvider(startUrl: string, email: string, password: string) {
  const jar = new Map<string, string>();
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const go = async (url: string, form?: Record<string, string>) => {
    const res = await fetch(url, {
      method: form ? "POST" : "GET",
      redirect: "manual",
      headers: {
        cookie: cookie(),
        ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const at = pair!.indexOf("=");
      jar.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    return res;
  };
  const trail: string[] = [];
  let url = startUrl;
  let res = await go(url);
  for (let hops = 0; hops < 20; hops++) {
    const location = res.headers.get("location");
    trail.push(`${res.status} ${url}`);
    if (location) {
      url = new URL(location, url).href;
      // The loopback redirect: the command line's own listener takes it from here.
      if (url.startsWith("http://127.0.0.1:") && new URL(url).pathname === "/callback") {
        const done = await fetch(url);
        return { status: done.status, url, body: await done.text() };
      }
      res = await go(url);
      continue;
    }
    const html = await res.text();
    const form = /<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/.exec(html);
    if (res.status !== 200 && res.status !== 401)
      throw new Error(`sign-in stopped: ${trail.join("\n")}\n${html.slice(0, 300)}`);
    if (!form) return { status: res.status, url, body: html };
    const fields: Record<string, string> = {};
    for (const m of form[2]!.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g))
      fields[m[1]!] = m[2]!;
    if (/name="password"/.test(form[2]!)) Object.assign(fields, { email, password });
    url = new URL(form[1]!, url).href;
    res = await go(url, fields);
  }
  throw new Error(`too many steps: ${trail.join("\n")}`);
}

/** Waits until `text()` matches `re` (the child prints as it goes), then gives the match. */
export async function waitFor(
  text: () => string,
  re: RegExp,
  ms = 60_000,
): Promise<RegExpExecArray> {
  for (const until = Date.now() + ms; Date.now() < until; ) {
    const m = re.exec(text());
    if (m) return m;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`never printed ${re}: ${text()}`);
}
