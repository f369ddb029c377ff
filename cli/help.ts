/** Every command's `--help` text and the options it takes (main.ts parses by these). */
/** `many`: the option may be given more than once; every value is kept, in order. */
export type OptionSpec = Record<string, { value: boolean; short?: string; many?: boolean }>;
export type CommandSpec = { usage: string; summary: string; details: string; options: OptionSpec };

const json = { json: { value: false } };
const help = { help: { value: false, short: "h" } };

export const COMMANDS: Record<string, CommandSpec> = {
  login: {
    usage: "vault login --server <url> --issuer <url> [--client-id <id>] [--device] [--no-browser]",
    summary: "Sign in with the OpenID provider and register this computer as a device",
    details: `Opens the provider's sign-in page in a browser (RFC 8252: PKCE and a redirect to a port
on 127.0.0.1 this command listens on), or with --device prints a code to enter on any other
device's browser (RFC 8628). The computer is then registered as a device of the account with a
possession key of its own. The server and provider are remembered; VAULT_SERVER and VAULT_ISSUER
name them too. The client id defaults to credential-vault-cli.`,
    options: {
      server: { value: true },
      issuer: { value: true },
      "client-id": { value: true },
      device: { value: false },
      "no-browser": { value: false },
      ...json,
    },
  },
  logout: {
    usage: "vault logout",
    summary: "Lock the vault and forget the sign-in",
    details:
      "Stops the agent (the key goes with it), revokes the refresh token at the provider where it offers revocation, and deletes the stored tokens. The device key stays: signing in again is the same device.",
    options: {},
  },
  status: {
    usage: "vault status [--json]",
    summary: "Who is signed in, to which server, and whether the vault is unlocked",
    details: "Exit code 0 when unlocked, 4 when locked, 3 when not signed in.",
    options: { ...json },
  },
  unlock: {
    usage: "vault unlock [--passphrase-fd <n>] [--idle-lock <minutes>]",
    summary: "Open the vault with the master passphrase; the agent keeps the key",
    details: `Asks for the master passphrase at a prompt that does not echo, or reads its first line
from file descriptor <n> (e.g. \`vault unlock --passphrase-fd 3 3<secret-file\`). The passphrase is
never taken as an argument. A background agent then holds the vault key in memory only, until
\`vault lock\`, \`vault logout\`, or --idle-lock minutes without a command (default 15).`,
    options: { "passphrase-fd": { value: true }, "idle-lock": { value: true }, ...json },
  },
  lock: {
    usage: "vault lock",
    summary: "Stop the agent: the vault key leaves memory",
    details: "Locking a vault that is already locked succeeds.",
    options: {},
  },
  sync: {
    usage: "vault sync [--json]",
    summary: "Read the vault from the server again",
    details: "The agent reads every entry anew (ciphertext only); the vault must be unlocked.",
    options: { ...json },
  },
  list: {
    usage: "vault list [--json]",
    summary: "List the entries by name",
    details: "Names, websites and ids; no secret is opened.",
    options: { ...json },
  },
  search: {
    usage: "vault search <words> [--json]",
    summary: "Find entries by the vault's blind-index search",
    details:
      "Each word must begin a word of an entry's name, website or username, as in the web app.",
    options: { ...json },
  },
  get: {
    usage:
      "vault get <entry | vault://vault/entry/field> [--field <field>] [--json]\n       vault get <entry> --attachment <name> --output <file> [--force] [--json]",
    summary: "Print one field of an entry (the password unless --field names another)",
    details: `<entry> is a name or an id. Fields: password, username, notes, totp (the current code),
url, website, name, or the name of a custom field. Without --json the value is printed alone,
followed by a newline only when the output is a terminal.

With VAULT_TOKEN set (a machine token, \`vault token\`), the entry is read from the token's
vault with no sign-in; --reason <text> goes into the read log the person sees.

--attachment <name> downloads the entry's attached file of that name, decrypts it here and writes
it to --output <file>, a new file of mode 0600 (an existing file is kept unless --force).`,
    options: {
      field: { value: true, short: "f" },
      reason: { value: true },
      attachment: { value: true },
      output: { value: true, short: "o" },
      force: { value: false },
      ...json,
    },
  },
  generate: {
    usage:
      "vault generate [--length <n>] [--no-symbols] [--no-digits] [--no-upper] [--no-lower] [--json]",
    summary: "Print a new random password (default 20 characters of every class)",
    details: "Made on this computer by the vault's own generator; nothing is sent or stored.",
    options: {
      length: { value: true, short: "l" },
      "no-symbols": { value: false },
      "no-digits": { value: false },
      "no-upper": { value: false },
      "no-lower": { value: false },
      ...json,
    },
  },
  create: {
    usage:
      "vault create <name> [--url <url>] [--username <name>] [--notes <text>] [--folder <folder>] [--generate [--length <n>] | --password-fd <n> | --password-prompt] [--json]",
    summary: "Add a login to the vault",
    details: `Sealed on this computer under the vault key, as the web app seals it, and sent as one
change; every other device sees it at its next sync. The password is never an argument: --generate
makes one with the vault's generator (20 characters unless --length), --password-fd <n> reads the
first line of file descriptor <n>, --password-prompt asks at a prompt that does not echo. Without
one the entry has no password. Prints the new entry's name and id.

An SSH key entry instead: --ssh-generate makes a new Ed25519 key here (with --comment, e.g.
you@laptop), --ssh-key-file <file> keeps an OpenSSH private key file (Ed25519, ECDSA
or RSA of 2048 bits or more, without a passphrase: the vault encrypts it). \`vault get <entry> -f public_key\` prints the public key;
\`vault ssh-agent\` offers the key to ssh and git.`,
    options: {
      url: { value: true },
      username: { value: true, short: "u" },
      notes: { value: true },
      folder: { value: true },
      generate: { value: false },
      length: { value: true, short: "l" },
      "password-fd": { value: true },
      "password-prompt": { value: false },
      "ssh-generate": { value: false },
      comment: { value: true },
      "ssh-key-file": { value: true },
      ...json,
    },
  },
  edit: {
    usage:
      "vault edit <entry> [--name <name>] [--url <url>] [--username <name>] [--notes <text>] [--folder <folder>] [--generate [--length <n>] | --password-fd <n> | --password-prompt] [--json]",
    summary: "Change fields of an entry",
    details: `<entry> is a name or an id. Only the fields named change; custom fields, TOTP, passkeys
and the rest stay as they are. A new password moves the old one into the entry's password history,
as in the web app. The password is given as for \`vault create\`, never as an argument.`,
    options: {
      name: { value: true },
      url: { value: true },
      username: { value: true, short: "u" },
      notes: { value: true },
      folder: { value: true },
      generate: { value: false },
      length: { value: true, short: "l" },
      "password-fd": { value: true },
      "password-prompt": { value: false },
      ...json,
    },
  },
  delete: {
    usage: "vault delete <entry> [--json]",
    summary: "Delete an entry",
    details:
      "<entry> is a name or an id. Moved to the Trash as the web app's delete does: every device drops it at its next sync, and the web app's Trash restores it until the deployment's retention time (30 days unless configured) has passed.",
    options: { ...json },
  },
  export: {
    usage:
      "vault export [--format vault|json|csv|cxf] [--password-fd <n>] [--output <file>] [--force] [--yes] [--json]",
    summary:
      "Write the whole vault to a file (or standard output), encrypted unless asked otherwise",
    details: `Every entry, opened on this computer and written as the web app's vault file (the
default, --format vault): every name, address, tag, note and secret encrypted with a file password
of at least 10 characters, typed twice on a terminal or read from file descriptor <n>
(--password-fd); only the format header can be read without it. \`vault import\` and the web
app's import open it in this account or any other. For leaving, --format json (the file's body:
fields, TOTP, history, cards, identities, passkeys), csv (the web app's plain CSV, for another
manager) or cxf (a FIDO Credential Exchange Format document: logins, notes and passkeys never
used to sign in, as the web app's CXF export holds them; used passkeys, cards and identities are
left out and counted) write plain text anyone who gets the file can read: the server asks for a sign-in of at
most 5 minutes (\`vault login\` again if it refuses) and records the export in the activity log,
and on a terminal the command asks first, unless --yes. --output is created with mode 0600 and
never replaces an existing file unless --force. --json (with --output) prints what was written.`,
    options: {
      format: { value: true },
      "password-fd": { value: true },
      output: { value: true, short: "o" },
      force: { value: false },
      yes: { value: false, short: "y" },
      ...json,
    },
  },
  import: {
    usage: "vault import <file> [--format <format>] [--password-fd <n>] [--json]",
    summary: "Add the entries of an export file (this vault's or another manager's)",
    details: `Reads the file on this computer: this vault's export (\`vault export\`), or another
manager's, or a CXF document (FIDO Credential Exchange Format; the web app's protected one with
its password from --password-fd), its format judged from the file unless --format names it: source_mgr_1 (Bitwarden
JSON or CSV), source_mgr_3 (1Password CSV, 1Password 7's all-fields CSV too), onepux (1Password
1PUX), source_mgr_2 (LastPass CSV), source_mgr_4 (Dashlane's CSV files or their zip), proton_pass, nordpass, keepass (a KDBX database, its master password from
--password-fd; one with a key file: the web app's import; or KeePass 2 XML), keepassxc (KeePassXC CSV), source_browser
(a browser's CSV), generic (CSV or JSON with name, url, username, password).
A password-protected file's password comes from file descriptor <n>. A file that cannot be read
fails the command and nothing is sent. Each entry is sealed here as the web app seals an imported
entry and sent in batches of 50; entries that cannot be imported are skipped and named with the
reason. Items of kinds the vault has no form for (a bank account, a Wi-Fi network, a server)
arrive as the nearest kind, their details as named fields. Prints the counts and the entries by
kind (--json: {imported, kinds, skipped, errors}).`,
    options: { format: { value: true }, "password-fd": { value: true }, ...json },
  },
  link: {
    usage: `vault link <entry> [-f <field>]... [options] [--json]
       vault link --file <path> [options] [--json]
       vault link --text-fd <n> [options] [--json]
       vault link --list [--json]
       vault link --revoke <id> [--json]`,
    summary: "Make a secure link to fields of an entry, a file or a text; list or revoke links",
    details: `A secure link is sealed on this computer, as the web app's "Share by link" and Secure
links page seal one, under a new key that is only in the link (after #): the server stores
ciphertext it cannot open. Prints the link; it is shown only now (--json: {id, url, expires_at,
max_views}).

<entry> (a name or an id) sends the fields the web app ticks by default: name, website, username
and password, those that are not empty. Each -f <field> picks one instead: name, website,
username, password, notes, totp (the TOTP secret, which makes codes for as long as it is kept).
--file <path> sends a file of up to 25 MB with its name. --text-fd <n> sends the text read from
file descriptor <n> (never an argument: a command line is readable by every user of the machine).

Options, as the web app offers them: --expires 1h|1d|7d|30d (default 7d); --max-views <n>, 1 to
100 (default 1); a passphrase the recipient must type, read from --passphrase-fd <n> or asked at
a prompt with --passphrase (never an argument); --recipient <email> (repeat, up to 10): only these
addresses open it, each with a code mailed to it; --hide-sender; --label <text>, which only you
read (sealed under the vault key: needs the vault unlocked).

--list prints your links (id, kind, state, views, expiry; labels when unlocked). --revoke <id>
stops a link at once and deletes its content.`,
    options: {
      field: { value: true, short: "f", many: true },
      file: { value: true },
      "text-fd": { value: true },
      expires: { value: true },
      "max-views": { value: true },
      passphrase: { value: false },
      "passphrase-fd": { value: true },
      recipient: { value: true, many: true },
      "hide-sender": { value: false },
      label: { value: true },
      list: { value: false },
      revoke: { value: true },
      ...json,
    },
  },
  "ssh-agent": {
    usage: "vault ssh-agent [--socket <path>] [--foreground] [--confirm]",
    summary: "Offer the vault's SSH keys to ssh and git (an SSH agent)",
    details: `Starts an agent in the background on a unix socket (in the vault agent's own folder
unless --socket) and prints the line that points SSH_AUTH_SOCK at it: \`eval "$(vault ssh-agent)"\`,
or SSH_AUTH_SOCK set in your shell's profile. With --foreground it runs in this terminal instead
(for a service manager). \`ssh-add -L\` then lists the vault's SSH keys, and \`ssh\` and Git's SSH
signing (gpg.format ssh) sign with them. No key is held by this process: each signature opens its
entry in the unlocked vault and forgets it. While the vault is locked it offers no key. It runs
until stopped (SIGTERM; Ctrl-C with --foreground).

--confirm asks before the first signature with each key on each new connection (a client; one
\`ssh\` or \`git commit\` is one), as OpenSSH's \`ssh-add -c\`: the program in SSH_ASKPASS, as set
when the agent starts, is run with a prompt naming the key's comment and fingerprint and
SSH_ASKPASS_PROMPT=confirm; exit 0 is yes. No SSH_ASKPASS, or any other answer, refuses the
signature. Listing keys asks nothing.`,
    options: { socket: { value: true }, foreground: { value: false }, confirm: { value: false } },
  },
  run: {
    usage: "vault run [--no-masking] -- <command> [args...]",
    summary: "Run a program with secrets in its environment",
    details: `Every environment variable whose value is a reference (vault://personal/<entry>/<field>)
is given the secret, for that program only. Every reference must resolve before the program
starts; one that does not fails the command (exit 6) and nothing runs. The secrets are replaced by
"${"<concealed by vault>"}" in what the program prints unless --no-masking. The exit code is the program's.

With VAULT_TOKEN set, the references name the token's shared vault (by its name or id) and are
read with the token alone, no sign-in; --reason <text> goes into the read log. The program does
not get VAULT_TOKEN.`,
    options: { "no-masking": { value: false }, reason: { value: true } },
  },
  inject: {
    usage: "vault inject [-i <template>] [-o <output>]",
    summary: "Fill the {{ vault://... }} references of a template",
    details: `Reads the template (standard input without -i) and writes it with every reference
replaced by its secret to <output> (created 0600; written whole or not at all) or standard output.
A reference that does not resolve fails the command and nothing is written. With VAULT_TOKEN
set, as for \`vault run\`: the token's vault, no sign-in, --reason logged.`,
    options: {
      in: { value: true, short: "i" },
      out: { value: true, short: "o" },
      reason: { value: true },
    },
  },
  token: {
    usage: `vault token create --vault <vault> --name <name> [--expires 30d] [--json]
       vault token list [--json]
       vault token revoke <id> [--json]
       vault token reads [--id <id>] [--json]`,
    summary: "Read-only tokens for machines and agents: make, list, revoke, read their log",
    details: `create makes a token that reads one shared vault (by its name or id) and nothing else, until
--expires (5m to 366d; default 30d) or \`vault token revoke\`. It needs the vault unlocked and a
sign-in of at most 5 minutes. The token (vtk_...) is printed once, to standard output: keep it
as a secret of the CI or the agent that uses it, as VAULT_TOKEN (with VAULT_SERVER).
list shows your tokens with their state and last use; reads the log of every read with each
token's name and the --reason it gave (newest first, at most 100).`,
    options: {
      vault: { value: true },
      name: { value: true },
      expires: { value: true },
      id: { value: true },
      ...json,
    },
  },
};
for (const c of Object.values(COMMANDS)) Object.assign(c.options, help);

export function commandHelp(name: string): string {
  const c = COMMANDS[name]!;
  return `${c.usage}\n\n${c.summary}.\n\n${c.details}\n`;
}

export function mainHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((k) => k.length));
  const lines = Object.entries(COMMANDS).map(([k, c]) => `  ${k.padEnd(width)}  ${c.summary}`);
  return `vault: the credential vault's command line\n\nUsage: vault <command> [options]\n\nCommands:\n${lines.join("\n")}\n\n\`vault <command> --help\` tells more. Exit codes: 0 done, 1 failed, 2 usage, 3 not signed in,\n4 locked, 5 wrong passphrase, 6 not found, 7 server (docs/cli.md).\n`;
}
