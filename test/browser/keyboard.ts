// Typing and key presses that hold in every browser (not a test file itself). WebKit's WebDriver answers a
// click or key command before the page has had its events: a key sent before the click's focus arrived goes
// elsewhere, and a value read at once is still empty. So the focus is confirmed before typing, and what a key
// does is waited for, never read right after the command.
import { sendKeys } from '@web/test-runner-commands';
import { describeNode } from './host-helpers.js';
import { waitFor } from './widget-helpers.js';

/** The element with the focus, looking into shadow roots and same-origin frames. */
export function focusedElement(root: Document | ShadowRoot = document): Element | null {
  let active = root.activeElement;
  for (;;) {
    if (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    else if (active instanceof HTMLIFrameElement && active.contentDocument?.activeElement) active = active.contentDocument.activeElement;
    else return active;
  }
}

/** Waits until `element` has the focus (after a real click, which WebKit may deliver late). */
export async function waitForFocus(element: Element): Promise<void> {
  await waitFor(() => focusedElement() === element, `the focus in ${describeNode(element)}`);
}

/** Types `text` into `field`, which has or is getting the focus, and waits until the field holds it. */
export async function typeInto(field: HTMLInputElement | HTMLTextAreaElement, text: string): Promise<void> {
  await waitForFocus(field);
  const expected = field.value + text;
  await sendKeys({ type: text });
  await waitFor(() => field.value === expected, `"${expected}" typed into ${describeNode(field)}`);
}
