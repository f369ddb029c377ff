/** One session share, live: status and viewers (polled), the viewer link, pause/resume/extend/revoke. */
import { ApiError } from "../../../core/api";
import { button, copyText, describeError } from "../automation/ui";
import { el } from "../pages/common";
import {
  ENDED,
  type KnownShare,
  type SessionShares,
  type ShareAction,
  type ShareView,
} from "./shares";

const POLL_MS = 3_000;
const STATUS_TEXT: Record<string, string> = {
  login_in_progress: "Logging in…",
  awaiting_login: "Waiting for you to log in (open the live view)",
  active: "Active",
  paused: "Paused",
  revoked: "Revoked",
  expired: "Expired",
  failed: "Failed",
};

export function mountShareCard(
  root: HTMLElement,
  shares: SessionShares,
  share: KnownShare,
  toast: (m: string) => void,
): () => void {
  const status = el("span", { className: "badge" });
  const detail = el("span", { className: "muted" });
  const error = el("p", { className: "error", role: "alert" });
  const link = el("input", { readOnly: true, value: share.shareUrl, name: "viewer-link" });
  link.setAttribute("aria-label", `Viewer link for ${share.entryName}`);
  const extendBy = el(
    "select",
    { name: "extend-by" },
    ...[15, 30, 60].map((m) => el("option", { value: String(m), textContent: `${m} min` })),
  );
  extendBy.setAttribute("aria-label", "Extend by");
  let view: ShareView | null = null;
  const act = (a: ShareAction, done: string) =>
    void shares.act(share.id, a).then(
      (v) => {
        error.textContent = "";
        toast(done);
        render(v);
      },
      (e) => (error.textContent = describeError(e, "Changing the session")),
    );
  const pause = button("Pause", () => act({ action: "pause" }, "Session paused"));
  const resume = button("Resume", () => act({ action: "resume" }, "Session resumed"));
  const extend = button("Extend", () =>
    act({ action: "extend", minutes: Number(extendBy.value) }, "Session extended"),
  );
  const revoke = button("Revoke", () => {
    if (
      confirm(`Revoke the shared session of ${share.entryName}? Viewers are disconnected at once.`)
    )
      act({ action: "revoke" }, "Session revoked");
  });
  const preview = el("a", {
    href: `/s/preview/${encodeURIComponent(share.id)}`,
    target: "_blank",
    rel: "noopener",
    textContent: "Open live view",
  });
  const controls = el("div", { className: "row" }, pause, resume, extendBy, extend, revoke);
  const card = el(
    "div",
    { className: "card session-share", dataset: { share: share.id } },
    el("h3", { textContent: `Session of ${share.entryName}` }),
    el("p", {}, status, " ", detail),
    el("label", {}, "Viewer link", link),
    el(
      "div",
      { className: "row" },
      button("Copy link", () => void copyText(share.shareUrl, "Viewer link", toast), {
        aria: `Copy viewer link for ${share.entryName}`,
      }),
      preview,
    ),
    controls,
    error,
  );
  root.append(card);

  function render(v: ShareView) {
    view = v;
    card.dataset.status = v.status;
    status.textContent = STATUS_TEXT[v.status] ?? v.status;
    const ended = ENDED.has(v.status);
    // A failed share says why (the site refused the login, the day's browser time is spent).
    detail.textContent = ended
      ? `ended ${v.endedAt ? new Date(v.endedAt).toLocaleTimeString() : ""}${v.status === "failed" && v.failureReason ? `: ${v.failureReason}` : ""}`
      : `${v.currentViewers} of ${v.maxViewers} ${v.maxViewers === 1 ? "viewer" : "viewers"} · ${v.accessType === "view_only" ? "view only" : "full control"} · until ${new Date(v.expiresAt).toLocaleTimeString()} · watermark ${v.watermarkEnabled ? "on" : "off"}`;
    pause.hidden = v.status !== "active";
    resume.hidden = v.status !== "paused";
    controls.hidden = ended;
    preview.hidden = ended;
  }

  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  async function poll() {
    try {
      render(await shares.view(share.id));
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) {
        status.textContent = "No longer known to the server";
        return;
      }
    }
    if (!stopped && !(view && ENDED.has(view.status)))
      timer = setTimeout(() => void poll(), POLL_MS);
  }
  void poll();
  return () => {
    stopped = true;
    clearTimeout(timer);
    card.remove();
  };
}
