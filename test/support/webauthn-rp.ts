/**
 * A relying party on loopback for passkey journeys: registers and signs in with WebAuthn through
 * @simplewebauthn/server, which verifies the attestation, the signature, the rp id hash, the origin
 * and the sign counter. Its page does what sites do: options from the server, byte strings turned
 * into ArrayBuffers, navigator.credentials.create()/get(), the result posted back as JSON.
 * `?rp=<id>` makes the page ask for another rp id (a refusal test); `?user=<name>` names the account.
 */
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type WebAuthnCredential,
} from "@simplewebauthn/server";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type RpAccount = { name: string; userId: string; credentials: WebAuthnCredential[] };

const PAGE = `<!doctype html><meta charset="utf-8"><title>Passkey site</title>
<h1>Passkey site</h1><p id="who">Signed out</p>
<button id="register">Create a passkey</button> <button id="signin">Sign in with a passkey</button> <button id="signout">Sign out</button>
<p id="status" role="status"></p>
<script>
const q = new URLSearchParams(location.search);
const user = q.get("user") || "ada";
const rp = q.get("rp");
const status = (s) => (document.getElementById("status").textContent = s);
const bin = (s) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
const b64u = (b) => btoa(String.fromCharCode(...new Uint8Array(b))).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
async function post(path, body) {
  const r = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return r.json();
}
document.getElementById("register").onclick = async () => {
  status("working");
  try {
    if (!navigator.credentials) return status("No WebAuthn on this page");
    const o = await (await fetch("/register/options?user=" + encodeURIComponent(user))).json();
    const publicKey = { ...o, challenge: bin(o.challenge), user: { ...o.user, id: bin(o.user.id) }, excludeCredentials: (o.excludeCredentials || []).map((c) => ({ ...c, id: bin(c.id) })) };
    if (rp) publicKey.rp = { ...publicKey.rp, id: rp };
    const cred = await navigator.credentials.create({ publicKey });
    const shaped = cred instanceof PublicKeyCredential && cred.response instanceof AuthenticatorAttestationResponse;
    const json = JSON.parse(JSON.stringify(cred.toJSON()));
    const body = { id: cred.id, rawId: b64u(cred.rawId), type: cred.type, clientExtensionResults: cred.getClientExtensionResults(), authenticatorAttachment: cred.authenticatorAttachment,
      response: { clientDataJSON: b64u(cred.response.clientDataJSON), attestationObject: b64u(cred.response.attestationObject), transports: cred.response.getTransports(),
        publicKey: b64u(cred.response.getPublicKey()), publicKeyAlgorithm: cred.response.getPublicKeyAlgorithm(), authenticatorData: b64u(cred.response.getAuthenticatorData()) } };
    const same = json.id === body.id && json.response.attestationObject === body.response.attestationObject;
    const r = await post("/register/verify?user=" + encodeURIComponent(user), body);
    status(r.ok ? "Registered " + user + (shaped && same ? "" : " (credential not shaped as the browser's)") : "Refused: " + r.error);
  } catch (e) { status("Error: " + e.name); }
};
document.getElementById("signin").onclick = async () => {
  status("working");
  try {
    if (!navigator.credentials) return status("No WebAuthn on this page");
    const o = await (await fetch("/login/options")).json();
    const publicKey = { ...o, challenge: bin(o.challenge), allowCredentials: (o.allowCredentials || []).map((c) => ({ ...c, id: bin(c.id) })) };
    if (rp) publicKey.rpId = rp;
    // When get() was called and when it settled (epoch ms): the passkey bench's figures.
    document.body.dataset.getStart = String(performance.timeOrigin + performance.now());
    const cred = await navigator.credentials.get({ publicKey });
    document.body.dataset.getEnd = String(performance.timeOrigin + performance.now());
    const body = { id: cred.id, rawId: b64u(cred.rawId), type: cred.type, clientExtensionResults: cred.getClientExtensionResults(),
      response: { clientDataJSON: b64u(cred.response.clientDataJSON), authenticatorData: b64u(cred.response.authenticatorData), signature: b64u(cred.response.signature), userHandle: cred.response.userHandle ? b64u(cred.response.userHandle) : undefined } };
    const r = await post("/login/verify", body);
    if (r.ok) document.getElementById("who").textContent = "Signed in as " + r.user;
    status(r.ok ? "Signed in as " + r.user + ", counter " + r.counter : "Refused: " + r.error);
  } catch (e) { status("Error: " + e.name); }
};
document.getElementById("signout").onclick = () => { document.getElementById("who").textContent = "Signed out"; status("Signed out"); };
</script>`;

