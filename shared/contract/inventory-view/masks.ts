/** Codes as bit masks: bit i stands for `vocabulary[i]`. */

export function toMask<T extends string>(vocabulary: readonly T[], values: readonly T[]): number {
  let bits = 0;
  for (const value of values) {
    const at = vocabulary.indexOf(value);
    if (at >= 0) bits |= 1 << at;
  }
  return bits;
}

export function fromMask<T extends string>(vocabulary: readonly T[], bits: number): T[] {
  const values: T[] = [];
  for (let at = 0; at < vocabulary.length; at++) if (bits & (1 << at)) values.push(vocabulary[at]!);
  return values;
}

/** Masks repeat across thousands of rows; decoding shares one frozen array per distinct mask. */
export function maskDecoder<T extends string>(vocabulary: readonly T[]): (bits: number) => readonly T[] {
  const cache = new Map<number, readonly T[]>();
  return (bits) => {
    let values = cache.get(bits);
    if (!values) {
      values = Object.freeze(fromMask(vocabulary, bits));
      cache.set(bits, values);
    }
    return values;
  };
}
