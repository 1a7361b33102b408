"""GravityOCR training package: tokenizer, model, joint AR + block-diffusion loss, data, decoders."""
