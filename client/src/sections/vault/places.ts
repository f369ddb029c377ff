/**
 * The vault page's places (as Bitwarden's vault filter lists "My vault" and each organisation,
 * and 1Password's sidebar each vault): "Personal" with its count, each shared vault the person
 * is in with its count, and open invitations to one. A shared vault opens on its own page
 * (/vaults/<id>), where its entries are added and changed. Read after the list is drawn, so the
 * vault's first paint waits for none of it; a person in no shared vault sees only a link to make one.
 */
import { vaultEntries, vaultsApi } from "../../../../core/vaults";
import { el, plural } from "../../../../core/ui";
import type { AppContext } from "../../shell/context";
import { appLink, places, placeName, vaultMe } from "../../vaults/me";

export function mountVaultPlaces(host: HTMLElement, app: AppContext, personal: () => number) {
  const personalCount = el("span", { className: "count", id: "place-personal-count" });
  const personalItem = el(
    "li",
    { "data-place": "personal" },
    el("span", { "aria-current": "page" }, "Personal"),
    " ",
    personalCount,
  );
  const list = el("ul", { className: "places" }, personalItem);
  host.replaceChildren(el("h2", { className: "places-heading" }, "Vaults"), list);
  host.hidden = false;
  let gone = false;

  const count = () => (personalCount.textContent = `(${personal()})`);

  async function load() {
    const api = vaultsApi(app.api);
    const [{ vaults }, { invitations }] = await Promise.all([api.list(), api.invitations()]);
    const items: HTMLElement[] = [];
    if (vaults.length) {
      const opened = await places(app, await vaultMe(app));
      for (const p of opened) {
        const n = p.opened ? (await vaultEntries(api, p.opened)).length : null;
        items.push(
          el(
            "li",
            { "data-place": p.vault.id },
            appLink(app, `/vaults/${encodeURIComponent(p.vault.id)}`, placeName(p)),
            " ",
            el("span", { className: "count" }, n === null ? "(waiting for its key)" : `(${n})`),
          ),
        );
      }
    }
    if (invitations.length)
      items.push(
        el(
          "li",
          { "data-place": "invitations" },
          appLink(app, "/vaults", `${plural(invitations.length, "vault invitation")} to answer`),
        ),
      );
    items.push(el("li", { "data-place": "new" }, appLink(app, "/vaults", "New shared vault")));
    if (gone) return;
    list.replaceChildren(personalItem, ...items);
  }

  count();
  const reload = () => load().catch(() => undefined);
  void reload();
  const stop = app.onLive("vaults", reload);
  return {
    count,
    stop: () => {
      gone = true;
      stop();
    },
  };
}
