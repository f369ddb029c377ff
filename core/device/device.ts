/**
 * This browser as a trusted device (spec "Trusted device", DECISIONS D11). The one module that
 * knows how the device is identified: the fingerprint is the SHA-256 hex digest of the spec's eight
 * signals joined with "|", sent on every API call as `x-device-fingerprint`. Keeping it here lets
 * a change of how a device proves itself replace this file alone. It does now: the fingerprint is
 * joined by a non-extractable key (device-key.ts) that signs a DPoP proof (RFC 9449) on every call,
 * and a device registered with it counts as this device only with such a proof.
 */
import {
  ApiError,
  setDefaultHeader,
  setProofSigner,
  type ApiClient,
  type Device,
  type DeviceRegistration,
  type WireResponse,
} from "../api";
import { deviceKeyPair, proofSigner, publicJwk } from "../crypto";

export type DeviceSignals = {
  platform: string;
  language: string;
  cpuCores: number;
  screen: string;
  colorDepth: number;
  timezone: string;
  touchPoints: number;
  gpu: string;
};

/** The GPU renderer string, through WEBGL_debug_renderer_info when the browser exposes it. */
function gpuRenderer(): string {
  try {
    const gl = document.createElement("canvas").getContext("webgl");
    if (!gl) return "none";
    const ext = gl.getExtension("WEBGL_debug_renderer_info");
    return String(gl.getParameter(ext ? ext.UNMASKED_RENDERER_WEBGL : gl.RENDERER) ?? "unknown");
  } catch {
    return "unknown";
  }
}

export function deviceSignals(): DeviceSignals {
  return {
    platform: navigator.platform || "unknown",
    language: navigator.language || "unknown",
    cpuCores: navigator.hardwareConcurrency || 0,
    screen: `${screen.width}x${screen.height}`,
    colorDepth: screen.colorDepth || 0,
    timezone: Intl.DateTimeFormat().resolvedOptions().timeZone || "unknown",
    touchPoints: navigator.maxTouchPoints || 0,
    gpu: gpuRenderer(),
  };
}

/** In the spec's order: platform, language, cores, resolution, colour depth, timezone, touch points, GPU. */
export async function fingerprintOf(s: DeviceSignals): Promise<string> {
  return sha256hex(
    [
      s.platform,
      s.language,
      s.cpuCores,
      s.screen,
      s.colorDepth,
      s.timezone,
      s.touchPoints,
      s.gpu,
    ].join("|"),
  );
}

async function sha256hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The spec's rule: tablet for an iPad or an Android without Mobile; mobile for the phone markers. */
export function deviceTypeOf(ua: string): Device["device_type"] {
  if (/iPad/i.test(ua) || (/Android/i.test(ua) && !/Mobile/i.test(ua))) return "tablet";
  if (/Mobile|iPhone|iPod|Android|webOS|BlackBerry|IEMobile|Opera Mini/i.test(ua)) return "mobile";
  return "desktop";
}

