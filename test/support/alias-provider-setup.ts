import type { TestProject } from "vitest/node";
import { startAliasProviderServer } from "./alias-provider-server";

declare module "vitest" {
  export interface ProvidedContext {
    aliasProviderUrl: string;
  }
}

/** Vitest globalSetup: one alias-provider server for the run; its URL reaches the worker as bindings. */
export default async function setup(project: TestProject) {
  const { url, server } = await startAliasProviderServer();
  project.provide("aliasProviderUrl", url);
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
}
