/**
 * Built-in services, shared by account discovery and (later) the password-reset registry. Each
 * record is keyed by its primary domain; `senderDomains` lists other domains its mail comes from.
 * The reset registry extends this shape with reset_url, sender_patterns and the like.
 */
export type KnownService = {
  domain: string;
  name: string;
  category: string;
  loginUrl: string;
  color: string;
  senderDomains?: string[];
};

export const GENERIC_COLOR = "#9CA3AF";

export const KNOWN_SERVICES: KnownService[] = [
  {
    domain: "github.com",
    name: "GitHub",
    category: "development",
    loginUrl: "https://github.com/login",
    color: "#181717",
  },
  {
    domain: "gitlab.com",
    name: "GitLab",
    category: "development",
    loginUrl: "https://gitlab.com/users/sign_in",
    color: "#FC6D26",
  },
  {
    domain: "bitbucket.org",
    name: "Bitbucket",
    category: "development",
    loginUrl: "https://bitbucket.org/account/signin/",
    color: "#0052CC",
  },
  {
    domain: "atlassian.com",
    name: "Atlassian",
    category: "productivity",
    loginUrl: "https://id.atlassian.com/login",
    color: "#0052CC",
    senderDomains: ["atlassian.net"],
  },
  {
    domain: "digitalocean.com",
    name: "DigitalOcean",
    category: "development",
    loginUrl: "https://cloud.digitalocean.com/login",
    color: "#0080FF",
  },
  {
    domain: "heroku.com",
    name: "Heroku",
    category: "development",
    loginUrl: "https://id.heroku.com/login",
    color: "#430098",
  },
  {
    domain: "cloudflare.com",
    name: "Cloudflare",
    category: "development",
    loginUrl: "https://dash.cloudflare.com/login",
    color: "#F38020",
  },
  {
    domain: "vercel.com",
    name: "Vercel",
    category: "development",
    loginUrl: "https://vercel.com/login",
    color: "#000000",
  },
  {
    domain: "npmjs.com",
    name: "npm",
    category: "development",
    loginUrl: "https://www.npmjs.com/login",
    color: "#CB3837",
  },
  {
    domain: "docker.com",
    name: "Docker",
    category: "development",
    loginUrl: "https://login.docker.com/u/login",
    color: "#2496ED",
  },
  {
    domain: "google.com",
    name: "Google",
    category: "productivity",
    loginUrl: "https://accounts.google.com/signin",
    color: "#4285F4",
  },
  {
    domain: "microsoft.com",
    name: "Microsoft",
    category: "productivity",
    loginUrl: "https://login.live.com/",
    color: "#5E5E5E",
  },
  {
    domain: "apple.com",
    name: "Apple",
    category: "productivity",
    loginUrl: "https://appleid.apple.com/sign-in",
    color: "#000000",
  },
  {
    domain: "dropbox.com",
    name: "Dropbox",
    category: "productivity",
    loginUrl: "https://www.dropbox.com/login",
    color: "#0061FF",
  },
  {
    domain: "slack.com",
    name: "Slack",
    category: "productivity",
    loginUrl: "https://slack.com/signin",
    color: "#4A154B",
  },
  {
    domain: "notion.so",
    name: "Notion",
    category: "productivity",
    loginUrl: "https://www.notion.so/login",
    color: "#000000",
    senderDomains: ["notion.com", "mail.notion.so"],
  },
  {
    domain: "trello.com",
    name: "Trello",
    category: "productivity",
    loginUrl: "https://trello.com/login",
    color: "#0052CC",
  },
  {
    domain: "asana.com",
    name: "Asana",
    category: "productivity",
    loginUrl: "https://app.asana.com/-/login",
    color: "#F06A6A",
  },
  {
    domain: "zoom.us",
    name: "Zoom",
    category: "productivity",
    loginUrl: "https://zoom.us/signin",
    color: "#2D8CFF",
  },
  {
    domain: "figma.com",
    name: "Figma",
    category: "design",
    loginUrl: "https://www.figma.com/login",
    color: "#F24E1E",
  },
  {
    domain: "canva.com",
    name: "Canva",
    category: "design",
    loginUrl: "https://www.canva.com/login",
    color: "#00C4CC",
  },
  {
    domain: "adobe.com",
    name: "Adobe",
    category: "design",
    loginUrl: "https://account.adobe.com/",
    color: "#FF0000",
  },
  {
    domain: "linkedin.com",
    name: "LinkedIn",
    category: "social",
    loginUrl: "https://www.linkedin.com/login",
    color: "#0A66C2",
  },
  {
    domain: "facebook.com",
    name: "Facebook",
    category: "social",
    loginUrl: "https://www.facebook.com/login",
    color: "#1877F2",
    senderDomains: ["facebookmail.com"],
  },
  {
    domain: "instagram.com",
    name: "Instagram",
    category: "social",
    loginUrl: "https://www.instagram.com/accounts/login/",
    color: "#E4405F",
  },
  {
    domain: "x.com",
    name: "X",
    category: "social",
    loginUrl: "https://x.com/i/flow/login",
    color: "#000000",
    senderDomains: ["twitter.com"],
  },
  {
    domain: "reddit.com",
    name: "Reddit",
    category: "social",
    loginUrl: "https://www.reddit.com/login",
    color: "#FF4500",
    senderDomains: ["redditmail.com"],
  },
  {
    domain: "discord.com",
    name: "Discord",
    category: "social",
    loginUrl: "https://discord.com/login",
    color: "#5865F2",
  },
  {
    domain: "twitch.tv",
    name: "Twitch",
    category: "entertainment",
    loginUrl: "https://www.twitch.tv/login",
    color: "#9146FF",
  },
  {
    domain: "netflix.com",
    name: "Netflix",
    category: "entertainment",
    loginUrl: "https://www.netflix.com/login",
    color: "#E50914",
  },
  {
    domain: "spotify.com",
    name: "Spotify",
    category: "entertainment",
    loginUrl: "https://accounts.spotify.com/login",
    color: "#1DB954",
  },
  {
    domain: "steampowered.com",
    name: "Steam",
    category: "entertainment",
    loginUrl: "https://store.steampowered.com/login/",
    color: "#171A21",
  },
  {
    domain: "amazon.com",
    name: "Amazon",
    category: "shopping",
    loginUrl: "https://www.amazon.com/ap/signin",
    color: "#FF9900",
  },
  {
    domain: "ebay.com",
    name: "eBay",
    category: "shopping",
    loginUrl: "https://signin.ebay.com/",
    color: "#E53238",
  },
  {
    domain: "etsy.com",
    name: "Etsy",
    category: "shopping",
    loginUrl: "https://www.etsy.com/signin",
    color: "#F1641E",
  },
  {
    domain: "shopify.com",
    name: "Shopify",
    category: "shopping",
    loginUrl: "https://accounts.shopify.com/lookup",
    color: "#7AB55C",
  },
  {
    domain: "airbnb.com",
    name: "Airbnb",
    category: "travel",
    loginUrl: "https://www.airbnb.com/login",
    color: "#FF5A5F",
  },
  {
    domain: "booking.com",
    name: "Booking.com",
    category: "travel",
    loginUrl: "https://account.booking.com/sign-in",
    color: "#003580",
  },
  {
    domain: "uber.com",
    name: "Uber",
    category: "travel",
    loginUrl: "https://auth.uber.com/",
    color: "#000000",
  },
  {
    domain: "paypal.com",
    name: "PayPal",
    category: "finance",
    loginUrl: "https://www.paypal.com/signin",
    color: "#003087",
  },
  {
    domain: "stripe.com",
    name: "Stripe",
    category: "finance",
    loginUrl: "https://dashboard.stripe.com/login",
    color: "#635BFF",
  },
  {
    domain: "coinbase.com",
    name: "Coinbase",
    category: "finance",
    loginUrl: "https://login.coinbase.com/signin",
    color: "#0052FF",
  },
  {
    domain: "duolingo.com",
    name: "Duolingo",
    category: "education",
    loginUrl: "https://www.duolingo.com/log-in",
    color: "#58CC02",
  },
];

const byDomain = new Map<string, KnownService>();
for (const s of KNOWN_SERVICES) {
  byDomain.set(s.domain, s);
  for (const d of s.senderDomains ?? []) byDomain.set(d, s);
}

/** The known service for a domain or any parent of it (accounts.github.com is GitHub). */
export function findKnownService(domain: string): KnownService | undefined {
  const labels = domain.toLowerCase().split(".");
  for (let i = 0; i <= labels.length - 2; i++) {
    const hit = byDomain.get(labels.slice(i).join("."));
    if (hit) return hit;
  }
  return undefined;
}
