/**
 * In the page's own world (a MAIN-world content script, run before the page's scripts): answers
 * `navigator.credentials.create()` and `.get()` with a publicKey request from the vault when the
 * person chooses to in the extension's frame, and otherwise lets the browser's own authenticator
 * (or a security key) answer, with the page's request unchanged. This script holds nothing of the
 * vault: it forwards the request (byte strings as base64url) to the extension's content script and
 * builds, from the answer, the PublicKeyCredential the page's code expects (WebAuthn Level 3 §5.1,
 * §5.2; toJSON §5.1.8). Whatever the page does to this script it can only ask for its own origin,
 * which the extension reads from the browser, never from here.
 */
import type { PasskeyRequest, PasskeyResult } from "./messages";

const TAG = "credential-vault-passkey";

(() => {
  const creds = navigator.credentials as CredentialsContainer | undefined;
  if (!creds || typeof PublicKeyCredential === "undefined") return;
  const originalCreate = creds.create.bind(creds);
  const originalGet = creds.get.bind(creds);
  const waiting = new Map<
    string,
    {
      resolve(v: Credential | null): void;
      reject(e: unknown): void;
      fallback(): Promise<Credential | null>;
    }
  >();

  const bytesOf = (v: BufferSource): Uint8Array =>
    v instanceof ArrayBuffer
      ? new Uint8Array(v)
      : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  const b64u = (v: BufferSource) =>
    btoa(String.fromCharCode(...bytesOf(v)))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "");
  const buf = (s: string): ArrayBuffer => {
    const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4));
    return Uint8Array.from(bin, (c) => c.charCodeAt(0)).buffer;
  };
  const ids = (list: readonly PublicKeyCredentialDescriptor[] | undefined) =>
    (list ?? []).map((c) => ({ id: b64u(c.id) }));

  function toRequest(
    op: "create" | "get",
    pk: PublicKeyCredentialCreationOptions | PublicKeyCredentialRequestOptions,
  ): PasskeyRequest {
    if (op === "get") {
      const o = pk as PublicKeyCredentialRequestOptions;
      return {
        op,
        options: {
          ...(o.rpId !== undefined ? { rpId: o.rpId } : {}),
          challenge: b64u(o.challenge),
          allowCredentials: ids(o.allowCredentials),
        },
      };
    }
    const o = pk as PublicKeyCredentialCreationOptions;
    return {
      op,
      options: {
        rp: { ...(o.rp.id !== undefined ? { id: o.rp.id } : {}), name: o.rp.name },
        user: { id: b64u(o.user.id), name: o.user.name, displayName: o.user.displayName },
        challenge: b64u(o.challenge),
        pubKeyCredParams: (o.pubKeyCredParams ?? []).map((p) => ({ type: p.type, alg: p.alg })),
        excludeCredentials: ids(o.excludeCredentials),
        authenticatorSelection: {
          ...(o.authenticatorSelection?.residentKey
            ? { residentKey: o.authenticatorSelection.residentKey }
            : {}),
          requireResidentKey: o.authenticatorSelection?.requireResidentKey ?? false,
        },
        extensions: {
          credProps: (o.extensions as { credProps?: boolean } | undefined)?.credProps === true,
        },
      },
    };
  }

  const props = (o: Record<string, unknown>): PropertyDescriptorMap =>
    Object.fromEntries(Object.entries(o).map(([k, value]) => [k, { value, enumerable: true }]));

  /** The credential as the browser's own would be: prototypes of the real interfaces, methods sites call. */
  function credentialOf(r: Extract<PasskeyResult, { kind: "created" | "asserted" }>): Credential {
    const extensions =
      r.kind === "created" && r.credential.credProps ? { credProps: r.credential.credProps } : {};
    let response: AuthenticatorResponse;
    let json: Record<string, unknown>;
    const id = r.kind === "created" ? r.credential.id : r.assertion.id;
    if (r.kind === "created") {
      const c = r.credential;
      const transports = ["hybrid", "internal"];
      response = Object.create(
        AuthenticatorAttestationResponse.prototype,
        props({
          clientDataJSON: buf(c.clientDataJSON),
          attestationObject: buf(c.attestationObject),
          getTransports: () => [...transports],
          getPublicKey: () => buf(c.publicKey),
          getPublicKeyAlgorithm: () => c.publicKeyAlgorithm,
          getAuthenticatorData: () => buf(c.authenticatorData),
        }),
      );
      json = {
        clientDataJSON: c.clientDataJSON,
        attestationObject: c.attestationObject,
        authenticatorData: c.authenticatorData,
        transports,
        publicKey: c.publicKey,
        publicKeyAlgorithm: c.publicKeyAlgorithm,
      };
    } else {
      const a = r.assertion;
      response = Object.create(
        AuthenticatorAssertionResponse.prototype,
        props({
          clientDataJSON: buf(a.clientDataJSON),
          authenticatorData: buf(a.authenticatorData),
          signature: buf(a.signature),
          userHandle: a.userHandle ? buf(a.userHandle) : null,
        }),
      );
      json = {
        clientDataJSON: a.clientDataJSON,
        authenticatorData: a.authenticatorData,
        signature: a.signature,
        ...(a.userHandle ? { userHandle: a.userHandle } : {}),
      };
    }
    return Object.create(
      PublicKeyCredential.prototype,
      props({
        id,
        rawId: buf(id),
        type: "public-key",
        authenticatorAttachment: "platform",
        response,
        getClientExtensionResults: () => ({ ...extensions }),
        toJSON: () => ({
          id,
          rawId: id,
          type: "public-key",
          authenticatorAttachment: "platform",
          response: json,
          clientExtensionResults: { ...extensions },
        }),
      }),
    ) as Credential;
  }

  function ask(
    op: "create" | "get",
    options: CredentialCreationOptions | CredentialRequestOptions,
    fallback: () => Promise<Credential | null>,
  ): Promise<Credential | null> {
    const signal = options.signal;
    if (signal?.aborted)
      return Promise.reject(
        signal.reason ?? new DOMException("The operation was aborted", "AbortError"),
      );
    let request: PasskeyRequest;
    try {
      request = toRequest(op, options.publicKey!);
    } catch {
      // A request this script cannot read: the browser's own checks and errors apply.
      return fallback();
    }
    const id = crypto.getRandomValues(new Uint32Array(4)).join("-");
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject, fallback });
      signal?.addEventListener("abort", () => {
        if (!waiting.delete(id)) return;
        window.postMessage({ [TAG]: "abort", id }, location.origin);
        reject(signal.reason ?? new DOMException("The operation was aborted", "AbortError"));
      });
      window.postMessage({ [TAG]: "request", id, request }, location.origin);
    });
  }

  creds.create = function create(options?: CredentialCreationOptions) {
    if (!options?.publicKey) return originalCreate(options);
    return ask("create", options, () => originalCreate(options));
  };
  creds.get = function get(options?: CredentialRequestOptions) {
    // Conditional mediation (passkeys offered in the field's autofill) stays the browser's.
    if (!options?.publicKey || options.mediation === "conditional") return originalGet(options);
    return ask("get", options, () => originalGet(options));
  };

  window.addEventListener("message", (e: MessageEvent) => {
    const m = e.data as { [TAG]?: string; id?: string; result?: PasskeyResult };
    if (e.source !== window || m?.[TAG] !== "answer" || typeof m.id !== "string" || !m.result)
      return;
    const w = waiting.get(m.id);
    if (!w) return;
    waiting.delete(m.id);
    const r = m.result;
    if (r.kind === "fallback") w.fallback().then(w.resolve, w.reject);
    else if (r.kind === "error") w.reject(new DOMException(r.message, r.name));
    else w.resolve(credentialOf(r));
  });
})();
