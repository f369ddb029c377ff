import { describe, expect, it } from "vitest";
import { createEntry } from "../support/fixtures";
import {
  type ChatSection,
  clientKeys,
  connectMailbox,
  imap,
  readChat,
  readStream,
  resetUser,
  site,
} from "./support";

const account = imap.mailboxes.chat;
const kinds = (sections: ChatSection[]) => sections.map((s) => s.kind);
const taskIdOf = (sections: ChatSection[]) =>
  /Task: `([^`]+)`/.exec(sections[0].lines.join("\n"))?.[1] as string;

async function siteAccount(password: string) {
  await fetch(`${site}/__test/users`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: account, password }),
  });
}
async function siteLogin(password: string): Promise<number> {
  return (
    await fetch(`${site}/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: account, password }),
    })
  ).status;
}

describe("POST /api/chat/reset end to end (real Chromium, real Dovecot, local site)", () => {
  it("streams header, progress, mailbox watching, password and result sections; the sealed password logs in", async () => {
    const user = await resetUser();
    await connectMailbox(user, account);
    const oldPassword = `Old-${crypto.randomUUID()}`;
    await siteAccount(oldPassword);
    const keys = await clientKeys();
    const res = await user.call("POST", "/api/chat/reset", {
      body: {
        message: `Please reset my password on ${site}/login`,
        clientPublicKey: keys.publicJwk,
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const { sections, raw } = await readChat(res, 90_000);
    expect(kinds(sections)).toEqual([
      "header",
      "progress",
      "gmail",
      "progress",
      "password",
      "result",
    ]);
    expect(sections[0].lines[0]).toBe("### Password reset: Localhost");
    expect(sections[0].lines).toContain(`- Account: \`${account}\``);
    expect(sections[2].lines.join("\n")).toMatch(/Watching your mailbox/);
    expect(sections[3].lines.join("\n")).toMatch(/new password/i);
    expect(sections[4].lines[0]).toBe("**New password set.**");
    expect(sections[5].lines).toEqual(["**Completed.** Your Localhost password was reset."]);

    const taskId = taskIdOf(sections);
    const replay = await readStream(await user.call("GET", `/api/tasks/${taskId}/stream`), 5_000);
    const newPassword = await keys.open(replay[0].data.newPassword as string);
    expect(raw).not.toContain(newPassword);
    expect(raw).not.toContain(replay[0].data.newPassword as string);
    expect(await siteLogin(newPassword)).toBe(200);
    expect(await siteLogin(oldPassword)).toBe(401);
  }, 120_000);

  it("passwordId: the entry's site is reset and the password section names the entry", async () => {
    const user = await resetUser();
    await connectMailbox(user, account);
    await siteAccount(`Old-${crypto.randomUUID()}`);
    const { id } = await createEntry(user, {
      name: "Local site",
      website: "localhost",
      url: `${site}/login`,
    });
    const keys = await clientKeys();
    const res = await user.call("POST", "/api/chat/reset", {
      body: { message: "reset this one", passwordId: id, clientPublicKey: keys.publicJwk },
    });
    expect(res.status).toBe(200);
    const { sections } = await readChat(res, 90_000);
    expect(kinds(sections).at(-2)).toBe("password");
    expect(sections.at(-2)?.lines.join("\n")).toContain(`\`${id}\``);
    expect(sections.at(-1)?.lines[0]).toMatch(/^\*\*Completed\.\*\*/);
    const task = (await (await user.call("GET", `/api/jobs/${taskIdOf(sections)}`)).json()) as {
      status: string;
    };
    expect(task.status).toBe("completed");
  }, 120_000);

  it("a captcha ends with the captcha section and a failed result", async () => {
    const user = await resetUser();
    await connectMailbox(user, account);
    const keys = await clientKeys();
    const res = await user.call("POST", "/api/chat/reset", {
      body: { message: `reset ${site}/forgot-captcha for me`, clientPublicKey: keys.publicJwk },
    });
    expect(res.status).toBe(200);
    const { sections } = await readChat(res, 60_000);
    expect(kinds(sections)).toEqual(["header", "progress", "captcha", "result"]);
    expect(sections[2].lines.join("\n")).toMatch(/CAPTCHA/);
    expect(sections[2].lines.join("\n")).toContain(`${site}/forgot-captcha`);
    expect(sections[3].lines).toEqual(["**Failed:** captcha."]);
    const task = (await (await user.call("GET", `/api/jobs/${taskIdOf(sections)}`)).json()) as {
      status: string;
      error: string;
    };
    expect(task).toMatchObject({ status: "failed", error: "captcha" });
  }, 90_000);
});
