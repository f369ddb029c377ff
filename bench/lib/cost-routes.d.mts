/** Types of cost-routes.mjs for the regression test (test/cost/budget.test.ts). */
export type CostCtx = {
  size: number;
  id: (k: number) => string;
  call: (method: string, path: string, body?: unknown) => Promise<{ status: number; json: any }>;
  b64: (n: number) => string;
  stamp: () => string;
  [more: string]: unknown;
};
export type CostRoute = {
  key: string;
  label: string;
  few?: boolean;
  setup?: (ctx: CostCtx) => Promise<void>;
  send: (ctx: CostCtx, i: number) => Promise<any>;
};
export const routineRoutes: CostRoute[];
export function seedThroughApi(ctx: CostCtx, prefix: string): Promise<void>;
export function entry(ctx: CostCtx, i: number): Record<string, unknown>;
