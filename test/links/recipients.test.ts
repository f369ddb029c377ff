import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { MAX_CODES_PER_WINDOW } from "../../src/domains/links/schema";
import { expectErrorBody, TestUser } from "../support/auth";
import {
  attempt,
  type Attempt,
  codeMails,
  freshIp,
  linkRow,
  mailedCode,
  opener,
  salt,
  textLink,
  verifier,
} from "../support/links";

// Links limited to named addresses: the recipient asks for a code by address, the code is mailed
// only to a listed address, and the content is delivered (and the view counted) only with it.
let LISTED = "";
beforeEach(() => {
  // An address of its own per test: the outbox is read by address.
  LISTED = `Recipient.${crypto.randomUUID().slice(0, 8)}@example.org`;
});
const OTHER = "stranger@example.net";

async function ask(id: string, email: string, ip = freshIp()): Promise<Response> {
  return opener(ip).code(id, email);
}

const mails = codeMails;

async function recipientsLink(owner: TestUser, opts: Record<string, unknown> = {}) {
  return textLink(owner, { max_views: 1, recipients: [LISTED, "second@example.org"], ...opts });
}

describe("secure links: only these email addresses", () => {
  it("validates the list and keeps only keyed hashes of it, with the count", async () => {
    const owner = await TestUser.create();
    for (const recipients of [
      [],
      ["not an address"],
      Array.from({ length: 11 }, (_, i) => `r${i}@example.org`),
      "a@example.org",
    ]) {
      await expectErrorBody(
        await owner.call("POST", "/api/links", {
          body: {
            kind: "text",
            content: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            expires_in_seconds: 3600,
            max_views: 1,
            recipients,
          },
        }),
        400,
        "VALIDATION_ERROR",
      );
    }
    const { link } = await recipientsLink(owner, {
      recipients: [LISTED, LISTED.toLowerCase(), "second@example.org"],
    });
    expect(link).toMatchObject({ recipients: 2 });
    const row = await linkRow(link.id);
    const stored = JSON.stringify(row).toLowerCase();
    expect(stored).not.toContain(LISTED.toLowerCase().split("@")[0]);
    expect(stored).not.toContain("second@");
    expect(JSON.parse(String(row!.recipient_hashes))).toHaveLength(2);
    expect(await (await opener().meta(link.id)).json()).toMatchObject({ recipients_only: true });
    const plain = await textLink(owner);
    expect(plain.link).toMatchObject({ recipients: 0 });
    expect(await (await opener().meta(plain.link.id)).json()).toMatchObject({
      recipients_only: false,
    });
    await expectErrorBody(await ask(plain.link.id, LISTED), 409, "CONFLICT");
  });

  it("mails a code to a listed address; the content comes only with it, and the view is counted then", async () => {
    const owner = await TestUser.create();
    const { link, content } = await recipientsLink(owner, { max_views: 2 });
    const o = opener();
    const missing = await expectErrorBody(await o.open(link.id), 403, "FORBIDDEN");
    expect(missing.reason).toBe("code_required");
    const a = await attempt(link.id, LISTED);
    expect(a.challenge).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const code = await mailedCode(LISTED, 1);
    expect(await linkRow(link.id)).toMatchObject({ views_used: 0 });
    const res = await o.open(link.id, { challenge: a.challenge, code });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { content: string }).content).toBe(content);
    expect(await linkRow(link.id)).toMatchObject({ views_used: 1 });
    // The code is spent with its delivery: the same proof opens nothing more.
    expect(
      (
        await expectErrorBody(
          await o.open(link.id, { challenge: a.challenge, code }),
          403,
          "FORBIDDEN",
        )
      ).reason,
    ).toBe("code_expired");
    expect(await linkRow(link.id)).toMatchObject({ views_used: 1 });
    // The code is hashed at rest.
    const codes = await env.DB.prepare("SELECT * FROM secure_link_codes WHERE link_id = ?")
      .bind(link.id)
      .all();
    expect(JSON.stringify(codes.results)).not.toContain(code);
  });

  it("answers an unlisted address exactly as a listed one, and mails it nothing", async () => {
    const owner = await TestUser.create();
    const { link } = await recipientsLink(owner);
    const listed = await ask(link.id, LISTED);
    const other = await ask(link.id, OTHER);
    expect(other.status).toBe(listed.status);
    const [l, x] = (await Promise.all([listed.json(), other.json()])) as Attempt[];
    expect(Object.keys(x!).sort()).toEqual(Object.keys(l!).sort());
    expect(x!.message).toBe(l!.message);
    await mailedCode(LISTED, 1);
    expect(await mails(OTHER)).toEqual([]);
    // No code opens the unlisted address's attempt.
    const wrong = await expectErrorBody(
      await opener().open(link.id, { challenge: x!.challenge, code: "123456" }),
      403,
      "FORBIDDEN",
    );
    expect(wrong).toMatchObject({ reason: "wrong_code", attempts_left: 4 });
    expect(await linkRow(link.id)).toMatchObject({ views_used: 0 });
  });

  it("counts wrong codes against the attempt and locks it after five; a new code still works", async () => {
    const owner = await TestUser.create();
    const { link } = await recipientsLink(owner);
    const a = await attempt(link.id, LISTED);
    const code = await mailedCode(LISTED, 1);
    const wrongCode = code === "000000" ? "111111" : "000000";
    const o = opener();
    for (const left of [4, 3, 2, 1])
      expect(
        await expectErrorBody(
          await o.open(link.id, { challenge: a.challenge, code: wrongCode }),
          403,
          "FORBIDDEN",
        ),
      ).toMatchObject({ reason: "wrong_code", attempts_left: left });
    expect(
      (
        await expectErrorBody(
          await o.open(link.id, { challenge: a.challenge, code: wrongCode }),
          403,
          "FORBIDDEN",
        )
      ).reason,
    ).toBe("code_locked");
    expect(
      (
        await expectErrorBody(
          await o.open(link.id, { challenge: a.challenge, code }),
          403,
          "FORBIDDEN",
        )
      ).reason,
    ).toBe("code_locked");
    expect(await linkRow(link.id)).toMatchObject({ views_used: 0, failed_attempts: 0 });
    const b = await attempt(link.id, LISTED);
    const fresh = await mailedCode(LISTED, 2);
    // A code opens only the attempt it was mailed for.
    if (fresh !== code)
      expect(
        (
          await expectErrorBody(
            await o.open(link.id, { challenge: b.challenge, code }),
            403,
            "FORBIDDEN",
          )
        ).reason,
      ).toBe("wrong_code");
    expect((await o.open(link.id, { challenge: b.challenge, code: fresh })).status).toBe(200);
    expect(await linkRow(link.id)).toMatchObject({ views_used: 1 });
  });

  it("refuses an expired code", async () => {
    const owner = await TestUser.create();
    const { link } = await recipientsLink(owner);
    const a = await attempt(link.id, LISTED);
    const code = await mailedCode(LISTED, 1);
    await env.DB.prepare("UPDATE secure_link_codes SET expires_at = ? WHERE id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), a.challenge)
      .run();
    expect(
      (
        await expectErrorBody(
          await opener().open(link.id, { challenge: a.challenge, code }),
          403,
          "FORBIDDEN",
        )
      ).reason,
    ).toBe("code_expired");
    expect(await linkRow(link.id)).toMatchObject({ views_used: 0 });
    expect(a.expires_at > new Date().toISOString()).toBe(true);
  });

  it("with a passphrase too, both are needed; a wrong passphrase does not spend the code", async () => {
    const owner = await TestUser.create();
    const right = verifier();
    const { link } = await recipientsLink(owner, { passphrase: { salt: salt(), verifier: right } });
    const a = await attempt(link.id, LISTED);
    const code = await mailedCode(LISTED, 1);
    const o = opener();
    expect(
      (
        await expectErrorBody(
          await o.open(link.id, { challenge: a.challenge, code, verifier: verifier() }),
          403,
          "FORBIDDEN",
        )
      ).reason,
    ).toBe("wrong_passphrase");
    expect(
      (await expectErrorBody(await o.open(link.id, { verifier: right }), 403, "FORBIDDEN")).reason,
    ).toBe("code_required");
    expect((await o.open(link.id, { challenge: a.challenge, code, verifier: right })).status).toBe(
      200,
    );
    expect(await linkRow(link.id)).toMatchObject({ views_used: 1, failed_attempts: 1 });
  });

  it("parallel opens with right codes deliver exactly N times, and one code delivers once", async () => {
    const owner = await TestUser.create();
    // Two listed addresses of this test's own: one address gets three codes in ten minutes.
    const LISTED2 = `second.${crypto.randomUUID().slice(0, 8)}@example.org`;
    const { link } = await recipientsLink(owner, { max_views: 3, recipients: [LISTED, LISTED2] });
    const attempts: { challenge: string; code: string }[] = [];
    for (const to of [LISTED, LISTED2]) {
      for (let i = 1; i <= 3; i++) {
        const a = await attempt(link.id, to);
        attempts.push({ challenge: a.challenge, code: await mailedCode(to, i) });
      }
    }
    const results = await Promise.all(
      attempts.map((p, i) => opener(`203.0.113.${100 + i}`).open(link.id, p)),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    await Promise.all(results.map((r) => r.text()));
    expect(await linkRow(link.id)).toMatchObject({ views_used: 3 });

    const many = await recipientsLink(owner, { max_views: 5 });
    const a = await attempt(many.link.id, LISTED);
    const code = await mailedCode(LISTED, 4);
    const raced = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        opener(`203.0.113.${150 + i}`).open(many.link.id, { challenge: a.challenge, code }),
      ),
    );
    expect(raced.filter((r) => r.status === 200)).toHaveLength(1);
    await Promise.all(raced.map((r) => r.text()));
    expect(await linkRow(many.link.id)).toMatchObject({ views_used: 1 });
  });

  it("limits codes per link and per IP, and validates the ask", async () => {
    const owner = await TestUser.create();
    const { link } = await recipientsLink(owner);
    await expectErrorBody(await ask(link.id, "nope"), 400, "VALIDATION_ERROR");
    await expectErrorBody(
      await opener().open(link.id, { challenge: "A".repeat(22) }),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await opener().open(link.id, { challenge: "A".repeat(22), code: "12345" }),
      400,
      "VALIDATION_ERROR",
    );
    const ip = freshIp();
    const later = new Date(Date.now() + 600_000).toISOString();
    for (let i = 0; i < 5; i++)
      expect((await ask(link.id, `ip${i}@example.net`, ip)).status).toBe(202);
    await expectErrorBody(await ask(link.id, OTHER, ip), 429, "RATE_LIMITED");
    // The link's bound on stored attempts, whoever asks (the rest planted: the per-IP limit is above).
    const now = new Date().toISOString();
    const insert =
      "INSERT INTO secure_link_codes (id, owner_id, link_id, code_hash, address_hash, expires_at, created_at) VALUES (?, ?, ?, 'none', ?, ?, ?)";
    await env.DB.batch(
      Array.from({ length: MAX_CODES_PER_WINDOW - 5 }, () =>
        env.DB.prepare(insert).bind(
          crypto.randomUUID(),
          owner.id,
          link.id,
          crypto.randomUUID(),
          later,
          now,
        ),
      ),
    );
    await expectErrorBody(await ask(link.id, LISTED), 429, "RATE_LIMITED");
    expect(await mails(LISTED)).toEqual([]);
    await env.DB.prepare("UPDATE secure_links SET revoked_at = ? WHERE id = ?")
      .bind(new Date().toISOString(), link.id)
      .run();
    expect((await expectErrorBody(await ask(link.id, LISTED), 410, "GONE")).state).toBe("revoked");
  });
});
