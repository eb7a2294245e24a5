/** The browser's path: CHROME_PATH when set, else the first one installed. Exits with advice when none is found. */
export function findChrome(): string;
