// CPU twin of shaders/residual.wgsl: x += y in place.
export function residualRef(x: Float32Array, y: Float32Array): void {
  for (let i = 0; i < x.length; i++) x[i] += y[i];
}
