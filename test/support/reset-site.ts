import type { TestProject } from "vitest/node";
// @ts-expect-error plain ESM helper shared with bench/reset.mjs
import { startResetSite } from "./reset-site-lib.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    resetSiteOrigin: string;
  }
}

/** vitest globalSetup: the local website whose forgot-password flow the reset tests drive. */
export default async function setup(project: TestProject) {
  const site = await startResetSite({ mailboxFor: () => null });
  project.provide("resetSiteOrigin", site.origin);
  return async () => {
    await site.stop();
  };
}
