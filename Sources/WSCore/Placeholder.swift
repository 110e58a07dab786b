// Placeholder so the target builds; replaced as the layer is written.
