/**
 * The extension's vault, in an offscreen document: the one context that lives as long as the
 * browser, so the unlocked keys can stay in memory only (an MV3 service worker is stopped after 30
 * seconds idle). The keys are non-extractable CryptoKeys in this document's memory; they are never
 * stored. The store is the web client's (app-sync in the extension's IndexedDB) and the crypto,
 * vault and sync engine are the web client's modules.
 */
import { ApiClient, OfflineError } from "../../core/api";
import { type AccountKeyWrap, type VaultKeys, makeKeyCheck, TrustStore } from "../../core/crypto";
import { openDb, type LocalEntry } from "../../core/store";
import {
  keepWrap,
  localWrap,
  PassphraseError,
  SignInError,
  tokenClaims,
  vaultKeys,
  verified,
} from "../../core/session";
import {
  RETRY_MS,
  SYNC_PERIOD_MS,
  gatedSync,
  LiveSync,
  liveSyncProtocols,
  liveSyncUrl,
} from "../../core/sync";
import { Vault } from "../../core/vault";
import { HEALTH_ENDPOINTS } from "../../core/health";
import type { Forwarded } from "./background";
import { proveExtension, registerExtension } from "./device";
import { FillHealth } from "./fill-health";
import type {
  Credentials,
  FillReply,
  FrameAttached,
  FrameView,
  MatchItem,
  MatchReply,
  SaveOffer,
} from "./messages";
import { normalizeHost } from "../../src/kernel/hostname";
import { entryVerdict, type FillContext } from "./policy";
import { ExtraHosts } from "./extra-hosts";
import { offerFor, saveSubmission, type Submission } from "./save-offer";
import { firstSyncCopy, opened, openedCandidates as lookup } from "./entry-lookup";
import { passkeyMessage, vaultPasskeys } from "./passkey-offscreen";
import { FrameSessions, type FrameSession } from "./sessions";
import { codeOfField } from "../../src/kernel/totp";
import { createLinkFrom, linkEntries, linkFields, type LinkVault } from "./link-vault";
import { indexedCount, indexPage, reindex } from "./fill-index";
import { Timeline } from "./timeline";
import { owesCode, TwoFactorGate } from "./two-factor";

type Unlocked = {
  userId: string;
  keys: VaultKeys;
  vault: Vault;
  api: ApiClient;
  appOrigin: string;
  byHost: Map<string, LocalEntry[]>;
  extra: ExtraHosts;
  indexedAt?: string;
  timer: ReturnType<typeof setInterval>;
  retry?: ReturnType<typeof setTimeout>;
  live: LiveSync;
  health: FillHealth;
};

const dbReady = openDb();
/** Where the time after an unlock goes (timeline.ts): read by the bench through the popup. */
const timeline = new Timeline();
let state: Unlocked | null = null;
let lastUse = Date.now();
let autoLockMs = 15 * 60_000;
/** Sign-ins typed into pages, by tab, until that tab's next page (which may offer to save them). */
const submissions = new Map<number, Submission>();
/** The extension frames content scripts opened: what each may show and for which document. */
const sessions = new FrameSessions<{
  submission: Submission;
  offer: SaveOffer & { id?: string };
}>();
/** A lookup started ahead of its frame's show is used only this fresh. */
const LOOKUP_FRESH_MS = 10_000;
/** Passkey requests of pages, answered from the vault (passkey-offscreen.ts). */
const passkeys = vaultPasskeys({
  state: () => state,
  inForce: () => liveToken === lastToken,
  sync: (s) => sync(s),
  touch: () => (lastUse = Date.now()),
});

/** The session as the service worker last read it (it stamps every message); asked for when there is none. */
let lastToken: string | null = null;
const token = async (): Promise<string | null> =>
  lastToken ?? (lastToken = await chrome.runtime.sendMessage({ type: "token" }));
/** Whether this sign-in still owes its account 2FA code (two-factor.ts): while it does, nothing fills. */
const twoFactor = new TwoFactorGate(token);
/**
 * The session the live connection was opened with. The synced copy answers a menu only while it is
 * the session in force: the hub accepted it with its 2FA done, and a new sign-in (which may owe its
 * code) is first put to the server, whose refusal is how this document learns of the code owed.
 */
let liveToken: string | null = null;

