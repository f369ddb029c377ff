/**
 * Mailboxes (/mailboxes): connect a Gmail-shaped (mailx) or Graph-shaped (maily) mailbox through
 * the provider's OAuth consent, or any mailbox over IMAP; see each one's status; disconnect. The
 * OAuth callback lands on /dashboard?integration=… (DECISIONS D8), which the shell opens here, and
 * a disconnected mailbox's notification links here too. An IMAP mailbox stays "waiting for its
 * check message" until the vault has read back, through it, a message it mailed to the address.
 * Only the providers this deployment has set up are offered; the others are named with the reason
 * (the operator has to set them up), so a person looking for one learns why it is missing.
 */
import { AUTOMATION_ENDPOINTS as EP } from "../automation/endpoints";
import { button, describeError, labelled, sectionFrame } from "../automation/ui";
import { el } from "../pages/common";
import { integrations, mailboxProviders, type Integration } from "../reset/mailboxes";
import type { AppContext } from "../shell/context";

export const PROVIDER_NAMES: Record<Integration["provider"], string> = {
  mailx: "Mailx (Gmail-compatible)",
  maily: "Maily (Microsoft Graph-compatible)",
  imap: "IMAP",
  codehost: "Codehost",
  idp: "Identity provider",
};

type OAuthMailbox = "mailx" | "maily";
const CONNECT_LABELS: Record<OAuthMailbox, string> = {
  mailx: "Connect Mailx (Gmail-compatible)",
  maily: "Connect Maily (Graph-compatible)",
};

const REASONS: Record<string, string> = {
  access_denied: "you declined access at the provider",
  invalid_state: "the sign-in link expired or was already used; start again",
  missing_code: "the provider did not complete the sign-in",
  provider_error: "the provider reported an error",
};

