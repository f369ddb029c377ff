import { z } from "zod";

/** Base64url (RFC 4648 section 5) of exactly `n` bytes; browsers give PushSubscription keys unpadded. */
const base64urlOf = (n: number, what: string) =>
  z.string().refine((v) => {
    if (!/^[A-Za-z0-9_-]+={0,2}$/.test(v)) return false;
    try {
      const s = v.replace(/=+$/, "");
      return (
        atob(s.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (s.length % 4)) % 4))
          .length === n
      );
    } catch {
      return false;
    }
  }, `must be base64url of ${what}`);

/** The browser's PushSubscription.toJSON() (Push API); expirationTime is accepted and ignored. */
export const SubscribeBody = z.object({
  endpoint: z.url().max(2048),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({
    /** RFC 8291 section 3.1: the user agent's uncompressed P-256 point. */
    p256dh: base64urlOf(65, "a 65-byte P-256 point").refine(
      (v) => v.startsWith("B"),
      "must be an uncompressed P-256 point",
    ),
    /** RFC 8291 section 3.2: a 16-byte authentication secret. */
    auth: base64urlOf(16, "16 bytes"),
  }),
});

/** What a listing shows: enough to recognise a browser (its push service's host), not the capability URL. */
export const PushSubscriptionView = z.object({
  id: z.string(),
  push_service: z.string(),
  created_at: z.string(),
});
export const SubscriptionResponse = z.object({ subscription: PushSubscriptionView });
export const SubscriptionListResponse = z.object({ subscriptions: z.array(PushSubscriptionView) });
export const VapidKeyResponse = z.object({
  enabled: z.boolean(),
  public_key: z.string().nullable(),
});
export const DeletedResponse = z.object({ success: z.literal(true) });
