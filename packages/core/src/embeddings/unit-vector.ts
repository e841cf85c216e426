/**
 * Providers do not all return unit-length vectors (Gemini below 3072
 * dimensions does not), and the stores compare by cosine / dot product, so
 * every embedder hands out L2-normalised vectors.
 */
export function toUnitVector(values: ArrayLike<number>): Float32Array {
  const vector = Float32Array.from(values);
  let sumOfSquares = 0;
  for (let index = 0; index < vector.length; index += 1) sumOfSquares += vector[index]! * vector[index]!;
  const norm = Math.sqrt(sumOfSquares);
  // A zero vector has no direction; leave it as it is rather than fill it with NaN.
  if (norm > 0) for (let index = 0; index < vector.length; index += 1) vector[index] = vector[index]! / norm;
  return vector;
}
