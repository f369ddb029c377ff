/**
 * The app's sections, one line each (the shell contract: /work/SHELL.md). Order is the nav's order;
 * `group` names the navigation group a section is listed under (none: the top of the list).
 */
import type { SectionDef } from "./context";

export const sections: SectionDef[] = [
  { id: "vault", title: "Vault", path: "/vault", load: () => import("../sections/vault/page") },
  {
    id: "health",
    title: "Vault health",
    path: "/health",
    load: () => import("../sections/health"),
  },
  {
    id: "notifications",
    title: "Notifications",
    path: "/notifications",
    load: () => import("../sections/notifications"),
  },
  {
    id: "vaults",
    title: "Shared vaults",
    path: "/vaults",
    group: "Share",
    load: () => import("../sections/vaults"),
  },
  {
    id: "sharing",
    title: "Sharing",
    path: "/sharing",
    group: "Share",
    load: () => import("../sections/sharing"),
  },
  {
    id: "links",
    title: "Secure links",
    path: "/links",
    group: "Share",
    load: () => import("../sections/links"),
  },
  {
    id: "session-shares",
    title: "Session shares",
    path: "/session-shares",
    group: "Share",
    load: () => import("../sections/session-shares"),
  },
  {
    id: "identities",
    title: "Identities",
    path: "/identities",
    group: "Share",
    load: () => import("../sections/identities"),
  },
  {
    id: "resets",
    title: "Password resets",
    path: "/resets",
    group: "Automation",
    load: () => import("../sections/resets"),
  },
  {
    id: "mailboxes",
    title: "Mailboxes",
    path: "/mailboxes",
    group: "Automation",
    load: () => import("../sections/mailboxes"),
  },
  {
    id: "discovery",
    title: "Account discovery",
    path: "/discovery",
    group: "Automation",
    load: () => import("../sections/discovery"),
  },
  {
    id: "emergency",
    title: "Emergency access",
    path: "/emergency",
    group: "Recovery",
    load: () => import("../sections/emergency"),
  },
  {
    id: "dead-man-switch",
    title: "Dead man's switch",
    path: "/dead-man-switch",
    group: "Recovery",
    load: () => import("../sections/dead-man-switch"),
  },
  {
    id: "settings",
    title: "Account",
    path: "/settings",
    group: "Settings",
    load: () => import("../sections/settings"),
  },
  {
    id: "security",
    title: "Security",
    path: "/security",
    group: "Settings",
    load: () => import("../sections/security"),
  },
  {
    id: "devices",
    title: "Devices",
    path: "/devices",
    group: "Settings",
    load: () => import("../sections/devices"),
  },
  {
    id: "tokens",
    title: "Machine tokens",
    path: "/tokens",
    group: "Settings",
    load: () => import("../sections/tokens"),
  },
  {
    id: "import-export",
    title: "Import & export",
    path: "/import-export",
    group: "Settings",
    load: () => import("../sections/import-export"),
  },
];

/** Pages of the app outside the shell, listed in the navigation under a group (a full page load). */
export const pageLinks: { title: string; href: string; group: string }[] = [
  { title: "Contacts' keys", href: "/keys", group: "Settings" },
];
