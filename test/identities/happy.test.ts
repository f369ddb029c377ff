import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { CA, GB, US } from "../../src/data/personas";
import { TestUser } from "../support/auth";
import { providerAccount, providerState } from "../support/alias-provider";

type Identity = Record<string, string | null> & { id: string; status: string };
const FIELDS = [
  "address_city",
  "address_country",
  "address_line1",
  "address_state",
  "address_zip",
  "created_at",
  "date_of_birth",
  "display_name",
  "email_alias",
  "first_name",
  "gender",
  "id",
  "label",
  "last_name",
  "notes",
  "phone_number",
  "status",
  "used_for_service",
  "user_id",
  "username",
];

async function create(user: TestUser, body: Record<string, unknown> = {}) {
  const res = await user.call("POST", "/api/identities", { body });
  expect(res.status, await res.clone().text()).toBe(201);
  const json = (await res.json()) as { success: boolean; identity: Identity };
  expect(json.success).toBe(true);
  return json.identity;
}

const POSTAL = {
  US: /^\d{5}$/,
  GB: /^[A-Z]{1,2}\d[A-Z\d]? \d[ABD-HJLNP-UW-Z]{2}$/,
  CA: /^[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z] \d[ABCEGHJ-NPRSTV-Z]\d$/,
};
const PHONE = {
  US: /^\(\d{3}\) 555-01\d{2}$/,
  CA: /^\(\d{3}\) 555-01\d{2}$/,
  GB: /^07700 900\d{3}$/,
};
const DATA = { US, GB, CA };