async function sync(s: Unlocked) {
  clearTimeout(s.retry);
  timeline.mark("sync-started");
  try {
    // While the live connection says the cache is current, only pending saves are pushed. A first
    // sync's pages join the fill index as they are parsed, ahead of the store's writes
    // (fill-index.ts); the index is made again from the store when the sync ends or is cut.
    await gatedSync(s.vault.db, s.api, s.userId, s.live, (changes) => {
      timeline.mark("first-page-parsed");
      if (state === s) indexPage(s, changes);
      timeline.mark("first-page-indexed");
    });
  } catch (e) {
    if (!(e instanceof OfflineError)) console.warn(`sync failed: ${String(e)}`);
    // A pull cut part-way (the connection dropped) resumes shortly from its stored position, as
    // the web app's engine does, rather than at the next 30-second run. Offline with nothing
    // pulled, the 30-second run and live sync's reconnects are enough.
    else if (
      state === s &&
      navigator.onLine &&
      (await s.vault.db.meta<string>(`resume:${s.userId}`)) !== undefined
    )
      s.retry = setTimeout(() => void sync(s), RETRY_MS);
  }
  if (state === s) await reindex(s);
  if (state === s && s.indexedAt !== undefined) timeline.mark("first-sync-indexed");
}

function lock() {
  if (state) clearInterval(state.timer);
  clearTimeout(state?.retry);
  state?.live.stop();
  state?.health.clear();
  state = null;
  submissions.clear();
  sessions.clear();
  passkeys.clear();
}

// Lock after autoLockMs without vault use (unlock, fill, save); checked every second.
setInterval(() => {
  if (state && Date.now() - lastUse > autoLockMs) lock();
}, 1000);

async function unlock(passphrase: string, appOrigin: string, current: string | null) {
  if (!current) throw new SignInError(`Sign in to the web app at ${appOrigin} first`);
  const claims = tokenClaims(current);
  const db = await dbReady;
  const api = new ApiClient(appOrigin, token);
  const previous = await db.session();
  if (previous && previous.userId !== claims.sub) await db.clearAll();
  let keys: VaultKeys;
  if ((await localWrap(db, claims.sub)) !== undefined || (await db.keyCheck(claims.sub))) {
    // This browser has opened the vault before: its stored wrap (or key check) proves the passphrase.
    try {
      keys = await verified(db, claims.sub, passphrase);
    } catch (e) {
      if (e instanceof PassphraseError) throw new SignInError(e.message);
      throw e;
    }
  } else {
    // The web client's first unlock: the account key's wrap from the server (or, before it has
    // one, the vault's newest bound entry), held to this browser's floor (KDF rounds, key version,
    // wrap revision), which a server cannot lower.
    const trust = await TrustStore.open(claims.sub);
    let wrap: AccountKeyWrap | null;
    try {
      ({ keys, wrap } = await vaultKeys(api, trust, claims.sub, passphrase));
    } finally {
      trust.close();
    }
    await keepWrap(db, claims.sub, wrap, await makeKeyCheck(keys, claims.sub));
  }
  await db.setMeta("session", {
    userId: claims.sub,
    email: claims.email,
    signedInAt: new Date().toISOString(),
  });
  lock();
  // Live sync: the vault document (not the service worker, which the browser stops when idle)
  // holds the connection while unlocked; a notice pulls at once, so the fill cache follows the
  // web app's changes without waiting for the 30-second run.
  const s: Unlocked = {
    userId: claims.sub,
    keys,
    vault: new Vault(db, claims.sub, keys),
    api,
    appOrigin,
    byHost: new Map(),
    extra: new ExtraHosts(),
    timer: setInterval(() => void sync(s), SYNC_PERIOD_MS),
    live: liveFor(appOrigin, () => s),
    health: new FillHealth((prefix) =>
      s.api.text(HEALTH_ENDPOINTS.breachRange, { params: { prefix } }),
    ),
  };
  state = s;
  s.live.start();
  lastUse = Date.now();
  await reindex(s);
  void sync(s);
}

/** The live connection to the web app at `appOrigin`, for the vault `vault()` unlocked. */
function liveFor(appOrigin: string, vault: () => Unlocked): LiveSync {
  return new LiveSync({
    url: liveSyncUrl(appOrigin),
    protocols: liveSyncProtocols(async () => (liveToken = await token())),
    cursor: () => vault().vault.db.meta<string>(`cursor:${vault().userId}`),
    onStale: () => {
      if (state === vault()) void sync(vault());
    },
  });
}

