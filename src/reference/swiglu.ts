// CPU twin of shaders/swiglu.wgsl: h = silu(gate) · up.
export function swigluRef(gate: Float32Array, up: Float32Array): Float32Array {
  const h = new Float32Array(gate.length);
  for (let i = 0; i < gate.length; i++) {
    const g = gate[i];
    h[i] = (g / (1 + Math.exp(-g))) * up[i];
  }
  return h;
}
