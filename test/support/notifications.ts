import { env } from "cloudflare:test";
import type { TestUser } from "./auth";

export function notificationBody(user: TestUser, over: Record<string, unknown> = {}) {
  return { user_id: user.id, type: "info", title: "Hello", body: "Something happened", ...over };
}

export async function createNotification(
  user: TestUser,
  over: Record<string, unknown> = {},
): Promise<Record<string, unknown> & { id: string }> {
  const res = await user.call("POST", "/api/notifications", { body: notificationBody(user, over) });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { notification: Record<string, unknown> & { id: string } })
    .notification;
}

/** Sets the read flag in the table directly, for tests about the list rather than the PATCH route. */
export async function markRead(id: string): Promise<void> {
  await env.DB.prepare("UPDATE notifications SET is_read = 1 WHERE id = ?").bind(id).run();
}
