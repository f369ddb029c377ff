import type { Hono } from "hono";
import { globalDb } from "../../db/client";
import { route } from "../../http/route";
import type { AppEnv } from "../../http/types";
import { SignInDiscoveryBody, SignInDiscoveryResponse } from "./schema";
import { discoverSignIn } from "./sign-in-discovery";

export function registerResetRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "post",
    path: "/api/sign-in-discovery",
    summary: "Inspect a login page: sign-in methods, reset and signup URLs",
    tags: ["reset"],
    body: SignInDiscoveryBody,
    responses: { 200: { description: "What the page offers", schema: SignInDiscoveryResponse }, 422: { description: "The page could not be read" } },
    handler: async (c, { body }) => c.json(await discoverSignIn(c.get("config"), globalDb(c.env), body.url)),
  });
}
