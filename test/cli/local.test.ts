/**
 * The command line's guards that need no worker: the agent's folder must be this user's alone, and
 * the loopback sign-in takes only the provider's answer to its own request (its state) and sends
 * the PKCE verifier that matches the challenge it asked with.
 */
import { createHash } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CliError } from "../../cli/errors";
import { loginWithBrowser } from "../../cli/oidc";
import { agentDir } from "../../cli/state";

const made: string[] = [];
afterEach(() => {
  delete process.env.VAULT_AGENT_DIR;
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("the agent's folder", () => {
  it("is used when only its owner may open it, and refused when others may", () => {
    const dir = mkdtempSync(join(tmpdir(), "vca-"));
    made.push(dir);
    process.env.VAULT_AGENT_DIR = dir;
    chmodSync(dir, 0o700);
    expect(agentDir()).toBe(dir);
    chmodSync(dir, 0o755);
    expect(() => agentDir()).toThrow(CliError);
    expect(() => agentDir()).toThrow(/not a folder of this user's alone/);
  });
});

describe("the loopback sign-in", () => {
  it("refuses an answer with another state, then takes the provider's and proves the verifier", async () => {
    const forms: URLSearchParams[] = [];
    const tokenServer = createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        forms.push(new URLSearchParams(body));
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ access_token: "a.b.c", refresh_token: "r", expires_in: 60 }));
      });
    });
    await new Promise<void>((r) => tokenServer.listen(0, "127.0.0.1", r));
    const port = (tokenServer.address() as AddressInfo).port;
    let printed = "";
    const login = loginWithBrowser(
      {
        issuer: "http://idp.test",
        authorization_endpoint: "http://idp.test/auth",
        token_endpoint: `http://127.0.0.1:${port}/token`,
      },
      "credential-vault-cli",
      { openBrowser: false, say: (l) => (printed += l) },
    );
    for (let i = 0; i < 200 && !printed.includes("http://idp.test/auth"); i++)
      await new Promise((r) => setTimeout(r, 10));
    const auth = new URL(/http:\/\/idp\.test\/auth\S+/.exec(printed)![0]);
    const callback = auth.searchParams.get("redirect_uri")!;
    expect(callback).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);

    const forged = await fetch(`${callback}?code=stolen&state=not-the-one`);
    expect(forged.status).toBe(400);
    expect(forms).toHaveLength(0);

    const state = auth.searchParams.get("state")!;
    const answer = await fetch(`${callback}?code=the-code&state=${state}`);
    expect(answer.status).toBe(200);
    const tokens = await login;
    tokenServer.close();
    expect(tokens).toMatchObject({ access: "a.b.c", refresh: "r" });
    expect(forms).toHaveLength(1);
    const sent = forms[0]!;
    expect(sent.get("code")).toBe("the-code");
    expect(sent.get("redirect_uri")).toBe(callback);
    const challenge = createHash("sha256").update(sent.get("code_verifier")!).digest("base64url");
    expect(challenge).toBe(auth.searchParams.get("code_challenge"));
  });
});