describe("disposable identities: happy paths", () => {
  it("creates a US persona by default with every spec field and no email without a key", async () => {
    const user = await TestUser.create();
    const id = await create(user, {
      label: "Shopping",
      service: "shop.example.com",
      notes: "for the newsletter",
    });
    expect(Object.keys(id).sort()).toEqual(FIELDS);
    expect(id).toMatchObject({
      user_id: user.id,
      status: "active",
      label: "Shopping",
      used_for_service: "shop.example.com",
      notes: "for the newsletter",
      address_country: "US",
      email_alias: null,
    });
    expect(id.display_name).toBe(`${id.first_name} ${id.last_name}`);
    expect(id.username).toMatch(/^[a-z0-9._]{3,}$/);
    expect(["male", "female"]).toContain(id.gender);
    const dob = new Date(`${id.date_of_birth}T00:00:00Z`);
    const age = (Date.now() - dob.getTime()) / (365.25 * 86_400_000);
    expect(age).toBeGreaterThanOrEqual(20.9);
    expect(age).toBeLessThan(67);
    expect(new Date(id.created_at as string).toISOString()).toBe(id.created_at);
  });

  for (const country of ["US", "GB", "CA"] as const) {
    it(`makes ${country} addresses whose city, region and postal code belong together, and a fictional phone number`, async () => {
      const user = await TestUser.create();
      for (let i = 0; i < 4; i++) {
        const id = await create(user, { country });
        expect(id.address_country).toBe(country);
        const city = DATA[country].cities.find((c) => c.city === id.address_city);
        expect(city, `${id.address_city}`).toBeDefined();
        expect(id.address_state).toBe(city!.region);
        expect(id.address_zip).toMatch(POSTAL[country]);
        expect(
          city!.postal.some((p) => id.address_zip === p || id.address_zip!.startsWith(`${p} `)),
        ).toBe(true);
        expect(id.phone_number).toMatch(PHONE[country]);
        if (country !== "GB") expect(city!.areaCodes).toContain(id.phone_number!.slice(1, 4));
        expect(id.address_line1).toMatch(/^\d+ \S/);
      }
    });
  }

  it("honours gender and generatePhone false", async () => {
    const user = await TestUser.create();
    for (const gender of ["male", "female"] as const) {
      const id = await create(user, { gender, country: "GB", generatePhone: false });
      expect(id.gender).toBe(gender);
      expect(GB[gender]).toContain(id.first_name);
      expect(id.phone_number).toBeNull();
    }
  });

  it("gets an email alias from alias_provider_a (SimpleLogin shape) and never stores the key readable", async () => {
    const user = await TestUser.create();
    const apiKey = await providerAccount();
    const res = await user.call("POST", "/api/identities", {
      body: {
        emailApiKey: apiKey,
        emailProvider: "alias_provider_a",
        service: "https://news.example.org/signup",
        label: "News",
      },
    });
    expect(res.status).toBe(201);
    const text = await res.text();
    expect(text).not.toContain(apiKey);
    const { identity } = JSON.parse(text) as { identity: Identity };
    const state = await providerState(apiKey);
    expect(state.aliases).toHaveLength(1);
    expect(identity.email_alias).toBe(state.aliases[0].email);
    expect(state.aliases[0]).toMatchObject({
      enabled: true,
      note: "News",
      hostname: "news.example.org",
    });
    const row = await env.DB.prepare("SELECT * FROM identities WHERE id = ?")
      .bind(identity.id)
      .first();
    expect(JSON.stringify(row)).not.toContain(apiKey);
    expect(row?.alias_key_sealed).toBeTruthy();
  });

  it("gets an email alias from alias_provider_b (addy.io shape)", async () => {
    const user = await TestUser.create();
    const apiKey = await providerAccount();
    const identity = await create(user, {
      emailApiKey: apiKey,
      emailProvider: "alias_provider_b",
      generateEmail: true,
      label: "Forum",
    });
    const state = await providerState(apiKey);
    expect(state.aliases).toHaveLength(1);
    expect(identity.email_alias).toBe(state.aliases[0].email);
    expect(identity.email_alias).toMatch(/@anonaddy\.test$/);
    expect(state.aliases[0].note).toBe("Forum");
  });

  it("lists newest first with the status filter and stats over all identities", async () => {
    const user = await TestUser.create();
    const a = await create(user);
    const b = await create(user);
    const c = await create(user);
    expect(
      (await user.call("PATCH", `/api/identities/${b.id}`, { body: { status: "paused" } })).status,
    ).toBe(200);
    expect(
      (await user.call("PATCH", `/api/identities/${c.id}`, { body: { status: "nuked" } })).status,
    ).toBe(200);
    const all = (await (await user.call("GET", "/api/identities")).json()) as {
      identities: Identity[];
      stats: Record<string, number>;
    };
    expect(all.identities.map((i) => i.id)).toEqual([c.id, b.id, a.id]);
    expect(all.stats).toEqual({ total: 3, active: 1, paused: 1, nuked: 1 });
    const paused = (await (await user.call("GET", "/api/identities?status=paused")).json()) as {
      identities: Identity[];
      stats: Record<string, number>;
    };
    expect(paused.identities.map((i) => i.id)).toEqual([b.id]);
    expect(paused.stats).toEqual(all.stats);
  });

  it("pauses, resumes and edits metadata", async () => {
    const user = await TestUser.create();
    const id = await create(user, { label: "Old" });
    const paused = await user.call("PATCH", `/api/identities/${id.id}`, {
      body: { status: "paused" },
    });
    expect(((await paused.json()) as { identity: Identity }).identity.status).toBe("paused");
    const resumed = await user.call("PATCH", `/api/identities/${id.id}`, {
      body: { status: "active", label: "New", used_for_service: "x.example" },
    });
    const json = (await resumed.json()) as { success: boolean; identity: Identity };
    expect(json).toMatchObject({
      success: true,
      identity: {
        status: "active",
        label: "New",
        used_for_service: "x.example",
        first_name: id.first_name,
      },
    });
  });

  it("nuke clears the personal data, disables the alias at provider a and keeps the label", async () => {
    const user = await TestUser.create();
    const apiKey = await providerAccount();
    const id = await create(user, { emailApiKey: apiKey, label: "Burner", notes: "secret note" });
    const res = await user.call("PATCH", `/api/identities/${id.id}`, { body: { status: "nuked" } });
    expect(res.status).toBe(200);
    const { identity } = (await res.json()) as { identity: Identity };
    expect(identity.status).toBe("nuked");
    expect(identity.label).toBe("Burner");
    for (const f of [
      "display_name",
      "first_name",
      "last_name",
      "username",
      "email_alias",
      "phone_number",
      "date_of_birth",
      "gender",
      "address_line1",
      "address_city",
      "address_state",
      "address_zip",
      "address_country",
      "notes",
    ]) {
      expect(identity[f], f).toBeNull();
    }
    expect((await providerState(apiKey)).aliases[0].enabled).toBe(false);
    const row = await env.DB.prepare(
      "SELECT alias_key_sealed, alias_id, first_name FROM identities WHERE id = ?",
    )
      .bind(id.id)
      .first();
    expect(row).toEqual({ alias_key_sealed: null, alias_id: null, first_name: null });
  });

  it("nuke disables the alias at provider b", async () => {
    const user = await TestUser.create();
    const apiKey = await providerAccount();
    const id = await create(user, { emailApiKey: apiKey, emailProvider: "alias_provider_b" });
    expect(
      (await user.call("PATCH", `/api/identities/${id.id}`, { body: { status: "nuked" } })).status,
    ).toBe(200);
    const state = await providerState(apiKey);
    expect(state.aliases[0].enabled).toBe(false);
    expect(state.calls.at(-1)).toEqual({
      method: "DELETE",
      path: `/b/api/v1/active-aliases/${state.aliases[0].uuid}`,
    });
  });

  it("DELETE removes the record", async () => {
    const user = await TestUser.create();
    const id = await create(user);
    const res = await user.call("DELETE", `/api/identities/${id.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    const list = (await (await user.call("GET", "/api/identities")).json()) as {
      identities: Identity[];
      stats: { total: number };
    };
    expect(list.identities).toEqual([]);
    expect(list.stats.total).toBe(0);
    expect(
      await env.DB.prepare("SELECT id FROM identities WHERE id = ?").bind(id.id).first(),
    ).toBeNull();
  });
});
