/**
 * Built-in services that offer sign-in codes from an authenticator app (TOTP, RFC 6238) to every
 * account, as their own security settings document it. The vault's health check reports an entry
 * of one of these that holds no TOTP secret; services whose second factor is only SMS, a push to
 * their own app or a hardware key are not listed. Every domain here is a built-in service
 * (test/registry/two-factor.test.ts).
 */
export const TOTP_SERVICES: readonly string[] = [
  "google.com", "microsoft.com", "amazon.com", "adobe.com", "facebook.com", "instagram.com", "x.com", "linkedin.com",
  "reddit.com", "pinterest.com", "tiktok.com", "snapchat.com", "tumblr.com", "discord.com", "paypal.com", "stripe.com",
  "coinbase.com", "robinhood.com", "kraken.com", "binance.com", "dropbox.com", "slack.com", "zoom.us", "atlassian.com",
  "trello.com", "airtable.com", "canva.com", "figma.com", "box.com", "hubspot.com", "salesforce.com", "shopify.com",
  "ebay.com", "epicgames.com", "ea.com", "roblox.com", "twitch.tv", "playstation.com", "nintendo.com", "ubisoft.com",
  "github.com", "gitlab.com", "bitbucket.org", "npmjs.com", "digitalocean.com", "heroku.com", "cloudflare.com",
  "vercel.com", "netlify.com", "docker.com", "aws.amazon.com", "jetbrains.com", "pypi.org", "proton.me", "outlook.com",
  "zoho.com", "fastmail.com", "tuta.com", "openai.com", "wikipedia.org",
];
