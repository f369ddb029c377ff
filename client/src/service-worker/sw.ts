/**
 * Service worker (spec "Client offline behaviour" rules 1, 2, 6, 7). Built to /sw.js (scope /)
 * by scripts/build-client.mjs, which defines the asset list and build id.
 */
import { ApiClient, OfflineError } from "../../../core/api";
import { openDb } from "../../../core/store";
import { pushPending, withSyncLock } from "../../../core/sync";

declare const self: ServiceWorkerGlobalScope;
declare const __PRECACHE_ASSETS__: string[];
declare const __BUILD_ID__: string;
/** The large bundles left out of the install (scripts/build-client.mjs): cached once the vault has opened. */
declare const __DEFERRED_ASSETS__: string[];
/** The shell's pages: /dashboard, /offline and every section path (scripts/build-client.mjs). */
declare const __PAGES__: string[];

/** Background Sync is not in TypeScript's lib yet. */
interface SyncEvent extends ExtendableEvent {
  readonly tag: string;
}

export const CACHE_PREFIX = "app-";
export const SYNC_CACHE = "app-sync-v1";
export const SHELL_CACHE = "app-shell-v1";
const SYNC_CACHE_MAX = 10;
const SHELL_CACHE_MAX = 200;
export const SYNC_TAG = "vault-sync";
const SYNC_PATH = "/api/passwords/sync";
const STATIC = /\.(?:js|mjs|css|html|json|webmanifest|txt)$/;
const MEDIA = /\.(?:png|jpe?g|gif|svg|webp|avif|ico|woff2?|ttf|otf)$/;

function offline(): Response {
  return new Response(
    JSON.stringify({ error: "offline", code: "SERVICE_UNAVAILABLE", status: 503 }),
    {
      status: 503,
      headers: { "content-type": "application/json", "cache-control": "no-store" },
    },
  );
}

/** Evicts the oldest entries (cache keys come in insertion order) once the maximum is exceeded. */
async function putBounded(cacheName: string, key: Request | string, res: Response, max: number) {
  const cache = await caches.open(cacheName);
  await cache.put(key, res);
  const keys = await cache.keys();
  for (let i = 0; i < keys.length - max; i++) await cache.delete(keys[i]);
}

/** A response worth keeping: complete, same-origin and not a redirect (which navigations refuse). */
const storable = (res: Response) => res.status === 200 && res.type === "basic" && !res.redirected;

async function networkFirst(
  req: Request,
  cacheName: string,
  max: number,
  fallback: () => Promise<Response | undefined>,
  key: Request | string = req,
) {
  try {
    const res = await fetch(req);
    if (storable(res)) await putBounded(cacheName, key, res.clone(), max);
    return res;
  } catch {
    return (await caches.match(key, { cacheName })) ?? (await fallback()) ?? offline();
  }
}

/**
 * A pull read page by page (sync-engine.ts): handed to the page as it arrives, and kept once all of
 * it has come. Waiting for the cache first would hold every page back until the last, and a body
 * cut off part-way would reach the page as a stale kept answer rather than the pages it did get.
 */
async function networkFirstStreamed(event: FetchEvent, cacheName: string, max: number) {
  const req = event.request;
  try {
    const res = await fetch(req);
    if (storable(res))
      event.waitUntil(putBounded(cacheName, req, res.clone(), max).catch(() => undefined));
    return res;
  } catch {
    return (await caches.match(req, { cacheName })) ?? offline();
  }
}

async function cacheFirst(req: Request) {
  const hit = await caches.match(req, { cacheName: SHELL_CACHE });
  if (hit) return hit;
  try {
    const res = await fetch(req);
    if (storable(res)) await putBounded(SHELL_CACHE, req, res.clone(), SHELL_CACHE_MAX);
    return res;
  } catch {
    return offline();
  }
}

async function staleWhileRevalidate(event: FetchEvent) {
  const req = event.request;
  const hit = await caches.match(req, { cacheName: SHELL_CACHE });
  const refresh = fetch(req).then(async (res) => {
    if (storable(res)) await putBounded(SHELL_CACHE, req, res.clone(), SHELL_CACHE_MAX);
    return res;
  });
  if (hit) {
    event.waitUntil(refresh.catch(() => undefined));
    return hit;
  }
  return refresh.catch(offline);
}

