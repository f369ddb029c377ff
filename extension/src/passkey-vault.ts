/**
 * The vault's side of passkeys, in the offscreen document: it checks a page's request (the rp id
 * rules, WebAuthn Level 3), keeps it in a frame session until the person answers in the
 * extension's frame, then makes or uses the passkey and stores it (a new passkey, or the raised
 * sign counter) through the vault's own save path, so it syncs like any edit.
 */
import type { EntrySecrets } from "../../core/crypto";
import type { Vault } from "../../core/vault";
import {
  chooseAlg,
  getAssertion,
  makeCredential,
  signingKey,
  type Assertion,
  checkRpId,
} from "../../core/authenticator";
import type { StoredPasskey } from "../../core/passkeys";
import { base64url } from "../../src/kernel/base64";
import type {
  PasskeyChoice,
  PasskeyCreateOptions,
  PasskeyRequest,
  PasskeyResult,
  PasskeyView,
} from "./messages";
import { FrameSessions, type FrameSession } from "./sessions";

/** A candidate entry of the page, opened; `url` is the address its ciphertext vouches for. */
export type OpenedEntry = { id: string; name: string; secrets: EntrySecrets };

/** What the provider needs of the unlocked vault (offscreen.ts). */
export type VaultAccess = {
  /** The unlocked vault, or null when locked. */
  vault(): Vault | null;
  /** The entries stored for a page's host or a parent of it, opened (the server's match, the cache offline). */
  entriesFor(pageUrl: string): Promise<OpenedEntry[]>;
  /** After a save: push it and refresh the fill index. */
  saved(): void;
  /** After a raised sign counter: push it (the fill index does not change). */
  counted(): void;
  /** Syncs now (a pull when live sync does not vouch for the copy), resolved when done. */
  pull(): Promise<void>;
  touch(): void;
};

type Found = { entry: OpenedEntry; passkey: StoredPasskey };
/**
 * `lookup`: the passkeys a get() may use, looked up from the moment the request is held (while the
 * frame loads); `found`: those the frame offered, so the person's pick is signed without a second lookup.
 */
type Pending = {
  request: PasskeyRequest;
  rpId: string;
  origin: string;
  locked: boolean;
  lookup?: Promise<Found[]>;
  found?: Map<string, Found>;
};
export type PasskeyContext = {
  pageUrl: string;
  crossOriginFrame: boolean;
  tabId?: number;
  frameId?: number;
  documentId?: string;
};

const refuse = (
  name: Extract<PasskeyResult, { kind: "error" }>["name"],
  message: string,
): PasskeyResult => ({ kind: "error", name, message });

export class PasskeyProvider {
  readonly sessions = new FrameSessions<Pending>();
  /**
   * Signing keys imported in this unlocked session, by credential id, with the private key they
   * came from (a passkey replaced under the same id is imported again). Non-extractable; dropped
   * at lock with the sessions.
   */
  private readonly keys = new Map<string, { d: string | undefined; key: Promise<CryptoKey> }>();

  constructor(private readonly access: VaultAccess) {}

  /** At lock: the held requests and the imported keys go. */
  clear() {
    this.sessions.clear();
    this.keys.clear();
  }

  private key(p: StoredPasskey): Promise<CryptoKey> {
    const known = this.keys.get(p.credential_id);
    if (known && known.d === p.private_key.d) return known.key;
    const key = signingKey(p);
    this.keys.set(p.credential_id, { d: p.private_key.d, key });
    // A key that does not import is not kept: the next try imports again and reports its error.
    key.catch(
      () => this.keys.get(p.credential_id)?.key === key && this.keys.delete(p.credential_id),
    );
    return key;
  }

