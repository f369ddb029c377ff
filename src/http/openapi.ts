import { z, type ZodType } from "zod";
import { ErrorCode } from "../lib/errors";
import type { RegisteredRoute } from "./route";

function schemaOf(schema: ZodType, io: "input" | "output"): Record<string, unknown> {
  const json = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
  }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

const errorSchema = {
  type: "object",
  required: ["error", "code", "status"],
  properties: {
    error: { type: "string" },
    code: {
      type: "string",
      description: `One of ${Object.values(ErrorCode).join(", ")} (lower-case on the admin registry and notifications)`,
    },
    status: { type: "integer" },
    details: {
      type: "array",
      items: {
        type: "object",
        required: ["field", "message"],
        properties: { field: { type: "string" }, message: { type: "string" } },
      },
    },
  },
};

function parametersOf(schema: ZodType | undefined, where: "query" | "path") {
  if (!schema) return [];
  const json = schemaOf(schema, "input") as {
    properties?: Record<string, unknown>;
    required?: string[];
  };
  return Object.entries(json.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === "path" || (json.required ?? []).includes(name),
    schema: s,
  }));
}

/** OpenAPI 3.1 document built from the same zod schemas the routes validate with. */
export function buildOpenApi(routes: RegisteredRoute[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = r.path.replace(/:([A-Za-z_]\w*)/g, "{$1}");
    const responses: Record<string, unknown> = {};
    for (const [status, spec] of Object.entries(r.responses)) {
      const type = spec.contentType ?? "application/json";
      responses[status] = {
        description: spec.description,
        ...(spec.schema
          ? { content: { [type]: { schema: schemaOf(spec.schema, "output") } } }
          : {}),
      };
    }
    responses.default = {
      description: "Error",
      content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    };
    const op: Record<string, unknown> = {
      summary: r.summary,
      tags: r.tags,
      operationId: `${r.method}_${r.path.replace(/^\/api\//, "").replace(/[/:-]+/g, "_")}`,
      parameters: [...parametersOf(r.params, "path"), ...parametersOf(r.query, "query")],
      responses,
      security: r.auth === false ? [] : [{ bearer: [] }, { cookie: [] }],
    };
    if (r.deprecated) op.deprecated = true;
    if (r.auth !== false && r.method !== "get" && r.csrf === false) op["x-csrf-exempt"] = true;
    if (r.stepUp) op["x-step-up"] = r.stepUp;
    if (r.body)
      op.requestBody = {
        required: true,
        content: { "application/json": { schema: schemaOf(r.body, "input") } },
      };
    paths[path] = { ...(paths[path] ?? {}), [r.method]: op };
  }
  return {
    openapi: "3.1.0",
    info: { title: "Credential vault API", version: "1" },
    servers: [{ url: "/" }],
    paths,
    components: {
      schemas: { Error: errorSchema },
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
        cookie: { type: "apiKey", in: "cookie", name: "access_token" },
      },
    },
  };
}
