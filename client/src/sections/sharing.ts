/**
 * The sharing section (/sharing): this user's sharing key (ECDH P-256, private half wrapped by the
 * vault key), sharing an entry by email with read or write permission and an expiry, the shares I
 * made (permission, view log, revoke) and the shares I received (accept, open, edit when allowed).
 * Both lists are kept in the local store, so the section opens offline.
 */
import { ApiError, OfflineError, sharingApi, type Share } from "../../../core/api";
import { trustedContactKey } from "../keys/contact-keys";
import { askFirstUse, contactCell } from "../keys/first-use-panel";
import {
  type EntrySecrets,
  placeOf,
  openSharedEntry,
  sealSharedEntry,
  wrapItemKeyFor,
} from "../../../core/crypto";
import { ownSharingKey } from "../keys/sharing-key";
import { arriveAtRow, el, scope } from "../pages/common";
import type { AppContext } from "../shell/context";
import { SHARING_MARKUP, sharedFields } from "./sharing-markup";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
type Cached = { owned: Share[]; received: Share[]; at: string };

/** Words for the person from an API refusal. */
export function explain(e: unknown, what: string): string {
  if (e instanceof OfflineError) return `${what} needs a connection; you are offline.`;
  if (e instanceof ApiError) {
    if (e.body.code === "STEP_UP_REQUIRED")
      return `${what} needs a recent sign-in: sign in again, then retry.`;
    return `${what} failed: ${e.body.error}`;
  }
  return `${what} failed: ${e instanceof Error ? e.message : String(e)}`;
}

