/** Types of vapid.mjs for the TypeScript files that import it (the test configurations). */
export function vapidKeys(): { publicKey: string; privateKey: string };
export function isWholeVapidKey(privateKey: string): boolean;
