import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { buildUploadBody, decryptAttachment, fromBase64 } from "../../core/crypto/attachments";
import { TestUser } from "../support/auth";
import {
  createParent,
  encryptedBody,
  r2Keys,
  randomBytes,
  upload,
  vaultKey,
  type Listed,
} from "../support/attachments";

type Downloaded = Listed & {
  encrypted_content: string;
  wrapped_file_key: { iv: string; ciphertext: string };
};

describe("attachments: happy paths", () => {
  it("round-trips a file through the real endpoints with the client module", async () => {
    const user = await TestUser.create();
    const parent = await createParent(user);
    const key = await vaultKey();
    const content = randomBytes(300_001);
    const body = await buildUploadBody(key, parent, {
      content,
      filename: "Passport scan – 2024.png",
      mimeType: "image/png",
    });

    const created = await user.call("POST", "/api/vault/attachments", { body });
    expect(created.status).toBe(201);
    const { attachment } = (await created.json()) as { attachment: Listed };
    expect(Object.keys(attachment).sort()).toEqual([
      "created_at",
      "encrypted_filename",
      "encrypted_mime_type",
      "id",
      "parent_id",
      "parent_type",
      "size",
      "wrapped_file_key",
    ]);
    expect(attachment).toMatchObject({
      parent_id: parent.id,
      parent_type: "password",
      size: 12 + content.length + 16,
    });
    expect(attachment.encrypted_filename).toEqual(body.encrypted_filename);

    const listed = (await (
      await user.call("GET", `/api/vault/attachments?parent_id=${parent.id}&parent_type=password`)
    ).json()) as { attachments: Listed[] };
    expect(listed.attachments).toEqual([attachment]);

    const got = await user.call("GET", `/api/vault/attachments/${attachment.id}`);
    expect(got.status).toBe(200);
    expect(got.headers.get("content-type")).toContain("application/json");
    const { attachment: full } = (await got.json()) as { attachment: Downloaded };
    expect(full).toEqual({
      ...attachment,
      encrypted_content: body.encrypted_content,
      wrapped_file_key: body.wrapped_file_key,
    });
    const plain = await decryptAttachment(key, full);
    expect(plain.filename).toBe("Passport scan – 2024.png");
    expect(plain.mimeType).toBe("image/png");
    expect(plain.content).toEqual(content);
  });

  it("uses a fresh key and four distinct IVs per file, and the content starts with its IV", async () => {
    const user = await TestUser.create();
    const parent = await createParent(user);
    const key = await vaultKey();
    const file = { content: new Uint8Array(64), filename: "a.txt", mimeType: "text/plain" };
    const a = await buildUploadBody(key, parent, file);
    const b = await buildUploadBody(key, parent, file);
    const contentIv = btoa(String.fromCharCode(...fromBase64(a.encrypted_content).subarray(0, 12)));
    const ivs = new Set([
      contentIv,
      a.wrapped_file_key.iv,
      a.encrypted_filename.iv,
      a.encrypted_mime_type.iv,
    ]);
    expect(ivs.size).toBe(4);
    expect(a.wrapped_file_key.ciphertext).not.toBe(b.wrapped_file_key.ciphertext);
    expect(a.encrypted_content).not.toBe(b.encrypted_content);
    expect(fromBase64(a.wrapped_file_key.ciphertext).length).toBe(48);
    const other = await vaultKey();
    await expect(decryptAttachment(other, a)).rejects.toThrow();
  });

  it("accepts note and item parents, each checked in its own collection", async () => {
    const user = await TestUser.create();
    for (const type of ["note", "item"] as const) {
      const parent = await createParent(user, type);
      const att = await upload(user, await encryptedBody(parent));
      expect(att.parent_type).toBe(type);
      const res = await user.call(
        "GET",
        `/api/vault/attachments?parent_id=${parent.id}&parent_type=${type}`,
      );
      expect(
        ((await res.json()) as { attachments: Listed[] }).attachments.map((a) => a.id),
      ).toEqual([att.id]);
    }
  });

  it("lists only the parent's attachments, newest first", async () => {
    const user = await TestUser.create();
    const p1 = await createParent(user);
    const p2 = await createParent(user);
    const a = await upload(user, await encryptedBody(p1));
    const b = await upload(user, await encryptedBody(p1));
    await upload(user, await encryptedBody(p2));
    const listed = (await (
      await user.call("GET", `/api/vault/attachments?parent_id=${p1.id}&parent_type=password`)
    ).json()) as { attachments: Listed[] };
    expect(listed.attachments.map((x) => x.id)).toEqual([b.id, a.id]);
  });

  it("stores the decoded blob in R2 and deletes blob and metadata together", async () => {
    const user = await TestUser.create();
    const parent = await createParent(user);
    const body = await encryptedBody(parent, 5000);
    const att = await upload(user, body);
    const keys = await r2Keys(user.id);
    expect(keys).toEqual([`attachments/${user.id}/${att.id}`]);
    const obj = await env.ATTACHMENTS.get(keys[0]);
    expect(new Uint8Array(await obj!.arrayBuffer())).toEqual(fromBase64(body.encrypted_content));

    const del = await user.call("DELETE", `/api/vault/attachments/${att.id}`);
    expect(del.status).toBe(200);
    expect(await del.json()).toEqual({ success: true });
    expect(await r2Keys(user.id)).toEqual([]);
    expect((await user.call("GET", `/api/vault/attachments/${att.id}`)).status).toBe(404);
  });

  it("audits uploads and deletes with the parent and the size", async () => {
    const user = await TestUser.create();
    const parent = await createParent(user);
    const att = await upload(user, await encryptedBody(parent, 2000));
    await user.call("DELETE", `/api/vault/attachments/${att.id}`, {
      headers: { "cf-connecting-ip": "203.0.113.9" },
    });
    const { results } = await env.DB.prepare(
      "SELECT action, target_type, target_id, details, ip FROM audit_events WHERE user_id = ? ORDER BY created_at",
    )
      .bind(user.id)
      .all();
    const events = results.filter((r) => String(r.action).startsWith("attachment."));
    expect(events.map((e) => e.action)).toEqual(["attachment.upload", "attachment.delete"]);
    for (const e of events) {
      expect(e).toMatchObject({ target_type: "attachment", target_id: att.id });
      expect(JSON.parse(String(e.details))).toEqual({
        parent_type: "password",
        parent_id: parent.id,
        size: 2028,
      });
    }
    expect(events[1].ip).toBe("203.0.113.9");
  });
});
