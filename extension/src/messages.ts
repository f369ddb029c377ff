/** Messages between the extension's parts. The service worker stamps page context onto them. */
import type { CreateOptions, EntryLinkField } from "../../core/links";

export type MatchItem = {
  id: string;
  name: string;
  username: string;
  hasTotp: boolean;
  insecure: boolean;
};

/** `twoFactorRequired`: the web app's sign-in still owes its account 2FA code (DECISIONS D20); nothing fills until it is given. */
export type Status = {
  signedIn: boolean;
  email: string | null;
  twoFactorRequired: boolean;
  unlocked: boolean;
  appOrigin: string;
  pending: number;
  lastSync: string | null;
  cached: number /** the fill index holds a whole pull, not only a first sync's pages so far */;
  synced: boolean;
  current: boolean /** the fill warnings' reuse count covers the whole synced copy */;
  healthReady: boolean;
};

export type Credentials = { username: string; password: string; totp: string | null };

/**
 * Told to the person after a fill (fill-health.ts): how many other entries of the synced copy hold
 * the same password, how often it was seen in breaches (0: not seen, or not known in time), and the
 * web app's health page. Never shown in the page: only in the extension's frame or popup.
 */
export type FillWarning = { reused: number; exposed: number; healthUrl: string };

export type SaveOffer = { kind: "save" | "update"; host: string; username: string };

/** What an extension frame shows: the fill menu, the save offer or the passkey confirmation of its session. */
export type FrameView =
  | { kind: "fill"; reply: MatchReply }
  | { kind: "save"; offer: SaveOffer }
  | PasskeyView
  | { kind: "gone" };

/**
 * A page's `navigator.credentials` publicKey request as the page script forwards it, byte strings
 * base64url (the JSON forms of WebAuthn Level 3 §5.1.8 and §5.1.9). Only what the vault reads.
 */
export type PasskeyCreateOptions = {
  rp: { id?: string; name?: string };
  user: { id: string; name: string; displayName: string };
  challenge: string;
  pubKeyCredParams: { type: string; alg: number }[];
  excludeCredentials?: { id: string }[];
  authenticatorSelection?: { residentKey?: string; requireResidentKey?: boolean };
  extensions?: { credProps?: boolean };
};
export type PasskeyGetOptions = {
  rpId?: string;
  challenge: string;
  allowCredentials?: { id: string }[];
};
export type PasskeyRequest =
  | { op: "create"; options: PasskeyCreateOptions }
  | { op: "get"; options: PasskeyGetOptions };

/** What the page's promise settles with: a credential, the browser's own authenticator, or an error (a DOMException name). */
export type PasskeyResult =
  | {
      kind: "created";
      credential: {
        id: string;
        clientDataJSON: string;
        attestationObject: string;
        authenticatorData: string;
        publicKey: string;
        publicKeyAlgorithm: number;
        credProps?: { rk: boolean };
      };
    }
  | {
      kind: "asserted";
      assertion: {
        id: string;
        clientDataJSON: string;
        authenticatorData: string;
        signature: string;
        userHandle: string | null;
      };
    }
  | { kind: "fallback" }
  | {
      kind: "error";
      name: "NotAllowedError" | "SecurityError" | "InvalidStateError" | "NotSupportedError";
      message: string;
    };

/** The person's answer in the passkey frame: a passkey to sign in with, where to save a new one, the browser's own, or no. */
export type PasskeyChoice = { use: string } | { save: "new" | string } | "fallback" | "cancel";

/** The confirmation the frame draws: never a key, only names the person picks between. */
export type PasskeyView = {
  kind: "passkey";
  op: "create" | "get";
  rpId: string;
  locked: boolean;
  /** create: the account the site names; get: unused. */
  user?: string;
  /** get: the vault's passkeys for this request. */
  accounts?: { credentialId: string; userName: string; entry: string }[];
  /** create: the entries of this site a new passkey may join (else a new entry). */
  entries?: { id: string; name: string; username: string }[];
};
/** A frame presenting its nonce learns only that the session is now its own (or gone). */
export type FrameAttached = { kind: "attached" } | { kind: "gone" };