  /**
   * A page's request: refused at once when its rp id may not be used on the page (as the browser
   * itself would, SecurityError), left to the browser's own authenticator from a cross-origin
   * frame, otherwise held in a session for the frame the content script opens.
   */
  open(
    nonce: string,
    request: PasskeyRequest,
    ctx: PasskeyContext,
  ): { ok: true } | { ok: false; result: PasskeyResult } {
    if (ctx.crossOriginFrame) return { ok: false, result: { kind: "fallback" } };
    if (ctx.tabId === undefined || !ctx.documentId)
      return { ok: false, result: refuse("NotAllowedError", "No page to answer") };
    const asked = request.op === "create" ? request.options.rp.id : request.options.rpId;
    const rp = checkRpId(ctx.pageUrl, asked);
    if (!rp.ok)
      return {
        ok: false,
        result: refuse(
          "SecurityError",
          `Credential Vault refused this request: ${rp.reason === "insecure" ? "the page is not https" : rp.reason === "public-suffix" ? "the relying party is a public suffix" : rp.reason === "other-site" ? "the relying party is another site" : "the relying party is not a domain"}`,
        ),
      };
    const held: Pending = {
      request,
      rpId: rp.rpId,
      origin: rp.origin,
      locked: this.access.vault() === null,
    };
    this.sessions.open(nonce, {
      kind: "passkey",
      tabId: ctx.tabId,
      frameId: ctx.frameId ?? 0,
      documentId: ctx.documentId,
      pageUrl: ctx.pageUrl,
      crossOriginFrame: false,
      save: held,
    });
    if (!this.sessions.has(nonce))
      return { ok: false, result: refuse("NotAllowedError", "The request could not be held") };
    // A get() names its site and asks the vault now: its passkeys are looked up (and their keys
    // imported) while the content script makes the frame, which then draws them without waiting.
    if (request.op === "get" && !held.locked) {
      held.lookup = this.usable(ctx.pageUrl, rp.rpId, request.options.allowCredentials);
      held.lookup.then(
        (found) => found.forEach((f) => void this.key(f.passkey).catch(() => undefined)),
        () => undefined,
      );
    }
    return { ok: true };
  }

  /**
   * The passkeys of the vault that answer a get(): this rp's, discoverable or named by the page.
   * One lookup: the entries stored for the page's host and each parent, among which the rp id
   * always is (it is the page's host or a registrable suffix of it; docs/decisions/vault.md, "Vault: passkeys").
   */
  private async usable(
    pageUrl: string,
    rpId: string,
    allow: { id: string }[] | undefined,
  ): Promise<Found[]> {
    const ids = new Set((allow ?? []).map((c) => c.id));
    const out: Found[] = [];
    for (const entry of await this.access.entriesFor(pageUrl)) {
      for (const p of entry.secrets.passkeys ?? []) {
        if (p.rp_id !== rpId) continue;
        if (ids.size ? ids.has(p.credential_id) : p.discoverable) out.push({ entry, passkey: p });
      }
    }
    return out;
  }

  /** What the frame shows: the site, and the passkeys (get) or the entries a new one may join (create). */
  async view(session: FrameSession<Pending>): Promise<PasskeyView> {
    const p = session.save!;
    const locked = this.access.vault() === null;
    const base: PasskeyView = { kind: "passkey", op: p.request.op, rpId: p.rpId, locked };
    if (locked) return base;
    if (p.request.op === "get") {
      // Looked up when the request was held; again when the vault was locked then, or that lookup failed.
      const found =
        (await p.lookup?.catch(() => undefined)) ??
        (await this.usable(session.pageUrl, p.rpId, p.request.options.allowCredentials));
      p.found = new Map(found.map((f) => [f.passkey.credential_id, f]));
      return {
        ...base,
        accounts: found.map(({ entry, passkey }) => ({
          credentialId: passkey.credential_id,
          userName: passkey.user_name || passkey.display_name,
          entry: entry.name,
        })),
      };
    }
    const entries = await this.access.entriesFor(`https://${p.rpId}/`);
    return {
      ...base,
      user: p.request.options.user.name,
      entries: entries.map((e) => ({ id: e.id, name: e.name, username: e.secrets.username })),
    };
  }

  /** The person's answer, already judged visible by the content script. Ends the session. */
  async answer(session: FrameSession<Pending>, choice: PasskeyChoice): Promise<PasskeyResult> {
    this.sessions.close(session.nonce);
    const p = session.save!;
    if (choice === "fallback") return { kind: "fallback" };
    if (choice === "cancel")
      return refuse("NotAllowedError", "The request was declined in Credential Vault");
    const vault = this.access.vault();
    if (!vault) return refuse("NotAllowedError", "Credential Vault is locked");
    this.access.touch();
    if (p.request.op === "get" && typeof choice === "object" && "use" in choice)
      return this.sign(vault, session.pageUrl, p, choice.use);
    if (p.request.op === "create" && typeof choice === "object" && "save" in choice)
      return this.create(vault, p, p.request.options, choice.save);
    return refuse("NotAllowedError", "That answer does not fit the request");
  }