/** The page's candidate entries, opened (entry-lookup.ts), the synced copy answering while live sync's session is in force. */
const openedCandidates = (s: Unlocked, pageUrl: string) =>
  lookup(s, pageUrl, liveToken === lastToken, (name) => timeline.mark(name));

async function match(ctx: FillContext): Promise<MatchReply> {
  const s = state;
  if (!s) return { locked: true };
  if (ctx.crossOriginFrame)
    return { locked: false, items: [], source: "server", refused: "refuse-frame" };
  const unverified: MatchReply = {
    locked: false,
    items: [],
    source: "server",
    twoFactorRequired: true,
  };
  if (twoFactor.pending) return unverified;
  let found: Awaited<ReturnType<typeof lookup>>;
  timeline.mark("match-asked");
  try {
    found = await openedCandidates(s, ctx.pageUrl);
    timeline.mark(`match-${found.source}-opened`);
  } catch (e) {
    if (owesCode(e)) return unverified;
    throw e;
  }
  const { list, source } = found;
  const items: MatchItem[] = [];
  // Never decided on the server's plaintext address: only on the one the opened envelope vouches for.
  for (const { c, o } of list) {
    if (!o) continue;
    const v = entryVerdict(ctx, o.url, o.secrets.urls, false, o.schemeSealed);
    if (v !== "fill" && v !== "confirm-insecure") continue;
    items.push({
      id: c.id,
      name: c.name,
      username: o.secrets.username,
      hasTotp: o.secrets.totp !== "",
      insecure: v === "confirm-insecure",
    });
    // Its breach range is asked now, so a pick has it (fill-health.ts).
    void s.health.prewarm(o.secrets.password);
  }
  timeline.mark("match-answered");
  return {
    locked: false,
    items: items.sort(
      (a, b) => a.name.localeCompare(b.name) || a.username.localeCompare(b.username),
    ),
    source,
  };
}

async function fill(ctx: FillContext, id: string, confirmed: boolean): Promise<FillReply> {
  const s = state;
  if (!s) return { ok: false, reason: "locked" };
  if (twoFactor.pending) return { ok: false, reason: "two-factor-required" };
  // During a first sync the copy is read from the fill index, not queued behind the pull's writes (entry-lookup.ts).
  const local =
    s.indexedAt === undefined ? firstSyncCopy(s, id) : await s.vault.db.entry(s.userId, id);
  const o = local
    ? await opened(s, local)
    : (await openedCandidates(s, ctx.pageUrl)).list.find(({ c }) => c.id === id)?.o;
  if (!o) return { ok: false, reason: "not-found" };
  const v = entryVerdict(ctx, o.url, o.secrets.urls, confirmed, o.schemeSealed);
  if (v !== "fill") return { ok: false, reason: v };
  lastUse = Date.now();
  const secrets = o.secrets;
  const credentials: Credentials = {
    username: secrets.username,
    password: secrets.password,
    totp: secrets.totp ? await codeOfField(secrets.totp) : null,
  };
  const warning = await s.health.warning(
    id,
    secrets.password,
    new URL("/health", s.appOrigin).href,
  );
  return warning ? { ok: true, credentials, warning } : { ok: true, credentials };
}

/**
 * After a sign-in, on the tab's next top-level page: save a new sign-in, or update a changed
 * password. That page consumes the submission whatever it is; only a page on the very host the
 * form was submitted on gets the offer, which lives in a session of an extension frame (`nonce`),
 * never in the page.
 */
async function saveOffer(
  tabId: number,
  pageUrl: string,
  nonce: string,
  frame: { frameId: number; documentId: string },
): Promise<boolean> {
  const s = state;
  const sub = submissions.get(tabId);
  submissions.delete(tabId);
  if (!s || !sub || !normalizeHost(pageUrl) || normalizeHost(pageUrl) !== normalizeHost(sub.url))
    return false;
  const offer = offerFor(sub, (await openedCandidates(s, sub.url)).list);
  if (!offer) return false;
  sessions.open(nonce, {
    kind: "save",
    tabId,
    ...frame,
    pageUrl,
    crossOriginFrame: false,
    save: { submission: sub, offer },
  });
  return true;
}

async function saveAnswer(
  session: FrameSession<{ submission: Submission; offer: SaveOffer & { id?: string } }>,
  accept: boolean,
): Promise<{ saved: boolean }> {
  const s = state;
  sessions.close(session.nonce);
  if (!s || !session.save || !accept) return { saved: false };
  const sub = session.save.submission;
  lastUse = Date.now();
  await saveSubmission(s.vault, sub, session.save.offer.id);
  await sync(s);
  return { saved: true };
}

