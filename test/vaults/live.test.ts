import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { liveSyncHub } from "../../durable-objects/live-sync-hub";
import type { TestUser } from "../support/auth";
import { TestUser as User } from "../support/auth";
import { Live } from "../support/live-sync";
import { addEntry, createVault, join } from "../support/vaults";

/** Waits until notices already on their way have arrived (a marker sent now arrives after them). */
async function settle(...pairs: [TestUser, Live][]) {
  for (const [user, live] of pairs) {
    const before = live.changes().length;
    await liveSyncHub(env.LIVE_SYNC, user.id).notify(Date.now() + 60_000);
    await live.until(() => live.changes().length > before);
  }
}

describe("shared vaults: live sync", () => {
  it("a change in a vault tells every member's devices; a removed member's hub is told nothing more", async () => {
    const owner = await User.create();
    const editor = await User.create();
    const vault = await createVault(owner);
    await join(owner, vault.id, editor, "editor");
    const e = await Live.open(editor);
    await settle([editor, e]);
    const before = e.topics().length;
    const entry = await addEntry(owner, vault.id);
    await e.until(() => e.topics().length > before);
    expect(e.topics().slice(before)).toContain("vaults");
    expect(JSON.stringify(e.messages)).not.toContain(entry.id);

    expect(
      (await owner.call("DELETE", `/api/vaults/${vault.id}/members/${editor.id}`)).status,
    ).toBe(200);
    await settle([editor, e]);
    const afterRemoval = e.topics().length;
    await addEntry(owner, vault.id);
    await settle([editor, e]);
    expect(e.topics().length).toBe(afterRemoval);
    e.ws.close(1000);
  });
});
