// WGSL files are imported as strings: `import src from '../../shaders/x.wgsl?raw'`.
declare module '*.wgsl?raw' {
  const source: string;
  export default source;
}