function browserOf(ua: string): string {
  for (const [re, name] of [
    [/Edg\//, "Edge"],
    [/OPR\//, "Opera"],
    [/Firefox\//, "Firefox"],
    [/(Chrome|Chromium)\//, "Chromium"],
    [/Safari\//, "Safari"],
  ] as const) {
    if (re.test(ua))
      return name === "Chromium" && /Chrome\//.test(ua) && !/Chromium|HeadlessChrome/.test(ua)
        ? "Chrome"
        : name;
  }
  return "Browser";
}

function osOf(ua: string): string {
  if (/Windows/.test(ua)) return "Windows";
  if (/iPhone|iPad|iPod/.test(ua)) return "iOS";
  if (/Mac OS X/.test(ua)) return "macOS";
  if (/Android/.test(ua)) return "Android";
  if (/CrOS/.test(ua)) return "ChromeOS";
  if (/Linux/.test(ua)) return "Linux";
  return "Unknown OS";
}

export async function thisDevice(): Promise<DeviceRegistration> {
  const ua = navigator.userAgent;
  const browser = browserOf(ua);
  const os = osOf(ua);
  return {
    fingerprint: await fingerprintOf(deviceSignals()),
    deviceName: `${browser} on ${os}`,
    deviceType: deviceTypeOf(ua),
    os,
    browser,
  };
}

/** Computes the fingerprint and puts it on every later API call; returns it. */
export async function identifyDevice(): Promise<string> {
  const fp = (await thisDevice()).fingerprint;
  setDefaultHeader("x-device-fingerprint", fp);
  return fp;
}

/**
 * Every later API call from this page carries a proof by this browser's key. The server's nonce is
 * a plain request (`origin` and `bearer` as ApiClient's), so asking for it needs no proof.
 */
export function proveThisDevice(origin = "", bearer?: () => Promise<string | null>): void {
  // A page's nonce is kept for the other pages and tabs of this browser (it is no secret: every
  // proof carries it), so opening a page does not ask for one while the last is good.
  const shared = !bearer && typeof localStorage !== "undefined";
  setProofSigner(
    proofSigner(async () => {
      if (shared) {
        const kept = readJson<{ nonce: string; at: number }>(NONCE_KEY);
        if (kept && Date.now() - kept.at < NONCE_SHARED_MS && kept.at <= Date.now()) return kept;
      }
      const token = bearer ? await bearer() : null;
      const res = await fetch(`${origin}/api/devices/dpop-nonce`, {
        credentials: bearer ? "omit" : "same-origin",
        cache: "no-store",
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
      if (!res.ok) throw new Error(`no DPoP nonce (${res.status})`);
      const fresh = {
        nonce: ((await res.json()) as WireResponse<"/api/devices/dpop-nonce", "get">).nonce,
        at: Date.now(),
      };
      if (shared) writeJson(NONCE_KEY, fresh);
      return fresh;
    }),
  );
}

const NONCE_KEY = "vault-dpop-nonce";
/** The server accepts a nonce for 300 s; one kept by another page is used for at most 200 s of it. */
const NONCE_SHARED_MS = 200_000;
const REGISTERED_KEY = "vault-device-registered";
/**
 * A browser registered with its key is not registered again by every page it opens, only once
 * this long has passed (or the user, fingerprint or key changed): a person opening pages in
 * several tabs otherwise sent a registration per page.
 */
export const REGISTRATION_FRESH_MS = 60 * 60 * 1000;

function readJson<T>(key: string): T | null {
  try {
    return JSON.parse(localStorage.getItem(key) ?? "null") as T | null;
  } catch {
    return null;
  }
}
function writeJson(key: string, value: unknown) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    /* storage full or refused: the next page asks the server again */
  }
}

/** Forgets that this browser registered (the Devices page, when the list does not name it). */
export function forgetRegistration(): void {
  if (typeof localStorage !== "undefined") localStorage.removeItem(REGISTERED_KEY);
}

/** How the last registration of this browser went, for the Devices page to explain. */
export type RegistrationOutcome = "registered" | "needs-sign-in" | "refused" | "not-yet";
let outcome: RegistrationOutcome = "not-yet";
export const lastRegistration = (): RegistrationOutcome => outcome;

/**
 * Registers (or re-registers) this browser with its key. A first registration is trusted by the
 * server and takes a recent sign-in, as does binding a key to a device known by its fingerprint
 * alone; with an older sign-in such a device is re-registered as it was, and binds its key after
 * the next sign-in. Without IndexedDB (no key) the fingerprint registers alone. Offline, only the
 * header is set: the next start registers.
 */
export async function registerThisDevice(api: ApiClient, userId?: string): Promise<Device | null> {
  const me = await thisDevice();
  setDefaultHeader("x-device-fingerprint", me.fingerprint);
  proveThisDevice();
  const publicKey = await deviceKeyPair().then(publicJwk, () => undefined);
  const mark = publicKey && userId ? `${userId}|${me.fingerprint}|${publicKey.x}` : null;
  const kept =
    mark && typeof localStorage !== "undefined"
      ? readJson<{ mark: string; at: number }>(REGISTERED_KEY)
      : null;
  if (
    kept &&
    kept.mark === mark &&
    Date.now() - kept.at < REGISTRATION_FRESH_MS &&
    kept.at <= Date.now()
  ) {
    outcome = "registered";
    return null;
  }
  const device = await registerWithKey(api, me, publicKey);
  // Only a registration with the key is remembered: one without it binds the key next time.
  if (mark && device?.key_bound && typeof localStorage !== "undefined")
    writeJson(REGISTERED_KEY, { mark, at: Date.now() });
  return device;
}

/** `registerThisDevice` for a caller that names itself (the extension) and has set its proof signer. */
export async function registerWithKey(
  api: ApiClient,
  me: DeviceRegistration,
  publicKey: DeviceRegistration["publicKey"],
): Promise<Device | null> {
  const attempt = async (body: DeviceRegistration) => {
    const device = (await api.registerDevice(body)).device;
    outcome = "registered";
    return device;
  };
  try {
    return await attempt({ ...me, publicKey });
  } catch (err) {
    const stepUp = err instanceof ApiError && err.body.code === "STEP_UP_REQUIRED";
    if (stepUp && publicKey) {
      try {
        return await attempt(me);
      } catch {
        /* a new device: it needs the recent sign-in */
      }
    }
    outcome = stepUp ? "needs-sign-in" : err instanceof ApiError ? "refused" : "not-yet";
    return null;
  }
}

/**
 * The browser extension as a device of its own: it has its own key (in the extension's storage,
 * which the web app's origin cannot read), so it cannot share the web app's registration, and a
 * service worker has no screen or GPU to take signals from. Its fingerprint is the SHA-256 hex of
 * its public key (RFC 7638 member order): stable for as long as the key, and a new installation is
 * a new device, as it is a new key.
 */
export async function extensionDevice(
  publicKey: NonNullable<DeviceRegistration["publicKey"]>,
): Promise<DeviceRegistration> {
  const ua = navigator.userAgent;
  const browser = browserOf(ua);
  const os = osOf(ua);
  const canonical = JSON.stringify({
    crv: publicKey.crv,
    kty: publicKey.kty,
    x: publicKey.x,
    y: publicKey.y,
  });
  return {
    fingerprint: await sha256hex(`extension|${canonical}`),
    deviceName: `${browser} extension on ${os}`,
    deviceType: deviceTypeOf(ua),
    os,
    browser,
  };
}

/**
 * Whether a listed device is this browser. The server says so in is_current: a list carries only
 * a hint of each fingerprint (fingerprint_hint), never the fingerprint to compare.
 */
export function isThisDevice(d: Device): boolean {
  return d.is_current;
}
