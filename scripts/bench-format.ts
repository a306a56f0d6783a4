// The bench's numbers: latency percentiles, thousands separators, and console and Markdown tables.

/** Latency percentiles and mean, in ms. */
export interface LatencySummary {
  p50: number;
  p90: number;
  p99: number;
  average: number;
  max: number;
}

/** Latency percentiles (nearest rank) of response times in ms. */
export function latencySummary(times: number[]): LatencySummary {
  const sorted = Float64Array.from(times).sort();
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
  const round = (ms: number) => Math.round(ms * 100) / 100;
  const sum = sorted.reduce((a, b) => a + b, 0);
  return { p50: round(at(50)), p90: round(at(90)), p99: round(at(99)), average: round(sum / Math.max(1, sorted.length)), max: round(at(100)) };
}

/** A number with thousands separators and `digits` decimals. */
export function fmt(n: number, digits: number): string {
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

// ---------------------------------------------------------------------------------------------
// Tables
// ---------------------------------------------------------------------------------------------

/** A plain-text table: text columns left-aligned, numbers right-aligned. */
export function consoleTable(cells: string[][]): string {
  const header = cells[0] ?? [];
  const full = cells.filter((row) => row.length === header.length);
  const widths = header.map((_, i) => Math.max(...(i < 2 ? cells : full).map((row) => (row[i] ?? '').length)));
  const line = (row: string[]) =>
    row
      .map((cell, i) => (row.length < header.length && i === row.length - 1 ? cell : i < 2 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

/** A GitHub Markdown table. */
export function markdownTable(cells: string[][]): string {
  const header = cells[0] ?? [];
  const line = (row: string[]) => `| ${header.map((_, i) => (row[i] ?? '').replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(header), `| ${header.map((_, i) => (i < 2 ? '---' : '---:')).join(' | ')} |`, ...cells.slice(1).map(line)].join('\n');
}