/** The extension registers itself as a device when the person opens it signed in (device.ts). */
function registerDevice(appOrigin: string, current: string | null) {
  if (!current || twoFactor.pending) return;
  void (async () =>
    registerExtension(
      new ApiClient(appOrigin, token),
      appOrigin,
      tokenClaims(current).sub,
    ))().catch(() => undefined);
}

async function status(appOrigin: string, current: string | null) {
  const db = await dbReady;
  const session = await db.session();
  const twoFactorRequired = await twoFactor.check(appOrigin, current);
  registerDevice(appOrigin, current);
  return {
    twoFactorRequired,
    unlocked: state !== null,
    // Live sync holds the fill copy current: menus are drawn from it without asking the server.
    current: state ? liveToken === lastToken && state.live.covers(state.indexedAt) : false,
    healthReady: state?.health.ready ?? false,
    cached: state ? indexedCount(state) : 0,
    // The fill index holds a whole pull (not only a first sync's pages so far).
    synced: state?.indexedAt !== undefined,
    pending: state ? await db.pendingCount(state.userId) : 0,
    lastSync: session ? ((await db.meta<string>(`lastSync:${session.userId}`)) ?? null) : null,
    appOrigin,
  };
}

/** A frame presents the nonce its content script handed it: the session becomes that frame's, once. */
function attach(
  nonce: string,
  tabId: number | undefined,
  documentId: string | undefined,
): FrameAttached {
  return sessions.attach(nonce, tabId, documentId) ||
    passkeys.sessions.attach(nonce, tabId, documentId)
    ? { kind: "attached" }
    : { kind: "gone" };
}

/**
 * What the frame that owns the session draws, asked when its content script shows it (at the
 * person's click for a menu made ahead): the page's matches are looked up then, never earlier.
 */
async function show(
  nonce: string,
  tabId: number | undefined,
  documentId: string | undefined,
): Promise<FrameView> {
  const asking = passkeys.sessions.of(nonce, tabId, documentId);
  if (asking) return passkeys.view(asking);
  const session = sessions.of(nonce, tabId, documentId);
  if (!session) return { kind: "gone" };
  if (session.kind === "save")
    return {
      kind: "save",
      offer: {
        kind: session.save!.offer.kind,
        host: session.save!.offer.host,
        username: session.save!.offer.username,
      },
    };
  const looked = session.lookup;
  session.lookup = "taken";
  const ahead =
    looked && looked !== "taken" && Date.now() - looked.at < LOOKUP_FRESH_MS ? looked.reply : null;
  return {
    kind: "fill",
    reply: await (ahead ??
      match({ pageUrl: session.pageUrl, crossOriginFrame: session.crossOriginFrame })),
  };
}

/**
 * Starts a fill session's lookup once, before its frame asks: a menu made at the click, while its
 * frame loads; one made ahead, at the person's trusted press (`menu-pressed`), never before. The
 * result stays here until the frame that owns the session asks (`show`).
 */
function lookAhead(session: FrameSession<unknown> | null): boolean {
  if (!session || session.kind !== "fill" || session.lookup) return false;
  const reply = match({
    pageUrl: session.pageUrl,
    crossOriginFrame: session.crossOriginFrame,
  }).catch(() => ({ locked: false, items: [], source: "server" }) as MatchReply);
  session.lookup = { reply, at: Date.now() };
  return true;
}

/** What a secure link from the popup may use of the unlocked vault: an entry of the synced copy, opened in its place. */
function linkVault(): LinkVault | null {
  const s = state;
  if (!s || twoFactor.pending) return null;
  const entry = async (id: string) => {
    const local = await s.vault.db.entry(s.userId, id);
    const o = local ? await opened(s, local) : null;
    return local && o ? { name: local.name, website: local.website, secrets: o.secrets } : null;
  };
  const list = async () =>
    (await s.vault.db.entries(s.userId)).map((e) => ({
      id: e.id,
      name: e.name,
      website: e.website,
      sealed: !!e.encrypted_data,
    }));
  return { entry, list, vaultKey: s.keys.vaultKey, api: s.api, appOrigin: s.appOrigin };
}