export function mount(root: HTMLElement, app: AppContext): void {
  const { api } = app;
  const notice = el("p", { role: "status", className: "notice" });
  const error = el("p", { className: "error", role: "alert" });
  const table = el("tbody");
  const list = el(
    "table",
    { className: "mailboxes" },
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        ...["Provider", "Address", "Status", "Connected", ""].map((h) =>
          el("th", { textContent: h }),
        ),
      ),
    ),
    table,
  );
  const empty = el("p", { className: "muted", textContent: "No mailbox connected yet." });

  /** OAuth mailboxes this deployment can connect; filled from the server before the list renders. */
  const configured = new Set<string>();
  const connectRow = el("div", { className: "row" });
  const unavailable = el("p", { className: "hint", hidden: true });
  const connectOAuth = (provider: OAuthMailbox) =>
    void api.request(EP.oauthAuth, { params: { provider } }).then(
      ({ authUrl }) => location.assign(authUrl),
      (e) => (error.textContent = describeError(e, "Connecting")),
    );

  const host = el("input", {
    name: "host",
    required: true,
    maxLength: 253,
    placeholder: "imap.example.com",
  });
  const port = el("input", {
    name: "port",
    type: "number",
    min: "1",
    max: "65535",
    value: "993",
    required: true,
  });
  const tls = el("input", { name: "tls", type: "checkbox", checked: true });
  const username = el("input", {
    name: "username",
    required: true,
    maxLength: 320,
    autocomplete: "username",
  });
  const password = el("input", {
    name: "password",
    type: "password",
    required: true,
    maxLength: 1024,
    autocomplete: "off",
  });
  const imapError = el("p", { className: "error", role: "alert" });
  const imapForm = el(
    "form",
    { className: "card imap-form", noValidate: true },
    el("h2", { textContent: "Connect over IMAP" }),
    labelled("IMAP host", host),
    labelled("Port", port),
    el("label", { className: "inline" }, tls, " Use TLS"),
    labelled("Username", username),
    labelled(
      "App password",
      password,
      "An app password from your mail provider, not your account password.",
    ),
    el(
      "div",
      { className: "row" },
      el("button", { type: "submit", textContent: "Connect IMAP mailbox" }),
    ),
    imapError,
  );

  sectionFrame(
    root,
    "Mailboxes",
    "Connected mailboxes let the vault find your accounts (discovery) and read password reset emails. Tokens and passwords are stored sealed on the server.",
    notice,
    error,
    list,
    empty,
    el(
      "div",
      { className: "card connect-providers" },
      el("h2", { textContent: "Connect with your provider" }),
      connectRow,
      unavailable,
    ),
    imapForm,
  );

  const q = new URLSearchParams(location.search);
  const from = q.get("integration") as Integration["provider"] | null;
  if (from) {
    const name = PROVIDER_NAMES[from] ?? from;
    if (q.get("status") === "connected") notice.textContent = `${name} connected.`;
    else
      error.textContent = `${name} was not connected: ${REASONS[q.get("reason") ?? ""] ?? q.get("reason") ?? "unknown reason"}.`;
    history.replaceState(null, "", "/mailboxes");
  }

  /** Offers the providers the server says are set up, and names the rest with the reason. */
  async function offerProviders() {
    try {
      const providers = (await mailboxProviders(api)).filter(
        (p): p is { provider: OAuthMailbox; configured: boolean } => p.provider !== "imap",
      );
      for (const p of providers) if (p.configured) configured.add(p.provider);
      connectRow.replaceChildren(
        ...providers
          .filter((p) => p.configured)
          .map((p) =>
            button(CONNECT_LABELS[p.provider], () => connectOAuth(p.provider), {
              secondary: false,
            }),
          ),
      );
      connectRow.hidden = configured.size === 0;
      const missing = providers.filter((p) => !p.configured).map((p) => PROVIDER_NAMES[p.provider]);
      unavailable.hidden = missing.length === 0;
      unavailable.textContent = `${configured.size ? "Other providers need" : "Connecting through a provider needs"} setup by the operator of this vault: ${missing.join(", ")}. Until then, connect ${missing.length === 1 ? "that mailbox" : "those mailboxes"} over IMAP below.`;
    } catch (e) {
      connectRow.hidden = true;
      error.textContent = describeError(e, "Listing the providers");
    }
  }

  async function render() {
    try {
      const rows = await integrations(api);
      table.replaceChildren(
        ...rows.map((i) => {
          const disconnected = i.status === "disconnected";
          const pending = i.status === "pending_verification";
          const actions = el("td", {});
          if (disconnected && configured.has(i.provider))
            actions.append(
              button("Reconnect", () => connectOAuth(i.provider as OAuthMailbox), {
                aria: `Reconnect ${i.email}`,
                secondary: false,
              }),
            );
          if (pending) {
            actions.append(
              button("Check mailbox", () => void verify(i, false), {
                aria: `Check mailbox ${i.email}`,
                secondary: false,
              }),
              button("Send again", () => void verify(i, true), {
                aria: `Send the check message again to ${i.email}`,
              }),
            );
          }
          actions.append(
            button("Disconnect", () => void disconnect(i), { aria: `Disconnect ${i.email}` }),
          );
          const badge = disconnected
            ? el("span", {
                className: "badge warn",
                textContent:
                  configured.has(i.provider) || i.provider === "imap"
                    ? "Disconnected: reconnect to keep discovery and resets working"
                    : "Disconnected: this provider is not set up on this vault any more; connect the mailbox over IMAP instead",
              })
            : pending
              ? el("span", {
                  className: "badge warn",
                  textContent: `Waiting for the check message sent to ${i.email}; not used for resets or discovery until it is read back`,
                })
              : el("span", { className: "badge ok", textContent: "Active" });
          return el(
            "tr",
            { dataset: { provider: i.provider, status: i.status } },
            el("td", { textContent: PROVIDER_NAMES[i.provider] ?? i.provider }),
            el("td", { textContent: i.email }),
            el("td", {}, badge),
            el("td", { textContent: new Date(i.connectedAt).toLocaleString() }),
            actions,
          );
        }),
      );
      list.hidden = rows.length === 0;
      empty.hidden = rows.length > 0;
    } catch (e) {
      error.textContent = describeError(e, "Listing mailboxes");
    }
  }

  /** Reads the check message back through the mailbox, or (resend) mails a new one. */
  async function verify(i: Integration, resend: boolean) {
    error.textContent = "";
    try {
      const r = await api.request(EP.imapVerify, {
        body: resend ? { resend: true } : {},
      });
      notice.textContent =
        r.status === "active"
          ? `${r.email} verified: discovery and password resets can use it now.`
          : `A new check message was sent to ${r.email}. Once it is in that mailbox, choose Check mailbox.`;
      await render();
    } catch (e) {
      error.textContent = describeError(e, "Checking the mailbox");
    }
  }

  async function disconnect(i: Integration) {
    if (!confirm(`Disconnect ${i.email}? Discovery and password resets stop using it.`)) return;
    try {
      if (i.provider === "imap") await api.request(EP.imapDisconnect);
      else await api.request(EP.oauthDisconnect, { params: { provider: i.provider } });
      notice.textContent = `${i.email} disconnected.`;
      await render();
    } catch (e) {
      error.textContent = describeError(e, "Disconnecting");
    }
  }

  imapForm.addEventListener("submit", (ev) => {
    ev.preventDefault();
    imapError.textContent = "";
    const portNo = Number(port.value);
    const missing = [
      [host, "the IMAP host"],
      [username, "the username"],
      [password, "the app password"],
    ].find(([f]) => !(f as HTMLInputElement).value.trim());
    if (missing) return void (imapError.textContent = `Enter ${missing[1]}.`);
    if (!Number.isInteger(portNo) || portNo < 1 || portNo > 65535)
      return void (imapError.textContent = "The port is a whole number from 1 to 65535.");
    const submit = imapForm.querySelector("button[type=submit]") as HTMLButtonElement;
    submit.disabled = true;
    void api
      .request(EP.imapConnect, {
        body: {
          host: host.value.trim(),
          port: portNo,
          username: username.value.trim(),
          password: password.value,
          tls: tls.checked,
        },
      })
      .then(
        async ({ email, status }) => {
          password.value = "";
          notice.textContent =
            status === "pending_verification"
              ? `IMAP mailbox ${email} connected. To prove it receives mail for ${email}, the vault sent a check message there: once it has arrived, choose Check mailbox. Nothing to type.`
              : `IMAP mailbox ${email} connected.`;
          await render();
        },
        (e) => (imapError.textContent = describeError(e, "Connecting")),
      )
      .finally(() => (submit.disabled = false));
  });

  void offerProviders().then(render);
}
