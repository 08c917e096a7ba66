// A small CBOR codec (RFC 8949) written for the independent test wallet, so that it shares no CBOR library with
// the verifier: definite lengths only on output; on input also indefinite strings, arrays and maps. Byte strings
// are Uint8Array, maps are Map (keys kept in their order), tags are Tagged (tag 24's byte string is kept as it
// came, so an IssuerSignedItemBytes re-encodes to the exact bytes its digest was computed over).

export class Tagged {
  constructor(
    readonly tag: number,
    readonly value: unknown,
  ) {}
}

/** `#6.24(bstr .cbor value)`: an embedded CBOR data item. */
export const embed = (value: unknown): Tagged => new Tagged(24, encode(value));

function head(major: number, n: number | bigint): number[] {
  const v = BigInt(n);
  const m = major << 5;
  if (v < 24n) return [m | Number(v)];
  if (v < 0x100n) return [m | 24, Number(v)];
  if (v < 0x10000n) return [m | 25, Number(v >> 8n), Number(v & 0xffn)];
  if (v < 0x100000000n) {
    return [m | 26, ...[24n, 16n, 8n, 0n].map((s) => Number((v >> s) & 0xffn))];
  }
  return [m | 27, ...[56n, 48n, 40n, 32n, 24n, 16n, 8n, 0n].map((s) => Number((v >> s) & 0xffn))];
}

export function encode(value: unknown): Uint8Array {
  const out: number[] = [];
  const push = (bytes: ArrayLike<number>) => {
    for (let i = 0; i < bytes.length; i++) out.push(bytes[i] as number);
  };
  const walk = (v: unknown): void => {
    if (v === null || v === undefined) out.push(v === null ? 0xf6 : 0xf7);
    else if (v === false) out.push(0xf4);
    else if (v === true) out.push(0xf5);
    else if (typeof v === 'number' || typeof v === 'bigint') {
      if (typeof v === 'number' && !Number.isInteger(v)) {
        const b = new DataView(new ArrayBuffer(8));
        b.setFloat64(0, v);
        out.push(0xfb);
        push(new Uint8Array(b.buffer));
      } else if (v >= 0) push(head(0, v));
      else push(head(1, -1n - BigInt(v)));
    } else if (typeof v === 'string') {
      const b = new TextEncoder().encode(v);
      push(head(3, b.length));
      push(b);
    } else if (v instanceof Uint8Array) {
      push(head(2, v.length));
      push(v);
    } else if (Array.isArray(v)) {
      push(head(4, v.length));
      for (const x of v) walk(x);
    } else if (v instanceof Map) {
      push(head(5, v.size));
      for (const [k, x] of v) {
        walk(k);
        walk(x);
      }
    } else if (v instanceof Tagged) {
      push(head(6, v.tag));
      walk(v.value);
    } else if (typeof v === 'object') {
      const entries = Object.entries(v as Record<string, unknown>);
      push(head(5, entries.length));
      for (const [k, x] of entries) {
        walk(k);
        walk(x);
      }
    } else throw new Error(`cannot encode ${typeof v}`);
  };
  walk(value);
  return Uint8Array.from(out);
}

export function decode(bytes: Uint8Array): unknown {
  let i = 0;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const need = (n: number) => {
    if (i + n > bytes.length) throw new Error('truncated CBOR');
  };
  const argument = (info: number): number => {
    if (info < 24) return info;
    const size = [1, 2, 4, 8][info - 24];
    if (size === undefined) throw new Error(`unsupported CBOR additional info ${info}`);
    need(size);
    let n = 0;
    for (let k = 0; k < size; k++) n = n * 256 + (bytes[i + k] as number);
    i += size;
    return n;
  };
  const item = (): unknown => {
    need(1);
    const b = bytes[i++] as number;
    const major = b >> 5;
    const info = b & 0x1f;
    if (major === 7) {
      if (info === 20) return false;
      if (info === 21) return true;
      if (info === 22) return null;
      if (info === 23) return undefined;
      if (info === 25) {
        need(2);
        const h = dv.getUint16(i);
        i += 2;
        const e = (h >> 10) & 0x1f;
        const f = h & 0x3ff;
        const s = h & 0x8000 ? -1 : 1;
        return e === 0
          ? s * 2 ** -14 * (f / 1024)
          : e === 31
            ? s * Infinity
            : s * 2 ** (e - 15) * (1 + f / 1024);
      }
      if (info === 26) {
        need(4);
        i += 4;
        return dv.getFloat32(i - 4);
      }
      if (info === 27) {
        need(8);
        i += 8;
        return dv.getFloat64(i - 8);
      }
      throw new Error(`unsupported CBOR simple value ${info}`);
    }
    if (info === 31) {
      // indefinite length
      if (major === 2 || major === 3) {
        const chunks: Uint8Array[] = [];
        while (bytes[i] !== 0xff) chunks.push(item() as Uint8Array);
        i++;
        const joined = Uint8Array.from(
          chunks.flatMap((c) => [...(typeof c === 'string' ? new TextEncoder().encode(c) : c)]),
        );
        return major === 2 ? joined : new TextDecoder().decode(joined);
      }
      if (major === 4) {
        const a: unknown[] = [];
        while (bytes[i] !== 0xff) a.push(item());
        i++;
        return a;
      }
      if (major === 5) {
        const m = new Map<unknown, unknown>();
        while (bytes[i] !== 0xff) m.set(item(), item());
        i++;
        return m;
      }
      throw new Error('bad indefinite CBOR item');
    }
    const n = argument(info);
    switch (major) {
      case 0:
        return n;
      case 1:
        return -1 - n;
      case 2: {
        need(n);
        i += n;
        return bytes.slice(i - n, i);
      }
      case 3: {
        need(n);
        i += n;
        return new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(i - n, i));
      }
      case 4:
        return Array.from({ length: n }, () => item());
      case 5: {
        const m = new Map<unknown, unknown>();
        for (let k = 0; k < n; k++) m.set(item(), item());
        return m;
      }
      default:
        return new Tagged(n, item());
    }
  };
  const v = item();
  if (i !== bytes.length) throw new Error('trailing bytes after CBOR item');
  return v;
}
