/** Messages between the extension's parts. The service worker stamps page context onto them. */
export type MatchItem = { id: string; name: string; username: string; hasTotp: boolean; insecure: boolean };

export type Status = { signedIn: boolean; email: string | null; unlocked: boolean; appOrigin: string; pending: number; lastSync: string | null; cached: number };

export type Credentials = { username: string; password: string; totp: string | null };

export type SaveOffer = { kind: "save" | "update"; host: string; username: string };

/** From the popup and content scripts to the service worker. */
export type Request =
  | { type: "status" }
  | { type: "unlock"; passphrase: string }
  | { type: "lock" }
  | { type: "match"; url?: string }
  | { type: "fill"; id: string; confirmed?: boolean }
  | { type: "fill-tab"; tabId: number; id: string; confirmed?: boolean }
  | { type: "submitted"; username: string; password: string }
  | { type: "save-offer" }
  | { type: "save-answer"; accept: boolean }
  | { type: "generate"; url: string }
  | { type: "token" };

export type MatchReply = { locked: true } | { locked: false; items: MatchItem[]; source: "server" | "cache"; refused?: "refuse-frame" };
export type FillReply = { ok: true; credentials: Credentials } | { ok: false; reason: "locked" | "confirm-insecure" | "refuse-frame" | "refuse-domain" | "not-found" };
