/**
 * /devices: the account's registered devices (spec "Trusted device"): rename, change trust,
 * remove. This browser is marked; removing it means it registers as new on its next start.
 */
import type { Device, TrustLevel } from "../../../core/api";
import {
  forgetRegistration,
  identifyDevice,
  isThisDevice,
  lastRegistration,
} from "../../../core/device";
import type { AppContext } from "../shell/context";
import { el, errorText, formatTime } from "../../../core/ui";

const TRUST: Record<TrustLevel, string> = {
  trusted: "Trusted: full access",
  recognized: "Recognized: sensitive actions need a recent sign-in",
  unknown: "Unknown: treated as a new device",
};

export function mount(root: HTMLElement, app: AppContext): () => void {
  let gone = false;
  const list = el("ul", { id: "devices", className: "cards", "aria-label": "Devices" });
  const error = el("p", { id: "devices-error", className: "error", role: "alert" });
  const unregistered = el("p", { id: "devices-unregistered", className: "hint", hidden: true });
  root.classList.add("section");
  root.replaceChildren(
    el("h1", {}, "Devices"),
    el(
      "p",
      { className: "hint" },
      "Browsers and apps that signed in to your vault. Remove any you do not recognize.",
    ),
    unregistered,
    error,
    list,
  );

  /** Why this browser is missing from the list, and what to do about it. */
  function explainUnregistered(listed: boolean) {
    const why = lastRegistration();
    unregistered.hidden = listed || why === "registered" || why === "not-yet";
    if (why === "needs-sign-in") {
      unregistered.replaceChildren(
        "This browser is not one of your devices yet: adding a device takes a recent sign-in. ",
        el(
          "a",
          { href: `/api/auth/login?${new URLSearchParams({ next: "/devices" })}` },
          "Sign in again to add it",
        ),
      );
    } else if (why === "refused") {
      unregistered.replaceChildren(
        "This browser's device key does not match its registration (its storage was cleared). Remove “This browser” below, then reload to register it again.",
      );
    }
  }

  function card(d: Device, mine: boolean): HTMLLIElement {
    const name = el("input", {
      value: d.device_name,
      maxLength: 100,
      "aria-label": `Name of ${d.device_name}`,
    });
    const rename = el("button", { type: "button", className: "secondary" }, "Rename");
    const trust = el(
      "select",
      { "aria-label": `Trust of ${d.device_name}` },
      ...Object.entries(TRUST).map(([v, t]) =>
        el("option", { value: v, selected: v === d.trust_level }, t),
      ),
    );
    const remove = el(
      "button",
      { type: "button", className: "danger" },
      mine ? "Remove this browser" : "Remove",
    );
    const li = el(
      "li",
      { "data-id": d.id, "data-trust": d.trust_level },
      el(
        "p",
        { className: "name" },
        d.device_name,
        mine ? el("span", { className: "badge" }, "This browser") : "",
      ),
      el(
        "p",
        { className: "muted" },
        `${d.device_type} · ${[d.browser, d.os].filter(Boolean).join(" on ") || "unknown"} · ${d.ip_address ?? "no IP"} · last active ${formatTime(d.last_active_at)}`,
      ),
      el("div", { className: "row" }, name, rename),
      trust,
      el("div", { className: "row" }, remove),
    );
    const act = (what: Promise<unknown>, done: string) =>
      what
        .then(async () => {
          app.toast(done);
          await render();
        })
        .catch(async (err: unknown) => {
          error.textContent = errorText(err);
          await render();
        });
    rename.addEventListener("click", () => {
      error.textContent = "";
      const v = name.value.trim();
      if (!v) {
        error.textContent = "A device name cannot be empty";
        return;
      }
      void act(app.api.updateDevice(d.id, { deviceName: v }), `Renamed to ${v}`);
    });
    trust.addEventListener("change", () => {
      error.textContent = "";
      void act(
        app.api.updateDevice(d.id, { trustLevel: trust.value as TrustLevel }),
        `${d.device_name} is now ${trust.value}`,
      );
    });
    remove.addEventListener("click", () => {
      if (
        !confirm(
          mine
            ? "Remove this browser? It registers as a new device the next time the vault opens."
            : `Remove ${d.device_name}? Its sessions stay signed in until they expire; it will appear as new.`,
        )
      )
        return;
      error.textContent = "";
      // As the question says: the next page of this browser registers it again.
      if (mine) forgetRegistration();
      void act(app.api.revokeDevice(d.id), `${d.device_name} removed`);
    });
    return li;
  }

  async function render() {
    const [, { devices }] = await Promise.all([identifyDevice(), app.api.devices()]);
    if (gone) return;
    list.replaceChildren(...devices.map((d) => card(d, isThisDevice(d))));
    // Not listed: the next page registers it again rather than trusting an earlier registration.
    if (!devices.some((d) => isThisDevice(d))) forgetRegistration();
    explainUnregistered(devices.some((d) => isThisDevice(d)) && lastRegistration() !== "refused");
    if (devices.length === 0)
      list.replaceChildren(el("li", { className: "muted" }, "No devices registered."));
  }

  void render().catch(
    (err: unknown) => (error.textContent = `Cannot load devices: ${errorText(err)}`),
  );
  return () => {
    gone = true;
  };
}
