import puppeteer, { type Browser, type Page } from "@cloudflare/puppeteer";
import type { Bindings, Config } from "../../env";
import { assertPublicUrl } from "../../lib/outbound-guard";
import { guardOptions } from "../../lib/guarded-fetch";
import { BROWSER_DAY_SPENT, isBrowserDaySpent } from "../../lib/browser-rendering";
import type { ResolvedService } from "../registry";

type DomLike = { innerText?: string; value?: string; href?: string };

export class FlowFailure extends Error {}

const CAPTCHA =
  'iframe[src*="recaptcha"], iframe[src*="hcaptcha"], iframe[title*="captcha" i], .g-recaptcha, .h-captcha, .cf-turnstile, iframe[src*="challenges.cloudflare.com"]';

export type FlowHooks = {
  screenshot(url: string): Promise<void>;
};

// The day-spent words and test live with Browser Rendering's other limits, shared with session shares.
export { BROWSER_DAY_SPENT, isBrowserDaySpent } from "../../lib/browser-rendering";

export async function launchBrowser(env: Bindings): Promise<Browser> {
  try {
    return await puppeteer.launch(env.BROWSER as never);
  } catch (err) {
    if (isBrowserDaySpent(err)) throw new FlowFailure(BROWSER_DAY_SPENT);
    throw err;
  }
}

export async function shot(page: Page, hooks: FlowHooks): Promise<void> {
  const b64 = (await page.screenshot({ type: "jpeg", quality: 50, encoding: "base64" })) as string;
  await hooks.screenshot(`data:image/jpeg;base64,${b64}`);
}

/** Every address the browser is sent to passes the outbound guard, redirects included. */
export async function guardedGoto(
  page: Page,
  config: Config,
  url: string,
  field: string,
): Promise<void> {
  await assertPublicUrl(url, field, guardOptions(config));
  const res = await page.goto(url, { waitUntil: "domcontentloaded", timeout: 30_000 });
  for (const r of res?.request().redirectChain() ?? [])
    await assertPublicUrl(r.url(), field, guardOptions(config));
  await assertPublicUrl(page.url(), field, guardOptions(config));
}

async function assertNoCaptcha(page: Page): Promise<void> {
  if (await page.$(CAPTCHA)) throw new FlowFailure("captcha");
}

async function firstPresent(page: Page, selectors: string[]): Promise<string | null> {
  for (const s of selectors) {
    try {
      if (await page.$(s)) return s;
    } catch {
      continue;
    }
  }
  return null;
}

/** Submit control: configured selectors first, then a button whose text matches, never a skip pattern. */
async function submit(page: Page, svc: ResolvedService): Promise<void> {
  const sel = await firstPresent(page, svc.submitSelectors);
  const clickIt = async (handle: { click(): Promise<void> }) => {
    await Promise.all([
      page
        .waitForNavigation({ waitUntil: "domcontentloaded", timeout: 15_000 })
        .catch(() => undefined),
      handle.click(),
    ]);
  };
  if (sel) {
    const handle = await page.$(sel);
    const text = (
      (await handle?.evaluate(
        (el) => (el as unknown as DomLike).innerText || (el as unknown as DomLike).value || "",
      )) ?? ""
    ).trim();
    if (handle && !svc.skipSubmitPatterns.some((p) => text.toLowerCase().includes(p.toLowerCase())))
      return clickIt(handle);
  }
  for (const b of await page.$$("button, input[type=submit]")) {
    const text = (
      (await b.evaluate(
        (el) => (el as unknown as DomLike).innerText || (el as unknown as DomLike).value || "",
      )) ?? ""
    )
      .trim()
      .toLowerCase();
    if (svc.skipSubmitPatterns.some((p) => text.includes(p.toLowerCase()))) continue;
    if (svc.submitButtonText.some((t) => text.includes(t.toLowerCase()))) return clickIt(b);
  }
  throw new FlowFailure("form vanished: no submit control");
}

