/**
 * KeePass files made here from a known item list, with kdbxweb itself (the library KeeWeb writes
 * databases with), so the importer is tested against databases whose every field is known: KDBX 4
 * with Argon2id, KDBX 3.1 with AES-KDF, a key file; and a KeePass 2 XML export written from the
 * documented layout. Used by the unit tests (workerd) and the browser journey (Node).
 */
import { argon2d, argon2id } from "hash-wasm";
import {
  Consts,
  CryptoEngine,
  Int64,
  Kdbx,
  KdbxCredentials,
  ProtectedValue,
  VarDictionary,
} from "kdbxweb";

CryptoEngine.setArgon2Impl(
  async (password, salt, memory, iterations, length, parallelism, type) => {
    const run = type === CryptoEngine.Argon2TypeArgon2id ? argon2id : argon2d;
    const out = await run({
      password: new Uint8Array(password),
      salt: new Uint8Array(salt),
      memorySize: memory,
      iterations,
      parallelism,
      hashLength: length,
      outputType: "binary",
    });
    return out.slice().buffer;
  },
);

export const KEEPASS_PASSWORD = "correct horse battery staple";
const pv = (s: string) => ProtectedValue.fromString(s);
const at = (iso: string) => new Date(iso);

/** `argon2`: memory in MiB, iterations and lanes (kdbxweb's defaults are 1 MiB, 2, 1; KeePassXC's are 64 MiB and more). */
export type KdbxOptions = {
  version: 3 | 4;
  kdf?: "argon2id" | "argon2d" | "aes";
  keyFile?: Uint8Array;
  password?: string | null;
  extra?: number;
  argon2?: { memory: number; iterations: number; parallelism: number };
};

/**
 * The known items: "Mail" (every kind of field), "Bank" (KeePass 2's TimeOtp fields, an extra
 * URL_ address), "Wi-Fi" (notes only), an empty "Placeholder", and "Old forum" in the Recycle Bin.
 * `extra` adds that many plain logins (the bench's large database).
 */
export async function buildKdbx(opts: KdbxOptions): Promise<Uint8Array> {
  const password = opts.password === undefined ? KEEPASS_PASSWORD : opts.password;
  const creds = new KdbxCredentials(password === null ? null : pv(password), opts.keyFile ?? null);
  const db = Kdbx.create(creds, "My passwords");
  db.setVersion(opts.version);
  if (opts.version === 4)
    db.setKdf(
      opts.kdf === "aes"
        ? Consts.KdfId.Aes
        : opts.kdf === "argon2d"
          ? Consts.KdfId.Argon2d
          : Consts.KdfId.Argon2id,
    );
  const params = db.header.kdfParameters;
  if (opts.argon2 && params) {
    params.set("M", VarDictionary.ValueType.UInt64, Int64.from(opts.argon2.memory * 1024 * 1024));
    params.set("I", VarDictionary.ValueType.UInt64, Int64.from(opts.argon2.iterations));
    params.set("P", VarDictionary.ValueType.UInt32, opts.argon2.parallelism);
  }
  const root = db.getDefaultGroup();
  const personal = db.createGroup(root, "Personal");
  const email = db.createGroup(personal, "Email");

  const mail = db.createEntry(email);
  mail.fields.set("Title", "Mail");
  mail.fields.set("UserName", "alice@example.com");
  mail.fields.set("URL", "https://mail.example.com/login");
  mail.fields.set("KP2A_URL", "https://webmail.example.com");
  mail.fields.set("KP2A_URL_1", "https://imap.example.com");
  mail.fields.set("Notes", "Two lines\nof notes");
  mail.fields.set("otp", pv("otpauth://totp/Mail:alice?secret=JBSWY3DPEHPK3PXP&issuer=Mail"));
  mail.fields.set("Recovery code", pv("RC-1234-5678"));
  mail.fields.set("Account id", "A-42");
  mail.tags = ["work", "mail"];
  mail.times.expires = true;
  mail.times.expiryTime = at("2030-01-31T12:00:00Z");
  mail.fields.set("Password", pv("first-pw"));
  mail.times.lastModTime = at("2024-01-01T00:00:00Z");
  mail.pushHistory();
  mail.fields.set("Password", pv("second-pw"));
  mail.times.lastModTime = at("2025-01-01T00:00:00Z");
  mail.pushHistory();
  mail.fields.set("Password", pv("current-pw"));
  mail.times.lastModTime = at("2026-01-01T00:00:00Z");
  mail.binaries.set(
    "backup-codes.txt",
    await db.createBinary(Uint8Array.from(new TextEncoder().encode("codes")).buffer),
  );

  const bank = db.createEntry(root);
  bank.fields.set("Title", "Bank");
  bank.fields.set("UserName", "alice");
  bank.fields.set("Password", pv("bank-pw"));
  bank.fields.set("URL", "https://bank.example.org");
  bank.fields.set("URL_1", "https://app.bank.example.org");
  bank.fields.set("TimeOtp-Secret-Base32", pv("GEZDGNBVGY3TQOJQ"));
  bank.fields.set("TimeOtp-Period", "60");
  bank.fields.set("TimeOtp-Length", "8");
  bank.fields.set("TimeOtp-Algorithm", "HMAC-SHA-256");

  const wifi = db.createEntry(personal);
  wifi.fields.set("Title", "Wi-Fi");
  wifi.fields.set("Notes", "SSID home, WPA2");

  db.createEntry(root).fields.set("Title", "Placeholder");

  db.createRecycleBin();
  const bin = root.groups.find((g) => g.uuid.equals(db.meta.recycleBinUuid));
  if (!bin) throw new Error("no recycle bin");
  const old = db.createEntry(bin);
  old.fields.set("Title", "Old forum");
  old.fields.set("UserName", "al");
  old.fields.set("Password", pv("old-pw"));

  for (let i = 0; i < (opts.extra ?? 0); i++) {
    const e = db.createEntry(personal);
    e.fields.set("Title", `Site ${i}`);
    e.fields.set("UserName", `user${i}`);
    e.fields.set("Password", pv(`secret-pw-${i}`));
    e.fields.set("URL", `https://site${i}.example/login`);
    e.fields.set("Notes", `note ${i}`);
  }
  return new Uint8Array(await db.save());
}

