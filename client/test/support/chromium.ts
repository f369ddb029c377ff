/**
 * The Chromium binary and the switches every browser of the suite runs with: the run's shared
 * Chromium (launched once by the global setup, worker.ts) and the extension's own profiles alike.
 * No vitest import here: the global setup loads this in vitest's main process.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const CHROMIUM_ARGS = ["--no-sandbox", "--disable-dev-shm-usage"];
