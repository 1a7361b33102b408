// `node --import ./tools/node/register.mjs --import tsx script.ts` : enables `?raw` imports.
import { register } from 'node:module';
register('./wgsl-hooks.mjs', import.meta.url);