self.addEventListener("fetch", (event) => {
  const req = event.request;
  if (req.method !== "GET") return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  // Session-share viewer pages carry a secret token in the path and live data: never cached.
  if (url.pathname.startsWith("/s/")) return;
  // Secure-link open pages: the stranger's page works without this worker, and one link's page is
  // never kept in this browser's caches.
  if (url.pathname.startsWith("/l/")) return;
  if (
    url.pathname === SYNC_PATH &&
    /\bapplication\/x-ndjson\b/.test(req.headers.get("accept") ?? "")
  ) {
    event.respondWith(networkFirstStreamed(event, SYNC_CACHE, SYNC_CACHE_MAX));
  } else if (url.pathname === SYNC_PATH) {
    event.respondWith(networkFirst(req, SYNC_CACHE, SYNC_CACHE_MAX, async () => undefined));
  } else if (url.pathname.startsWith("/api/")) {
    // Other API reads are not cached (they may be secrets); offline they get the 503 body.
    event.respondWith(fetch(req).catch(offline));
  } else if (req.mode === "navigate") {
    const key = url.origin + url.pathname;
    event.respondWith(
      networkFirst(
        req,
        SHELL_CACHE,
        SHELL_CACHE_MAX,
        () => caches.match("/offline", { cacheName: SHELL_CACHE }),
        key,
      ),
    );
  } else if (
    MEDIA.test(url.pathname) ||
    req.destination === "image" ||
    req.destination === "font"
  ) {
    event.respondWith(staleWhileRevalidate(event));
  } else if (
    STATIC.test(url.pathname) ||
    req.destination === "script" ||
    req.destination === "style"
  ) {
    event.respondWith(cacheFirst(req));
  } else {
    event.respondWith(fetch(req).catch(offline));
  }
});

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(SHELL_CACHE);
      // The pages, and the scripts and styles they need to run offline; one failure must not stop
      // the install (rule 2).
      await Promise.allSettled(
        [...__PAGES__, ...__PRECACHE_ASSETS__].map(async (path) => {
          const res = await fetch(path, { cache: "reload" });
          if (storable(res)) await cache.put(path, res);
        }),
      );
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      const keep = new Set([SYNC_CACHE, SHELL_CACHE]);
      for (const name of await caches.keys()) {
        if (name.startsWith(CACHE_PREFIX) && !keep.has(name)) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("message", (event) => {
  const data = event.data as { type?: string } | null;
  if (data?.type === "CLEAR_SYNC_CACHE") {
    event.waitUntil(
      caches.delete(SYNC_CACHE).then((deleted) => {
        event.ports[0]?.postMessage({ type: "SYNC_CACHE_CLEARED", deleted });
      }),
    );
  } else if (data?.type === "CLAIM") {
    // From a page that loaded between this worker's activation and its first claim (pages/common.ts).
    event.waitUntil(self.clients.claim());
  } else if (data?.type === "PRECACHE_DEFERRED") {
    // From the shell once its first section is on screen (shell/app.ts): what is already kept (a
    // bundle fetched before, cache-first) is not asked for again.
    event.waitUntil(
      (async () => {
        const cache = await caches.open(SHELL_CACHE);
        await Promise.allSettled(
          __DEFERRED_ASSETS__.map(async (path) => {
            if (await cache.match(path)) return;
            const res = await fetch(path);
            if (storable(res)) await cache.put(path, res);
          }),
        );
      })(),
    );
  } else if (data?.type === "BUILD_ID") {
    event.ports[0]?.postMessage({ type: "BUILD_ID", buildId: __BUILD_ID__ });
  }
});

/** Rule 6: push the queue without a page. The cookie carries the identity; a CSRF token is fetched first. */
async function backgroundPush() {
  const db = await openDb();
  try {
    const session = await db.session();
    if (!session) return;
    const api = new ApiClient();
    await api.csrfToken();
    const report = await withSyncLock(() => pushPending(db, api, session.userId));
    for (const client of await self.clients.matchAll({ type: "window" }))
      client.postMessage({ type: "VAULT_SYNCED", report });
  } catch (e) {
    // Rethrowing an offline failure makes the browser retry the registration later.
    if (e instanceof OfflineError) throw e;
  } finally {
    db.close();
  }
}

self.addEventListener("sync", (event) => {
  const e = event as SyncEvent;
  if (e.tag === SYNC_TAG) e.waitUntil(backgroundPush());
});

/** What the server pushes (src/domains/push/send.ts); anything else is shown as a plain notice. */
type PushNotice = { type?: string; title?: string; body?: string; url?: string };

/**
 * A Web Push message (RFC 8030; decrypted by the browser, RFC 8291). userVisibleOnly subscriptions
 * must show a notification for every push, so a malformed one still shows something.
 */
self.addEventListener("push", (event) => {
  let data: PushNotice = {};
  try {
    data = (event.data?.json() ?? {}) as PushNotice;
  } catch {
    data = { body: event.data?.text() };
  }
  const title = typeof data.title === "string" && data.title ? data.title : "Credential Vault";
  const url = typeof data.url === "string" ? data.url : "/";
  event.waitUntil(
    self.registration.showNotification(title, {
      body: typeof data.body === "string" ? data.body : "",
      data: { url },
      tag: data.type ?? "vault",
    }),
  );
});

/** Opens the notice's page, on this origin only: a pushed url must not take the user elsewhere. */
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const raw = (event.notification.data as { url?: string } | null)?.url ?? "/";
  const target = new URL(raw, self.location.origin);
  const url = target.origin === self.location.origin ? target.href : self.location.origin + "/";
  event.waitUntil(
    (async () => {
      for (const client of await self.clients.matchAll({
        type: "window",
        includeUncontrolled: true,
      })) {
        if (new URL(client.url).origin === self.location.origin && "focus" in client) {
          await (client as WindowClient).navigate(url);
          return void (await (client as WindowClient).focus());
        }
      }
      await self.clients.openWindow(url);
    })(),
  );
});
