/**
 * Table rows as readable lines: the first non-empty row names the columns, and every later
 * row becomes "Header: value; Header: value" (empty cells left out), so a line keeps its
 * meaning when it is retrieved on its own.
 */
export function tableRowsToLines(rows: readonly (readonly string[])[]): string[] {
  const lines: string[] = [];
  let headers: string[] | undefined;
  for (const row of rows) {
    const cells = row.map((cell) => cell.replace(/\s+/g, ' ').trim());
    if (!cells.some(Boolean)) continue;
    if (!headers) {
      headers = cells;
      lines.push(cells.filter(Boolean).join(' | '));
      continue;
    }
    const pairs: string[] = [];
    cells.forEach((cell, index) => {
      if (!cell) return;
      const header = headers![index] || columnName(index);
      pairs.push(`${header}: ${cell}`);
    });
    lines.push(pairs.join('; '));
  }
  return lines;
}

/** Spreadsheet column letters for a zero-based index: 0 -> "Column A", 27 -> "Column AB". */
function columnName(index: number): string {
  let letters = '';
  for (let rest = index + 1; rest > 0; rest = Math.floor((rest - 1) / 26)) {
    letters = String.fromCharCode(65 + ((rest - 1) % 26)) + letters;
  }
  return `Column ${letters}`;
}
