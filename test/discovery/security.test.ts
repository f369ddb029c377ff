import { SELF } from "../support/worker";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { createEntry } from "../support/fixtures";
import { accountReport, imapCommands, patchAccount } from "../support/mail-provider";
import { connectSource, FIXTURE, list, scan } from "./support";

/** Any IMAP fetch item that transfers a body, a body part or the whole message. */
const BODY_FETCH =
  /BODY(\.PEEK)?\[(?!HEADER\.FIELDS)[^\]]*\]|\bRFC822(?!\.SIZE)(\.TEXT|\.HEADER)?\b|\bBINARY(\.PEEK)?\[|BODYSTRUCTURE/i;

describe("a scan reads metadata only (rule 2)", () => {
  it("the body-fetch pattern recognises every way to read a body, and not the header-fields fetch", () => {
    for (const c of [
      "UID FETCH 1 (BODY[])",
      "UID FETCH 1 (BODY.PEEK[])",
      "FETCH 1 BODY[TEXT]",
      "FETCH 1 (RFC822)",
      "FETCH 1 RFC822.TEXT",
      "FETCH 1 BODY.PEEK[1]",
      "FETCH 1 BINARY.PEEK[1]",
      "FETCH 1 BODYSTRUCTURE",
    ])
      expect(c).toMatch(BODY_FETCH);
    expect("UID FETCH 1:3 (UID BODY.PEEK[HEADER.FIELDS (FROM DATE)])").not.toMatch(BODY_FETCH);
  });

  it("IMAP: read-only EXAMINE, seven SUBJECT searches, one header-fields fetch of the matches, no body", async () => {
    const user = await TestUser.create();
    const { handle } = await connectSource(user, "imap");
    const body = await scan(user);
    expect(JSON.stringify(body)).not.toMatch(/BODY-MARKER|Lunch on Friday/);
    const commands = (await imapCommands(handle)).map((c) => c.replace(/^\S+ /, ""));
    const session = commands.slice(commands.lastIndexOf("LOGIN <redacted>"));
    expect(session[0]).toBe("LOGIN <redacted>");
    expect(session[1]).toBe('EXAMINE "INBOX"');
    const searches = session.filter((c) => c.startsWith("UID SEARCH"));
    expect(searches).toHaveLength(7);
    for (const s of searches) expect(s).toMatch(/^UID SEARCH (OR )*SUBJECT "/);
    expect(searches[4]).toBe(
      'UID SEARCH OR SUBJECT "password reset" OR SUBJECT "reset your password" SUBJECT "change your password"',
    );
    const fetches = session.filter((c) => /FETCH/i.test(c));
    // Message 8 matches no subject search and is never read, nor is the mailbox check message the
    // vault mailed when the mailbox was connected: 9 of the 11 messages, From and Date only.
    expect(fetches).toHaveLength(1);
    const m = /^UID FETCH ([\d:,]+) \(UID BODY\.PEEK\[HEADER\.FIELDS \(FROM DATE\)\]\)$/.exec(
      fetches[0]!,
    );
    expect(m).not.toBeNull();
    const uids = m![1]!.split(",").flatMap((r) => {
      const [a, b] = r.split(":").map(Number);
      return Array.from({ length: (b ?? a!) - a! + 1 }, (_, i) => a! + i);
    });
    expect(uids).toHaveLength(9);
    expect(uids.every((u) => u >= 1 && u <= 11)).toBe(true);
    for (const c of commands) {
      expect(c).not.toMatch(BODY_FETCH);
      expect(c).not.toMatch(/^(SELECT|STORE|UID STORE|COPY|UID COPY|EXPUNGE|APPEND)\b/i);
    }
    expect(session.at(-1)).toBe("LOGOUT");
  });

  it("mailx (Gmail shape): seven list queries, then format=metadata for From and Date of the matches only", async () => {
    const user = await TestUser.create();
    const { handle } = await connectSource(user, "mailx");
    await scan(user);
    const requests = (await accountReport(handle)).requests.map(
      (r) => new URL(r.split(" ")[1], "http://x"),
    );
    const lists = requests.filter((u) => u.pathname === "/gmail/v1/users/me/messages");
    expect(lists).toHaveLength(7);
    expect(lists[0].searchParams.get("q")).toBe(
      'subject:(welcome) OR subject:("thanks for signing up") OR subject:("thanks for joining")',
    );
    const reads = requests.filter((u) => u.pathname.startsWith("/gmail/v1/users/me/messages/"));
    expect(reads).toHaveLength(FIXTURE.length - 1);
    for (const u of reads) {
      expect(u.searchParams.get("format")).toBe("metadata");
      expect(u.searchParams.getAll("metadataHeaders")).toEqual(["From", "Date"]);
    }
    expect(
      requests.every(
        (u) =>
          u.pathname === "/gmail/v1/users/me/profile" ||
          u.pathname.startsWith("/gmail/v1/users/me/messages"),
      ),
    ).toBe(true);
  });

  it("maily (Graph shape): seven $search queries selecting from and receivedDateTime only; no message is opened", async () => {
    const user = await TestUser.create();
    const { handle } = await connectSource(user, "maily");
    await scan(user);
    const requests = (await accountReport(handle)).requests.map(
      (r) => new URL(r.split(" ")[1], "http://x"),
    );
    const lists = requests.filter((u) => u.pathname === "/v1.0/me/messages");
    expect(lists).toHaveLength(7);
    for (const u of lists) {
      expect(u.searchParams.get("$select")).toBe("from,receivedDateTime");
      expect(u.searchParams.get("$search")).toMatch(/^"subject:\\"/);
    }
    expect(requests.filter((u) => u.pathname.startsWith("/v1.0/me/messages/"))).toEqual([]);
  });
});

describe("the bearer token stays with the provider", () => {
  it("a Graph paging link to another origin is not followed", async () => {
    const user = await TestUser.create();
    const many = Array.from({ length: 150 }, (_, i) => ({
      from: `Svc <hi@svc${i}.example>`,
      subject: "Welcome aboard",
      date: "2026-01-01T00:00:00Z",
    }));
    const { handle } = await connectSource(user, "maily", many);
    await patchAccount(handle, { foreignNextLink: true });
    expect((await scan(user)).stats.total).toBe(100);
  });
});

describe("discovered accounts belong to their owner", () => {
  it("another user's accounts are 404 to PATCH, absent from lists, and not_discovered to add-to-vault", async () => {
    const owner = await TestUser.create();
    await connectSource(owner, "imap");
    const [account] = (await scan(owner)).accounts;
    const other = await TestUser.create();
    await expectErrorBody(
      await other.call("PATCH", "/api/accounts", { body: { id: account.id, dismissed: true } }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await other.call("PATCH", "/api/discover-accounts", {
        body: { id: account.id, dismissed: true },
      }),
      404,
      "NOT_FOUND",
    );
    expect((await list(other, "?include_dismissed=true")).accounts).toEqual([]);
    const res = (await (
      await other.call("POST", "/api/accounts/add-to-vault", {
        body: { domains: [account.domain] },
      })
    ).json()) as { created: unknown[]; skipped: unknown[] };
    expect(res).toEqual({
      success: true,
      created: [],
      skipped: [{ domain: account.domain, reason: "not_discovered" }],
    });
    expect((await list(owner)).accounts.find((a) => a.id === account.id)?.dismissed).toBe(false);
  });

  it("an owner cannot point an account at another user's vault entry", async () => {
    const owner = await TestUser.create();
    await connectSource(owner, "imap", FIXTURE.slice(0, 1));
    const [account] = (await scan(owner)).accounts;
    const other = await TestUser.create();
    const entry = await createEntry(other);
    await expectErrorBody(
      await owner.call("PATCH", "/api/accounts", {
        body: { id: account.id, vaultPasswordId: entry.id },
      }),
      404,
      "NOT_FOUND",
    );
  });

  it("requires authentication and CSRF", async () => {
    for (const [method, path] of [
      ["GET", "/api/accounts"],
      ["POST", "/api/accounts"],
      ["GET", "/api/discover-accounts"],
      ["POST", "/api/accounts/add-to-vault"],
    ]) {
      await expectErrorBody(
        await SELF.fetch(`https://vault.test${path}`, { method }),
        401,
        "UNAUTHORIZED",
      );
    }
    const user = await TestUser.create();
    await expectErrorBody(
      await user.call("POST", "/api/accounts", { csrf: false }),
      403,
      "FORBIDDEN",
    );
    await expectErrorBody(
      await user.call("PATCH", "/api/accounts", {
        csrf: false,
        body: { id: "x", dismissed: true },
      }),
      403,
      "FORBIDDEN",
    );
  });
});
