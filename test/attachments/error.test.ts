import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { dbFor } from "../../src/db/client";
import { AttachmentService } from "../../src/domains/attachments/service";
import { UploadBody } from "../../src/domains/attachments/schema";
import { expectErrorBody, TestUser } from "../support/auth";
import { createParent, encryptedBody, r2Keys, rowCount, upload } from "../support/attachments";

const meta = { ip: "198.51.100.1", userAgent: "test", device: null };
const MiB = 1024 * 1024;
/** Canonical base64 of exactly n zero bytes. */
const b64OfLength = (n: number) => "A".repeat(4 * Math.floor(n / 3)) + ["", "AA==", "AAA="][n % 3];

describe("attachments: validation and limits", () => {
  it("checks the base64, the IV prefix and the key and metadata shapes, storing nothing", async () => {
    const owner = await TestUser.create();
    const parent = await createParent(owner);
    const good = await encryptedBody(parent);
    const cases: [Record<string, unknown>, string][] = [
      [{ encrypted_content: "not base64!" }, "encrypted_content"],
      [{ encrypted_content: "QUJD" + "-_" }, "encrypted_content"],
      [{ encrypted_content: btoa("x".repeat(27)) }, "encrypted_content"],
      [{ encrypted_content: "" }, "encrypted_content"],
      [
        {
          wrapped_file_key: {
            iv: btoa("x".repeat(16)),
            ciphertext: good.wrapped_file_key.ciphertext,
          },
        },
        "wrapped_file_key.iv",
      ],
      [
        { wrapped_file_key: { iv: good.wrapped_file_key.iv, ciphertext: btoa("x".repeat(40)) } },
        "wrapped_file_key.ciphertext",
      ],
      [{ wrapped_file_key: "opaque" }, "wrapped_file_key"],
      [{ encrypted_filename: { iv: good.encrypted_filename.iv } }, "encrypted_filename.ciphertext"],
      [
        { encrypted_mime_type: { iv: "", ciphertext: good.encrypted_mime_type.ciphertext } },
        "encrypted_mime_type.iv",
      ],
      [{ parent_type: "folder" }, "parent_type"],
      [{ parent_id: "" }, "parent_id"],
    ];
    const callers = [owner];
    for (const [i, [over, field]] of cases.entries()) {
      // The upload limit (10 per hour) counts refused requests too, so the cases are spread over callers.
      if (i > 0 && i % 5 === 0) callers.push(await TestUser.create());
      const user = callers[callers.length - 1];
      const err = await expectErrorBody(
        await user.call("POST", "/api/vault/attachments", { body: { ...good, ...over } }),
        400,
        "VALIDATION_ERROR",
      );
      expect(
        err.details?.map((d) => d.field),
        field,
      ).toContain(field);
    }
    for (const user of callers) {
      expect(await r2Keys(user.id)).toEqual([]);
      expect(await rowCount(user.id)).toBe(0);
    }
  });

  it("takes a 25 MB file, refuses one byte more, refuses a payload over 35,000,000 characters and a body over 36 MB", async () => {
    expect(UploadBody.shape.encrypted_content.safeParse(b64OfLength(25 * MiB + 28)).success).toBe(
      true,
    );
    const user = await TestUser.create();
    const parent = await createParent(user);
    const good = await encryptedBody(parent);
    const oneOver = b64OfLength(25 * MiB + 29);
    const e1 = await expectErrorBody(
      await user.call("POST", "/api/vault/attachments", {
        body: { ...good, encrypted_content: oneOver },
      }),
      400,
      "VALIDATION_ERROR",
    );
    expect(e1.details?.[0]).toMatchObject({
      field: "encrypted_content",
      message: "file exceeds 25 MB",
    });
    const e2 = await expectErrorBody(
      await user.call("POST", "/api/vault/attachments", {
        body: { ...good, encrypted_content: "A".repeat(35_000_004) },
      }),
      400,
      "VALIDATION_ERROR",
    );
    expect(e2.details?.[0]?.field).toBe("encrypted_content");
    await expectErrorBody(
      await user.call("POST", "/api/vault/attachments", {
        body: { ...good, encrypted_content: "A".repeat(36 * MiB) },
      }),
      413,
      "PAYLOAD_TOO_LARGE",
    );
    expect(await r2Keys(user.id)).toEqual([]);
  });

  it("stores a full 25 MB file", async () => {
    const user = await TestUser.create();
    const parent = await createParent(user);
    const good = await encryptedBody(parent);
    const att = await upload(user, { ...good, encrypted_content: b64OfLength(25 * MiB + 28) });
    expect(att.size).toBe(25 * MiB + 28);
    const obj = await env.ATTACHMENTS.head(`attachments/${user.id}/${att.id}`);
    expect(obj?.size).toBe(att.size);
  });

  it("refuses an upload over the 100 MB quota with 422 and stores nothing", async () => {
    const user = await TestUser.create();
    const parent = await createParent(user);
    await env.DB.prepare(
      "INSERT INTO attachments (id, user_id, parent_type, parent_id, size, r2_key, wrapped_file_key, encrypted_filename, encrypted_mime_type, created_at) VALUES (?, ?, 'password', ?, ?, 'attachments/none', '{}', '{}', '{}', ?)",
    )
      .bind(crypto.randomUUID(), user.id, parent.id, 100 * MiB - 2000, new Date().toISOString())
      .run();
    const err = await expectErrorBody(
      await user.call("POST", "/api/vault/attachments", {
        body: await encryptedBody(parent, 2000),
      }),
      422,
      "UNPROCESSABLE",
    );
    expect(err).toMatchObject({ quota_bytes: 100 * MiB, used_bytes: 100 * MiB - 2000 });
    expect(await r2Keys(user.id)).toEqual([]);
    expect(
      (
        await user.call("POST", "/api/vault/attachments", {
          body: await encryptedBody(parent, 1900),
        })
      ).status,
    ).toBe(201);
  });

  it("the quota check inside the metadata write refuses what the early check let through, and removes the blob", async () => {
    const user = await TestUser.create();
    const parent = await createParent(user);
    const svc = new AttachmentService(dbFor(env, user.id), env.ATTACHMENTS, 3000, {
      beforeMetadataWrite: async () => {
        await env.DB.prepare(
          "INSERT INTO attachments (id, user_id, parent_type, parent_id, size, r2_key, wrapped_file_key, encrypted_filename, encrypted_mime_type, created_at) VALUES (?, ?, 'password', ?, 2000, 'attachments/racer', '{}', '{}', '{}', ?)",
        )
          .bind(crypto.randomUUID(), user.id, parent.id, new Date().toISOString())
          .run();
      },
    });
    const body = UploadBody.parse(await encryptedBody(parent, 1500));
    await expect(svc.upload(user.id, body, meta)).rejects.toMatchObject({ code: "UNPROCESSABLE" });
    expect(await r2Keys(user.id)).toEqual([]);
    expect(await rowCount(user.id)).toBe(1);
  });

  it("a parent that does not exist, or is in another collection, is 404", async () => {
    const user = await TestUser.create();
    const password = await createParent(user);
    const body = await encryptedBody(password);
    await expectErrorBody(
      await user.call("POST", "/api/vault/attachments", {
        body: { ...body, parent_id: "missing" },
      }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await user.call("POST", "/api/vault/attachments", { body: { ...body, parent_type: "note" } }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await user.call("GET", `/api/vault/attachments?parent_id=${password.id}&parent_type=item`),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await user.call("GET", "/api/vault/attachments?parent_id=x"),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(await user.call("GET", "/api/vault/attachments/nope"), 404, "NOT_FOUND");
    await expectErrorBody(
      await user.call("DELETE", "/api/vault/attachments/nope"),
      404,
      "NOT_FOUND",
    );
    expect(await r2Keys(user.id)).toEqual([]);
  });

  it("limits uploads to 10 per hour and lists to 30 per minute", async () => {
    const user = await TestUser.create();
    const parent = await createParent(user);
    const body = await encryptedBody(parent, 100);
    for (let i = 0; i < 10; i++)
      expect((await user.call("POST", "/api/vault/attachments", { body })).status).toBe(201);
    const limited = await user.call("POST", "/api/vault/attachments", { body });
    await expectErrorBody(limited, 429, "RATE_LIMITED");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(60);
    expect(await rowCount(user.id)).toBe(10);
    for (let i = 0; i < 30; i++)
      expect(
        (
          await user.call(
            "GET",
            `/api/vault/attachments?parent_id=${parent.id}&parent_type=password`,
          )
        ).status,
      ).toBe(200);
    await expectErrorBody(
      await user.call("GET", `/api/vault/attachments?parent_id=${parent.id}&parent_type=password`),
      429,
      "RATE_LIMITED",
    );
  });
});

describe("attachments: no orphans when a step fails", () => {
  it("removes the stored blob when the metadata write fails", async () => {
    const user = await TestUser.create();
    const parent = await createParent(user);
    let blobsWhenFailing: string[] = [];
    const svc = new AttachmentService(dbFor(env, user.id), env.ATTACHMENTS, 100 * MiB, {
      beforeMetadataWrite: async () => {
        blobsWhenFailing = await r2Keys(user.id);
        throw new Error("D1 unavailable");
      },
    });
    await expect(
      svc.upload(user.id, UploadBody.parse(await encryptedBody(parent)), meta),
    ).rejects.toThrow("D1 unavailable");
    expect(blobsWhenFailing).toHaveLength(1);
    expect(await r2Keys(user.id)).toEqual([]);
    expect(await rowCount(user.id)).toBe(0);
    const audits = await env.DB.prepare("SELECT count(*) AS n FROM audit_events WHERE user_id = ?")
      .bind(user.id)
      .first<{ n: number }>();
    expect(audits?.n).toBe(0);
  });

  it("a delete failing before the blob is removed hides the attachment; the retried DELETE finishes it", async () => {
    const user = await TestUser.create();
    const parent = await createParent(user);
    const att = await upload(user, await encryptedBody(parent));
    const failing = new AttachmentService(dbFor(env, user.id), env.ATTACHMENTS, 100 * MiB, {
      beforeBlobDelete: () => {
        throw new Error("R2 unavailable");
      },
    });
    await expect(failing.remove(user.id, att.id, meta)).rejects.toThrow("R2 unavailable");
    expect(await r2Keys(user.id)).toHaveLength(1);
    await expectErrorBody(
      await user.call("GET", `/api/vault/attachments/${att.id}`),
      404,
      "NOT_FOUND",
    );
    const listed = (await (
      await user.call("GET", `/api/vault/attachments?parent_id=${parent.id}&parent_type=password`)
    ).json()) as { attachments: unknown[] };
    expect(listed.attachments).toEqual([]);
    expect(await r2Keys(user.id)).toEqual([]);
    expect(await rowCount(user.id)).toBe(0);
  });

  it("a delete failing after the blob is removed leaves no visible row; the retry completes with one audit event", async () => {
    const user = await TestUser.create();
    const parent = await createParent(user);
    const att = await upload(user, await encryptedBody(parent));
    const failing = new AttachmentService(dbFor(env, user.id), env.ATTACHMENTS, 100 * MiB, {
      beforeRowDelete: () => {
        throw new Error("D1 unavailable");
      },
    });
    await expect(failing.remove(user.id, att.id, meta)).rejects.toThrow("D1 unavailable");
    expect(await r2Keys(user.id)).toEqual([]);
    expect(await rowCount(user.id)).toBe(1);
    await expectErrorBody(
      await user.call("GET", `/api/vault/attachments/${att.id}`),
      404,
      "NOT_FOUND",
    );
    expect((await user.call("DELETE", `/api/vault/attachments/${att.id}`)).status).toBe(200);
    expect(await rowCount(user.id)).toBe(0);
    const { results } = await env.DB.prepare(
      "SELECT action FROM audit_events WHERE user_id = ? AND action = 'attachment.delete'",
    )
      .bind(user.id)
      .all();
    expect(results).toHaveLength(1);
  });
});