export async function mount(root: HTMLElement, app: AppContext) {
  const { $, input } = scope(root);
  const { db, session, keys, vault, toast } = app;
  const api = sharingApi(app.api);
  const uid = session.userId;
  root.innerHTML = SHARING_MARKUP;
  let privateKey: CryptoKey | null = null;
  let gone = false;

  async function sharingKey(): Promise<CryptoKey | null> {
    if (privateKey) return privateKey;
    ({ privateKey } = await ownSharingKey(app, true));
    $("sharing-status").textContent = privateKey
      ? "Sharing is set up: people can share entries with you, and you can share with anyone who has set it up."
      : "This account's sharing key was registered without its private half; entries shared with it cannot be opened here.";
    return privateKey;
  }

  async function entryOptions() {
    const select = $("share-entry") as HTMLSelectElement;
    const entries = await vault.list();
    select.replaceChildren(
      el("option", { value: "", textContent: "Choose an entry" }),
      ...entries.map((e) => el("option", { value: e.id, textContent: e.name })),
    );
  }

  /** A read refused by a rate limit: the last copy is shown, and read again after its wait. */
  let again: ReturnType<typeof setTimeout> | undefined;
  async function lists(): Promise<Cached & { offline: boolean; busy?: boolean }> {
    try {
      const [owned, received] = await Promise.all([api.list("owned"), api.list("received")]);
      const fresh = {
        owned: owned.shares,
        received: received.shares,
        at: new Date().toISOString(),
      };
      await db.setMeta(`shares:${uid}`, fresh);
      return { ...fresh, offline: false };
    } catch (e) {
      const busy = e instanceof ApiError && e.status === 429;
      if (!(e instanceof OfflineError) && !busy) throw e;
      if (busy) {
        clearTimeout(again);
        again = setTimeout(
          () => void (!gone && render().catch(() => undefined)),
          Math.max(1, e.retryAfterSeconds ?? 30) * 1000,
        );
      }
      const cached = await db.meta<Cached>(`shares:${uid}`);
      return {
        owned: cached?.owned ?? [],
        received: cached?.received ?? [],
        at: cached?.at ?? "",
        offline: true,
        busy,
      };
    }
  }

  const cell = (text: string) => el("td", { textContent: text });
  const when = (iso: string | null) => (iso ? new Date(iso).toLocaleDateString() : "never");
  function btn(label: string, aria: string, onClick: () => void) {
    const b = el("button", {
      type: "button",
      className: "secondary",
      textContent: label,
      onclick: onClick,
    });
    b.setAttribute("aria-label", aria);
    return b;
  }

  async function render() {
    const [data, known] = await Promise.all([lists(), app.trust.contacts()]);
    if (gone) return;
    $("sharing-offline").hidden = !data.offline;
    const asOf = data.at ? new Date(data.at).toLocaleString() : "never";
    $("sharing-offline").textContent = data.busy
      ? `The vault is busy for a moment: shares as of ${asOf}, read again shortly.`
      : data.offline
        ? `Offline: shares as of ${asOf}.`
        : "";
    $("owned-rows").replaceChildren(
      ...data.owned.map((s) => {
        const name = s.account?.name ?? s.account_id;
        const perm = el(
          "select",
          { value: s.permission, disabled: s.status === "revoked" },
          el("option", { value: "read", textContent: "read" }),
          el("option", { value: "write", textContent: "write" }),
        );
        perm.value = s.permission;
        perm.setAttribute("aria-label", `Permission for ${s.recipient_email} on ${name}`);
        perm.addEventListener(
          "change",
          () =>
            void act(
              () => api.patch(s.id, { permission: perm.value as "read" | "write" }),
              `Permission for ${s.recipient_email} is now ${perm.value}`,
              "Changing the permission",
            ),
        );
        const actions = el(
          "td",
          {},
          btn(
            "View log",
            `View log of ${name} for ${s.recipient_email}`,
            () => void showLog(s, name),
          ),
        );
        if (s.status !== "revoked")
          actions.append(
            btn(
              "Revoke",
              `Revoke ${name} for ${s.recipient_email}`,
              () =>
                void act(
                  () => api.patch(s.id, { status: "revoked" }),
                  `Revoked ${name} for ${s.recipient_email}`,
                  "Revoking",
                ),
            ),
          );
        return el(
          "tr",
          { dataset: { share: s.id } },
          cell(name),
          contactCell(app.trust, known, s.recipient_email, () => void render()),
          cell(s.status),
          el("td", {}, perm),
          cell(when(s.expires_at)),
          actions,
        );
      }),
    );
    $("owned-empty").hidden = data.owned.length > 0;
    $("received-rows").replaceChildren(
      ...data.received.map((s) => {
        const name = s.account?.name ?? s.account_id;
        const actions = el("td");
        if (s.status === "pending")
          actions.append(
            btn(
              "Accept",
              `Accept ${name}`,
              () =>
                void act(
                  () => api.patch(s.id, { status: "active" }),
                  `Accepted ${name}`,
                  "Accepting",
                ),
            ),
          );
        else {
          actions.append(btn("Open", `Open ${name}`, () => void open(s, false)));
          if (s.permission === "write")
            actions.append(btn("Edit", `Edit ${name}`, () => void open(s, true)));
        }
        return el(
          "tr",
          { dataset: { share: s.id } },
          cell(name),
          cell(s.account?.website ?? ""),
          cell(s.status),
          cell(s.permission),
          cell(when(s.expires_at)),
          actions,
        );
      }),
    );
    $("received-empty").hidden = data.received.length > 0;
  }

  async function act(run: () => Promise<unknown>, done: string, what: string) {
    try {
      await run();
      toast(done);
    } catch (e) {
      toast(explain(e, what));
    }
    await render();
  }

  async function showLog(s: Share, name: string) {
    try {
      const { views } = await api.views(s.id);
      $("log-heading").textContent = `View log: ${name} (${s.recipient_email})`;
      $("log-rows").replaceChildren(
        ...views.map((v) =>
          el("li", {
            textContent: `${v.action === "password_viewed" ? "Viewed" : "Copied"} ${new Date(v.logged_at).toLocaleString()}`,
          }),
        ),
      );
      $("log-empty").hidden = views.length > 0;
      $("view-log").hidden = false;
    } catch (e) {
      toast(explain(e, "Reading the view log"));
    }
  }

  async function open(s: Share, editing: boolean) {
    const detail = $("shared-entry");
    try {
      const key = await sharingKey();
      if (!key || !s.account?.wrapped_item_key || !s.account.encrypted_data)
        throw new Error("this share cannot be opened on this device");
      const secrets = await openSharedEntry(
        key,
        s.account.wrapped_item_key,
        placeOf(s.owner_id, s.account),
        s.account.encrypted_data,
      );
      $("shared-heading").textContent = s.account.name;
      $("shared-fields").replaceChildren(
        ...sharedFields(
          secrets,
          (action) => {
            // The owner's view log records a show and a copy (online; offline ones are not logged).
            if (navigator.onLine) void api.logView(s.id, action).catch(() => undefined);
          },
          toast,
        ),
      );
      const form = $("shared-edit") as HTMLFormElement;
      form.hidden = !editing;
      if (editing) {
        input("se-username").value = secrets.username;
        input("se-password").value = secrets.password;
        ($("se-notes") as HTMLTextAreaElement).value = secrets.notes;
        form.onsubmit = (ev) => {
          ev.preventDefault();
          void saveShared(s, key, secrets);
        };
      }
      detail.hidden = false;
    } catch (e) {
      toast(explain(e, "Opening the shared entry"));
    }
  }

  async function saveShared(s: Share, key: CryptoKey, before: EntrySecrets) {
    $("se-error").textContent = "";
    const next = {
      ...before,
      username: input("se-username").value,
      password: input("se-password").value,
      notes: ($("se-notes") as HTMLTextAreaElement).value,
    };
    if (!next.password) {
      $("se-error").textContent = "The password cannot be empty";
      return;
    }
    try {
      await api.updateAccount(
        s.id,
        await sealSharedEntry(
          key,
          s.account!.wrapped_item_key!,
          placeOf(s.owner_id, s.account!),
          next,
        ),
      );
      toast(`Saved ${s.account!.name} for its owner`);
      $("shared-entry").hidden = true;
      await render();
    } catch (e) {
      $("se-error").textContent = explain(e, "Saving");
    }
  }

  ($("share-form") as HTMLFormElement).addEventListener("submit", (ev) => {
    ev.preventDefault();
    void share();
  });

  async function share() {
    const error = $("share-error");
    error.textContent = "";
    const entryId = ($("share-entry") as HTMLSelectElement).value;
    const email = input("share-email").value.trim().toLowerCase();
    const permission = ($("share-permission") as HTMLSelectElement).value as "read" | "write";
    const expiry = input("share-expiry").value;
    const entry = entryId ? await db.entry(uid, entryId) : undefined;
    let problem = "";
    if (!entry) problem = "Choose the entry to share";
    else if (!EMAIL.test(email))
      problem = "Enter the recipient's email address, like name@example.com";
    else if (email === session.email?.toLowerCase())
      problem = "You cannot share an entry with yourself";
    else if (expiry && new Date(`${expiry}T23:59:59`).getTime() <= Date.now())
      problem = "The expiry date must be in the future";
    else if ((await db.pending(uid)).some((p) => p.entryId === entryId))
      problem = "This entry has changes not yet synced; sync, then share";
    else if (!entry.wrapped_item_key) problem = "This entry has no encrypted envelope to share";
    if (problem) {
      error.textContent = problem;
      return;
    }
    const submit = $("share-submit") as HTMLButtonElement;
    submit.disabled = true;
    try {
      // The first key seen for this person is shown and pinned on this device; a different one later is refused.
      let recipient: { jwk: { x: string; y: string } };
      try {
        recipient = await trustedContactKey(app.api, app.trust, email, "sharing", askFirstUse);
      } catch (e) {
        if (e instanceof ApiError && e.status === 404)
          throw new Error(
            `${email} has no vault here yet: ask them to sign in and open their vault once, then try again`,
          );
        throw e;
      }
      const wrapped = await wrapItemKeyFor(
        keys,
        placeOf(uid, entry!),
        entry!.wrapped_item_key!,
        recipient.jwk,
      );
      await api.create({
        accountId: entryId,
        recipientEmail: email,
        permission,
        ...(expiry ? { expiresAt: new Date(`${expiry}T23:59:59`).toISOString() } : {}),
        wrapped_vault_key_invite: wrapped,
      });
      toast(`Shared ${entry!.name} with ${email}`);
      ($("share-form") as HTMLFormElement).reset();
      await render();
    } catch (e) {
      error.textContent =
        e instanceof Error && !(e instanceof ApiError) && !(e instanceof OfflineError)
          ? e.message
          : explain(e, "Sharing");
    } finally {
      submit.disabled = false;
    }
  }

  $("hide-shared").addEventListener("click", () => ($("shared-entry").hidden = true));
  $("hide-log").addEventListener("click", () => ($("view-log").hidden = true));
  await entryOptions();
  await sharingKey().catch(
    (e: unknown) => ($("sharing-status").textContent = explain(e, "Setting up sharing")),
  );
  await render();
  ($("share-submit") as HTMLButtonElement).disabled = false;
  // Reached from a notification about one share (/sharing?share=<id>).
  arriveAtRow(root, "share", "#received-rows", "data-share");
  // Accepted, revoked or changed by the other side: both lists are read again.
  const stopLive = app.onLive("shares", render);
  return () => {
    stopLive();
    gone = true;
    clearTimeout(again);
    privateKey = null;
  };
}
