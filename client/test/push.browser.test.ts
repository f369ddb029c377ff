import { generateKeyPairSync, randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/server";
import { signedInPerson } from "./support/account";
import { openSection } from "./support/journey";
import {
  launch,
  screenshot,
  type Browser,
  type BrowserContext,
  type Page,
} from "./support/browser";

const base = server().baseUrl;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  browser = await launch();
  context = await browser.newContext({ baseURL: base });
  await context.grantPermissions(["notifications"], { origin: base });
  page = await context.newPage();
});

afterAll(async () => {
  await browser?.close();
});

describe("service worker: Web Push", () => {
  it("shows a pushed message as a notification (delivered through DevTools, no push service needed)", async () => {
    const cdp = await page.context().newCDPSession(page);
    const registrations: { registrationId: string; scopeURL: string; isDeleted: boolean }[] = [];
    cdp.on(
      "ServiceWorker.workerRegistrationUpdated",
      (e: { registrations: typeof registrations }) => registrations.push(...e.registrations),
    );
    // What the browser said of its workers, to name the cause should the notification not come.
    const said: string[] = [];
    cdp.on(
      "ServiceWorker.workerVersionUpdated",
      (e: { versions: { versionId: string; runningStatus: string; status: string }[] }) =>
        said.push(
          ...e.versions.map((v) => `version ${v.versionId} ${v.status}/${v.runningStatus}`),
        ),
    );
    cdp.on("ServiceWorker.workerErrorReported", (e: { errorMessage: { errorMessage: string } }) =>
      said.push(`error ${e.errorMessage.errorMessage}`),
    );
    await cdp.send("ServiceWorker.enable");
    await page.goto("/");
    // A push reaches an activated worker; `ready` already resolves while it is activating.
    const state = await page.evaluate(async () => {
      const active = (await navigator.serviceWorker.ready).active!;
      if (active.state !== "activated")
        await new Promise((r) =>
          active.addEventListener("statechange", () => active.state === "activated" && r(null)),
        );
      return { worker: active.state, permission: Notification.permission };
    });
    expect(state).toEqual({ worker: "activated", permission: "granted" });
    const current = () =>
      registrations.filter((r) => r.scopeURL === `${base}/` && !r.isDeleted).at(-1)?.registrationId;
    await expect.poll(current).toBeTruthy();
    const registrationId = current()!;
    // The worker answers a message, so it is running when the push is handed to it.
    const build = await page.evaluate(async () => {
      const active = (await navigator.serviceWorker.ready).active!;
      const channel = new MessageChannel();
      const answer = new Promise<unknown>((r) => (channel.port1.onmessage = (e) => r(e.data)));
      active.postMessage({ type: "BUILD_ID" }, [channel.port2]);
      return answer;
    });
    expect(build).toMatchObject({ type: "BUILD_ID" });
    // The worker itself records the push events it gets and what showNotification answered, so a
    // missing notification says whether the push never came or the browser refused to show it.
    const isOurs = (w: { url(): string }) => w.url() === `${base}/sw.js`;
    const sw =
      context.serviceWorkers().find(isOurs) ??
      (await context.waitForEvent("serviceworker", { predicate: isOurs, timeout: 10_000 }));
    await sw.evaluate(() => {
      const g = self as unknown as {
        seen: string[];
        registration: ServiceWorkerRegistration;
        addEventListener: (t: string, f: () => void) => void;
      };
      g.seen = [];
      g.addEventListener("push", () => g.seen.push("push event"));
      const show = g.registration.showNotification.bind(g.registration);
      g.registration.showNotification = (title, options) =>
        show(title, options).then(
          () => void g.seen.push(`shown: ${title}`),
          (e: Error) => {
            g.seen.push(`refused: ${e.message}`);
            throw e;
          },
        );
    });
    const message = {
      type: "new_device",
      title: "New device signed in",
      body: "Firefox on Linux was registered",
      url: "/devices",
    };
    await cdp.send("ServiceWorker.deliverPushMessage", {
      origin: base,
      registrationId,
      data: JSON.stringify(message),
    });
    // Read the browser's notifications only once showNotification has settled: in Chromium a
    // getNotifications() that overlaps the display can leave the new notification out of every
    // later read. A standalone page lost it in 3 of 15 runs read straight after the push, 0 of 40
    // read after this.
    const settled = () =>
      sw.evaluate(() =>
        (self as unknown as { seen: string[] }).seen.some((s) => /^(shown|refused):/.test(s)),
      );
    const shown = async () =>
      page.evaluate(async () =>
        (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({
          title: n.title,
          body: n.body,
          tag: n.tag,
          data: n.data as unknown,
        })),
      );
    try {
      await expect.poll(settled).toBe(true);
      await expect.poll(shown).toEqual([
        {
          title: message.title,
          body: message.body,
          tag: "new_device",
          data: { url: "/devices" },
        },
      ]);
    } catch (e) {
      const seen = await sw
        .evaluate(() => (self as unknown as { seen: string[] }).seen)
        .catch((err: Error) => [`worker gone: ${err.message}`]);
      throw new Error(
        `${(e as Error).message}\nthe browser's workers: ${said.join("; ")}\nthe worker saw: ${seen.join("; ") || "nothing"}`,
      );
    }
    await screenshot(page, "screenshots/push-service-worker.png");
  });
});

