import { defineConfig } from 'vite';

// The demo page is served from demo/; library builds are configured beside the widget.
export default defineConfig({
  root: 'demo',
  server: { host: '127.0.0.1' },
});
