import { z } from "zod";
import { emailAddress } from "../../kernel/schemas";

export const SignInDiscoveryBody = z.object({ url: z.string().trim().min(1).max(2048) });
export const SignInDiscoveryResponse = z.object({
  methods: z.array(z.string()),
  resetUrl: z.string().nullable(),
  signupUrl: z.string().nullable(),
});

import { ClientPublicKey } from "./jwe";

export const CreateResetTaskBody = z.object({
  serviceUrl: z.string().trim().min(1).max(2048),
  email: emailAddress(320),
  passwordId: z.string().min(1).max(128).optional(),
  clientPublicKey: ClientPublicKey.optional(),
});
export const CreateResetTaskResponse = z.object({ taskId: z.string(), status: z.string() });
export const CancelTaskResponse = z.object({ taskId: z.string(), status: z.literal("cancelled") });
export const OtpBody = z.object({
  code: z
    .string()
    .trim()
    .min(1)
    .max(32)
    .regex(/^[A-Za-z0-9-]+$/, "must be letters, digits or dashes"),
});
export const OtpResponse = z.object({ accepted: z.boolean() });
const Step = z.object({
  name: z.string(),
  status: z.string(),
  duration: z.number().int().nullable(),
  launchMs: z.number().int().optional(),
});
export const JobResponse = z.object({
  id: z.string(),
  status: z.string(),
  service: z.string(),
  passwordId: z.string().nullable(),
  startedAt: z.string().nullable(),
  completedAt: z.string().nullable(),
  steps: z.array(Step),
  error: z.string().optional(),
});

/** DECISIONS D8 extended: `email` and `clientPublicKey` as for task creation, both optional. */
export const ChatResetBody = z.object({
  message: z.string().trim().min(1).max(2000),
  serviceId: z.string().trim().min(1).max(253).optional(),
  passwordId: z.string().min(1).max(128).optional(),
  email: emailAddress(320).optional(),
  clientPublicKey: ClientPublicKey.optional(),
});
