import { env } from "cloudflare:test";

/** Lists these passwords as breached at the local Pwned Passwords stand-in; returns their SHA-1s. */
export async function breachPasswords(passwords: string[], count = 42): Promise<string[]> {
  const res = await fetch(`${env.TEST_PWNED_RANGE_URL}/__control/hashes`, {
    method: "POST",
    body: JSON.stringify({ passwords, count }),
  });
  return ((await res.json()) as { hashes: string[] }).hashes;
}

/** Every request the stand-in received so far (the whole run's: filter by your own prefixes). */
export async function rangeRequests(): Promise<{ path: string; padding: string | null }[]> {
  return (
    (await (await fetch(`${env.TEST_PWNED_RANGE_URL}/__control/requests`)).json()) as {
      requests: { path: string; padding: string | null }[];
    }
  ).requests;
}

/** A prefix no other test asks for: random, so the edge cache has not seen it. */
export function freshPrefix(): string {
  return [...crypto.getRandomValues(new Uint8Array(3))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("")
    .slice(0, 5)
    .toUpperCase();
}
