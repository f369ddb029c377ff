import type { TestProject } from "vitest/node";
import { startPwnedRangeServer } from "./pwned-range-server";

declare module "vitest" {
  export interface ProvidedContext {
    pwnedRangeUrl: string;
  }
}

/** Vitest globalSetup: one Pwned Passwords stand-in for the run; its URL reaches the worker as a binding. */
export default async function setup(project: TestProject) {
  const { url, server } = await startPwnedRangeServer();
  project.provide("pwnedRangeUrl", url);
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
}
