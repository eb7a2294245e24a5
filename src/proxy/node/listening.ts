/** The start-up line's fields, and the warnings printed after it. */
export type Listening = Record<string, unknown> & { message: string; warnings: string[] };

/** The start-up line on stdout, then each warning on a line of its own on stderr, where an operator's eye lands last. */
export function printListening({ warnings, ...listening }: Listening): void {
  console.log(JSON.stringify(listening));
  for (const warning of warnings) console.warn(JSON.stringify({ level: 'warn', message: warning }));
}
