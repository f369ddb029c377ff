/**
 * What a viewer's input may become in the shared tab: mouse and key events only, clamped to the
 * viewport, and never with Alt, Ctrl or Meta (copy, view-source, save and other shortcuts).
 * Pure: it turns one WebSocket message into one CDP Input command, or null.
 */
export const MAX_INPUT_BYTES = 2048;
const MOUSE_TYPES = new Set(["mousePressed", "mouseReleased", "mouseMoved", "mouseWheel"]);
const KEY_TYPES = new Set(["keyDown", "keyUp", "char"]);
/** Alt, Ctrl and Meta (CDP modifier bits 1, 2, 4). */
const BLOCKED_MODIFIERS = 1 | 2 | 4;

export type CdpInput =
  | { method: "Input.dispatchMouseEvent"; params: Record<string, unknown> }
  | { method: "Input.dispatchKeyEvent"; params: Record<string, unknown> };

export function cdpInput(
  data: unknown,
  viewport: { width: number; height: number },
): CdpInput | null {
  if (typeof data !== "string" || data.length > MAX_INPUT_BYTES) return null;
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(data) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (!m || typeof m !== "object") return null;
  const modifiers = typeof m.modifiers === "number" ? m.modifiers & 15 : 0;
  if (modifiers & BLOCKED_MODIFIERS) return null;
  if (m.type === "mouse" && MOUSE_TYPES.has(String(m.event))) {
    const button = ["left", "middle", "right", "none"].includes(String(m.button))
      ? String(m.button)
      : "left";
    return {
      method: "Input.dispatchMouseEvent",
      params: {
        type: m.event,
        x: clamp(m.x, viewport.width),
        y: clamp(m.y, viewport.height),
        button,
        clickCount: m.event === "mouseMoved" ? 0 : 1,
        deltaX: m.event === "mouseWheel" ? clamp(m.deltaX, 5000, -5000) : undefined,
        deltaY: m.event === "mouseWheel" ? clamp(m.deltaY, 5000, -5000) : undefined,
        modifiers,
      },
    };
  }
  if (m.type === "key" && KEY_TYPES.has(String(m.event))) {
    const key = typeof m.key === "string" ? m.key.slice(0, 32) : "";
    const text = typeof m.text === "string" && m.text.length > 0 ? m.text.slice(0, 4) : undefined;
    // As puppeteer does: a key without text (Tab, arrows) is a raw key-down, so the page's
    // default action (focus moves, caret moves) happens without inserting anything.
    const type = m.event === "keyDown" && !text ? "rawKeyDown" : m.event;
    return {
      method: "Input.dispatchKeyEvent",
      params: {
        type,
        key,
        code: typeof m.code === "string" ? m.code.slice(0, 32) : undefined,
        text: m.event === "keyUp" ? undefined : text,
        windowsVirtualKeyCode: typeof m.keyCode === "number" ? m.keyCode : undefined,
        modifiers,
      },
    };
  }
  return null;
}

function clamp(v: unknown, max: number, min = 0): number {
  const n = typeof v === "number" && Number.isFinite(v) ? v : 0;
  return Math.max(min, Math.min(max, n));
}