  /**
   * Signs with the chosen passkey as the entry holds it now (its counter the stored one plus one),
   * and stores the raised counter in the same read and write of the entry before the page has the
   * assertion: a second use never reuses a count, even after a crash.
   */
  private async sign(
    vault: Vault,
    pageUrl: string,
    p: Pending,
    credentialId: string,
  ): Promise<PasskeyResult> {
    const req = p.request as Extract<PasskeyRequest, { op: "get" }>;
    const found =
      p.found?.get(credentialId) ??
      (await this.usable(pageUrl, p.rpId, req.options.allowCredentials)).find(
        (f) => f.passkey.credential_id === credentialId,
      );
    if (!found) return refuse("NotAllowedError", "That passkey is no longer in the vault");
    const out: { assertion?: Assertion } = {};
    const signed = () =>
      vault.change(found.entry.id, async (secrets) => {
        const keys = secrets.passkeys ?? [];
        const current = keys.find((k) => k.credential_id === credentialId && k.rp_id === p.rpId);
        if (!current) return null;
        const made = await getAssertion(
          current,
          { origin: p.origin, challenge: base64url.decode(req.options.challenge) },
          await this.key(current),
        );
        out.assertion = made.assertion;
        return {
          passkeys: keys.map((k) => (k === current ? { ...k, sign_count: made.signCount } : k)),
        };
      });
    // Found in the server's copy but not yet in the local store (a first sync still pulling): the
    // counter can only be stored once it is, so the vault syncs first, then signs.
    if (!(await signed())) {
      await this.access.pull();
      await signed();
    }
    if (!out.assertion) return refuse("NotAllowedError", "That passkey is no longer in the vault");
    // The push starts once this answer is on its way to the page (the counter is already stored).
    setTimeout(() => this.access.counted(), 0);
    return { kind: "asserted", assertion: out.assertion };
  }

  private async create(
    vault: Vault,
    p: Pending,
    o: PasskeyCreateOptions,
    into: string,
  ): Promise<PasskeyResult> {
    const excluded = new Set((o.excludeCredentials ?? []).map((c) => c.id));
    const mine = (
      await this.usable(
        `https://${p.rpId}/`,
        p.rpId,
        [...excluded].map((id) => ({ id })),
      )
    ).filter((f) => excluded.has(f.passkey.credential_id));
    if (excluded.size && mine.length)
      return refuse("InvalidStateError", "This account already has a passkey in Credential Vault");
    const alg = await chooseAlg(o.pubKeyCredParams ?? []);
    if (alg === null)
      return refuse(
        "NotSupportedError",
        "The site asks for a key type Credential Vault cannot make",
      );
    const discoverable =
      o.authenticatorSelection?.residentKey !== "discouraged" ||
      o.authenticatorSelection?.requireResidentKey === true;
    const made = await makeCredential({
      rpId: p.rpId,
      ...(o.rp.name ? { rpName: o.rp.name } : {}),
      origin: p.origin,
      challenge: base64url.decode(o.challenge),
      user: { id: base64url.decode(o.user.id), name: o.user.name, displayName: o.user.displayName },
      alg,
      discoverable,
    });
    // A new passkey for the same account of the same site replaces the old one (as authenticators do, §6.3.2 step 7).
    const keep = (keys: StoredPasskey[]) => [
      ...keys.filter((k) => !(k.rp_id === p.rpId && k.user_handle === made.passkey.user_handle)),
      made.passkey,
    ];
    if (into === "new") {
      await vault.create({
        name: o.rp.name?.trim() || p.rpId,
        website: p.rpId,
        url: p.origin,
        tags: [],
        username: o.user.name,
        password: "",
        notes: "",
        category: "",
        totp: "",
        passkeys: [made.passkey],
      });
    } else if (
      !(await vault.change(into, (secrets) => ({ passkeys: keep(secrets.passkeys ?? []) })))
    )
      return refuse("NotAllowedError", "That entry is no longer in the vault");
    this.access.saved();
    return {
      kind: "created",
      credential: {
        ...made.credential,
        ...(o.extensions?.credProps ? { credProps: { rk: discoverable } } : {}),
      },
    };
  }
}
