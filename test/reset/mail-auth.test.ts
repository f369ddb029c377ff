import { describe, expect, it } from "vitest";
import {
  authVerdict,
  extractResetLink,
  preferAuthenticated,
  readResetMail,
} from "../../src/domains/reset/mail";
import type { ResolvedService } from "../../src/domains/registry";

const svc = {
  domain: "service.test",
  linkPatterns: [/\/reset\?token=/],
  otpPatterns: [],
} as unknown as ResolvedService;
const enc = new TextEncoder();

function mime(from: string, link: string, results?: string): Uint8Array {
  return enc.encode(
    [
      `From: ${from}`,
      "To: me@example.test",
      "Subject: Reset your password",
      `Date: ${new Date().toUTCString()}`,
      ...(results ? [`Authentication-Results: ${results}`] : []),
      "Content-Type: text/plain",
      "",
      `Reset here: ${link}`,
      "",
    ].join("\r\n"),
  );
}

describe("reset mail authentication ( item 8)", () => {
  it("a mail from 'Service <attacker@evil.test>' linking to evil.test is not used", async () => {
    expect(
      await readResetMail(
        mime("Service <attacker@evil.test>", "https://evil.test/reset?token=abc"),
        svc,
        new Date(),
      ),
    ).toBeNull();
    expect(extractResetLink(undefined, "https://evil.test/password/reset", svc)).toBeNull();
  });

  it("a lookalike host that merely contains the service's domain is refused", () => {
    expect(
      extractResetLink(undefined, "https://service.test.evil.test/reset?token=abc", svc),
    ).toBeNull();
    expect(
      extractResetLink('<a href="https://evilservice.test/reset?token=1">x</a>', undefined, svc),
    ).toBeNull();
  });

  it("a subdomain of the service is accepted", () => {
    expect(extractResetLink(undefined, "https://accounts.service.test/reset?token=abc", svc)).toBe(
      "https://accounts.service.test/reset?token=abc",
    );
  });

  it("Authentication-Results dkim=fail for the service's domain is refused", async () => {
    const results =
      "mx.example.test; dkim=fail (bad signature) header.d=service.test; spf=pass smtp.mailfrom=service.test";
    expect(authVerdict([results], "service.test")).toBe("fail");
    expect(
      await readResetMail(
        mime("Service <no-reply@service.test>", "https://service.test/reset?token=abc", results),
        svc,
        new Date(),
      ),
    ).toBeNull();
    // A failure for another domain says nothing about the service.
    expect(authVerdict(["mx.example.test; dkim=fail header.d=other.test"], "service.test")).toBe(
      "none",
    );
  });

  it("a mail whose DKIM or DMARC passed is preferred over a newer one without results", async () => {
    const pass = mime(
      "Service <no-reply@service.test>",
      "https://service.test/reset?token=signed",
      "mx.example.test; dkim=pass header.d=service.test header.s=s1; dmarc=pass header.from=service.test",
    );
    const plain = mime(
      "Service <no-reply@service.test>",
      "https://service.test/reset?token=unsigned",
    );
    const mails = new Map([
      ["newer", plain],
      ["older", pass],
    ]);
    const hit = await preferAuthenticated(["newer", "older"], (k) =>
      readResetMail(mails.get(k)!, svc, new Date()),
    );
    expect(hit).toEqual({
      key: "older",
      found: {
        link: "https://service.test/reset?token=signed",
        otp: null,
        mailAuthentication: "pass",
      },
    });
    const only = await preferAuthenticated(["newer"], (k) =>
      readResetMail(mails.get(k)!, svc, new Date()),
    );
    expect(only?.found.link).toBe("https://service.test/reset?token=unsigned");
  });

  describe("one-time codes", () => {
    const otpSvc = {
      domain: "service.test",
      linkPatterns: [],
      otpPatterns: [/code is (\d{6})/],
    } as unknown as ResolvedService;
    const codeMail = (results: string[]) =>
      enc.encode(
        [
          "From: Service <no-reply@service.test>",
          "To: me@example.test",
          "Subject: Your code",
          `Date: ${new Date().toUTCString()}`,
          ...results.map((r) => `Authentication-Results: ${r}`),
          "Content-Type: text/plain",
          "",
          "Your code is 424242",
          "",
        ].join("\r\n"),
      );

    it("a code is taken from mail whose DKIM or DMARC passed for the service", async () => {
      const r = await readResetMail(
        codeMail([
          "mx.example.test; dkim=pass header.d=service.test; dmarc=pass header.from=service.test",
        ]),
        otpSvc,
        new Date(),
      );
      expect(r?.found).toEqual({ link: null, otp: "424242", mailAuthentication: "pass" });
    });

    it("where the mailbox gives verdicts, a code from mail with none passing for the service is not taken", async () => {
      for (const results of [
        ["mx.example.test; dkim=none; spf=softfail smtp.mailfrom=service.test"],
        ["mx.example.test; dkim=pass header.d=evil.test; dmarc=pass header.from=evil.test"],
        ["mx.example.test; dmarc=none header.from=service.test"],
      ]) {
        expect(await readResetMail(codeMail(results), otpSvc, new Date())).toBeNull();
      }
    });

    it("where the mailbox gives no verdict at all, the code is taken and marked as unauthenticated", async () => {
      const r = await readResetMail(codeMail([]), otpSvc, new Date());
      expect(r?.found).toEqual({ link: null, otp: "424242", mailAuthentication: "none" });
    });

    it("a passing mail is preferred to a newer spoofed one in the same round", async () => {
      const spoofed = enc.encode(
        [
          "From: Service <no-reply@service.test>",
          "Subject: Your code",
          `Date: ${new Date().toUTCString()}`,
          "Authentication-Results: mx.example.test; dkim=fail header.d=service.test",
          "",
          "Your code is 999999",
          "",
        ].join("\r\n"),
      );
      const mails = new Map([
        ["spoofed", spoofed],
        ["real", codeMail(["mx.example.test; dkim=pass header.d=service.test"])],
      ]);
      const hit = await preferAuthenticated(["spoofed", "real"], (k) =>
        readResetMail(mails.get(k)!, otpSvc, new Date()),
      );
      expect(hit?.found.otp).toBe("424242");
    });
  });
});
