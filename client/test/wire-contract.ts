/**
 * The client's endpoint tables against the server's own types (core/api/wire.gen.ts, generated
 * from the routes' schemas and checked current by `node scripts/wire-types.mjs --check` and
 * openapi-contract.test.ts). Nothing here runs: `tsc -p client/test` fails on the line of a table
 * naming a route, method, query parameter, body field or response field the server does not
 * have, and the error names it. The wire types themselves are api.ts's types, so a field the
 * client reads and the server drops already fails the client's own compile.
 */
import type { paths, WireBody, WireQuery, WireResponse } from "../../core/api/wire.gen";
import {
  ENDPOINTS,
  type EndpointDef,
  type EndpointResponse,
  type WireMutation,
} from "../../core/api/api";
import type { UploadBody } from "../../core/crypto";
import type { ImportProvider } from "../../core/importers";
import { AUTOMATION_ENDPOINTS, STREAM_ENDPOINTS } from "../src/automation/endpoints";
import { HEALTH_ENDPOINTS } from "../src/health/gather";
import { PASSKEY_SITE_ENDPOINTS } from "../src/sections/vault/passkey-sites";
import { TRASH_ENDPOINTS } from "../src/sections/vault/trash";
import { DMS_ENDPOINTS, EMERGENCY_ENDPOINTS } from "../../core/api/recovery-api";
import { LINK_ENDPOINTS } from "../../core/links/secure-links";
import { SHARING_ENDPOINTS } from "../../core/api/sharing-api";
import { VAULT_ENDPOINTS } from "../../core/vaults/vaults-api";
import { TOKEN_ENDPOINTS } from "../../core/vaults/machine-tokens";

type Method = "get" | "post" | "put" | "patch" | "delete";
/** The keys of every member of a union (a response that is one of several shapes). */
type KeysOf<T> = T extends unknown ? keyof T : never;
type Missing<E, K extends string, T> = E extends { [k in K]: readonly (infer F)[] }
  ? [Exclude<F, KeysOf<T>>] extends [never]
    ? never
    : `${K}: ${Exclude<F, KeysOf<T>> & string}`
  : never;
type Problem<E> = E extends { method: infer U extends string; path: infer P extends string }
  ? P extends keyof paths
    ? Lowercase<U> extends infer M extends Method & keyof paths[P]
      ? [NonNullable<paths[P][M]>] extends [never]
        ? `${U} ${P}: no such method`
        :
            | Missing<E, "query", WireQuery<P, M>>
            | Missing<E, "body", WireBody<P, M>>
            | Missing<E, "reads", WireResponse<P, M>>
      : `${U} ${P}: no such method`
    : `${P}: no such path`
  : "not an endpoint";
type Problems<T> = { [K in keyof T]: Problem<T[K]> }[keyof T];
/** Compiles only when `T` is never; otherwise the error shows what `T` is. */
type None<T extends never> = T;

/**
 * The entries of a table whose answer `api.request(ep)` would give untyped: callers read every
 * answer as the server's own type, so an entry the schemas do not resolve is named here.
 */
type Untyped<T> = {
  [K in keyof T]: T[K] extends EndpointDef
    ? unknown extends EndpointResponse<T[K]>
      ? `${K & string}: answer not typed`
      : never
    : `${K & string}: not an endpoint`;
}[keyof T];

export type Contract = [
  None<Problems<typeof ENDPOINTS>>,
  None<Problems<typeof SHARING_ENDPOINTS>>,
  None<Problems<typeof VAULT_ENDPOINTS>>,
  None<Problems<typeof EMERGENCY_ENDPOINTS>>,
  None<Problems<typeof DMS_ENDPOINTS>>,
  None<Problems<typeof AUTOMATION_ENDPOINTS>>,
  None<Problems<typeof STREAM_ENDPOINTS>>,
  None<Problems<typeof HEALTH_ENDPOINTS>>,
  None<Problems<typeof LINK_ENDPOINTS>>,
  None<Problems<typeof PASSKEY_SITE_ENDPOINTS>>,
  None<Problems<typeof TRASH_ENDPOINTS>>,
  None<Problems<typeof TOKEN_ENDPOINTS>>,
  None<Untyped<typeof ENDPOINTS>>,
  None<Untyped<typeof SHARING_ENDPOINTS>>,
  None<Untyped<typeof VAULT_ENDPOINTS>>,
  None<Untyped<typeof EMERGENCY_ENDPOINTS>>,
  None<Untyped<typeof DMS_ENDPOINTS>>,
  None<Untyped<typeof AUTOMATION_ENDPOINTS>>,
  None<Untyped<typeof LINK_ENDPOINTS>>,
  None<Untyped<typeof PASSKEY_SITE_ENDPOINTS>>,
  None<Untyped<typeof TRASH_ENDPOINTS>>,
  None<Untyped<typeof TOKEN_ENDPOINTS>>,
];

// The request bodies the client types by hand (each mutation's data is the entry model's; the
// attachment upload is built where it is encrypted, in core/crypto, which the API part imports):
// every one it sends is one the server's schema takes.
type Assignable<T extends U, U> = T;
export type MutationsTaken = Assignable<
  WireMutation[],
  WireBody<"/api/passwords/sync", "post">["mutations"]
>;
export type UploadTaken = Assignable<UploadBody, WireBody<"/api/vault/attachments", "post">>;
// The importers name their provider by hand (the server's type checks import them, without the
// DOM the API part needs): the same values as the import route's, neither side with one more.
type ApiImportProvider = WireBody<"/api/passwords/import", "post">["provider"];
export type ImportProviders = [
  Assignable<ImportProvider, ApiImportProvider>,
  Assignable<ApiImportProvider, ImportProvider>,
];
// A switch's settings as answered can be saved back as they are: the channels the server names
// are the ones it takes.
type SavedSwitch = NonNullable<WireResponse<"/api/dead-man-switch", "get">["switch"]>;
export type SwitchRoundTrip = Assignable<
  Pick<SavedSwitch, "enabled" | "inactivity_days" | "notify_at_days" | "notify_via">,
  WireBody<"/api/dead-man-switch", "post">
>;
