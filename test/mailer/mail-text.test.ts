/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";
import { releasedMail, reminderMail, triggeredMail } from "../../src/domains/dead-man-switch/mails";
import { grantedMail, inviteMail, requestedMail } from "../../src/domains/emergency/mails";
import { newProof, PROOF_MAIL_KIND, proofMail } from "../../src/domains/integrations/imap-proof";
import { codeMail } from "../../src/domains/links/recipients";
import type { Mail } from "../../src/domains/notifications";
import type { Config } from "../../src/env";

// Every mail the service sends, rendered as it is sent: it ends with a sentence naming what the
// person does and, on the next line, the absolute https link into the app where they do it.
const ORIGIN = "https://vault.example.org";
const AT = "2026-12-01T10:00:00.000Z";

/** Each mail kind the service sends, with the action it must name and the page its link opens. */
const MAILS: [kind: string, mail: Mail, action: RegExp, path: string][] = [
  [
    "dead_man_switch.reminder",
    reminderMail(ORIGIN, "o@example.test", 3, AT),
    /^To reset it, open your dead man's switch and choose Check in$/,
    "/dead-man-switch",
  ],
  [
    "dead_man_switch.triggered",
    triggeredMail(ORIGIN, "o@example.test", AT),
    /^To stop the release, open your dead man's switch and choose Check in before /,
    "/dead-man-switch",
  ],
  [
    "dead_man_switch.triggered",
    triggeredMail(ORIGIN, "o@example.test", null),
    /^To stop further access, open your dead man's switch and choose Check in$/,
    "/dead-man-switch",
  ],
  [
    "dead_man_switch.released",
    releasedMail(ORIGIN, "r@example.test"),
    /^To retrieve your recovery key, sign in/,
    "/dead-man-switch/transfers",
  ],
  [
    "emergency.invite",
    inviteMail(ORIGIN, "c@example.test", "owner@example.test", 48, 7, AT, "tok_en-1"),
    /^To accept the invitation, open this link within 7 days/,
    "/emergency/tok_en-1",
  ],
  [
    "emergency.requested",
    requestedMail(ORIGIN, "o@example.test", "c@example.test", AT),
    /^To deny it, open Emergency access and choose Deny before .*; to let it through now, choose Approve$/,
    "/emergency",
  ],
  [
    "emergency.granted",
    grantedMail(ORIGIN, "c@example.test", "the owner approved it", AT),
    /^To retrieve access, sign in and open Emergency access before /,
    "/emergency",
  ],
  [
    PROOF_MAIL_KIND,
    proofMail({ APP_ORIGIN: ORIGIN } as Config, "box@example.test", newProof()),
    /^Once this message has arrived, open Mailboxes and choose “Check mailbox”$/,
    "/mailboxes",
  ],
];

/**
 * Mails that carry a one-time code and no link, by design: the page where the code is typed is a
 * secure link whose key lives only in the fragment the recipient already holds, so the server has
 * no complete address to send, and a mail without any link has nothing to phish with.
 */
const CODE_MAILS: [kind: string, mail: Mail, code: string][] = [
  ["secure_link.code", codeMail("r@example.test", "048213", "owner@example.test"), "048213"],
];

describe("mail text", () => {
  it.each(MAILS)("%s names the action and links to it", (kind, mail, action, path) => {
    expect(mail.kind).toBe(kind);
    const lines = mail.text.trimEnd().split("\n");
    const [withColon, link] = lines.slice(-2) as [string, string];
    expect(withColon.endsWith(":")).toBe(true);
    const sentence = withColon.slice(0, -1);
    expect(sentence).toMatch(action);
    expect(mail.text).toContain(`${sentence}:\n${link}`);
    const url = new URL(link);
    expect(url.protocol).toBe("https:");
    expect(url.origin).toBe(ORIGIN);
    expect(url.pathname).toBe(path);
    // The only link in the mail is that one: nothing relative, nothing elsewhere.
    expect(
      mail.text
        .match(/https?:\/\/\S+/g)
        ?.filter((u) => u !== ORIGIN && !u.startsWith(`${ORIGIN})`)),
    ).toEqual([link]);
  });

  it("covers every kind the service sends, and no mail is written outside these templates", () => {
    const sources = import.meta.glob("../../src/domains/**/*.ts", {
      query: "?raw",
      eager: true,
      import: "default",
    }) as Record<string, string>;
    const all = Object.values(sources).join("\n");
    // Mail kinds are dotted names ("emergency.invite"); the templates and the proof's constant name them.
    const kinds = new Set([...all.matchAll(/kind: "([a-z_]+\.[a-z_]+)"/g)].map((m) => m[1]));
    kinds.add(PROOF_MAIL_KIND);
    expect(Object.keys(sources).length).toBeGreaterThan(50);
    expect(new Set([...MAILS, ...CODE_MAILS].map(([kind]) => kind))).toEqual(kinds);
    // A sender hands over a template's result, never a message written in place.
    const inPlace = Object.entries(sources)
      .filter(([, text]) => /(sendQuietly\([^,]+,|mailer\(\)\.send\()\s*\{/.test(text))
      .map(([path]) => path);
    expect(inPlace).toEqual([]);
  });

  it.each(CODE_MAILS)(
    "%s gives the code, says how long it works, and holds no link",
    (kind, mail, code) => {
      expect(mail.kind).toBe(kind);
      expect(mail.text).toContain(`Your one-time code is ${code}.`);
      expect(mail.text).toMatch(/works for 10 minutes/);
      expect(mail.text).not.toMatch(/https?:|www\.|\/l\//);
    },
  );

  it("counts take the right plural", () => {
    expect(reminderMail(ORIGIN, "o@example.test", 1, AT).text).toContain("triggers in 1 day (");
    expect(reminderMail(ORIGIN, "o@example.test", 2, AT).text).toContain("triggers in 2 days (");
    expect(inviteMail(ORIGIN, "c@example.test", null, 1, 1, AT, "t").text).toMatch(
      /waiting period of 1 hour\.[\s\S]*within 1 day \(/,
    );
    expect(inviteMail(ORIGIN, "c@example.test", null, 24, 7, AT, "t").text).toMatch(
      /waiting period of 24 hours\.[\s\S]*within 7 days \(/,
    );
  });
});
