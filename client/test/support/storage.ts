import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { inject } from "vitest";

/** Every file of the suite's wrangler state (its D1 databases and R2 objects), for scans of what the server holds. */
export function stateFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else files.push(p);
    }
  };
  walk(inject("workerState"));
  return files;
}
