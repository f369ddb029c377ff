import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { purgeSecureLinks } from "../../src/domains/links";
import { codeHash } from "../../src/domains/links/recipients";
import { expectErrorBody, TestUser } from "../support/auth";
import {
  attempt,
  codeMails,
  freshIp,
  linkRow,
  mailedCode,
  opener,
  r2Objects,
  textLink,
} from "../support/links";

// Someone holding a leaked recipients-only link must not get in by guessing codes, nor keep the
// listed recipients out by spending the link's attempts. The numbers are the documented ones
// (docs/decisions/sharing.md, "Sharing: secure links (a secret or a file for anyone, the key in the link)"): 20 wrong codes lock a link, 3 codes per address in
// ten minutes, 5 wrong codes per attempt.
const LOCK = 20;
const PER_ADDRESS = 3;

let LISTED = "";
beforeEach(() => {
  LISTED = `listed.${crypto.randomUUID().slice(0, 8)}@example.org`;
});
const stranger = () => `guess.${crypto.randomUUID().slice(0, 8)}@example.net`;

const wrongFor = (code: string) => (code === "000000" ? "111111" : "000000");
const open = (id: string, challenge: string, code: string) =>
  opener(freshIp()).open(id, { challenge, code });

/** Spends `n` wrong codes on attempts for unlisted addresses (a fresh address per five). */
async function spendWrongCodes(id: string, n: number) {
  let challenge = "";
  for (let i = 0; i < n; i++) {
    if (i % 5 === 0) challenge = (await attempt(id, stranger())).challenge;
    const res = await open(id, challenge, "000000");
    expect(res.status, await res.clone().text()).toBe(403);
    await res.body?.cancel();
  }
}

