import type { Config } from "../../env";
import { seal, unseal } from "../../lib/crypto";
import { AppError, ErrorCode } from "../../lib/errors";
import { ImapClient, ImapError } from "../../lib/imap/client";
import { assertPublicHost, dohResolver, parseIp } from "../../lib/outbound-guard";
import type { ImapProof } from "./imap-proof";

export type ImapCredentials = {
  host: string;
  port: number;
  username: string;
  password: string;
  tls: boolean;
};
/** What is sealed: the credentials and, until the mailbox is proven to receive its address's mail, the proof. */
export type SealedImap = ImapCredentials & { proof?: ImapProof };

const aad = (userId: string) => `mail-integration|${userId}|imap`;

export const sealImap = (config: Config, userId: string, c: SealedImap) =>
  seal(config.dataKeys, JSON.stringify(c), aad(userId));
export const unsealImap = async (config: Config, userId: string, secret: string) =>
  JSON.parse(await unseal(config.dataKeys, secret, aad(userId))) as SealedImap;

/**
 * The outbound guard for an IMAP destination (DECISIONS D12): the port must be an allowed IMAP
 * port and the host public. Run before anything else about the request, and again before each
 * connection, since a name's addresses can change after it was stored. Returns the address to
 * dial: for plaintext IMAP the first IPv4 address that passed, so a second DNS answer (rebinding)
 * cannot redirect the socket; with TLS the name itself, because cloudflare:sockets takes the
 * certificate name from the hostname it dials and has no separate server-name option.
 */
export async function guardImapTarget(
  config: Config,
  host: string,
  port: number,
  tls = true,
): Promise<string> {
  const ports = config.IMAP_ALLOWED_PORTS.split(",").map(Number);
  if (!ports.includes(port)) {
    throw new AppError(ErrorCode.VALIDATION_ERROR, "Destination refused", {
      details: [{ field: "port", message: `port must be one of ${ports.join(", ")}` }],
    });
  }
  const passed = await assertPublicHost(host, "host", {
    allowPrivate: config.allowPrivateOutbound,
    resolve: dohResolver(config.DOH_URL),
  });
  if (tls) return host.trim();
  return passed.find((a) => parseIp(a)?.version === 4) ?? host.trim();
}

/** Opens a logged-in session; failures become 422 without echoing the server's words. */
export async function openImap(
  config: Config,
  c: ImapCredentials,
  trace?: (line: string) => void,
): Promise<ImapClient> {
  const dial = await guardImapTarget(config, c.host, c.port, c.tls);
  let client: ImapClient | undefined;
  try {
    client = await ImapClient.open({
      host: dial,
      port: c.port,
      tls: c.tls,
      trace,
      timeoutMs: config.IMAP_TIMEOUT_SECONDS * 1000,
      maxLiteralBytes: config.IMAP_MAX_LITERAL_BYTES,
    });
    await client.login(c.username, c.password);
    return client;
  } catch (err) {
    await client?.close();
    if (err instanceof ImapError && err.kind === "auth")
      throw new AppError(
        ErrorCode.UNPROCESSABLE,
        "IMAP login failed: check the username and password",
      );
    throw new AppError(ErrorCode.UNPROCESSABLE, "Could not connect to the IMAP server");
  }
}