/** A KeePass 2 XML export (KeePass: File > Export > KeePass XML (2.x)): values in plain text. */
export const KEEPASS_XML = `<?xml version="1.0" encoding="utf-8" standalone="yes"?>
<KeePassFile>
  <Meta>
    <Generator>KeePass</Generator>
    <DatabaseName>Exported</DatabaseName>
    <RecycleBinEnabled>True</RecycleBinEnabled>
    <RecycleBinUUID>cmVjeWNsZWJpbnV1aWQxMg==</RecycleBinUUID>
  </Meta>
  <Root>
    <Group>
      <UUID>cm9vdGdyb3VwdXVpZDEyMw==</UUID>
      <Name>Exported</Name>
      <Entry>
        <UUID>ZW50cnl1dWlkMDAwMDAwMQ==</UUID>
        <Tags>shop;home</Tags>
        <Times>
          <LastModificationTime>2026-02-01T10:00:00Z</LastModificationTime>
          <ExpiryTime>2027-06-30T00:00:00Z</ExpiryTime>
          <Expires>True</Expires>
        </Times>
        <String><Key>Title</Key><Value>Shop &amp; Co</Value></String>
        <String><Key>UserName</Key><Value>bob</Value></String>
        <String><Key>Password</Key><Value ProtectInMemory="True">s3cr&lt;t</Value></String>
        <String><Key>URL</Key><Value>https://shop.example.net</Value></String>
        <String><Key>Notes</Key><Value>Line one
Line two</Value></String>
        <String><Key>PIN</Key><Value ProtectInMemory="True">9876</Value></String>
        <String><Key>Customer no</Key><Value>C-77</Value></String>
        <String><Key>TOTP Seed</Key><Value ProtectInMemory="True">JBSWY3DPEHPK3PXP</Value></String>
        <String><Key>TOTP Settings</Key><Value>30;6</Value></String>
        <History>
          <Entry>
            <UUID>ZW50cnl1dWlkMDAwMDAwMQ==</UUID>
            <Times><LastModificationTime>2025-05-01T10:00:00Z</LastModificationTime></Times>
            <String><Key>Title</Key><Value>Shop &amp; Co</Value></String>
            <String><Key>Password</Key><Value ProtectInMemory="True">older</Value></String>
          </Entry>
        </History>
      </Entry>
      <Group>
        <UUID>c3ViZ3JvdXB1dWlkMDAwMQ==</UUID>
        <Name>Work</Name>
        <Entry>
          <UUID>ZW50cnl1dWlkMDAwMDAwMg==</UUID>
          <String><Key>Title</Key><Value>VPN</Value></String>
          <String><Key>UserName</Key><Value>bob.w</Value></String>
          <String><Key>Password</Key><Value ProtectInMemory="True">vpn-pw</Value></String>
          <String><Key>URL</Key><Value>https://vpn.corp.example</Value></String>
        </Entry>
      </Group>
      <Group>
        <UUID>cmVjeWNsZWJpbnV1aWQxMg==</UUID>
        <Name>Recycle Bin</Name>
        <Entry>
          <UUID>ZW50cnl1dWlkMDAwMDAwMw==</UUID>
          <String><Key>Title</Key><Value>Deleted</Value></String>
          <String><Key>Password</Key><Value ProtectInMemory="True">gone</Value></String>
        </Entry>
      </Group>
    </Group>
  </Root>
</KeePassFile>
`;
