/**
 * The person as a member of shared vaults: their user id and their sharing key pair (the private
 * half opens their copies of vault keys, the public half receives the copy a new vault starts
 * with), and each vault they belong to opened with it.
 */
import { sharingApi } from "../../../core/api";
import {
  openVault,
  vaultsApi,
  type OpenedVault,
  type PublicKey,
  type SharedVault,
  type VaultsApi,
} from "../../../core/vaults";
import { ownSharingKey } from "../keys/sharing-key";
import type { AppContext } from "../shell/context";

export type Me = { userId: string; email: string; privateKey: CryptoKey; publicKey: PublicKey };

export async function vaultMe(app: AppContext): Promise<Me> {
  const { privateKey } = await ownSharingKey(app, true);
  if (!privateKey) throw new Error("this account's sharing key cannot be opened on this device");
  const { publicKey } = await sharingApi(app.api).ownKey();
  return {
    userId: app.session.userId,
    email: app.session.email ?? "",
    privateKey,
    publicKey: { x: publicKey.x, y: publicKey.y },
  };
}

/** A vault as the person sees it: opened when their copy of its key is there. */
export type Place = {
  vault: SharedVault;
  opened: OpenedVault | null;
  /** Why it is not opened: waiting for an owner or manager to wrap the key, or it failed to open. */
  problem: string;
};

export const WAITING =
  "Waiting for an owner or manager to give you the key (their app does it when it is next open).";

export async function openPlace(api: VaultsApi, me: Me, vault: SharedVault): Promise<Place> {
  if (vault.member_state !== "wrapped") return { vault, opened: null, problem: WAITING };
  try {
    const opened = await openVault(api, me, vault);
    return opened
      ? { vault, opened, problem: "" }
      : { vault, opened: null, problem: "Your copy of this vault's current key is not there yet." };
  } catch {
    return {
      vault,
      opened: null,
      problem:
        "Your copy of this vault's key does not open with your sharing key (it was not made for you, for this vault, or for its current key version). Nothing is shown.",
    };
  }
}

export async function places(app: AppContext, me: Me): Promise<Place[]> {
  const api = vaultsApi(app.api);
  const { vaults } = await api.list();
  return Promise.all(vaults.map((v) => openPlace(api, me, v)));
}

export const placeName = (p: Place) => p.opened?.name ?? "Shared vault (locked)";

/** A link within the app: the shell shows the path without loading the page again (the keys stay in memory). */
export function appLink(app: AppContext, path: string, text: string): HTMLAnchorElement {
  const a = document.createElement("a");
  a.href = path;
  a.textContent = text;
  a.addEventListener("click", (ev) => {
    if (ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.button !== 0) return;
    ev.preventDefault();
    app.navigate(path);
  });
  return a;
}

export const ROLE_WORDS = {
  owner: "Owner",
  manager: "Manager (members and entries)",
  editor: "Editor (entries)",
  viewer: "Viewer (read and fill)",
} as const;
export const canWrite = (role: string) => role !== "viewer";
export const canManage = (role: string) => role === "owner" || role === "manager";