/**
 * navigate: the reset page; from a login page (it has a password field) or a page without an
 * email field, the forgot-password link is followed.
 */
export async function stepNavigate(
  page: Page,
  config: Config,
  svc: ResolvedService,
  serviceUrl: string,
  hooks: FlowHooks,
): Promise<void> {
  const start = svc.known && svc.resetUrl ? svc.resetUrl : serviceUrl;
  await guardedGoto(page, config, start, "serviceUrl");
  const loginForm = (await page.$$('input[type="password"]')).length > 0;
  if (loginForm || !(await firstPresent(page, svc.emailInputSelectors))) {
    const forgot = await firstPresent(page, svc.forgotPasswordSelectors);
    if (forgot) {
      const href = await page.$eval(forgot, (a) => (a as unknown as DomLike).href ?? "");
      if (href) await guardedGoto(page, config, href, "serviceUrl");
    }
  }
  await shot(page, hooks);
  await assertNoCaptcha(page);
}

/** enter_email: type the account address into the forgot-password form and send it. */
export async function stepEnterEmail(
  page: Page,
  svc: ResolvedService,
  email: string,
  hooks: FlowHooks,
): Promise<void> {
  const input = await firstPresent(page, svc.emailInputSelectors);
  if (!input) throw new FlowFailure("form vanished: no email field on the reset page");
  await page.type(input, email);
  await assertNoCaptcha(page);
  await submit(page, svc);
  await shot(page, hooks);
  await assertNoCaptcha(page);
}

/** follow_link: open the mailed link; the new-password form must be there. */
export async function stepFollowLink(
  page: Page,
  config: Config,
  link: string,
  hooks: FlowHooks,
): Promise<void> {
  await guardedGoto(page, config, link, "link");
  await shot(page, hooks);
  await assertNoCaptcha(page);
  if ((await page.$$('input[type="password"]')).length === 0)
    throw new FlowFailure("form vanished: the reset link shows no password form");
}

const CODE_FIELDS = [
  'input[autocomplete="one-time-code"]',
  'input[name*="code" i]:not([type="hidden"])',
  'input[id*="code" i]:not([type="hidden"])',
  'input[inputmode="numeric"]',
];

/** After the email is sent: a page asking for a code means the reset continues with a code, not a link. */
export async function asksForCode(page: Page): Promise<boolean> {
  return (await firstPresent(page, CODE_FIELDS)) !== null;
}

/** Enters a code into the page's one-time-code field; the site must then offer the new-password form. */
export async function enterOtp(
  page: Page,
  svc: ResolvedService,
  code: string,
  hooks: FlowHooks,
): Promise<void> {
  const field = await firstPresent(page, CODE_FIELDS);
  if (!field) throw new FlowFailure("form vanished: no code field");
  await page.type(field, code);
  await submit(page, svc);
  await shot(page, hooks);
  await assertNoCaptcha(page);
  if ((await page.$$('input[type="password"]')).length === 0)
    throw new FlowFailure("the site did not accept the code");
}

/** set_password: fill every password field and submit; the site must not show the form again. */
export async function stepSetPassword(
  page: Page,
  svc: ResolvedService,
  password: string,
  hooks: FlowHooks,
): Promise<void> {
  const fields = await page.$$('input[type="password"]');
  if (fields.length === 0) throw new FlowFailure("form vanished: no password field");
  for (const f of fields) await f.type(password);
  await submit(page, svc);
  await shot(page, hooks);
  const text = String(
    (await page.evaluate("document.body ? document.body.innerText : ''")) ?? "",
  ).toLowerCase();
  const success = svc.successIndicators.some((s) => text.includes(s.toLowerCase()));
  const formAgain = (await page.$$('input[type="password"]')).length > 0;
  if (!success && formAgain) throw new FlowFailure("password rejected by the site");
  if (!success && /invalid|expired|error|requirement/.test(text))
    throw new FlowFailure("password rejected by the site");
}
