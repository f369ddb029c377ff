import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fingerprint, type PublicJwk } from "../../core/crypto/trust";
import { apiAs } from "./support/api";
import {
  dashboardReady,
  entryNames,
  newUser,
  screenshot,
  signInThroughPage,
  type Browser,
  type BrowserContext,
  type Page,
} from "./support/browser";
import { base, launch, openSection, personContext, useContactKey } from "./support/journey";
import { signInWithEntries } from "./support/seed";

// A newcomer's first day between two people. Nadia has just made her account and done nothing
// else: Olga can name her at once (her sharing key was made with her vault, once, however many
// tabs she opens), a failed invitation leaves what Olga typed in place, Nadia hears of the
// invitation and of a share in Notifications and reaches Accept from there, and a key Olga
// compared for emergency access is not asked about again when she shares.
const PASS_O = "olga passphrase 65";
const PASS_N = "nadia passphrase 65";
const SECRET = "pw-invited-at-once-6531";
let browser: Browser;
let olga: Page;
let nadia: Page;
let nadiaContext: BrowserContext;
let o: Awaited<ReturnType<typeof newUser>>;
let n: Awaited<ReturnType<typeof newUser>>;
let oApi: Awaited<ReturnType<typeof apiAs>>;
let nApi: Awaited<ReturnType<typeof apiAs>>;
/** Every registration of a sharing key Nadia's browser sent, in any of her tabs. */
const nadiaKeyPuts: string[] = [];
/** Refusals Nadia's browser met reading her own sharing key (each one a console error). */
const nadiaKeyRefusals: number[] = [];
/** Every first-use question Olga's browser showed, by the contact it asked about. */
const olgaAsked: string[] = [];

type Notice = { type: string; title: string; action_url: string | null; is_read: boolean };

beforeAll(async () => {
  [o, n] = await Promise.all([newUser("olga"), newUser("nadia")]);
  [oApi, nApi] = await Promise.all([apiAs(base(), o.token), apiAs(base(), n.token)]);
  browser = await launch();
  const [oc, nc] = await Promise.all([personContext(browser), personContext(browser)]);
  olga = oc.page;
  nadia = nc.page;
  nadiaContext = nc.context;
  nadiaContext.on("request", (r) => {
    if (r.method() === "PUT" && new URL(r.url()).pathname === "/api/sharing/public-key")
      nadiaKeyPuts.push(r.url());
  });
  nadiaContext.on("response", (r) => {
    const url = new URL(r.url());
    if (url.pathname === "/api/sharing/public-key" && !url.search && r.status() >= 400)
      nadiaKeyRefusals.push(r.status());
  });
  // The panel (first-use-panel.ts) is a modal <dialog>: each one that opens is counted.
  await olga.exposeFunction("firstUseAsked", (title: string) => olgaAsked.push(title));
  await olga.addInitScript(() => {
    new MutationObserver(() => {
      const box = document.getElementById("first-use-key");
      if (box && !box.dataset.counted) {
        box.dataset.counted = "1";
        void (window as unknown as { firstUseAsked(t: string): void }).firstUseAsked(
          box.querySelector("h2")?.textContent ?? "",
        );
      }
    }).observe(document, { childList: true, subtree: true });
  });
});

afterAll(async () => {
  await browser?.close();
});

const inviteError = () => olga.locator("#invite-error").innerText();
const ownKey = async () =>
  (await nApi.get("/api/sharing/public-key")) as {
    status: number;
    body: { publicKey: PublicJwk; wrappedPrivateKey?: string };
  };
const notices = async () =>
  ((await nApi.get("/api/notifications")).body as { notifications: Notice[] }).notifications;

async function invite(email: string, passphrase?: string) {
  await olga.getByLabel("Contact's email").fill(email);
  await olga.getByLabel("Waiting period (hours, 1 to 720)").fill("24");
  if (passphrase !== undefined) await olga.getByLabel("Your master passphrase").fill(passphrase);
  await olga.getByRole("button", { name: "Invite", exact: true }).click();
}

