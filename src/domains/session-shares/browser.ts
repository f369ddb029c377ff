import type { Page } from "@cloudflare/puppeteer";

export const VIEWPORT = { width: 1280, height: 800 };

/** Defaults used when the service registry names no selectors for the site. */
export const DEFAULT_SELECTORS = {
  username: [
    'input[autocomplete="username"]',
    'input[type="email"]',
    'input[name*="user" i]',
    'input[name*="email" i]',
    'input[name*="login" i]',
    'input[id*="user" i]',
    'input[id*="email" i]',
    'input[type="text"]',
  ],
  password: ['input[autocomplete="current-password"]', 'input[type="password"]'],
  submit: ['button[type="submit"]', 'input[type="submit"]', 'form button:not([type="button"])'],
};

/**
 * Runs in every document of the shared tab before the site's own scripts. A viewer drives the page
 * only through clicks and keys, so these are the ways a password could become readable on screen:
 * a "show password" toggle flipping the input's type, copying it out, or dragging it into a text
 * field. Each is undone or cancelled here.
 */
export const PASSWORD_GUARD = `(() => {
  const guarded = new WeakSet();
  const mark = (el) => { if (el instanceof HTMLInputElement && el.type === "password") guarded.add(el); };
  const scan = (root) => { if (root.querySelectorAll) root.querySelectorAll('input[type="password"]').forEach(mark); };
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === "attributes" && guarded.has(r.target) && r.target.type !== "password") r.target.type = "password";
      for (const n of r.addedNodes || []) { mark(n); scan(n); }
    }
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["type"] });
  document.addEventListener("DOMContentLoaded", () => scan(document));
  for (const ev of ["copy", "cut", "dragstart"]) {
    document.addEventListener(ev, (e) => { if (guarded.has(e.target) || guarded.has(document.activeElement)) e.preventDefault(); }, true);
  }
})();`;

export function watermarkScript(enabled: boolean, text: string): string {
  return `(() => {
    const id = "__vault_session_watermark";
    document.getElementById(id)?.remove();
    if (!${enabled}) return;
    const el = document.createElement("div");
    el.id = id;
    el.setAttribute("aria-hidden", "true");
    el.style.cssText = "position:fixed;inset:0;pointer-events:none;z-index:2147483647;display:flex;flex-wrap:wrap;align-content:space-around;justify-content:space-around;opacity:.18;font:600 22px sans-serif;color:#c00;transform:rotate(-20deg);overflow:hidden";
    for (let i = 0; i < 24; i++) { const s = document.createElement("span"); s.textContent = ${JSON.stringify(text)}; s.style.padding = "30px"; el.appendChild(s); }
    (document.body || document.documentElement).appendChild(el);
  })();`;
}

async function firstVisible(page: Page, selectors: string[]) {
  for (const sel of selectors) {
    for (const handle of await page.$$(sel)) {
      const visible = await handle.evaluate((el) => {
        const input = el as unknown as {
          getBoundingClientRect(): { width: number; height: number };
          disabled?: boolean;
        };
        const r = input.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && !input.disabled;
      });
      if (visible) return handle;
    }
  }
  return null;
}

/** What the service registry adds for the site: its own selectors are tried before the defaults. */
export type RegistrySelectors = { username: string[]; submit: string[] };
export const NO_REGISTRY_SELECTORS: RegistrySelectors = { username: [], submit: [] };

const merged = (first: readonly string[], then: readonly string[]) => [
  ...new Set([...first, ...then]),
];

export async function hasVisiblePasswordField(page: Page): Promise<boolean> {
  return (await firstVisible(page, DEFAULT_SELECTORS.password)) !== null;
}

/**
 * Fills and submits the login form. Success means the site moved on and no password field is
 * left on the page; a form that comes back is a failed login. Without a username field nothing is
 * submitted: a password sent alone would only count as a failed sign-in at the site (and may lock
 * the account), so the share fails with a reason that points at the registry instead.
 */
export async function automatedLogin(
  page: Page,
  username: string,
  password: string,
  registry: RegistrySelectors = NO_REGISTRY_SELECTORS,
): Promise<{ ok: true } | { ok: false; reason: string }> {
  const pass = await firstVisible(page, DEFAULT_SELECTORS.password);
  if (!pass) return { ok: false, reason: "no password field on the login page" };
  const user = await firstVisible(page, merged(registry.username, DEFAULT_SELECTORS.username));
  if (!user) return { ok: false, reason: "no username field on the login page" };
  await user.click({ count: 3 });
  await user.type(username);
  await pass.click();
  await pass.type(password);
  const submit = await firstVisible(page, merged(registry.submit, DEFAULT_SELECTORS.submit));
  const navigation = page
    .waitForNavigation({ waitUntil: "load", timeout: 20_000 })
    .catch(() => null);
  if (submit) await submit.click();
  else await pass.press("Enter");
  await navigation;
  if (await hasVisiblePasswordField(page))
    return { ok: false, reason: "the site did not accept the credentials" };
  return { ok: true };
}
