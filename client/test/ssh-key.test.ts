import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseSecrets, serializeSecrets } from "../../core/crypto/crypto";
import {
  ed25519Signer,
  generateSshKey,
  importSshKey,
  openSshKey,
  readSshKeyFile,
  RSA_SHA2_256,
  RSA_SHA2_512,
  SshKeyError,
} from "../../core/entry";

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

  it("keeps ECDSA and RSA keys that ssh-keygen made: the same public line and fingerprint, and signatures their public halves verify", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vault-ssh-kinds-"));
    const kinds: [string, string[], number[]][] = [
      ["ecdsa256", ["-t", "ecdsa", "-b", "256"], [0]],
      ["ecdsa384", ["-t", "ecdsa", "-b", "384"], [0]],
      ["ecdsa521", ["-t", "ecdsa", "-b", "521"], [0]],
      ["rsa", ["-t", "rsa", "-b", "2048"], [0, RSA_SHA2_256, RSA_SHA2_512]],
    ];
    for (const [name, args, flagsList] of kinds) {
      const file = join(dir, name);
      execFileSync("ssh-keygen", ["-q", ...args, "-N", "", "-C", `${name}@test`, "-f", file]);
      const key = await importSshKey(readFileSync(file, "utf8"));
      expect(key.public_key).toBe(readFileSync(`${file}.pub`, "utf8").trim());
      const printed = execFileSync("ssh-keygen", ["-l", "-E", "sha256", "-f", `${file}.pub`]);
      expect(printed.toString().split(" ")[1]).toBe(key.fingerprint);
      const signer = await openSshKey(key.private_key);
      const data = new TextEncoder().encode("to be signed");
      for (const flags of flagsList) {
        const sig = await signer.sign(data, flags);
        expect(await signer.verify(data, sig)).toBe(true);
        expect(await signer.verify(new TextEncoder().encode("something else"), sig)).toBe(false);
      }
    }
    // The agent's flags pick RSA's hash (RFC 8332 section 3).
    const rsa = await openSshKey(readFileSync(join(dir, "rsa"), "utf8"));
    const alg = async (flags: number) =>
      new TextDecoder()
        .decode((await rsa.sign(new Uint8Array([1]), flags)).subarray(4, 16))
        .replace(/\0.*$/s, "");
    expect(await alg(RSA_SHA2_512)).toBe("rsa-sha2-512");
    expect(await alg(RSA_SHA2_256)).toBe("rsa-sha2-256");
  });

  it("refuses a key of a kind it does not keep, and one whose listed public key is another key's", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vault-ssh-refused-"));
    execFileSync("ssh-keygen", [
      "-q",
      "-t",
      "rsa",
      "-b",
      "1024",
      "-N",
      "",
      "-f",
      join(dir, "short"),
    ]);
    await expect(importSshKey(readFileSync(join(dir, "short"), "utf8"))).rejects.toThrow(
      /under 2048 bits/,
    );
    // The outer public key of one ECDSA file put in front of another's private section.
    for (const n of ["a", "b"])
      execFileSync("ssh-keygen", ["-q", "-t", "ecdsa", "-N", "", "-f", join(dir, n)]);
    const raw = (n: string) => Buffer.from(body(readFileSync(join(dir, n), "utf8")), "base64");
    const [a, b] = [raw("a"), raw("b")];
    // openssh-key-v1\0, "none", "none", "", 1, then the listed public key: same length for both.
    const at = 15 + 8 + 4 + 4 + 4 + 4 + 4;
    const len = a.readUInt32BE(at - 4);
    const mixed = Buffer.concat([
      a.subarray(0, at),
      b.subarray(at, at + len),
      a.subarray(at + len),
    ]);
    const text = `-----BEGIN OPENSSH PRIVATE KEY-----\n${mixed.toString("base64")}\n-----END OPENSSH PRIVATE KEY-----\n`;
    await expect(importSshKey(text)).rejects.toThrow(/not its private key's/);
  });
});