describe("invitations that just work for a new account", () => {
  it("a new account's sharing key is made with its vault: one key, however many tabs open at once", async () => {
    await Promise.all([
      signInWithEntries(olga, o, PASS_O, [
        {
          name: "Team wiki",
          website: "wiki.example",
          username: "olga",
          password: SECRET,
          notes: "",
        },
      ]),
      signInThroughPage(nadia, n.token, PASS_N),
    ]);
    // Nadia opens the pages that make a key when there is none, in two more tabs at once, while
    // her first tab's unlock makes it: one registration, never a second key over the first.
    const tabs = await Promise.all([nadiaContext.newPage(), nadiaContext.newPage()]);
    await Promise.all(
      tabs.map(async (tab, i) => {
        await tab.goto(i ? "/emergency" : "/sharing");
        await dashboardReady(tab);
      }),
    );
    await expect.poll(async () => (await ownKey()).status, { timeout: 10_000 }).toBe(200);
    const first = await fingerprint((await ownKey()).body.publicKey);
    expect((await ownKey()).body.wrappedPrivateKey).toMatch(/^[A-Za-z0-9+/]+=*$/);
    await Promise.all(tabs.map((tab) => tab.close()));
    expect(nadiaKeyPuts).toHaveLength(1);
    expect(nadiaKeyRefusals).toEqual([]);
    expect(await fingerprint((await ownKey()).body.publicKey)).toBe(first);
  });

  it("a failed invitation keeps the passphrase Olga typed; she corrects the address and sends", async () => {
    await openSection(olga, "Emergency access");
    await invite("nobody-yet@example.test", PASS_O);
    await expect
      .poll(inviteError)
      .toBe(
        "nobody-yet@example.test has no vault here yet: ask them to sign in and open their vault once, then try again",
      );
    expect(await olga.getByLabel("Your master passphrase").inputValue()).toBe(PASS_O);
    await olga.getByLabel("Your master passphrase").fill("not the passphrase");
    await olga.getByRole("button", { name: "Invite", exact: true }).click();
    await expect
      .poll(inviteError)
      .toBe("This passphrase does not open the vault: nothing was sent");
    expect(await olga.getByLabel("Your master passphrase").inputValue()).toBe("not the passphrase");
    await olga.getByLabel("Your master passphrase").fill(PASS_O);
    // Nadia did nothing but make her account: the invitation goes through, her key compared once.
    await invite(n.email);
    await useContactKey(olga, n.email, true);
    const row = olga.locator("#contact-rows tr", { hasText: n.email });
    await expect.poll(() => row.locator("td").nth(1).innerText()).toBe("invited");
    expect(await row.locator(".key-status").innerText()).toBe("key verified");
    // Sent: the form is empty again, the passphrase with it.
    expect(await olga.getByLabel("Your master passphrase").inputValue()).toBe("");
    const listed = (await oApi.get("/api/vault/emergency")).body as {
      as_owner: { contact_email: string; status: string }[];
    };
    expect(listed.as_owner.map((c) => [c.contact_email, c.status])).toEqual([
      [n.email, "pending_invite"],
    ]);
    expect(olgaAsked).toEqual([`Compare ${n.email}'s key`]);
  });

  it("Nadia finds the invitation in Notifications and accepts it from there", async () => {
    await openSection(nadia, "Notifications");
    const item = nadia.locator("#notifications li", {
      hasText: "You were named an emergency contact",
    });
    await item.waitFor();
    expect(await item.innerText()).toContain(`${o.email} named you as an emergency contact`);
    await screenshot(nadia, "screenshots/invitation-notification.png");
    await item.getByRole("button", { name: /^Review and accept/ }).click();
    const [invited] = (
      (await nApi.get("/api/vault/emergency")).body as { as_contact: { id: string }[] }
    ).as_contact;
    await nadia.waitForURL(`**/emergency?invitation=${invited!.id}`);
    // The invitation the notification named stands out, its Accept ready under the keyboard.
    const invitation = nadia.locator("#owner-rows tr", { hasText: o.email });
    const accept = invitation.getByRole("button", { name: `Accept ${o.email}'s invitation` });
    await expect.poll(() => accept.evaluate((b) => b === document.activeElement)).toBe(true);
    expect(await invitation.getAttribute("data-named")).toBe("true");
    await screenshot(nadia, "screenshots/invitation-from-notification.png");
    await nadia.keyboard.press("Enter");
    await expect.poll(() => invitation.locator("td").nth(1).innerText()).toBe("active");
    const mine = (await nApi.get("/api/vault/emergency")).body as {
      as_contact: { owner_email: string; status: string }[];
    };
    expect(mine.as_contact.map((c) => [c.owner_email, c.status])).toEqual([[o.email, "active"]]);
    // Following it marked it read, on the server too.
    await expect
      .poll(async () => (await notices()).find((x) => x.type === "emergency_contact_invited"))
      .toMatchObject({ action_url: `/emergency?invitation=${invited!.id}`, is_read: true });
  });

  it("sharing with Nadia after comparing her key for emergency access asks nothing; she accepts the share from its notification", async () => {
    await openSection(olga, "Sharing");
    await olga.locator("#share-submit:not([disabled])").waitFor();
    await olga.getByLabel("Entry", { exact: true }).selectOption({ label: "Team wiki" });
    await olga.getByLabel("Recipient's email").fill(n.email);
    await olga.getByRole("button", { name: "Share", exact: true }).click();
    const owned = olga.locator("#owned-rows tr", { hasText: n.email });
    await owned.waitFor();
    expect(await owned.locator(".key-status").innerText()).toBe("key verified");
    // Still the one question, asked for emergency access.
    expect(olgaAsked).toEqual([`Compare ${n.email}'s key`]);
    const [pending] = (await nApi.get("/api/sharing?type=received")).body.shares as {
      id: string;
      status: string;
    }[];
    expect(pending?.status).toBe("pending");

    await openSection(nadia, "Notifications");
    const item = nadia.locator("#notifications li", { hasText: "An entry was shared with you" });
    await item.waitFor();
    expect(await item.innerText()).toContain(`${o.email} shared "Team wiki" with you`);
    await item.getByRole("button", { name: /^Review and accept/ }).click();
    await nadia.waitForURL(`**/sharing?share=${pending!.id}`);
    // The share the notification named has its Accept ready under the keyboard.
    const accept = nadia.getByRole("button", { name: "Accept Team wiki" });
    await expect.poll(() => accept.evaluate((b) => b === document.activeElement)).toBe(true);
    await nadia.keyboard.press("Enter");
    await nadia.getByRole("button", { name: "Open Team wiki" }).waitFor();
    const [accepted] = (await nApi.get("/api/sharing?type=received")).body.shares as {
      status: string;
    }[];
    expect(accepted?.status).toBe("active");
    await openSection(nadia, "Vault");
    await expect.poll(() => entryNames(nadia)).toEqual(["Team wiki"]);
    await expect
      .poll(async () => (await notices()).find((x) => x.type === "share_received"))
      .toMatchObject({ action_url: `/sharing?share=${pending!.id}`, is_read: true });
  });
});
