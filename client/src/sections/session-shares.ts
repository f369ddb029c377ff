/** Session shares (/session-shares): every session shared from this device, live, with its controls. */
import { button, sectionFrame } from "../automation/ui";
import { el } from "../pages/common";
import { mountShareCard } from "../session-shares/card";
import { SessionShares } from "../session-shares/shares";
import type { AppContext } from "../shell/context";

export async function mount(root: HTMLElement, app: AppContext): Promise<() => void> {
  const shares = new SessionShares(app.db, app.api, app.session.userId);
  const list = el("div");
  const empty = el(
    "p",
    { className: "muted" },
    "No sessions shared from this device. Share one from an entry in the ",
    button("Vault", () => app.navigate("/vault")),
    ".",
  );
  sectionFrame(
    root,
    "Session shares",
    "Share a logged-in session of a site without giving away its password. Viewers open the link after signing in.",
    empty,
    list,
  );
  const known = (await shares.known()).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  empty.hidden = known.length > 0;
  const unmounts = known.map((s) => mountShareCard(list, shares, s, app.toast));
  return () => unmounts.forEach((u) => u());
}
