import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import { dbFor, directoryDb } from "../../src/db/client";
import { rawD1 } from "../../src/db/d1";
import * as schema from "../../src/db/schema";
import { syncClocks } from "../../src/db/schema";

describe("the drizzle client built over a schema derived once per isolate", () => {
  it("is what drizzle(client, { schema }) builds: the same relational tables, the binding, queries and batches", async () => {
    const db = dbFor(env, "u-client");
    const reference = drizzle(env.DB, { schema });
    expect(Object.keys(db._.schema ?? {}).sort()).toEqual(
      Object.keys(reference._.schema ?? {}).sort(),
    );
    expect(Object.keys(db.query).sort()).toEqual(Object.keys(reference.query).sort());
    const directory = directoryDb(env);
    expect(rawD1(directory)).toBe((env as unknown as { DIRECTORY: D1Database }).DIRECTORY);
    expect(directoryDb(env)).toBe(directory);

    await db.insert(syncClocks).values({ userId: "u-client", clock: 42 });
    const [, rows] = await db.batch([
      db.update(syncClocks).set({ clock: 43 }).where(eq(syncClocks.userId, "u-client")),
      db.select().from(syncClocks).where(eq(syncClocks.userId, "u-client")),
    ]);
    expect(rows).toEqual([{ userId: "u-client", clock: 43 }]);
    expect(
      await db.query.syncClocks.findFirst({ where: eq(syncClocks.userId, "u-client") }),
    ).toEqual({ userId: "u-client", clock: 43 });
  });
});
