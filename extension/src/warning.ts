/** The words of a fill warning (fill-health.ts), for the fill menu's frame and the popup alike. */
import type { FillWarning } from "./messages";

export function warningParts(w: FillWarning): {
  kinds: string;
  text: string;
  link: HTMLAnchorElement;
} {
  const kinds = [w.exposed ? "exposed" : "", w.reused ? "reused" : ""].filter(Boolean).join(" ");
  const others = `${w.reused} other ${w.reused === 1 ? "entry" : "entries"}`;
  const seen = `${w.exposed.toLocaleString("en")} ${w.exposed === 1 ? "time" : "times"}`;
  const text =
    w.exposed && w.reused
      ? `Filled, but this password appeared in a data breach (seen ${seen}) and is also used by ${others}. Change it.`
      : w.exposed
        ? `Filled, but this password appeared in a data breach (seen ${seen}). Change it.`
        : `Filled, but this password is also used by ${others}. Change it.`;
  const link = document.createElement("a");
  link.className = "health";
  link.href = w.healthUrl;
  link.target = "_blank";
  link.rel = "noopener noreferrer";
  link.textContent = "Open Vault health";
  return { kinds, text, link };
}
