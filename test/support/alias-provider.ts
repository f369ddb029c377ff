import { env } from "cloudflare:test";

export type ProviderAlias = {
  id: number;
  uuid: string;
  email: string;
  enabled: boolean;
  note: string | null;
  hostname: string | null;
};
export type ProviderState = { aliases: ProviderAlias[]; calls: { method: string; path: string }[] };

/** A fresh account at the local alias provider; "down" makes every API call answer 500. */
export async function providerAccount(mode: "ok" | "down" = "ok"): Promise<string> {
  const res = await fetch(`${env.TEST_ALIAS_PROVIDER_URL}/__control/accounts`, {
    method: "POST",
    body: JSON.stringify({ mode }),
  });
  return ((await res.json()) as { apiKey: string }).apiKey;
}

export async function providerState(apiKey: string): Promise<ProviderState> {
  const res = await fetch(`${env.TEST_ALIAS_PROVIDER_URL}/__control/accounts/${apiKey}`);
  return (await res.json()) as ProviderState;
}

export async function setProviderMode(apiKey: string, mode: "ok" | "down"): Promise<void> {
  await fetch(`${env.TEST_ALIAS_PROVIDER_URL}/__control/accounts/${apiKey}`, {
    method: "PATCH",
    body: JSON.stringify({ mode }),
  });
}
