import { sseEvents, sseFrame, TERMINAL_TASK_STATUSES } from "../../kernel/sse";
import type { ResolvedService } from "../registry";

export type SectionKind = "header" | "progress" | "gmail" | "captcha" | "password" | "result";
export type ChatContext = {
  taskId: string;
  svc: ResolvedService;
  serviceUrl: string;
  email: string;
  passwordId?: string;
  waitSeconds: number;
};
type Status = {
  status: string;
  step?: string;
  error?: string;
  newPassword?: string;
  mailAuthentication?: string;
};

const enc = new TextEncoder();

/** Inline code that cannot be broken out of: backticks and line breaks are dropped. */
const code = (s: string) => `\`${s.replace(/[`\r\n]/g, "")}\``;
const plain = (s: string) => s.replace(/[\r\n]+/g, " ").replace(/([\\*_[\]<>#|`])/g, "\\$1");

/**
 * Wire format (docs/decisions/automation.md, "Automation: service registry and password reset"): a section starts with `event: section` whose data is its
 * kind; each markdown line that follows is its own default (`message`) event with one `data:` line.
 */
export const sectionFrame = (kind: SectionKind) => sseFrame("section", kind);
export const lineFrame = (line: string) => sseFrame(null, line);

const STEP_LINES: Record<string, (c: ChatContext) => string> = {
  navigate: (c) => `- Opening the password reset page of ${plain(c.svc.name)}…`,
  enter_email: (c) => `- Asking for a reset for ${code(c.email)}…`,
  follow_link: () => "- Reset message received; continuing on the site…",
  set_password: (c) => `- Choosing a new password that meets ${plain(c.svc.name)}'s rules…`,
};

/** Turns the task's status events into markdown sections; repeated statuses add nothing. */
export class ChatRenderer {
  private current: SectionKind | null = null;
  private seen = new Set<string>();
  constructor(private readonly c: ChatContext) {}

  private section(kind: SectionKind, lines: string[]): string {
    const head = this.current === kind ? "" : sectionFrame(kind);
    this.current = kind;
    return head + lines.map(lineFrame).join("");
  }

  header(): string {
    const c = this.c;
    return this.section("header", [
      `### Password reset: ${plain(c.svc.name)}`,
      `- Service: ${code(c.svc.domain)}`,
      `- Account: ${code(c.email)}`,
      `- Task: ${code(c.taskId)}`,
    ]);
  }

  status(s: Status): string {
    const note =
      s.mailAuthentication === "none" && !this.seen.has("mail-auth")
        ? (this.seen.add("mail-auth"),
          this.section("gmail", [
            "- The code came from a mail your mailbox gave no authentication verdict for (no DKIM or DMARC result); it was used unverified.",
          ]))
        : "";
    return note + this.statusLines(s);
  }

  private statusLines(s: Status): string {
    const key = `${s.status}/${s.step ?? ""}`;
    if (this.seen.has(key)) return "";
    this.seen.add(key);
    const c = this.c;
    switch (s.status) {
      case "pending":
        return this.section("progress", ["- Queued; the automated browser starts in a moment."]);
      case "running": {
        const line = s.step ? STEP_LINES[s.step]?.(c) : undefined;
        return line ? this.section("progress", [line]) : "";
      }
      case "waiting_for_email":
        return this.section("gmail", [
          `- Watching your mailbox for the reset email from ${plain(c.svc.name)} (up to ${c.waitSeconds} s).`,
          "- It is read only during this reset; the message is marked as read once used.",
        ]);
      case "waiting_for_otp":
        return this.section("gmail", [
          `- ${plain(c.svc.name)} asks for a one-time code. Watching your mailbox for it.`,
          `- If the code reached you some other way, send it: ${code(`POST /api/tasks/${c.taskId}/otp`)}.`,
        ]);
      case "completed":
        return this.completed();
      case "failed":
        return this.failed(s.error ?? "the automation stopped unexpectedly");
      case "cancelled":
        return this.section("result", ["**Cancelled.** The reset was stopped."]);
      default:
        return "";
    }
  }

  private completed(): string {
    const c = this.c;
    const save = c.passwordId
      ? `- This device opens it and saves it to your vault entry ${code(c.passwordId)}.`
      : "- This device opens it and saves it to your vault.";
    return (
      this.section("password", [
        "**New password set.**",
        "- It was generated to meet the site's rules and sealed to this device's key; the server kept no readable copy.",
        `- The sealed password is in the task stream: ${code(`GET /api/tasks/${c.taskId}/stream`)} (field newPassword).`,
        save,
      ]) + this.section("result", [`**Completed.** Your ${plain(c.svc.name)} password was reset.`])
    );
  }

  private failed(reason: string): string {
    const c = this.c;
    const captcha =
      reason === "captcha"
        ? this.section("captcha", [
            `${plain(c.svc.name)} shows a CAPTCHA, which the automation does not solve.`,
            `- Reset the password yourself at ${code(c.serviceUrl)}; the vault entry can be updated afterwards.`,
          ])
        : "";
    return captcha + this.section("result", [`**Failed:** ${plain(reason)}.`]);
  }

  /** When the progress feed stops without an end state, the task itself goes on. */
  interrupted(): string {
    return this.section("result", [
      `**Progress unavailable.** The reset continues; follow ${code(`GET /api/tasks/${this.c.taskId}/stream`)}.`,
    ]);
  }
}

async function* statusEvents(upstream: ReadableStream<Uint8Array>): AsyncGenerator<Status> {
  for await (const e of sseEvents(upstream)) {
    if (e.event !== "status") continue;
    try {
      yield JSON.parse(e.data || "{}") as Status;
    } catch {
      continue;
    }
  }
}

/** The chat body: the header, then the task's progress relayed until it ends. */
export function chatStream(
  ctx: ChatContext,
  upstream: ReadableStream<Uint8Array>,
): ReadableStream<Uint8Array> {
  const r = new ChatRenderer(ctx);
  async function* frames(): AsyncGenerator<string> {
    yield r.header();
    for await (const s of statusEvents(upstream)) {
      const out = r.status(s);
      if (out) yield out;
      if (TERMINAL_TASK_STATUSES.has(s.status)) return;
    }
    yield r.interrupted();
  }
  const it = frames();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await it.next();
      if (done) controller.close();
      else controller.enqueue(enc.encode(value));
    },
    async cancel() {
      await it.return(undefined);
    },
  });
}
