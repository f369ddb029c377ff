// Chromium names an extension after its public key (the manifest's "key"): the first 128 bits of
// SHA-256 over the DER key, each hex digit written as a letter a..p. A fixed key gives a fixed id,
// so the worker's CORS_ORIGINS can name chrome-extension://<id> ahead of time.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const MANIFEST = fileURLToPath(new URL("../../extension/static/manifest.json", import.meta.url));

export function extensionId() {
  const { key } = JSON.parse(readFileSync(MANIFEST, "utf8"));
  const hex = createHash("sha256").update(Buffer.from(key, "base64")).digest("hex").slice(0, 32);
  return [...hex].map((h) => String.fromCharCode(97 + parseInt(h, 16))).join("");
}

export const extensionOrigin = () => `chrome-extension://${extensionId()}`;
