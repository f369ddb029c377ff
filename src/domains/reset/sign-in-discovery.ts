import type { Config } from "../../env";
import type { Db } from "../../db/client";
import { AppError, ErrorCode } from "../../lib/errors";
import { guardedFetch, readCapped } from "../../lib/guarded-fetch";
import { resolveService } from "../registry";

export type PageFacts = {
  inputs: { type: string; name: string; autocomplete: string; id: string }[];
  links: { href: string; text: string }[];
  buttons: string[];
  scripts: string;
  text: string;
};

/** Collects the parts of a login page that tell how one signs in, with the streaming HTMLRewriter. */
export async function pageFacts(html: string): Promise<PageFacts> {
  const facts: PageFacts = { inputs: [], links: [], buttons: [], scripts: "", text: "" };
  let link: { href: string; text: string } | null = null;
  let button: string[] | null = null;
  const rewriter = new HTMLRewriter()
    .on("input", {
      element(e) {
        facts.inputs.push({
          type: (e.getAttribute("type") ?? "text").toLowerCase(),
          name: e.getAttribute("name") ?? "",
          autocomplete: e.getAttribute("autocomplete") ?? "",
          id: e.getAttribute("id") ?? "",
        });
        if ((e.getAttribute("type") ?? "").toLowerCase() === "submit")
          facts.buttons.push(e.getAttribute("value") ?? "");
      },
    })
    .on("a", {
      element(e) {
        link = {
          href: e.getAttribute("href") ?? "",
          text: [e.getAttribute("aria-label"), e.getAttribute("title")].filter(Boolean).join(" "),
        };
        facts.links.push(link);
      },
      text(t) {
        if (link) link.text += t.text;
      },
    })
    .on("button", {
      element(e) {
        button = [e.getAttribute("aria-label") ?? "", e.getAttribute("formaction") ?? ""];
        facts.buttons.push("");
        const idx = facts.buttons.length - 1;
        e.onEndTag(() => {
          facts.buttons[idx] = (button ?? []).join(" ").trim();
          button = null;
        });
      },
      text(t) {
        button?.push(t.text);
      },
    })
    .on("script", {
      text(t) {
        if (facts.scripts.length < 500_000) facts.scripts += t.text;
      },
    })
    .on("*", {
      text(t) {
        if (facts.text.length < 200_000) facts.text += t.text;
      },
    });
  await rewriter.transform(new Response(html)).text();
  return facts;
}

const OAUTH: [string, RegExp, RegExp][] = [
  [
    "google",
    /accounts\.google\.com|\/auth\/google|oauth.*google/i,
    /(sign|log) ?in with google|continue with google/i,
  ],
  ["apple", /appleid\.apple\.com|\/auth\/apple/i, /(sign|log) ?in with apple|continue with apple/i],
  [
    "facebook",
    /facebook\.com\/.*(dialog\/oauth|login)|\/auth\/facebook/i,
    /(sign|log) ?in with facebook|continue with facebook/i,
  ],
  [
    "microsoft",
    /login\.microsoftonline\.com|login\.live\.com|\/auth\/microsoft/i,
    /(sign|log) ?in with microsoft|continue with microsoft/i,
  ],
  [
    "github",
    /github\.com\/login\/oauth|\/auth\/github/i,
    /(sign|log) ?in with github|continue with github/i,
  ],
  [
    "x",
    /(twitter|x)\.com\/i\/oauth2|api\.twitter\.com\/oauth|\/auth\/twitter/i,
    /(sign|log) ?in with (twitter|x)\b|continue with (twitter|x)\b/i,
  ],
  [
    "linkedin",
    /linkedin\.com\/oauth|\/auth\/linkedin/i,
    /(sign|log) ?in with linkedin|continue with linkedin/i,
  ],
  ["sso", /\/sso\b|saml/i, /single sign-on|\bsso\b/i],
];

const RESET = /forgot|reset|recover|lost.?password|trouble (signing|logging) in/i;
const SIGNUP = /sign.?up|register|create.?(an.?)?account|join\b|get started/i;

function absolute(href: string, base: URL): string | null {
  if (!href || /^(javascript|mailto|tel|data):/i.test(href.trim()) || href.startsWith("#"))
    return null;
  try {
    const u = new URL(href, base);
    return u.protocol === "http:" || u.protocol === "https:" ? u.toString() : null;
  } catch {
    return null;
  }
}

/** Sign-in methods, reset and signup URLs as a page presents them. */
export function analyse(
  facts: PageFacts,
  base: URL,
  known?: { loginType?: string; resetUrl?: string | null },
) {
  const methods: string[] = [];
  const hasPassword = facts.inputs.some((i) => i.type === "password");
  const hasIdentifier = facts.inputs.some(
    (i) =>
      i.type === "email" ||
      /email|user|login|identifier/i.test(`${i.name} ${i.id} ${i.autocomplete}`),
  );
  if (hasPassword || (hasIdentifier && (!known?.loginType || known.loginType === "password_reset")))
    methods.push("email_password");
  else if (hasIdentifier && known?.loginType === "magic_link") methods.push("magic_link");
  else if (hasIdentifier && known?.loginType === "otp") methods.push("email_otp");
  const passkey =
    facts.inputs.some((i) => /webauthn/i.test(i.autocomplete)) ||
    /PublicKeyCredential|navigator\.credentials\.get|webauthn/i.test(facts.scripts) ||
    /passkey/i.test(`${facts.text} ${facts.buttons.join(" ")}`);
  if (passkey) methods.push("passkey");
  const clickables = [
    ...facts.links.map((l) => ({ target: l.href, text: l.text })),
    ...facts.buttons.map((b) => ({ target: "", text: b })),
  ];
  for (const [name, hrefRe, textRe] of OAUTH) {
    if (clickables.some((c) => (c.target && hrefRe.test(c.target)) || textRe.test(c.text)))
      methods.push(name);
  }
  const find = (re: RegExp) => {
    for (const l of facts.links) {
      if (re.test(l.text) || re.test(l.href)) {
        const u = absolute(l.href, base);
        if (u) return u;
      }
    }
    return null;
  };
  return { methods, resetUrl: find(RESET) ?? known?.resetUrl ?? null, signupUrl: find(SIGNUP) };
}

export async function discoverSignIn(
  config: Config,
  db: Db,
  rawUrl: string,
  deps: Parameters<typeof guardedFetch>[3] = {},
) {
  const { res, url } = await guardedFetch(config, rawUrl, "url", deps);
  if (!res.ok) {
    await res.body?.cancel();
    throw new AppError(ErrorCode.UNPROCESSABLE, `The page answered ${res.status}`);
  }
  const type = res.headers.get("content-type") ?? "";
  if (!/html|xml/i.test(type)) {
    await res.body?.cancel();
    throw new AppError(ErrorCode.UNPROCESSABLE, "The page is not HTML");
  }
  const facts = await pageFacts(await readCapped(res));
  const svc = await resolveService(db, url.hostname);
  return analyse(
    facts,
    url,
    svc.known ? { loginType: svc.loginType, resetUrl: svc.resetUrl } : undefined,
  );
}
