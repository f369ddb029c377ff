/** Tools shown in an entry's detail view in the vault section, one line each (/work/SHELL.md). */
import type { EntryToolDef } from "../shell/context";

export const entryTools: EntryToolDef[] = [
  { id: "totp", title: "One-time codes (TOTP)", loginOnly: true, load: () => import("./totp") },
  { id: "attachments", title: "Attachments", load: () => import("./attachments") },
  { id: "reset", title: "Password reset", loginOnly: true, load: () => import("./reset") },
  {
    id: "session-share",
    title: "Share session",
    loginOnly: true,
    load: () => import("./session-share"),
  },
  { id: "share-link", title: "Share by link", load: () => import("./share-link") },
];
