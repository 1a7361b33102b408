// Browser asset fetcher for the engine: same-origin fetch with byte progress, kept in the Cache
// API so the models load offline after the first visit.
import type { AssetFetcher } from './engine';

const CACHE = 'gocr-models-v1';

export function browserFetcher(modelsBase: string): AssetFetcher {
  return {
    async fetch(path, onProgress) {
      const url = new URL(path, modelsBase).href;
      const cache = typeof caches !== 'undefined' ? await caches.open(CACHE).catch(() => null) : null;
      // default.json and manifests are small and may change with a new model: always revalidate.
      const volatile = path.endsWith('.json');
      let res = !volatile && cache ? await cache.match(url) : undefined;
      if (!res) {
        const net = await fetch(url, { cache: volatile ? 'no-cache' : 'default' });
        if (!net.ok) throw new Error(`could not load ${path}: HTTP ${net.status}`);
        if (cache && !volatile) await cache.put(url, net.clone()).catch(() => undefined);
        res = net;
      }
      const total = Number(res.headers.get('content-length') ?? 0);
      if (!res.body || !onProgress) return new Uint8Array(await res.arrayBuffer());
      const reader = res.body.getReader();
      const chunks: Uint8Array[] = [];
      let loaded = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        loaded += value.length;
        onProgress(loaded, total || loaded);
      }
      const out = new Uint8Array(loaded);
      let o = 0;
      for (const c of chunks) {
        out.set(c, o);
        o += c.length;
      }
      return out;
    },
  };
}
