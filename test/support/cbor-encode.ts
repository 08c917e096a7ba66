// A tiny CBOR encoder (RFC 8949) written from the RFC for tests, independent of the cbor-x based encoder the
// service uses: unsigned integers, byte strings, text strings, arrays, maps with text keys (in the order
// given) and tags. Enough to recompute small structures such as RelyingPartyMetadataBytes.

export class Tagged {
  constructor(
    readonly tag: number,
    readonly value: CborValue,
  ) {}
}

export type CborValue = number | string | Uint8Array | CborValue[] | Tagged | { [k: string]: CborValue };

function head(major: number, n: number): number[] {
  const m = major << 5;
  if (n < 24) return [m | n];
  if (n < 0x100) return [m | 24, n];
  if (n < 0x10000) return [m | 25, n >> 8, n & 0xff];
  return [m | 26, (n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
}

export function cborEncode(v: CborValue): Uint8Array {
  const out: number[] = [];
  const put = (x: CborValue): void => {
    if (typeof x === 'number') out.push(...head(0, x));
    else if (typeof x === 'string') {
      const b = new TextEncoder().encode(x);
      out.push(...head(3, b.length), ...b);
    } else if (x instanceof Uint8Array) out.push(...head(2, x.length), ...x);
    else if (Array.isArray(x)) {
      out.push(...head(4, x.length));
      for (const i of x) put(i);
    } else if (x instanceof Tagged) {
      out.push(...head(6, x.tag));
      put(x.value);
    } else {
      const entries = Object.entries(x);
      out.push(...head(5, entries.length));
      for (const [k, val] of entries) {
        put(k);
        put(val);
      }
    }
  };
  put(v);
  return new Uint8Array(out);
}