describe("notification centre: push switch", () => {
  it("says clearly when the browser refuses to subscribe, and changes nothing", async () => {
    const person = await signedInPerson(browser, "push");
    await person.context.grantPermissions(["notifications"], { origin: base });
    await openSection(person.page, "Notifications");
    const box = person.page.locator("#push-switch");
    // A click, not check(): the page unchecks the box as soon as the browser refuses, which may come
    // before Playwright reads the box back.
    await box.click();
    await expect
      .poll(() => person.page.locator("#push-message").innerText())
      .toMatch(/refused to subscribe/);
    expect(await box.isChecked()).toBe(false);
    expect(
      ((await person.api.get("/api/push/subscriptions")).body as { subscriptions: unknown[] })
        .subscriptions,
    ).toEqual([]);
    await screenshot(person.page, "screenshots/push-switch-refused.png");
  });

  it("sign-out removes this browser's subscription, at the push service and on the server; another browser's stays", async () => {
    const person = await signedInPerson(browser, "pushout");
    const body = () => {
      const pair = generateKeyPairSync("ec", { namedCurve: "P-256" });
      const p256dh = pair.publicKey
        .export({ format: "der", type: "spki" })
        .subarray(-65)
        .toString("base64url");
      return {
        endpoint: `http://127.0.0.1:9/push/${randomUUID()}`,
        expirationTime: null,
        keys: { p256dh, auth: randomBytes(16).toString("base64url") },
      };
    };
    const mine = await person.api.post("/api/push/subscriptions", body());
    const other = await person.api.post("/api/push/subscriptions", body());
    expect([mine.status, other.status]).toEqual([201, 201]);
    // What the push switch leaves behind when it subscribes this browser (headless Chromium has no
    // push service): the server's id, and a browser subscription that records its unsubscribe.
    await person.page.evaluate((id) => {
      localStorage.setItem("push-subscription-id", id);
      PushManager.prototype.getSubscription = async () =>
        ({
          unsubscribe: async () => (sessionStorage.setItem("push-unsubscribed", "yes"), true),
        }) as unknown as PushSubscription;
    }, mine.body.subscription.id as string);
    await person.page.getByRole("button", { name: "Sign out" }).click();
    await person.page.getByRole("link", { name: "Sign in" }).waitFor();
    const left = (
      (await person.api.get("/api/push/subscriptions")).body as { subscriptions: { id: string }[] }
    ).subscriptions.map((x) => x.id);
    expect(left).toEqual([other.body.subscription.id]);
    expect(
      await person.page.evaluate(() => [
        sessionStorage.getItem("push-unsubscribed"),
        localStorage.getItem("push-subscription-id"),
      ]),
    ).toEqual(["yes", null]);
  });
});
