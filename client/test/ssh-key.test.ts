import { describe, expect, it } from "vitest";
import { parseSecrets, serializeSecrets } from "../../core/crypto/crypto";
import {
  ed25519Signer,
  generateSshKey,
  importSshKey,
  readSshKeyFile,
  SshKeyError,
} from "../../core/entry/ssh-key";

const body = (pem: string) => pem.split("\n").slice(1, -2).join("");

describe("SSH keys in the entry model", () => {
  it("a made key's file reads back to the same public key, and signs as that key", async () => {
    const key = await generateSshKey("me@host");
    expect(key.public_key).toMatch(/^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI\S+ me@host$/);
    expect(key.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    const again = await importSshKey(key.private_key);
    expect([again.public_key, again.fingerprint]).toEqual([key.public_key, key.fingerprint]);
    const { seed, pub, comment } = readSshKeyFile(key.private_key);
    expect(comment).toBe("me@host");
    const data = new TextEncoder().encode("to be signed");
    const verifier = await crypto.subtle.importKey("raw", pub, { name: "Ed25519" }, false, [
      "verify",
    ]);
    const sig = await (await ed25519Signer(seed))(data);
    expect(await crypto.subtle.verify("Ed25519", verifier, sig, data)).toBe(true);
  });

  it("travels in the sealed payload as a kind of its own", async () => {
    const ssh = await generateSshKey();
    const base = { username: "", password: "", notes: "", category: "", totp: "" };
    const back = parseSecrets(serializeSecrets({ ...base, kind: "ssh_key", ssh }));
    expect([back.kind, back.ssh]).toEqual(["ssh_key", ssh]);
    // A malformed key part is dropped, not the entry.
    const bad = parseSecrets(JSON.stringify({ ...base, kind: "ssh_key", ssh: { public_key: 1 } }));
    expect([bad.kind, bad.ssh]).toEqual(["ssh_key", undefined]);
  });

  it("refuses what is not an unencrypted OpenSSH Ed25519 key file, saying why", async () => {
    const key = await generateSshKey();
    const cases: [string, RegExp][] = [
      ["-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n", /Not an OpenSSH/],
      [
        `-----BEGIN OPENSSH PRIVATE KEY-----\n${body(key.private_key).slice(0, 60)}\n-----END OPENSSH PRIVATE KEY-----\n`,
        /cut short/,
      ],
      ["-----BEGIN OPENSSH PRIVATE KEY-----\n%%%\n-----END OPENSSH PRIVATE KEY-----\n", /base64/],
    ];
    for (const [text, why] of cases) {
      await expect(importSshKey(text)).rejects.toThrow(SshKeyError);
      await expect(importSshKey(text)).rejects.toThrow(why);
    }
  });
});