describe("secure links: guessing codes", () => {
  it("an attempt for an unlisted address never opens, even with a known code planted; it answers as a wrong code", async () => {
    const owner = await TestUser.create();
    const { link } = await textLink(owner, { max_views: 3, recipients: [LISTED] });
    const listed = await attempt(link.id, LISTED);
    const right = await mailedCode(LISTED, 1);
    const unlisted = await attempt(link.id, stranger());
    const stored = await env.DB.prepare("SELECT code_hash FROM secure_link_codes WHERE id = ?")
      .bind(unlisted.challenge)
      .first<{ code_hash: string }>();
    // Plant a known code on the unlisted attempt, as a leak of the table or a lucky guess would.
    await env.DB.prepare("UPDATE secure_link_codes SET code_hash = ? WHERE id = ?")
      .bind(
        await codeHash(env.CSRF_SECRET as string, unlisted.challenge, "123456"),
        unlisted.challenge,
      )
      .run();
    const planted = await open(link.id, unlisted.challenge, "123456");
    const wrong = await open(link.id, listed.challenge, wrongFor(right));
    expect(planted.status).toBe(403);
    expect(await planted.json()).toEqual(await wrong.json());
    expect(await linkRow(link.id)).toMatchObject({ views_used: 0 });
    // Nor does the row as stored hold a hash any code could match.
    expect(stored!.code_hash).not.toMatch(/^[0-9a-f]{64}$/);
    // The listed attempt's code still opens.
    expect((await open(link.id, listed.challenge, right)).status).toBe(200);
  });

  it(`locks the link for good after ${LOCK} wrong codes across attempts and addresses; the owner sees it locked`, async () => {
    const owner = await TestUser.create();
    const { link } = await textLink(owner, { max_views: 2, recipients: [LISTED] });
    const held = await attempt(link.id, LISTED);
    const right = await mailedCode(LISTED, 1);
    await spendWrongCodes(link.id, LOCK - 2);
    // The attempts left are the lesser of the attempt's and the link's.
    const a = await attempt(link.id, stranger());
    expect(
      await expectErrorBody(await open(link.id, a.challenge, "000000"), 403, "FORBIDDEN"),
    ).toMatchObject({ reason: "wrong_code", attempts_left: 1 });
    expect(
      await expectErrorBody(await open(link.id, a.challenge, "000000"), 410, "GONE"),
    ).toMatchObject({ state: "locked" });
    // The right code of a live attempt no longer opens it, and no new code is given.
    expect(
      await expectErrorBody(await open(link.id, held.challenge, right), 410, "GONE"),
    ).toMatchObject({ state: "locked" });
    expect(
      (await expectErrorBody(await opener(freshIp()).code(link.id, LISTED), 410, "GONE")).state,
    ).toBe("locked");
    expect(await (await opener().meta(link.id)).json()).toMatchObject({ state: "locked" });
    expect(await linkRow(link.id)).toMatchObject({ views_used: 0, failed_codes: LOCK });
    const list = (await (await owner.call("GET", "/api/links")).json()) as {
      links: { id: string; state: string }[];
    };
    expect(list.links.find((l) => l.id === link.id)?.state).toBe("locked");
    // Locked content goes with the next purge, as a passphrase-locked link's does.
    await purgeSecureLinks(env as never);
    expect(await r2Objects(owner.id)).toEqual([]);
  });

  it("parallel wrong codes cannot pass the lock", async () => {
    const owner = await TestUser.create();
    const { link } = await textLink(owner, { max_views: 2, recipients: [LISTED] });
    await spendWrongCodes(link.id, LOCK - 4);
    const attempts = await Promise.all(
      Array.from({ length: 4 }, () => attempt(link.id, stranger())),
    );
    const results = await Promise.all(
      attempts.flatMap((a) => [0, 1, 2].map(() => open(link.id, a.challenge, "000000"))),
    );
    const statuses = results.map((r) => r.status);
    await Promise.all(results.map((r) => r.text()));
    expect(statuses.filter((s) => s === 403)).toHaveLength(3);
    expect(statuses.filter((s) => s === 410)).toHaveLength(9);
    expect(await linkRow(link.id)).toMatchObject({ failed_codes: LOCK });
  });

  it(`gives one address at most ${PER_ADDRESS} codes in ten minutes, listed or not, with the same refusal`, async () => {
    const owner = await TestUser.create();
    const { link } = await textLink(owner, { max_views: 1, recipients: [LISTED] });
    const other = stranger();
    for (let i = 0; i < PER_ADDRESS; i++) {
      await attempt(link.id, other);
      await attempt(link.id, LISTED.toUpperCase());
    }
    const refusedOther = await expectErrorBody(
      await opener(freshIp()).code(link.id, other),
      429,
      "RATE_LIMITED",
    );
    const refusedListed = await expectErrorBody(
      await opener(freshIp()).code(link.id, LISTED),
      429,
      "RATE_LIMITED",
    );
    expect(refusedListed).toEqual(refusedOther);
    await mailedCode(LISTED, PER_ADDRESS);
    expect(await codeMails(LISTED)).toHaveLength(PER_ADDRESS);
    // Another address is not held back by those two.
    await attempt(link.id, stranger());
  });

  it("the listed recipient still gets a code and opens after others spent asks and wrong codes, short of the lock", async () => {
    const owner = await TestUser.create();
    const { link, content } = await textLink(owner, { max_views: 1, recipients: [LISTED] });
    // Twelve asks for four other addresses (each to its cap), and all but one of the link's wrong codes.
    const others = [stranger(), stranger(), stranger(), stranger()];
    const challenges: string[] = [];
    for (const o of others)
      for (let i = 0; i < PER_ADDRESS; i++) challenges.push((await attempt(link.id, o)).challenge);
    for (let i = 0; i < LOCK - 1; i++) {
      const res = await open(link.id, challenges[Math.floor(i / 5)]!, "000000");
      expect(res.status).toBe(403);
      await res.body?.cancel();
    }
    const mine = await attempt(link.id, LISTED);
    const res = await open(link.id, mine.challenge, await mailedCode(LISTED, 1));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { content: string }).content).toBe(content);
    expect(await linkRow(link.id)).toMatchObject({ views_used: 1, failed_codes: LOCK - 1 });
  });
});
