import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/server";
import { renderWireTypes, WIRE_FILE } from "../../scripts/wire-types.mjs";

/**
 * The client's types are the server's (core/api/wire.gen.ts, generated from the route registry
 * outside workerd); client/test/wire-contract.ts checks every endpoint table against them at
 * compile time. What only a running server can show: the document it serves is the one those
 * types were made from, so the worker as deployed answers what the client compiles against.
 */
type Doc = { paths: Record<string, Record<string, unknown>> };
let doc: Doc;

beforeAll(async () => {
  const res = await fetch(`${server().baseUrl}/api/openapi.json`);
  expect(res.status).toBe(200);
  doc = (await res.json()) as Doc;
});

describe("the client's wire types against the served /api/openapi.json", () => {
  it("the served document renders to the committed core/api/wire.gen.ts", async () => {
    const rendered: string = await renderWireTypes(doc);
    expect(rendered === readFileSync(WIRE_FILE, "utf8"), "run `node scripts/wire-types.mjs`").toBe(
      true,
    );
  });

  it("the sync change, mutation result and envelope are the shapes the client stores", () => {
    type Schema = { properties?: Record<string, Schema>; items?: Schema; anyOf?: Schema[] };
    const json = (op: unknown, status: string) =>
      (op as { responses: Record<string, { content: Record<string, { schema: Schema }> }> })
        .responses[status].content["application/json"].schema;
    const sync = doc.paths["/api/passwords/sync"];
    const variants = json(sync.get, "200").properties!.changes.items!.anyOf!;
    const live = variants.find((v) => v.properties?.encrypted_data)!;
    for (const f of ["id", "name", "tags", "wrapped_item_key", "encrypted_data", "_deleted"])
      expect(Object.keys(live.properties!)).toContain(f);
    expect(variants.some((v) => v.properties?.deleted_at && v.properties?._deleted)).toBe(true);
    const result = json(sync.post, "200").properties!.results.items!;
    for (const f of ["id", "status", "serverEntry", "code", "error"])
      expect(Object.keys(result.properties!)).toContain(f);
    const reveal = json(doc.paths["/api/passwords/{id}/reveal"].post, "200");
    expect(Object.keys(reveal.properties!.envelope.properties!).sort()).toEqual([
      "encryptedData",
      "version",
      "wrappedItemKey",
    ]);
  });
});
