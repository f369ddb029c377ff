/** One sent mail as the page shows it. */
export type ShownMail = {
  to: string;
  subject: string;
  kind: string;
  createdAt: string;
  text: string;
};

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text as HTML text or attribute value: nothing a mail (or a name in it) carries becomes markup. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);
}

/**
 * http(s) URLs, and app paths at the start of a word (`/emergency/<token>`: a deployment without
 * APP_ORIGIN mails links relative to itself, which this page, served by the same worker, resolves),
 * each up to whitespace or a character that cannot end one in plain text.
 */
const URL_RE =
  /https?:\/\/[^\s<>"'`]+[^\s<>"'`.,;:!?)\]]|(?<=^|\s)\/[A-Za-z0-9][^\s<>"'`]*[^\s<>"'`.,;:!?)\]]/g;

/**
 * A mail's plain text as HTML with every link an anchor: the text around and inside the
 * links is escaped, so only the anchors this function writes are markup.
 */
export function linkify(text: string): string {
  let out = "";
  let at = 0;
  for (const m of text.matchAll(URL_RE)) {
    out += escapeHtml(text.slice(at, m.index));
    const url = escapeHtml(m[0]);
    out += `<a href="${url}" rel="noreferrer noopener">${url}</a>`;
    at = m.index + m[0].length;
  }
  return out + escapeHtml(text.slice(at));
}

const STYLE = [
  "body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem;color:#1b1b1f}",
  "h1{font-size:1.4rem}article{border:1px solid #c9c9d1;border-radius:8px;padding:.75rem 1rem;margin:0 0 1rem}",
  "h2{font-size:1.05rem;margin:0 0 .25rem}dl{display:grid;grid-template-columns:auto 1fr;gap:0 .75rem;margin:0 0 .5rem;color:#45454d}",
  "dt{font-weight:600}dd{margin:0}pre{white-space:pre-wrap;word-break:break-word;font:inherit;margin:0}a{color:#1a56c4}",
].join("");

/** The whole page; `nonce` is the CSP nonce of its one style element. */
export function renderMailPage(mails: ShownMail[], nonce: string): string {
  const items = mails
    .map(
      (m) => `<article aria-label="${escapeHtml(m.subject)}">
<h2>${escapeHtml(m.subject)}</h2>
<dl><dt>To</dt><dd class="to">${escapeHtml(m.to)}</dd><dt>Sent</dt><dd><time datetime="${escapeHtml(m.createdAt)}">${escapeHtml(m.createdAt.replace("T", " ").replace(/\.\d+Z$/, " UTC"))}</time></dd><dt>Kind</dt><dd>${escapeHtml(m.kind)}</dd></dl>
<pre>${linkify(m.text)}</pre>
</article>`,
    )
    .join("\n");
  const body = mails.length
    ? items
    : "<p>No mail sent yet. Mail the service sends (invitations, reminders, notices) appears here.</p>";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>Development mail</title><style nonce="${nonce}">${STYLE}</style></head>
<body><main><h1>Development mail</h1>
<p>What the service sent, newest first (development only: this deployment keeps mail in its outbox instead of sending it).</p>
${body}
</main></body></html>`;
}
