import { cpus, type as osType, release, totalmem } from 'node:os';

// Plain-text tables for the terminal (and to paste into BENCHMARKS.md), and the budget lines.

export function machine(): string {
  const list = cpus();
  const model = list[0]?.model.trim() ?? 'unknown CPU';
  return [
    `${list.length} × ${model}`,
    `${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM`,
    `${osType()} ${release()}`,
    `Node ${process.version}`,
  ].join(' · ');
}

export function ms(value: number, digits = 2): string {
  return Number.isFinite(value) ? `${value.toFixed(digits)} ms` : 'n/a';
}

export function ratio(value: number, base: number): string {
  return Number.isFinite(value) && Number.isFinite(base) && base > 0
    ? `${(value / base).toFixed(2)}×`
    : 'n/a';
}

export function kib(bytes: number): string {
  return Number.isFinite(bytes) ? `${(bytes / 2 ** 10).toFixed(0)} KiB` : 'n/a';
}

export function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

/** A Markdown table, columns padded so it also reads well in a terminal; a blank line ends it. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, i) =>
    Math.max(header.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [
    line(headers),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.map(line),
    '',
  ].join('\n');
}

export interface Budget {
  name: string;
  measured: string;
  limit: string;
  pass: boolean;
}

export function budgetLines(budgets: readonly Budget[]): string {
  const width = Math.max(...budgets.map((b) => b.name.length));
  return budgets
    .map(
      (b) =>
        `${b.pass ? 'PASS' : 'FAIL'}  ${b.name.padEnd(width)}  ${b.measured} (budget ${b.limit})`,
    )
    .join('\n');
}
