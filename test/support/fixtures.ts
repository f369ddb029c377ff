import type { TestUser } from "./auth";

const hex = (n = 64) =>
  [...crypto.getRandomValues(new Uint8Array(n / 2))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
const b64 = (n = 48) => btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(n))));

export function entryBody(over: Record<string, unknown> = {}) {
  return {
    name: "Example",
    website: "example.com",
    wrapped_item_key: b64(40),
    encrypted_data: b64(120),
    name_hash: hex(),
    username_hash: hex(),
    domain_hash: hex(),
    tags: ["work"],
    search_tokens: [hex(16)],
    strength: "strong",
    ...over,
  };
}

export async function createEntry(
  user: TestUser,
  over: Record<string, unknown> = {},
): Promise<{ id: string; body: ReturnType<typeof entryBody> }> {
  const body = entryBody(over);
  const res = await user.call("POST", "/api/passwords", { body });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${await res.text()}`);
  const json = (await res.json()) as { data: { id: string } };
  return { id: json.data.id, body };
}
