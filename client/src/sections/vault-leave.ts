/**
 * The end of a membership or of a vault: a member leaves (their copy of the key is deleted on the
 * server and it refuses them from then on), an owner deletes the vault with every entry in it
 * after a dialog that names it and counts what goes. A leaver's app cannot give the vault a new
 * key (it would know the new one too), so the next owner's or manager's app to open the vault
 * offers the rotation (vault-members.ts), found in the vault's activity log.
 */
import type { VaultsApi } from "../../../core/vaults";
import { el, plural } from "../../../core/ui";
import { explain } from "../keys/recovery-keys";
import type { AppContext } from "../shell/context";
import { dialog } from "../shell/confirm-dialog";
import type { Place } from "../vaults/me";

/**
 * How many members left on their own since the vault's key last changed (newest page of the log:
 * a vault where more than 50 things happened since is told of the leaves in that page only).
 */
export async function leftSinceRotation(api: VaultsApi, id: string): Promise<number> {
  const { activity } = await api.activity(id, 50);
  let n = 0;
  for (const a of activity) {
    if (a.action === "key.rotated" || a.action === "vault.created") break;
    if (a.action === "member.left") n++;
  }
  return n;
}

export function mountVaultEnd(
  host: HTMLElement,
  app: AppContext,
  api: VaultsApi,
  me: { userId: string },
  place: () => Place | null,
  entryCount: () => number,
) {
  const error = el("p", { className: "error", role: "alert", id: "vault-end-error" });

  function leaveButton(name: string, id: string) {
    const leave = el(
      "button",
      { type: "button", className: "secondary", id: "vault-leave" },
      "Leave this vault",
    );
    leave.addEventListener("click", () => {
      const sure = el(
        "button",
        { type: "button", className: "danger", id: "vault-leave-confirm" },
        `Leave ${name}: your copy of its key is deleted`,
      );
      sure.addEventListener("click", async () => {
        sure.disabled = true;
        error.textContent = "";
        try {
          await api.removeMember(id, me.userId);
          app.toast(`You left ${name}`);
          app.navigate("/vaults");
        } catch (e) {
          error.textContent = explain(e, "Leaving the vault");
          sure.disabled = false;
        }
      });
      leave.replaceWith(sure);
      sure.focus();
    });
    return leave;
  }

  function askDelete(name: string, id: string, opener: HTMLButtonElement) {
    const n = entryCount();
    const what = n ? `its ${plural(n, "entry", "entries")}` : "it (it holds no entries)";
    const { box, body, close } = dialog(
      `Delete the vault ${name}?`,
      `${name} and ${what} are deleted for every member. This cannot be undone: move an entry you want to keep to your personal vault first.`,
    );
    const go = el(
      "button",
      { type: "button", className: "danger", id: "vault-delete-confirm" },
      n ? `Delete ${name} and ${plural(n, "entry", "entries")}` : `Delete ${name}`,
    );
    const cancel = el("button", { type: "button", className: "secondary" }, "Cancel");
    const said = el("p", { className: "error", role: "alert" });
    body.append(said, el("div", { className: "actions" }, go, cancel));
    const done = () => {
      close();
      opener.focus();
    };
    cancel.addEventListener("click", done);
    box.addEventListener("cancel", (ev) => {
      ev.preventDefault();
      done();
    });
    go.addEventListener("click", async () => {
      go.disabled = true;
      try {
        await api.remove(id);
        close();
        app.toast(`Deleted the vault ${name}`);
        app.navigate("/vaults");
      } catch (e) {
        said.textContent = explain(e, "Deleting the vault");
        go.disabled = false;
      }
    });
    cancel.focus();
  }

  function render() {
    const p = place();
    if (!p) return host.replaceChildren();
    const name = p.opened?.name ?? "this vault";
    const parts: HTMLElement[] = [leaveButton(name, p.vault.id)];
    if (p.vault.role === "owner") {
      const del = el(
        "button",
        { type: "button", className: "danger", id: "vault-delete" },
        "Delete vault",
      );
      del.addEventListener("click", () => askDelete(name, p.vault.id, del));
      parts.push(del);
    }
    host.replaceChildren(
      el(
        "section",
        { className: "card", "aria-labelledby": "vault-end-heading" },
        el("h2", { id: "vault-end-heading" }, "Leave or delete"),
        el(
          "p",
          { className: "hint" },
          p.vault.role === "owner"
            ? "The last owner cannot leave: make another member the owner first, or delete the vault."
            : "Leaving deletes your copy of the vault's key; an owner or manager then gives the vault a new one.",
        ),
        el("div", { className: "row" }, ...parts),
        error,
      ),
    );
  }
  return { render };
}
