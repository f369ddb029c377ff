import { z } from "zod";

/** An email address as every endpoint accepts it (RFC 5321 caps a path at 254 octets). */
export const emailAddress = (max = 254) => z.email().max(max);

/** The spec's `{ success: true }` body of deletes and other acknowledgements. */
export const SuccessResponse = z.object({ success: z.literal(true) });
