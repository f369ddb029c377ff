import { env } from "cloudflare:test";
import { compactDecrypt, exportJWK, generateKeyPair } from "jose";
import { TestUser, type TokenOptions } from "../support/auth";
import { fingerprint, register } from "../support/devices";
import { proveMailbox, resetSiteDelivery } from "../support/imap-proof";

export const site = env.TEST_RESET_SITE;
export const imap = JSON.parse(env.TEST_RESET_IMAP) as {
  port: number;
  user: string;
  password: string;
  mailboxes: { chat: string; otp: string; silent: string; cancel: string };
};

/**
 * A user who may start resets (DECISIONS D17): signed in just now, calling from a device they
 * registered. `TestUser.create` options pass through (an `authAge` makes the sign-in stale).
 */
export async function resetUser(opts: TokenOptions = {}): Promise<TestUser> {
  const user = await TestUser.create(opts);
  const fp = fingerprint();
  // A new device takes a recent sign-in (docs/decisions/hardening.md, "Hardening: devices, cookies, push,
  // contact keys"): the device was registered at a fresh sign-in, whatever the user's token says now.
  await register(await TestUser.create({ ...opts, sub: user.id, authAge: 10 }), {
    fingerprint: fp,
  });
  user.defaultHeaders["x-device-fingerprint"] = fp;
  return user;
}

/**
 * `address` picks the Dovecot mailbox: each file that reads reset mail has its own. The mailbox
 * check is finished too (the check message delivered and read back), unless `prove` is false.
 */
export async function connectMailbox(
  user: TestUser,
  address = imap.user,
  prove = true,
): Promise<void> {
  const res = await user.call("POST", "/api/integrations/imap/connect", {
    body: {
      host: "127.0.0.1",
      port: imap.port,
      username: address,
      password: imap.password,
      tls: false,
    },
  });
  if (res.status !== 200) throw new Error(`imap connect failed: ${res.status} ${await res.text()}`);
  if (prove) await proveMailbox(user, address, resetSiteDelivery(site));
}

export async function clientKeys() {
  const { publicKey, privateKey } = await generateKeyPair("ECDH-ES", {
    crv: "P-256",
    extractable: true,
  });
  return {
    publicJwk: await exportJWK(publicKey),
    open: async (jwe: string) =>
      new TextDecoder().decode((await compactDecrypt(jwe, privateKey)).plaintext),
  };
}

export type SseEvent = { event: string; data: Record<string, unknown> };

/** Reads server-sent events until a terminal status or the timeout; `onEvent` may act as each arrives. */
export async function readStream(
  res: Response,
  timeoutMs = 60_000,
  onEvent?: (e: SseEvent) => Promise<void>,
): Promise<SseEvent[]> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const dec = new TextDecoder();
  const events: SseEvent[] = [];
  let buf = "";
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { done, value } = await Promise.race([
      reader.read(),
      new Promise<{ done: true; value: undefined }>((r) =>
        setTimeout(() => r({ done: true, value: undefined }), deadline - Date.now()),
      ),
    ]);
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let i: number;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const chunk = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const ev = /^event: (.*)$/m.exec(chunk)?.[1] ?? "message";
      const data = JSON.parse(/^data: (.*)$/m.exec(chunk)?.[1] ?? "{}");
      events.push({ event: ev, data });
      await onEvent?.({ event: ev, data });
      if (ev === "status" && ["completed", "failed", "cancelled"].includes(String(data.status))) {
        await reader.cancel().catch(() => undefined);
        return events;
      }
    }
  }
  await reader.cancel().catch(() => undefined);
  return events;
}

export type ChatSection = { kind: string; lines: string[] };

/** Reads the chat wire format (event: section, then one data line per markdown line) to the end. */
export async function readChat(
  res: Response,
  timeoutMs = 60_000,
): Promise<{ sections: ChatSection[]; raw: string }> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const dec = new TextDecoder();
  let raw = "";
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { done, value } = await Promise.race([
      reader.read(),
      new Promise<{ done: true; value: undefined }>((r) =>
        setTimeout(() => r({ done: true, value: undefined }), deadline - Date.now()),
      ),
    ]);
    if (done) break;
    raw += dec.decode(value, { stream: true });
  }
  await reader.cancel().catch(() => undefined);
  const sections: ChatSection[] = [];
  for (const frame of raw.split("\n\n").filter(Boolean)) {
    const event = /^event: (.*)$/m.exec(frame)?.[1] ?? "message";
    const data = /^data: (.*)$/m.exec(frame)?.[1] ?? "";
    if (event === "section") sections.push({ kind: data, lines: [] });
    else if (sections.length) sections[sections.length - 1].lines.push(data);
    else throw new Error(`markdown line before any section: ${data}`);
  }
  return { sections, raw };
}
