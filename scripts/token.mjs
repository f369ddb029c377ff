// npm run token -- --sub <id> --email <e> [--admin] [--auth-age <seconds>] [--ttl <seconds>]
import { parseArgs } from "node:util";
import { ensureDevVars, signDevToken } from "./lib/dev-identity.mjs";

const { values } = parseArgs({
  options: {
    sub: { type: "string" },
    email: { type: "string" },
    admin: { type: "boolean", default: false },
    "auth-age": { type: "string", default: "0" },
    ttl: { type: "string", default: "3600" },
  },
});
if (!values.sub) {
  console.error(
    "usage: npm run token -- --sub <id> --email <e> [--admin] [--auth-age <seconds>] [--ttl <seconds>]",
  );
  process.exit(2);
}
await ensureDevVars();
console.log(
  await signDevToken({
    sub: values.sub,
    email: values.email,
    admin: values.admin,
    authAge: Number(values["auth-age"]),
    ttl: Number(values.ttl),
  }),
);
