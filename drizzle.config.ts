import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  // passwords.ts beside the barrel, which leaves that table to its domain (src/db/schema/index.ts).
  schema: ["./src/db/schema/index.ts", "./src/db/schema/passwords.ts"],
  out: "./migrations",
});
