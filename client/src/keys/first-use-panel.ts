/**
 * The first use of a contact's key (contact-keys.ts), asked in the app's own dialog: the contact's
 * fingerprint in the six groups the Keys page shows, where the contact finds theirs, and what a
 * difference means. Cancel is the default (focused, and what Escape does): nothing is sent and
 * nothing pinned unless the person chooses to go ahead, saying whether they compared. A modal
 * <dialog> makes the rest of the page inert while it is open, so nothing else on the page can
 * answer for the person. The same panel compares a pinned key later (`askToCompare`), and
 * `keyBadge` shows beside a contact what this device knows of their key.
 */
import { dialog } from "../shell/confirm-dialog";
import type { FirstUse, FirstUseAnswer } from "./contact-keys";
import type { KnownContact, TrustStore } from "../../../core/crypto";
import { el } from "../../../core/ui";

/** The one sentence a newcomer needs: why they are asked, and why only once. */
export const ONCE =
  "You compare a person's key only once: this device then knows it for sharing, emergency access and the dead man's switch alike, and warns you if it ever changes.";

const whereTheirsIs = (email: string) =>
  `Compare it with the fingerprint ${email} sees under "Your sharing key" on their Contacts' keys page, by phone or in person, not by mail sent through this service.`;

function panel(
  title: string,
  lead: string,
  fp: string,
  text: string[],
  buttons: [FirstUseAnswer, string, string][],
): Promise<FirstUseAnswer> {
  const { box, body, close } = dialog(title, lead);
  box.id = "first-use-key";
  return new Promise((resolve) => {
    const finish = (answer: FirstUseAnswer) => {
      close();
      resolve(answer);
    };
    const made = buttons.map(([answer, id, label]) => {
      const b = el(
        "button",
        { type: "button", id, className: answer === "compared" ? "" : "secondary" },
        label,
      );
      b.addEventListener("click", () => finish(answer));
      return b;
    });
    body.append(
      el("p", { className: "fingerprint", id: "first-use-fingerprint" }, fp),
      ...text.map((t) => el("p", {}, t)),
      el("div", { className: "actions" }, ...made),
    );
    box.addEventListener("cancel", (ev) => {
      ev.preventDefault();
      finish("cancel");
    });
    made.find((b) => b.id === "first-use-cancel")?.focus();
  });
}

const ACT = {
  sharing: "share with them",
  emergency: "wrap your vault key for them",
  "dead-man-switch": "wrap your vault key for them",
} as const;

export const askFirstUse: FirstUse = (email, fingerprint, purpose) =>
  panel(
    `Compare ${email}'s key`,
    `This is the first time this device uses ${email}'s key. Their key fingerprint:`,
    fingerprint,
    [
      whereTheirsIs(email),
      `If the two differ, someone may be trying to read what you send: cancel. If they match, say so; to ${ACT[purpose]} without comparing now, use the key unchecked (it is marked "not compared").`,
      ONCE,
    ],
    [
      ["compared", "first-use-compared", "We compared: they match"],
      ["not-compared", "first-use-go", "Use without comparing"],
      ["cancel", "first-use-cancel", "Cancel"],
    ],
  );

/** Compares a contact's pinned key now; true when the person marked it compared. */
export async function askToCompare(trust: TrustStore, contact: KnownContact): Promise<boolean> {
  const answer = await panel(
    `Compare ${contact.email}'s key`,
    `The key this device uses for ${contact.email} has not been compared yet. Its fingerprint:`,
    contact.fingerprint,
    [whereTheirsIs(contact.email), ONCE],
    [
      ["compared", "first-use-compared", "We compared: they match"],
      ["cancel", "first-use-cancel", "Not now"],
    ],
  );
  return answer === "compared" && (await trust.markCompared(contact.email, contact.fingerprint));
}

/**
 * Beside a contact: "key verified" once compared; "key not compared" (a button that compares it)
 * while not; nothing when this device has no key pinned for them (invited from another device).
 */
export function keyBadge(
  trust: TrustStore,
  known: Map<string, KnownContact>,
  email: string,
  changed: () => void,
): HTMLElement | null {
  const contact = known.get(email.trim().toLowerCase());
  if (!contact) return null;
  if (contact.compared)
    return el(
      "span",
      {
        className: "badge ok key-status",
        "data-key": "verified",
        title: `You compared ${contact.email}'s key fingerprint with them`,
      },
      "key verified",
    );
  const b = el(
    "button",
    { type: "button", className: "badge warn key-status linklike", "data-key": "not-compared" },
    "key not compared",
  );
  b.setAttribute("aria-label", `Compare ${contact.email}'s key (not compared yet)`);
  b.addEventListener(
    "click",
    () => void askToCompare(trust, contact).then((marked) => marked && changed()),
  );
  return b;
}

/** A table cell naming a contact, with their key's badge beside the email. */
export function contactCell(
  trust: TrustStore,
  known: Map<string, KnownContact>,
  email: string,
  changed: () => void,
): HTMLTableCellElement {
  const badge = keyBadge(trust, known, email, changed);
  return badge ? el("td", {}, email, " ", badge) : el("td", {}, email);
}
