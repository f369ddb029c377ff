/** "1 hour", "2 hours", "0 days": a count with its unit, for text people read (mail, notifications). */
export function countOf(n: number, unit: string, units = `${unit}s`): string {
  return `${n} ${n === 1 ? unit : units}`;
}
