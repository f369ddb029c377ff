/**
 * Password resets (/resets): a chat box ("reset my GitHub password") and the resets this device
 * follows. Resets of a particular entry also start from the entry's "Reset password" tool.
 */
import { ApiError } from "../../../core/api";
import { el } from "../pages/common";
import { describeStartError } from "../entry-tools/reset";
import { resetManager } from "../reset/manager";
import { mountResetView } from "../reset/view";
import type { AppContext, Unmount } from "../shell/context";

export function mount(root: HTMLElement, app: AppContext): Unmount {
  const manager = resetManager(app);
  const message = el("textarea", {
    name: "message",
    rows: 2,
    placeholder: "reset my GitHub password",
    maxLength: 2000,
  });
  const send = el("button", { type: "submit", textContent: "Send" });
  const error = el("p", { className: "error", role: "alert" });
  const transcript = el("div", { className: "chat-log", role: "log" });
  transcript.setAttribute("aria-label", "Reset assistant");
  const chat = el(
    "form",
    { className: "card chat" },
    el("label", {}, "Ask the reset assistant", message),
    el("div", { className: "row" }, send),
    error,
    transcript,
  );
  const list = el("div");
  const empty = el("p", {
    className: "muted",
    textContent: "No resets in progress on this device.",
  });
  root.append(
    el(
      "div",
      { className: "section" },
      el("h1", { textContent: "Password resets", tabIndex: -1 }),
      el("p", {
        className: "hint",
        textContent:
          "The vault resets a password by driving the site in a browser and reading the reset email from a connected mailbox. The new password is sealed to this device and saved into the entry.",
      }),
      chat,
      el("h2", { textContent: "On this device" }),
      empty,
      list,
    ),
  );

  const views = new Map<string, () => void>();
  function renderList() {
    for (const r of manager.live.values())
      if (!views.has(r.task.taskId)) views.set(r.task.taskId, mountResetView(list, manager, r));
    empty.hidden = views.size > 0;
  }
  const onChange = () => renderList();
  manager.addEventListener("change", onChange);
  renderList();

  chat.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = message.value.trim();
    error.textContent = "";
    if (!text) {
      error.textContent = "Say which password to reset, e.g. “reset my GitHub password”.";
      return;
    }
    send.disabled = true;
    transcript.replaceChildren(el("p", { className: "chat-you", textContent: text }));
    let section: HTMLElement | null = null;
    void manager.resets
      .chat(
        text,
        (kind, line) => {
          if (!section || section.dataset.kind !== kind)
            transcript.append(
              (section = el("div", { className: "chat-section", dataset: { kind } })),
            );
          section.append(
            el("p", { textContent: line.replace(/^#+\s*|^-\s*|\*\*/g, "").replace(/`/g, "") }),
          );
        },
        (task) => {
          manager.watch(task);
          renderList();
        },
      )
      .then(
        () => {
          message.value = "";
        },
        (e) => {
          error.textContent =
            e instanceof ApiError && e.status === 400 ? e.message : describeStartError(e);
        },
      )
      .finally(() => (send.disabled = false));
  });

  return () => {
    manager.removeEventListener("change", onChange);
    for (const u of views.values()) u();
  };
}
