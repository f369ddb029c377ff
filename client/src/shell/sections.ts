/** The app's sections, one line each (the shell contract: /work/SHELL.md). Order is the nav's order. */
import type { SectionDef } from "./context";

export const sections: SectionDef[] = [
  { id: "vault", title: "Vault", path: "/vault", load: () => import("../sections/vault") },
  { id: "sharing", title: "Sharing", path: "/sharing", load: () => import("../sections/sharing") },
  { id: "emergency", title: "Emergency access", path: "/emergency", load: () => import("../sections/emergency") },
  { id: "dead-man-switch", title: "Dead man's switch", path: "/dead-man-switch", load: () => import("../sections/dead-man-switch") },
  { id: "notifications", title: "Notifications", path: "/notifications", load: () => import("../sections/notifications") },
  { id: "devices", title: "Devices", path: "/devices", load: () => import("../sections/devices") },
  { id: "security", title: "Security", path: "/security", load: () => import("../sections/security") },
  { id: "import-export", title: "Import & export", path: "/import-export", load: () => import("../sections/import-export") },
  { id: "resets", title: "Password resets", path: "/resets", load: () => import("../sections/resets") },
  { id: "mailboxes", title: "Mailboxes", path: "/mailboxes", load: () => import("../sections/mailboxes") },
  { id: "discovery", title: "Account discovery", path: "/discovery", load: () => import("../sections/discovery") },
  { id: "identities", title: "Identities", path: "/identities", load: () => import("../sections/identities") },
  { id: "session-shares", title: "Session shares", path: "/session-shares", load: () => import("../sections/session-shares") },
];
