export type DeviceType = "desktop" | "mobile" | "tablet";

/**
 * The spec's rule, in its order: tablet for an iPad or an Android without "Mobile" (Android phones
 * carry "Mobile", tablets do not); mobile for the phone markers; desktop otherwise.
 */
export function deviceTypeFromUserAgent(ua: string): DeviceType {
  if (/iPad/i.test(ua) || (/Android/i.test(ua) && !/Mobile/i.test(ua))) return "tablet";
  if (/Mobile|iPhone|iPod|Android|webOS|BlackBerry|IEMobile|Opera Mini/i.test(ua)) return "mobile";
  return "desktop";
}
