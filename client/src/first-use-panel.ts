/**
 * The first use of a contact's key (contact-keys.ts), asked in the app's own dialog: the contact's
 * fingerprint in the six groups the Keys page shows, where the contact finds theirs, and what a
 * difference means. Cancel is the default (focused, and what Escape does): nothing is sent and
 * nothing pinned unless the person chooses to go ahead. A modal <dialog> makes the rest of the page
 * inert while it is open, so nothing else on the page can answer for the person.
 */
import { dialog } from "./confirm-dialog";
import type { FirstUse } from "./contact-keys";
import { el } from "./ui";

export const askFirstUse: FirstUse = (email, fingerprint, purpose) => {
  const act = purpose === "emergency" ? "wrap your vault key for them" : "share with them";
  const { box, body, close } = dialog(`Compare ${email}'s key`, `This is the first time this device uses ${email}'s key. Their key fingerprint:`);
  box.id = "first-use-key";
  return new Promise((resolve) => {
    const go = el("button", { type: "button", id: "first-use-go" }, "Use this key");
    const cancel = el("button", { type: "button", className: "secondary", id: "first-use-cancel" }, "Cancel");
    body.append(
      el("p", { className: "fingerprint", id: "first-use-fingerprint" }, fingerprint),
      el("p", {}, `Compare it with the fingerprint ${email} sees under "Your fingerprint" on their Keys page, by phone or in person, not by mail sent through this service.`),
      el("p", {}, `If the two differ, someone may be trying to read what you send: cancel. To ${act}, use it: it is then pinned on this device.`),
      el("div", { className: "actions" }, go, cancel),
    );
    const finish = (ok: boolean) => {
      close();
      resolve(ok);
    };
    go.addEventListener("click", () => finish(true));
    cancel.addEventListener("click", () => finish(false));
    box.addEventListener("cancel", (ev) => {
      ev.preventDefault();
      finish(false);
    });
    cancel.focus();
  });
};