async function json(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

/** A self-signed certificate for `host` (the browser is told to ignore certificate errors). */
function selfSigned(host: string): { key: Buffer; cert: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), "webauthn-rp-tls-"));
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-days",
      "2",
      "-subj",
      `/CN=${host}`,
      "-addext",
      `subjectAltName=DNS:${host}`,
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
    ],
    { stdio: "ignore" },
  );
  return { key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) };
}

/**
 * `https`: served over TLS under `rpId` (a *.test name the browser maps to loopback). `algs`: the
 * COSE algorithms it accepts, most preferred first (its pubKeyCredParams; the library's default else).
 */
export async function startWebAuthnRp(
  opts: { rpId?: string; port?: number; https?: boolean; algs?: number[] } = {},
) {
  const rpID = opts.rpId ?? "localhost";
  const scheme = opts.https ? "https" : "http";
  const accounts = new Map<string, RpAccount>();
  let challenge = "";
  let origin = "";
  const send = (res: ServerResponse, status: number, body: unknown, type = "application/json") => {
    res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
    res.end(type === "application/json" ? JSON.stringify(body) : String(body));
  };
  const handler: RequestListener = (req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", origin);
      const user = url.searchParams.get("user") ?? "ada";
      try {
        if (req.method === "GET" && url.pathname === "/")
          return send(res, 200, PAGE, "text/html; charset=utf-8");
        if (url.pathname === "/register/options") {
          const known = accounts.get(user);
          const o = await generateRegistrationOptions({
            rpName: "Passkey site",
            rpID,
            userName: user,
            excludeCredentials: known?.credentials.map((c) => ({ id: c.id })) ?? [],
            authenticatorSelection: { residentKey: "required", userVerification: "required" },
            ...(opts.algs ? { supportedAlgorithmIDs: opts.algs } : {}),
          });
          challenge = o.challenge;
          accounts.set(user, known ?? { name: user, userId: o.user.id, credentials: [] });
          return send(res, 200, o);
        }
        if (url.pathname === "/register/verify") {
          const r = await verifyRegistrationResponse({
            response: (await json(req)) as never,
            expectedChallenge: challenge,
            expectedOrigin: origin,
            expectedRPID: rpID,
            requireUserVerification: true,
          });
          if (!r.verified) return send(res, 400, { ok: false, error: "not verified" });
          accounts.get(user)!.credentials.push(r.registrationInfo.credential);
          return send(res, 200, { ok: true });
        }
        if (url.pathname === "/login/options") {
          const o = await generateAuthenticationOptions({ rpID, userVerification: "required" });
          challenge = o.challenge;
          return send(res, 200, o);
        }
        if (url.pathname === "/login/verify") {
          const body = (await json(req)) as { id: string; response: { userHandle?: string } };
          const account = [...accounts.values()].find((a) =>
            a.credentials.some((c) => c.id === body.id),
          );
          const cred = account?.credentials.find((c) => c.id === body.id);
          if (!account || !cred) return send(res, 400, { ok: false, error: "unknown credential" });
          if (body.response.userHandle !== account.userId)
            return send(res, 400, { ok: false, error: "wrong user handle" });
          const r = await verifyAuthenticationResponse({
            response: body as never,
            expectedChallenge: challenge,
            expectedOrigin: origin,
            expectedRPID: rpID,
            credential: cred,
            requireUserVerification: true,
          });
          if (!r.verified) return send(res, 400, { ok: false, error: "not verified" });
          cred.counter = r.authenticationInfo.newCounter;
          return send(res, 200, { ok: true, user: account.name, counter: cred.counter });
        }
        send(res, 404, { ok: false, error: "not found" });
      } catch (e) {
        send(res, 400, { ok: false, error: e instanceof Error ? e.message : String(e) });
      }
    })();
  };
  const server: Server = opts.https
    ? (createHttpsServer(selfSigned(rpID), handler) as unknown as Server)
    : createServer(handler);
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  origin = `${scheme}://${rpID}:${port}`;
  return {
    port,
    url: (path = "/") => `${scheme}://${rpID}:${port}${path}`,
    accounts,
    stop: () =>
      new Promise<void>((resolve) => {
        // The browser keeps connections alive: without this, close waits for them.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
