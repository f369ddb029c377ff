import { beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/server";
import { ENDPOINTS } from "../src/api";
import { LINK_ENDPOINTS } from "../src/secure-links";
import { SHARING_ENDPOINTS } from "../src/sharing-api";
import { DMS_ENDPOINTS, EMERGENCY_ENDPOINTS } from "../src/recovery-api";
import { AUTOMATION_ENDPOINTS, STREAM_ENDPOINTS } from "../src/automation/endpoints";
import { HEALTH_ENDPOINTS } from "../src/health/gather";
import { PASSKEY_SITE_ENDPOINTS } from "../src/passkeys/sites";

type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  required?: string[];
};
type Operation = {
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
};
let doc: { paths: Record<string, Record<string, Operation>> };

beforeAll(async () => {
  const res = await fetch(`${server().baseUrl}/api/openapi.json`);
  expect(res.status).toBe(200);
  doc = (await res.json()) as typeof doc;
});

describe("the client's endpoints against /api/openapi.json", () => {
  it.each(
    Object.entries({
      ...ENDPOINTS,
      ...SHARING_ENDPOINTS,
      ...EMERGENCY_ENDPOINTS,
      ...DMS_ENDPOINTS,
      ...AUTOMATION_ENDPOINTS,
      ...STREAM_ENDPOINTS,
      ...HEALTH_ENDPOINTS,
      ...LINK_ENDPOINTS,
      ...PASSKEY_SITE_ENDPOINTS,
    }),
  )("%s exists with its method, parameters, body and response fields", (_, ep) => {
    const op = doc.paths[ep.path]?.[ep.method.toLowerCase()];
    expect(op, `${ep.method} ${ep.path}`).toBeDefined();
    const params = new Set((op!.parameters ?? []).map((p) => `${p.in}:${p.name}`));
    for (const q of "query" in ep ? ep.query : [])
      expect(params, `query ${q}`).toContain(`query:${q}`);
    for (const m of ep.path.matchAll(/\{(\w+)\}/g))
      expect(params, `path ${m[1]}`).toContain(`path:${m[1]}`);
    if ("body" in ep) {
      const body = op!.requestBody?.content["application/json"]?.schema;
      for (const f of ep.body)
        expect(Object.keys(body?.properties ?? {}), `body ${f}`).toContain(f);
    }
    const ok = Object.entries(op!.responses).find(([status]) => /^2\d\d$/.test(status))?.[1];
    const schema = ok?.content?.["application/json"]?.schema;
    for (const f of ep.reads)
      expect(Object.keys(schema?.properties ?? {}), `response ${f}`).toContain(f);
  });

  it("the sync change and mutation result carry the fields the client stores", () => {
    const pull =
      doc.paths["/api/passwords/sync"].get.responses["200"].content!["application/json"].schema;
    const variants = pull.properties!.changes.items!.anyOf!;
    const live = variants.find((v) => v.properties?.encrypted_data)!;
    for (const f of [
      "id",
      "name",
      "website",
      "url",
      "tags",
      "encryption_version",
      "wrapped_item_key",
      "encrypted_data",
      "created_at",
      "updated_at",
      "_deleted",
    ]) {
      expect(Object.keys(live.properties!)).toContain(f);
    }
    expect(variants.some((v) => v.properties?.deleted_at && v.properties?._deleted)).toBe(true);
    const push = doc.paths["/api/passwords/sync"].post;
    const mutation =
      push.requestBody!.content["application/json"].schema.properties!.mutations.items!;
    expect(mutation.required).toContain("id");
    const result =
      push.responses["200"].content!["application/json"].schema.properties!.results.items!;
    for (const f of ["id", "status", "serverEntry", "code", "error"])
      expect(Object.keys(result.properties!)).toContain(f);
    const reveal =
      doc.paths["/api/passwords/{id}/reveal"].post.responses["200"].content!["application/json"]
        .schema;
    expect(Object.keys(reveal.properties!.envelope.properties!).sort()).toEqual([
      "encryptedData",
      "version",
      "wrappedItemKey",
    ]);
  });
});
