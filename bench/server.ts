// A small static server for the benchmark: the built app (bench.html) plus the models, the test
// pages and the peers' assets under fixed prefixes, with the COOP/COEP headers onnxruntime-web
// needs. Same origin only; nothing is fetched from anywhere else.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.pdf': 'application/pdf',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.pfb': 'application/octet-stream',
  '.bcmap': 'application/octet-stream',
};

export interface Mounts {
  /** URL prefix ('/x/') → directory; the longest matching prefix wins. */
  [prefix: string]: string;
}

export async function serve(mounts: Mounts, port = 0): Promise<{ server: Server; url: string }> {
  const entries = Object.entries(mounts)
    .map(([p, d]) => [p, resolve(d)] as const)
    .sort((a, b) => b[0].length - a[0].length);
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const hit = entries.find(([p]) => path.startsWith(p));
    const headers: Record<string, string> = {
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Cross-Origin-Resource-Policy': 'same-origin',
      'Cache-Control': 'no-store',
    };
    if (!hit) {
      res.writeHead(404, headers).end('not found');
      return;
    }
    const [prefix, dir] = hit;
    let file = normalize(join(dir, path.slice(prefix.length)));
    if (!file.startsWith(dir + sep) && file !== dir) {
      res.writeHead(403, headers).end('forbidden');
      return;
    }
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) {
      res.writeHead(404, headers).end('not found');
      return;
    }
    headers['Content-Type'] = MIME[extname(file).toLowerCase()] ?? 'application/octet-stream';
    headers['Content-Length'] = String(statSync(file).size);
    res.writeHead(200, headers);
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  const addr = server.address();
  const p = typeof addr === 'object' && addr ? addr.port : port;
  return { server, url: `http://127.0.0.1:${p}` };
}
