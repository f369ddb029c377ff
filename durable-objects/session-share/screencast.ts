import type { CDPSession } from "@cloudflare/puppeteer";

type Frame = {
  data: string;
  sessionId: number;
  metadata: { deviceWidth: number; deviceHeight: number };
};

/**
 * Drives CDP's screencast (Page.startScreencast) for one tab: acknowledges each frame so the next
 * one comes, keeps the latest as a ready-to-send message for late joiners, and hands each to `onFrame`.
 */
export class Screencast {
  private casting = false;
  lastFrame?: string;

  constructor(
    private readonly cdp: CDPSession,
    private readonly viewport: { width: number; height: number },
    private readonly onFrame: (msg: string) => void,
  ) {
    cdp.on("Page.screencastFrame", (f: Frame) => this.frame(f));
  }

  async start() {
    if (this.casting) return;
    this.casting = true;
    await this.cdp.send("Page.startScreencast", {
      format: "jpeg",
      quality: 60,
      maxWidth: this.viewport.width,
      maxHeight: this.viewport.height,
      everyNthFrame: 1,
    });
  }

  async stop() {
    if (!this.casting) return;
    this.casting = false;
    await this.cdp.send("Page.stopScreencast").catch(() => undefined);
  }

  /** Input goes down the same CDP session the frames come up on (the Input domain). */
  send(
    method: "Input.dispatchMouseEvent" | "Input.dispatchKeyEvent",
    params: Record<string, unknown>,
  ) {
    return this.cdp.send(method as "Input.dispatchMouseEvent", params as never);
  }

  private frame(f: Frame) {
    void this.cdp
      .send("Page.screencastFrameAck", { sessionId: f.sessionId })
      .catch(() => undefined);
    const msg = JSON.stringify({
      type: "frame",
      data: f.data,
      width: Math.round(f.metadata.deviceWidth),
      height: Math.round(f.metadata.deviceHeight),
    });
    this.lastFrame = msg;
    this.onFrame(msg);
  }
}
