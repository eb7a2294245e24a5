// The page's viewport at a size, in every browser the tests run in (not a test file itself).
import { executeServerCommand } from '@web/test-runner-commands';

/** Sets the viewport to `width` x `height` CSS pixels and waits until the page sees it. */
export async function setWindowSize(width: number, height: number): Promise<void> {
  await executeServerCommand('window-size', { width, height });
  const start = performance.now();
  while (innerWidth !== width || innerHeight !== height) {
    if (performance.now() - start > 10_000) throw new Error(`the viewport stayed ${innerWidth}x${innerHeight}, not ${width}x${height}`);
    await new Promise((resolve) => requestAnimationFrame(resolve));
  }
}

/** Chromium, where the DevTools protocol's commands (`emulate-device`, `second-page`, `widget-screenshot`) work. */
// Headless Chromium says HeadlessChrome/ where a window says Chrome/.
export const inChromium = /\b(?:Headless)?Chrome\//.test(navigator.userAgent);
