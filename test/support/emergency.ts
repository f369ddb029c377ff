import { expect } from "vitest";
import type { TestUser } from "./auth";
import { outbox, wrappedKey } from "./recovery";

export type Contact = {
  id: string;
  owner_id: string;
  owner_email: string | null;
  contact_email: string;
  contact_user_id: string | null;
  status: string;
  wait_hours: number;
  requested_at: string | null;
  grant_at: string | null;
  granted_at: string | null;
  expires_at: string | null;
  created_at: string;
};

export function inviteBody(email: string, over: Record<string, unknown> = {}) {
  return {
    email,
    wait_hours: 48,
    wrapped_access_key: wrappedKey(),
    invite_salt: crypto.randomUUID(),
    ...over,
  };
}

/** The token from the last invitation mailed to `email`, read from the outbox. */
export async function inviteTokenFor(email: string): Promise<string> {
  const mails = (await outbox(email)).filter((m) => m.kind === "emergency.invite");
  const m = /\/emergency\/([A-Za-z0-9_-]+)/.exec(mails.at(-1)?.textBody ?? "");
  if (!m) throw new Error(`no invitation mailed to ${email}`);
  return m[1];
}

export async function invite(
  owner: TestUser,
  contact: TestUser,
  over: Record<string, unknown> = {},
) {
  const body = inviteBody(contact.email, over);
  const res = await owner.call("POST", "/api/vault/emergency", { body });
  expect(res.status).toBe(201);
  return { contact: ((await res.json()) as { contact: Contact }).contact, body };
}

export async function accepted(
  owner: TestUser,
  contact: TestUser,
  over: Record<string, unknown> = {},
) {
  const made = await invite(owner, contact, over);
  const res = await contact.call("POST", "/api/vault/emergency/accept", {
    body: { token: await inviteTokenFor(contact.email) },
  });
  expect(res.status).toBe(200);
  return made;
}

export async function requested(
  owner: TestUser,
  contact: TestUser,
  over: Record<string, unknown> = {},
) {
  const made = await accepted(owner, contact, over);
  const res = await contact.call("POST", "/api/vault/emergency/request", {
    body: { contact_id: made.contact.id },
  });
  expect(res.status).toBe(200);
  return { ...made, contact: ((await res.json()) as { contact: Contact }).contact };
}
