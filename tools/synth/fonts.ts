/** Font families from Debian packages used by the generator (each verified at startup). */
export type FontKind = 'serif' | 'sans' | 'mono';
export interface FontFamily {
  name: string;
  kind: FontKind;
  /** Debian package that ships it (documentation only) */
  pkg: string;
  /** paper-like (TeX) look */
  tex?: boolean;
}

export const FONTS: FontFamily[] = [
  { name: 'Latin Modern Roman', kind: 'serif', pkg: 'fonts-lmodern', tex: true },
  { name: 'Latin Modern Sans', kind: 'sans', pkg: 'fonts-lmodern', tex: true },
  { name: 'Latin Modern Mono', kind: 'mono', pkg: 'fonts-lmodern', tex: true },
  { name: 'TeX Gyre Termes', kind: 'serif', pkg: 'fonts-texgyre', tex: true },
  { name: 'TeX Gyre Pagella', kind: 'serif', pkg: 'fonts-texgyre', tex: true },
  { name: 'TeX Gyre Bonum', kind: 'serif', pkg: 'fonts-texgyre' },
  { name: 'TeX Gyre Schola', kind: 'serif', pkg: 'fonts-texgyre' },
  { name: 'TeX Gyre Heros', kind: 'sans', pkg: 'fonts-texgyre' },
  { name: 'Linux Libertine O', kind: 'serif', pkg: 'fonts-linuxlibertine', tex: true },
  { name: 'Linux Biolinum O', kind: 'sans', pkg: 'fonts-linuxlibertine' },
  { name: 'EB Garamond', kind: 'serif', pkg: 'fonts-ebgaramond' },
  { name: 'Gentium', kind: 'serif', pkg: 'fonts-sil-gentium' },
  { name: 'Noto Serif', kind: 'serif', pkg: 'fonts-noto-core' },
  { name: 'Noto Sans', kind: 'sans', pkg: 'fonts-noto-core' },
  { name: 'DejaVu Serif', kind: 'serif', pkg: 'fonts-dejavu-core' },
  { name: 'DejaVu Sans', kind: 'sans', pkg: 'fonts-dejavu-core' },
  { name: 'DejaVu Sans Mono', kind: 'mono', pkg: 'fonts-dejavu-core' },
  { name: 'Tinos', kind: 'serif', pkg: 'fonts-croscore' },
  { name: 'Arimo', kind: 'sans', pkg: 'fonts-croscore' },
  { name: 'Cousine', kind: 'mono', pkg: 'fonts-croscore' },
  { name: 'Caladea', kind: 'serif', pkg: 'fonts-crosextra-caladea' },
  { name: 'Carlito', kind: 'sans', pkg: 'fonts-crosextra-carlito' },
  { name: 'Lato', kind: 'sans', pkg: 'fonts-lato' },
  { name: 'Open Sans', kind: 'sans', pkg: 'fonts-open-sans' },
  { name: 'Roboto', kind: 'sans', pkg: 'fonts-roboto-unhinted' },
  { name: 'FreeSerif', kind: 'serif', pkg: 'fonts-freefont-ttf' },
  { name: 'FreeSans', kind: 'sans', pkg: 'fonts-freefont-ttf' },
  { name: 'FreeMono', kind: 'mono', pkg: 'fonts-freefont-ttf' },
  { name: 'STIXGeneral', kind: 'serif', pkg: 'fonts-stix', tex: true },
  { name: 'Nimbus Roman', kind: 'serif', pkg: 'fonts-urw-base35' },
  { name: 'Nimbus Sans', kind: 'sans', pkg: 'fonts-urw-base35' },
  { name: 'C059', kind: 'serif', pkg: 'fonts-urw-base35' },
  { name: 'P052', kind: 'serif', pkg: 'fonts-urw-base35' },
  { name: 'URW Gothic', kind: 'sans', pkg: 'fonts-urw-base35' },
  { name: 'Inconsolata', kind: 'mono', pkg: 'fonts-inconsolata' },
  { name: 'Nimbus Mono PS', kind: 'mono', pkg: 'fonts-urw-base35' },
];

export function fontsOf(kind: FontKind, list: FontFamily[] = FONTS): FontFamily[] {
  return list.filter((f) => f.kind === kind);
}

export function cssFamily(f: FontFamily): string {
  const generic = f.kind === 'mono' ? 'monospace' : f.kind === 'sans' ? 'sans-serif' : 'serif';
  return `'${f.name}', ${generic}`;
}
