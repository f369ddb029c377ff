import { AppError, ErrorCode } from "../../lib/errors";

export type AliasProviderName = "alias_provider_a" | "alias_provider_b";
export type CreatedAlias = { id: string; email: string };
export type ProviderUrls = { a: string; b: string; bDomain: string };

const TIMEOUT_MS = 10_000;

/** Why a provider call failed, mapped to the API's codes; the key never appears in a message. */
function providerError(status: number | null, provider: AliasProviderName): AppError {
  if (status === 401 || status === 403) {
    return new AppError(
      ErrorCode.UNPROCESSABLE,
      `The email alias provider (${provider}) rejected the API key`,
      {
        details: [{ field: "emailApiKey", message: "rejected by the alias provider" }],
      },
    );
  }
  if (status === 429)
    return new AppError(
      ErrorCode.SERVICE_UNAVAILABLE,
      `The email alias provider (${provider}) is rate limiting; try again later`,
    );
  if (status !== null && status >= 400 && status < 500) {
    return new AppError(
      ErrorCode.UNPROCESSABLE,
      `The email alias provider (${provider}) refused to create an alias (HTTP ${status})`,
    );
  }
  return new AppError(
    ErrorCode.SERVICE_UNAVAILABLE,
    `The email alias provider (${provider}) is unavailable; no identity was created`,
  );
}

async function call(
  url: string,
  init: RequestInit,
  provider: AliasProviderName,
): Promise<Response> {
  try {
    return await fetch(url, {
      ...init,
      signal: AbortSignal.timeout(TIMEOUT_MS),
      redirect: "manual",
    });
  } catch {
    throw providerError(null, provider);
  }
}

async function json(res: Response): Promise<Record<string, unknown> | null> {
  try {
    const v = await res.json();
    return v && typeof v === "object" ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const base = (u: string) => u.replace(/\/+$/, "");

/** SimpleLogin's API: key in the `Authentication` header; POST /api/alias/random/new returns 201 {id, email, …}. */
async function createA(
  urls: ProviderUrls,
  apiKey: string,
  note: string | undefined,
  hostname: string | undefined,
): Promise<CreatedAlias> {
  const qs = hostname ? `?hostname=${encodeURIComponent(hostname)}` : "";
  const res = await call(
    `${base(urls.a)}/api/alias/random/new${qs}`,
    {
      method: "POST",
      headers: { Authentication: apiKey, "content-type": "application/json" },
      body: JSON.stringify(note ? { note } : {}),
    },
    "alias_provider_a",
  );
  if (res.status !== 201 && res.status !== 200) throw providerError(res.status, "alias_provider_a");
  const body = await json(res);
  if (
    !body ||
    typeof body.email !== "string" ||
    (typeof body.id !== "number" && typeof body.id !== "string")
  ) {
    throw providerError(null, "alias_provider_a");
  }
  return { id: String(body.id), email: body.email };
}

/** addy.io's API: Bearer token; POST /api/v1/aliases returns 201 {data: {id, email, active, …}}. */
async function createB(
  urls: ProviderUrls,
  apiKey: string,
  description: string | undefined,
): Promise<CreatedAlias> {
  const res = await call(
    `${base(urls.b)}/api/v1/aliases`,
    {
      method: "POST",
      headers: {
        authorization: `Bearer ${apiKey}`,
        "content-type": "application/json",
        accept: "application/json",
        "x-requested-with": "XMLHttpRequest",
      },
      body: JSON.stringify({
        domain: urls.bDomain,
        format: "random_characters",
        ...(description ? { description } : {}),
      }),
    },
    "alias_provider_b",
  );
  if (res.status !== 201 && res.status !== 200) throw providerError(res.status, "alias_provider_b");
  const data = (await json(res))?.data as Record<string, unknown> | undefined;
  if (!data || typeof data.email !== "string" || typeof data.id !== "string")
    throw providerError(null, "alias_provider_b");
  return { id: data.id, email: data.email };
}

export async function createAlias(
  provider: AliasProviderName,
  urls: ProviderUrls,
  apiKey: string,
  opts: { note?: string; hostname?: string },
): Promise<CreatedAlias> {
  return provider === "alias_provider_a"
    ? createA(urls, apiKey, opts.note, opts.hostname)
    : createB(urls, apiKey, opts.note);
}

export type DisableOutcome = "disabled" | "gone";

/**
 * Turns the alias off so mail to it stops. SimpleLogin only offers a toggle, so its state is read
 * first; addy.io has an explicit "deactivate". A key the provider no longer accepts, or an alias it
 * no longer has, cannot be acted on and reports "gone"; an outage throws so nothing is destroyed yet.
 */
export async function disableAlias(
  provider: AliasProviderName,
  urls: ProviderUrls,
  apiKey: string,
  aliasId: string,
): Promise<DisableOutcome> {
  const id = encodeURIComponent(aliasId);
  if (provider === "alias_provider_a") {
    const headers = { Authentication: apiKey };
    const got = await call(`${base(urls.a)}/api/aliases/${id}`, { headers }, provider);
    if ([401, 403, 404].includes(got.status)) return "gone";
    if (!got.ok) throw providerError(got.status >= 500 ? got.status : null, provider);
    const alias = await json(got);
    if (alias?.enabled === false) return "disabled";
    const toggled = await call(
      `${base(urls.a)}/api/aliases/${id}/toggle`,
      { method: "POST", headers },
      provider,
    );
    if ([401, 403, 404].includes(toggled.status)) return "gone";
    if (!toggled.ok || (await json(toggled))?.enabled !== false)
      throw providerError(null, provider);
    return "disabled";
  }
  const res = await call(
    `${base(urls.b)}/api/v1/active-aliases/${id}`,
    {
      method: "DELETE",
      headers: {
        authorization: `Bearer ${apiKey}`,
        accept: "application/json",
        "x-requested-with": "XMLHttpRequest",
      },
    },
    provider,
  );
  if ([401, 403, 404].includes(res.status)) return "gone";
  if (res.status !== 204 && !res.ok) throw providerError(null, provider);
  return "disabled";
}
