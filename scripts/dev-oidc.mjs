// Runs the local OpenID provider for `npm start` (scripts/lib/dev-oidc.mjs) until stopped.
import { ensureDevVars, DEV_IDP_PORT } from "./lib/dev-identity.mjs";
import { DEV_PASSWORD, DEV_USERS, startDevOidc } from "./lib/dev-oidc.mjs";

await ensureDevVars();
const appPort = Number(process.env.PORT ?? 8787);
const redirectUris = [
  `http://localhost:${appPort}/api/auth/callback`,
  `http://127.0.0.1:${appPort}/api/auth/callback`,
];
const { issuer } = await startDevOidc({ port: DEV_IDP_PORT, redirectUris });
console.log(
  `OpenID provider on ${issuer}: users ${DEV_USERS.map((u) => u.email).join(", ")}; password ${DEV_PASSWORD}`,
);
