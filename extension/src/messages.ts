/** Messages between the extension's parts. The service worker stamps page context onto them. */
export type MatchItem = { id: string; name: string; username: string; hasTotp: boolean; insecure: boolean };

/** `twoFactorRequired`: the web app's sign-in still owes its account 2FA code (DECISIONS D20); nothing fills until it is given. */
export type Status = { signedIn: boolean; email: string | null; twoFactorRequired: boolean; unlocked: boolean; appOrigin: string; pending: number; lastSync: string | null; cached: number; current: boolean };

export type Credentials = { username: string; password: string; totp: string | null };

export type SaveOffer = { kind: "save" | "update"; host: string; username: string };

/** What an extension frame shows: the fill menu or the save offer of its session. */
export type FrameView = { kind: "fill"; reply: MatchReply } | { kind: "save"; offer: SaveOffer } | { kind: "gone" };
/** A frame presenting its nonce learns only that the session is now its own (or gone). */
export type FrameAttached = { kind: "attached" } | { kind: "gone" };

/** From the popup, the extension's frames and content scripts to the service worker. */
export type Request =
  | { type: "status" }
  | { type: "unlock"; passphrase: string }
  | { type: "lock" }
  | { type: "match"; url?: string; tabId?: number }
  | { type: "fill"; id: string; confirmed?: boolean }
  | { type: "fill-tab"; tabId: number; documentId?: string; id: string; confirmed?: boolean }
  | { type: "submitted"; username: string; password: string }
  | { type: "save-offer"; nonce: string }
  | { type: "save-answer"; accept: boolean }
  | { type: "menu-open"; nonce: string; ahead?: boolean }
  | { type: "frame-attach"; nonce: string }
  | { type: "frame-show"; nonce: string }
  | { type: "frame-pick"; nonce: string; id: string; confirmed?: boolean }
  | { type: "frame-save"; nonce: string; accept: boolean }
  | { type: "frame-refused"; nonce: string; reason: string }
  | { type: "generate"; url: string }
  | { type: "token" }
  | { type: "verify-2fa"; code: string };

/** From the service worker to a content script: only the extension can send these. */
export type ToContent =
  | { type: "do-fill"; nonce?: string; credentials: Credentials }
  | { type: "frame-visible"; nonce: string }
  | { type: "frame-close"; nonce: string };

/**
 * `source`: who answered. "server" asked the server; "synced" is this browser's copy while live
 * sync holds it current; "cache" is the same copy offline (the menu says so).
 */
export type MatchSource = "server" | "synced" | "cache";
export type MatchReply = { locked: true } | { locked: false; items: MatchItem[]; source: MatchSource; refused?: "refuse-frame"; twoFactorRequired?: true };
/** What a content script learns at page load: whether its frame may be filled at all; never an entry. */
export type FillReply = { ok: true; credentials: Credentials } | { ok: false; reason: "locked" | "two-factor-required" | "confirm-insecure" | "refuse-frame" | "refuse-domain" | "not-found" | "not-visible" | "navigated" };
export type PickReply = { ok: true } | { ok: false; reason: string };
