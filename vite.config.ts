// Vite config for the app. COOP/COEP make the page cross-origin isolated so
// onnxruntime-web can use wasm threads; the CSP in index.html forbids any
// connection outside our own origin.
import { defineConfig } from 'vite';

const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  base: './',
  server: { headers: isolation },
  preview: { headers: isolation },
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    chunkSizeWarningLimit: 4096,
    rollupOptions: { input: { main: 'index.html', selftest: 'selftest.html', bench: 'bench.html' } },
  },
  optimizeDeps: { exclude: ['onnxruntime-web'] },
});