/**
 * A secure link from the popup: a free text, or an entry's fields by key (the popup never holds
 * their values). Only the popup may ask (background.ts routes these from extension pages alone).
 */
export type LinkSource =
  | { kind: "text"; text: string }
  | { kind: "entry"; id: string; fields: EntryLinkField["key"][] };
export type LinkFieldsReply =
  | { locked: true }
  | { locked: false; found: false }
  | {
      locked: false;
      found: true;
      name: string;
      username: string;
      fields: Omit<EntryLinkField, "value">[];
    };
export type LinkEntriesReply =
  | { locked: true }
  | { locked: false; entries: { id: string; name: string; website: string | null }[] };
/** The new link's full address (key in the fragment): shown in the popup once, never sent to a page. */
export type LinkCreateReply =
  | { ok: true; url: string }
  | { ok: false; locked: true }
  | { ok: false; locked?: undefined; error: string };

/** From the popup, the extension's frames and content scripts to the service worker. */
export type Request =
  | { type: "status" }
  | { type: "unlock"; passphrase: string }
  | { type: "lock" }
  | { type: "timeline" }
  | { type: "match"; url?: string; tabId?: number }
  | { type: "fill"; id: string; confirmed?: boolean }
  | { type: "fill-tab"; tabId: number; documentId?: string; id: string; confirmed?: boolean }
  | { type: "submitted"; username: string; password: string }
  | { type: "save-offer"; nonce: string }
  | { type: "save-answer"; accept: boolean }
  | { type: "menu-open"; nonce: string; ahead?: boolean }
  | { type: "menu-pressed"; nonce: string }
  | { type: "frame-attach"; nonce: string }
  | { type: "frame-show"; nonce: string }
  | { type: "frame-pick"; nonce: string; id: string; confirmed?: boolean }
  | { type: "frame-save"; nonce: string; accept: boolean }
  | { type: "frame-refused"; nonce: string; reason: string }
  | { type: "generate"; url: string }
  | { type: "token" }
  | { type: "passkey-request"; nonce: string; request: PasskeyRequest }
  | { type: "frame-passkey"; nonce: string; choice: PasskeyChoice }
  | { type: "verify-2fa"; code: string }
  | { type: "link-entries"; query: string }
  | { type: "link-fields"; id: string }
  | { type: "link-create"; source: LinkSource; options: CreateOptions };

/**
 * A content script's message as sent: stamped with the origin its document has (window.origin),
 * which the service worker holds against the one the browser reports (sender-origin.ts).
 */
export type FromContent = Request & { origin: string };

/** From the service worker to a content script: only the extension can send these. */
export type ToContent =
  | {
      type: "do-fill";
      nonce?: string;
      credentials: Credentials /** the menu stays to show a warning */;
      keep?: boolean;
    }
  | { type: "frame-visible"; nonce: string }
  | { type: "frame-close"; nonce: string }
  | { type: "passkey-visible"; nonce: string }
  | { type: "passkey-result"; nonce: string; result: PasskeyResult };

/**
 * `source`: who answered. "server" asked the server; "synced" is this browser's copy while live
 * sync holds it current; "cache" is the same copy offline (the menu says so).
 */
export type MatchSource = "server" | "synced" | "cache";
export type MatchReply =
  | { locked: true }
  | {
      locked: false;
      items: MatchItem[];
      source: MatchSource;
      refused?: "refuse-frame";
      twoFactorRequired?: true;
    };
/** What a content script learns at page load: whether its frame may be filled at all; never an entry. */
export type FillReply =
  | { ok: true; credentials: Credentials; warning?: FillWarning }
  | {
      ok: false;
      reason:
        | "locked"
        | "two-factor-required"
        | "confirm-insecure"
        | "refuse-insecure"
        | "refuse-frame"
        | "refuse-domain"
        | "not-found"
        | "not-visible"
        | "navigated";
    };
export type PickReply = { ok: true; warning?: FillWarning } | { ok: false; reason: string };
