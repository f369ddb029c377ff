// The requests a device makes routinely, as one list shared by the cost bench (bench/cost.mjs,
// against wrangler dev) and the cost regression test (test/cost/budget.test.ts, inside the worker
// suite), so both send the same requests against the same shape of vault. Plain JavaScript with
// no Node or Workers imports: each side passes what differs in `ctx`.
//
// ctx: { size, id(k): an entry id of the seeded vault, call(method, path, body) resolving to
//        { status, json }, b64(n): n random bytes as base64, stamp(): the current ISO time }
// Each route: key (the table's), label, optional setup(ctx) run once before its requests, and
// send(ctx, i) for its i-th request (negative i for warm-up ones).

const update = (ctx, id, k) => ({
  action: "update",
  id,
  clientUpdatedAt: ctx.stamp(),
  data: {
    name: `Edited ${k}`,
    encrypted_data: ctx.b64(300),
    wrapped_item_key: ctx.b64(40),
    encryption_version: 3,
  },
});

/** Hex of n random nibbles, from the base64 helper (no crypto import here). */
const hex = (ctx, n) =>
  Array.from(ctx.b64(n), (c) => (c.charCodeAt(0) % 16).toString(16))
    .join("")
    .slice(0, n);

export const entry = (ctx, i) => ({
  name: `Entry ${i}`,
  website: `site${i % 2000}.example.com`,
  wrapped_item_key: ctx.b64(40),
  encrypted_data: ctx.b64(300),
  domain_hash: hex(ctx, 64),
  name_hash: hex(ctx, 64),
  username_hash: hex(ctx, 64),
  search_tokens: [hex(ctx, 16), hex(ctx, 16)],
});

const attachment = (ctx, parent) => ({
  parent_id: parent,
  parent_type: "password",
  encrypted_content: ctx.b64(12 + 16 + 4096),
  wrapped_file_key: { iv: ctx.b64(12), ciphertext: ctx.b64(48) },
  encrypted_filename: { iv: ctx.b64(12), ciphertext: ctx.b64(32) },
  encrypted_mime_type: { iv: ctx.b64(12), ciphertext: ctx.b64(32) },
});

const pullSince = (ctx, since) =>
  ctx.call("GET", `/api/passwords/sync?since=${encodeURIComponent(since)}`);

/** `size` entries through sync pushes of 100 (a push's maximum), ids `<prefix>-<n>`. */
export async function seedThroughApi(ctx, prefix) {
  for (let i = 0; i < ctx.size; i += 100) {
    const mutations = Array.from({ length: Math.min(100, ctx.size - i) }, (_, k) => ({
      action: "create",
      id: `${prefix}-${i + k}`,
      clientUpdatedAt: ctx.stamp(),
      data: { ...entry(ctx, i + k), encryption_version: 3 },
    }));
    const res = await ctx.call("POST", "/api/passwords/sync", { mutations });
    const applied = res.json?.results?.filter((r) => r.status === "applied").length;
    if (res.status !== 200 || applied !== mutations.length)
      throw new Error(`seed push: ${res.status}, ${applied} of ${mutations.length} applied`);
  }
}

export const routineRoutes = [
  {
    key: "unlock",
    label: "unlock (session check)",
    send: (ctx) => ctx.call("GET", "/api/auth/session"),
  },
  { key: "csrf", label: "CSRF token", send: (ctx) => ctx.call("GET", "/api/auth/csrf-token") },
  {
    key: "delta-0",
    label: "delta pull, 0 changes",
    async setup(ctx) {
      ctx.now = (await pullSince(ctx, ctx.stamp())).json.serverTimestamp;
    },
    send: (ctx) => pullSince(ctx, ctx.now),
  },
  {
    key: "push-1",
    label: "push, 1 mutation",
    send: (ctx, i) =>
      ctx.call("POST", "/api/passwords/sync", { mutations: [update(ctx, ctx.id(100 + i), i)] }),
  },
  {
    key: "push-50",
    label: "push, 50 mutations",
    send: (ctx, i) =>
      ctx.call("POST", "/api/passwords/sync", {
        mutations: Array.from({ length: 50 }, (_, k) =>
          update(ctx, ctx.id(200 + (i + 2) * 50 + k), k),
        ),
      }),
  },
  {
    // What the client sends of a longer queue (core/sync/sync-engine.ts, MAX_BATCH): a push of 50
    // would pass the free plan's 50 queries, so a queue goes in pushes of 40.
    key: "push-40",
    label: "push, 40 mutations (the client's batch)",
    send: (ctx, i) =>
      ctx.call("POST", "/api/passwords/sync", {
        mutations: Array.from({ length: 40 }, (_, k) =>
          update(ctx, ctx.id(5200 + (i + 2) * 40 + k), k),
        ),
      }),
  },
  {
    key: "delta-100",
    label: "delta pull, 100 changes",
    async setup(ctx) {
      ctx.before = (await pullSince(ctx, ctx.stamp())).json.serverTimestamp;
      await new Promise((r) => setTimeout(r, 5));
      await ctx.call("POST", "/api/passwords/sync", {
        mutations: Array.from({ length: 100 }, (_, k) => update(ctx, ctx.id(3000 + k), k)),
      });
    },
    async send(ctx) {
      const res = await pullSince(ctx, ctx.before);
      if (res.json.changes.length !== 100) throw new Error(`pulled ${res.json.changes.length}`);
      return res;
    },
  },
  {
    key: "full-pull",
    label: "full pull",
    few: true,
    send: (ctx) => ctx.call("GET", "/api/passwords/sync"),
  },
  {
    key: "match",
    label: "match (autofill)",
    send: (ctx) =>
      ctx.call("GET", "/api/passwords/match?url=https%3A%2F%2Fsite42.example.com%2Flogin"),
  },
  {
    key: "create",
    label: "create",
    send: (ctx, i) => ctx.call("POST", "/api/passwords", entry(ctx, 5000 + i)),
  },
  {
    key: "update",
    label: "update",
    send: (ctx, i) =>
      ctx.call("PATCH", `/api/passwords/${ctx.id(400 + i)}`, { name: `Renamed ${i}` }),
  },
  {
    key: "delete",
    label: "delete",
    send: (ctx, i) => ctx.call("DELETE", `/api/passwords/${ctx.id(500 + i)}`),
  },
  {
    key: "attachment-up",
    label: "attachment up (4 KiB)",
    async send(ctx, i) {
      const res = await ctx.call(
        "POST",
        "/api/vault/attachments",
        attachment(ctx, ctx.id(600 + i)),
      );
      (ctx.uploaded ??= []).push(res.json?.id ?? res.json?.attachment?.id);
      return res;
    },
  },
  {
    key: "attachment-down",
    label: "attachment down (4 KiB)",
    send: (ctx, i) => {
      const ids = ctx.uploaded ?? [];
      return ctx.call("GET", `/api/vault/attachments/${ids[(i + ids.length) % ids.length]}`);
    },
  },
  {
    key: "breach-range",
    label: "health: breach range",
    send: (ctx, i) =>
      // Prefixes of their own per vault size: a range the run at another size fetched is cached.
      ctx.call(
        "GET",
        `/api/breach/range/${(0xa0000 + (ctx.size % 4096) * 32 + i + 3).toString(16).toUpperCase()}`,
      ),
  },
  { key: "liveness", label: "liveness /api/health", send: (ctx) => ctx.call("GET", "/api/health") },
];
