import { describe, expect, it } from "vitest";
import { TestUser } from "../support/auth";
import { createParent, encryptedBody, upload } from "../support/attachments";

type Listing = { attachments: { id: string }[]; usage: { used: number; quota: number } };
const listing = async (user: TestUser, parentId: string) =>
  (await (
    await user.call("GET", `/api/vault/attachments?parent_id=${parentId}&parent_type=password`)
  ).json()) as Listing;

describe("attachments: the list carries the quota and its use", () => {
  it("used counts every attachment of the caller, across parents, and drops on delete", async () => {
    const user = await TestUser.create();
    const other = await TestUser.create();
    const a = await createParent(user);
    const b = await createParent(user);
    expect((await listing(user, a.id)).usage).toEqual({ used: 0, quota: 100 * 1024 * 1024 });
    const first = await upload(user, await encryptedBody(a, 1000));
    await upload(user, await encryptedBody(b, 2000));
    await upload(other, await encryptedBody(await createParent(other), 5000));
    // Each stored blob is IV (12) + ciphertext + tag (16).
    expect((await listing(user, a.id)).usage.used).toBe(1028 + 2028);
    expect((await user.call("DELETE", `/api/vault/attachments/${first.id}`)).status).toBe(200);
    const after = await listing(user, a.id);
    expect(after.attachments).toEqual([]);
    expect(after.usage.used).toBe(2028);
  });
});
