import { z } from "zod";

export const SignInDiscoveryBody = z.object({ url: z.string().trim().min(1).max(2048) });
export const SignInDiscoveryResponse = z.object({ methods: z.array(z.string()), resetUrl: z.string().nullable(), signupUrl: z.string().nullable() });
