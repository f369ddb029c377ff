/**
 * The options of a new secure link (expiry, views, passphrase, hidden sender) and the box that hands
 * the new link over: shared by the Secure links section and an entry's "Share by link" tool.
 */
import { MAX_LABEL_BYTES, type CreateOptions } from "../links";
import { el } from "./ui";

/** A plausible address; the server's check is the real one. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const EXPIRY: [number, string][] = [
  [3600, "1 hour"],
  [24 * 3600, "1 day"],
  [7 * 24 * 3600, "7 days"],
  [30 * 24 * 3600, "30 days"],
];

/** The option controls, ids prefixed so two forms never share one; `read` answers the options or what is wrong. */
export function linkOptions(prefix: string): {
  nodes: HTMLElement[];
  read(): CreateOptions | string;
  reset(): void;
} {
  const expiry = el(
    "select",
    { id: `${prefix}-expiry` },
    ...EXPIRY.map(([s, t]) => el("option", { value: String(s), selected: s === 7 * 24 * 3600 }, t)),
  );
  const views = el("input", {
    id: `${prefix}-views`,
    type: "number",
    min: "1",
    max: "100",
    value: "1",
    inputMode: "numeric",
  });
  const passphrase = el("input", {
    id: `${prefix}-passphrase`,
    type: "password",
    autocomplete: "new-password",
  });
  const hideSender = el("input", { id: `${prefix}-hide-sender`, type: "checkbox" });
  const recipients = el("textarea", {
    id: `${prefix}-recipients`,
    rows: 2,
    autocomplete: "off",
    spellcheck: false,
    placeholder: "name@example.com",
  });
  const label = el("input", {
    id: `${prefix}-label`,
    type: "text",
    autocomplete: "off",
    maxLength: 100,
  });
  return {
    nodes: [
      el("label", { htmlFor: `${prefix}-label` }, "Label (optional; only you see it)"),
      label,
      el("label", { htmlFor: `${prefix}-expiry` }, "Expires after"),
      expiry,
      el("label", { htmlFor: `${prefix}-views` }, "Maximum views (1–100)"),
      views,
      el("label", { htmlFor: `${prefix}-passphrase` }, "Passphrase (optional; send it separately)"),
      passphrase,
      el(
        "label",
        { htmlFor: `${prefix}-recipients` },
        "Only these email addresses (optional; one per line, up to 10)",
      ),
      recipients,
      el(
        "p",
        { className: "hint" },
        "Each recipient proves their address with a code sent to it before the link opens.",
      ),
      el("label", { className: "inline" }, hideSender, "Hide my email address from the recipient"),
    ],
    read() {
      const n = Number(views.value);
      if (!Number.isInteger(n) || n < 1 || n > 100)
        return "Maximum views must be a whole number from 1 to 100.";
      const emails = [
        ...new Set(
          recipients.value
            .split(/[\s,;]+/)
            .map((e) => e.trim())
            .filter(Boolean),
        ),
      ];
      if (emails.length > 10) return "List at most 10 email addresses.";
      const bad = emails.find((e) => !EMAIL.test(e));
      if (bad) return `"${bad}" is not an email address.`;
      const name = label.value.trim();
      if (new TextEncoder().encode(name).length > MAX_LABEL_BYTES) return "The label is too long.";
      return {
        expiresInSeconds: Number(expiry.value),
        maxViews: n,
        passphrase: passphrase.value || undefined,
        hideSender: hideSender.checked,
        recipients: emails.length ? emails : undefined,
        label: name || undefined,
      };
    },
    reset() {
      passphrase.value = "";
      recipients.value = "";
      label.value = "";
    },
  };
}

/** Shows the new link once, with a copy button: the key after # is stored nowhere else. */
export function showLink(
  box: HTMLElement,
  prefix: string,
  url: string,
  toast: (m: string) => void,
) {
  const field = el("input", {
    id: `${prefix}-url`,
    className: "link-url",
    readOnly: true,
    value: url,
    "aria-label": "The new link",
  });
  const copy = el("button", { type: "button", id: `${prefix}-copy` }, "Copy link");
  copy.addEventListener("click", async () => {
    await navigator.clipboard.writeText(url);
    toast("Link copied");
  });
  box.replaceChildren(
    el("h2", {}, "Link ready"),
    el(
      "p",
      { className: "hint" },
      "Send this link to the recipient. It is shown only now: the key after # is not stored anywhere.",
    ),
    field,
    el("div", { className: "row" }, copy),
  );
  box.hidden = false;
}
