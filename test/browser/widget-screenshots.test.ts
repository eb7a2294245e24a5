import { expect } from '@open-wc/testing';
import { executeServerCommand, setViewport } from '@web/test-runner-commands';
import '../../src/widget/index.js';
import type { KagentChat } from '../../src/widget/index.js';
import { mountChat, part, removeAllChats, settled, uniqueAgent } from './widget-helpers.js';

// Pictures of each mode and theme, kept under docs/ for the README
// (UPDATE_SCREENSHOTS=1 rewrites them). Each test also reads the picture
// back and checks it shows the chat in the theme asked for.

interface Clip {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Takes the screenshot, decodes it, and returns a reader of its pixels in CSS pixels of the page. */
async function screenshot(name: string, clip?: Clip): Promise<{ width: number; pixel: (x: number, y: number) => number[] }> {
  const base64 = await executeServerCommand<string, { name: string; clip?: Clip }>('widget-screenshot', clip ? { name, clip } : { name });
  const image = new Image();
  image.src = `data:image/png;base64,${base64}`;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = image.width;
  canvas.height = image.height;
  const context = canvas.getContext('2d')!;
  context.drawImage(image, 0, 0);
  const scale = image.width / (clip?.width ?? innerWidth);
  return { width: image.width, pixel: (x, y) => [...context.getImageData(Math.round(x * scale), Math.round(y * scale), 1, 1).data].slice(0, 3) };
}

const brightness = ([r, g, b]: number[]) => (r! + g! + b!) / 3;

async function chatWithAnAnswer(attributes: Record<string, string>): Promise<KagentChat> {
  const chat = await mountChat(uniqueAgent('shot'), 'answer', {
    heading: 'Product help',
    welcome: 'Hi! Ask me anything about **your account** or billing.',
    ...attributes,
  });
  if (chat.mode === 'bubble') {
    chat.open();
    await chat.updateComplete;
  }
  chat.send('How do I reset my password?');
  await settled(chat);
  (chat.shadowRoot!.activeElement as HTMLElement | null)?.blur();
  return chat;
}

describe('<kagent-chat> screenshots of each mode and theme', () => {
  beforeEach(() => localStorage.clear());
  afterEach(async () => {
    removeAllChats();
    document.body.style.background = '';
    await setViewport({ width: 1000, height: 700 });
  });

  for (const theme of ['light', 'dark'] as const) {
    it(`inline, ${theme}`, async () => {
      await setViewport({ width: 700, height: 720 });
      document.body.style.background = theme === 'dark' ? '#0b0d12' : '#f4f5f7';
      const chat = await chatWithAnAnswer({ theme, style: 'display:block; width: 560px; height: 600px; margin: 16px' });
      const rect = chat.getBoundingClientRect();
      const shot = await screenshot(`widget-inline-${theme}`, { x: rect.x - 8, y: rect.y - 8, width: rect.width + 16, height: rect.height + 16 });
      // The chat's surface, just inside its top-left corner below the header.
      const surface = brightness(shot.pixel(30, 80));
      if (theme === 'dark') expect(surface).to.be.below(60);
      else expect(surface).to.be.above(240);
    });

    it(`bubble, open, ${theme}`, async () => {
      await setViewport({ width: 900, height: 760 });
      document.body.style.background = theme === 'dark' ? '#0b0d12' : '#f4f5f7';
      const chat = await chatWithAnAnswer({ theme, mode: 'bubble' });
      const shot = await screenshot(`widget-bubble-${theme}`);
      const launcher = part(chat, 'launcher')!.getBoundingClientRect();
      // The launcher is drawn in the accent colour at the bottom right.
      const [r, g, b] = shot.pixel(launcher.x + launcher.width / 2 - 14, launcher.y + launcher.height / 2);
      expect(b!).to.be.above(r! + 60);
      expect(g).to.be.a('number');
      const panel = part(chat, 'base')!.getBoundingClientRect();
      const surface = brightness(shot.pixel(panel.x + 20, panel.y + 70));
      if (theme === 'dark') expect(surface).to.be.below(60);
      else expect(surface).to.be.above(240);
    });
  }

  it('bubble, open on a phone', async () => {
    await setViewport({ width: 375, height: 667 });
    const chat = await chatWithAnAnswer({ mode: 'bubble' });
    const shot = await screenshot('widget-bubble-mobile');
    expect(part(chat, 'base')!.getBoundingClientRect().width).to.equal(375);
    expect(brightness(shot.pixel(8, 300))).to.be.above(240);
  });
});