async function handle(m: Forwarded): Promise<unknown> {
  autoLockMs = m.autoLockMs;
  // Another session (a new sign-in in the web app): live sync connects again with it.
  const renewed = m.token !== lastToken && lastToken !== null;
  lastToken = m.token;
  if (renewed && state) {
    state.live.stop();
    state.live.start();
  }
  await proveExtension(m.appOrigin, token);
  // The web app's address can change in the settings; the vault follows without a new unlock, and
  // live sync connects to the new address (the old one's word on the copy no longer counts).
  if (state && state.appOrigin !== m.appOrigin) {
    const s = state;
    s.live.stop();
    Object.assign(s, {
      appOrigin: m.appOrigin,
      api: new ApiClient(m.appOrigin, token),
      live: liveFor(m.appOrigin, () => s),
    });
    s.live.start();
  }
  const ctx: FillContext = {
    pageUrl: m.pageUrl ?? "",
    crossOriginFrame: m.crossOriginFrame ?? false,
  };
  switch (m.type) {
    case "status":
      return status(m.appOrigin, m.token);
    case "verify-2fa":
      return twoFactor.verify(m.appOrigin, m.code, () => {
        state?.live.reconnectNow();
        if (state) void sync(state);
      });
    case "unlock":
      try {
        timeline.reset();
        await unlock(m.passphrase, m.appOrigin, m.token);
        timeline.mark("unlock-resolved");
        registerDevice(m.appOrigin, m.token);
        return { ok: true };
      } catch (e) {
        if (e instanceof SignInError) return { ok: false, error: e.message };
        if (e instanceof OfflineError)
          return { ok: false, error: "The first unlock on this browser needs the network" };
        if (owesCode(e)) return { ok: false, error: "Enter your two-factor code first" };
        throw e;
      }
    case "timeline":
      return timeline.all;
    case "lock":
      lock();
      return { ok: true };
    case "match":
      return match(ctx);
    case "fill":
      return fill(ctx, m.id, m.confirmed ?? false);
    case "submitted":
      if (state && m.tabId !== undefined && m.password)
        submissions.set(m.tabId, { url: ctx.pageUrl, username: m.username, password: m.password });
      return { ok: true };
    case "save-offer":
      return m.tabId === undefined || !m.documentId
        ? false
        : saveOffer(m.tabId, ctx.pageUrl, m.nonce, {
            frameId: m.frameId ?? 0,
            documentId: m.documentId,
          });
    case "menu-open":
      if (m.tabId === undefined || !m.documentId) return false;
      sessions.open(m.nonce, {
        kind: "fill",
        tabId: m.tabId,
        frameId: m.frameId ?? 0,
        documentId: m.documentId,
        pageUrl: ctx.pageUrl,
        crossOriginFrame: ctx.crossOriginFrame,
      });
      // A menu made ahead looks nothing up until the person's press (`menu-pressed`): the server
      // is not told of every sign-in page visited.
      if (!m.ahead) lookAhead(sessions.opener(m.nonce, m.tabId, m.documentId));
      return true;
    case "menu-pressed":
      // Only the document that opened the session (the browser names the sender) starts its lookup.
      return lookAhead(sessions.opener(m.nonce, m.tabId, m.documentId));
    case "link-entries":
      return linkEntries(linkVault(), m.query);
    case "link-fields":
      return linkFields(linkVault(), m.id);
    case "link-create":
      lastUse = Date.now();
      return createLinkFrom(linkVault(), m.source, m.options);
    case "frame-attach":
      return attach(m.nonce, m.tabId, m.senderDocumentId);
    case "frame-show":
      return show(m.nonce, m.tabId, m.senderDocumentId);
    case "frame-session":
      return (
        sessions.of(m.nonce, m.tabId, m.senderDocumentId) ??
        passkeys.sessions.of(m.nonce, m.tabId, m.senderDocumentId) ??
        null
      );
    case "passkey-request":
    case "passkey-answer":
      return passkeyMessage(passkeys, m);
    case "frame-save": {
      const session = sessions.of(m.nonce, m.tabId, m.senderDocumentId);
      return session?.kind === "save" ? saveAnswer(session, m.accept) : { saved: false };
    }
    default:
      return null;
  }
}

chrome.runtime.onMessage.addListener((m: Forwarded, sender, reply) => {
  // Only the service worker forwards here; a content script's or frame's message (it has a tab) is not for the vault.
  if (m?.target !== "offscreen" || sender.tab) return false;
  handle(m).then(reply, (e: unknown) =>
    reply({ error: e instanceof Error ? e.message : String(e) }),
  );
  return true;
});
