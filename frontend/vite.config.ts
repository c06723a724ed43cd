/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Served by `iolens serve` at / (index.html fallback for every non-/api path), so assets use
// absolute paths. In development the API runs separately: `iolens serve --port 8000`.
export default defineConfig({
  base: '/',
  plugins: [react()],
  server: {
    proxy: { '/api': 'http://127.0.0.1:8000' },
  },
  build: { outDir: 'dist', sourcemap: true },
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx'],
    environment: 'node',
    env: { TZ: 'UTC', LC_ALL: 'C' },
  },
});
