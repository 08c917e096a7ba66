// Owns recognising a logo upload: its type from the magic bytes (never the declared Content-Type or file
// name) and its pixel size from the image header, without decoding pixels. Only PNG, JPEG and WebP are
// logos; SVG (script), GIF, BMP and everything else are not (ADR 0019).

export type LogoContentType = 'image/png' | 'image/jpeg' | 'image/webp';

export interface LogoHeader {
  contentType: LogoContentType;
  width: number;
  height: number;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The kind of image the bytes start like, or null when none we take. */
export function sniffLogoType(b: Buffer): LogoContentType | null {
  if (b.length >= 8 && b.subarray(0, 8).equals(PNG_SIGNATURE)) return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP')
    return 'image/webp';
  return null;
}

/**
 * Type and pixel size of a PNG, JPEG or WebP image; null when the bytes are not one of them or the header
 * that carries the size is missing or cut off.
 */
export function readLogoHeader(b: Buffer): LogoHeader | null {
  const contentType = sniffLogoType(b);
  const size =
    contentType === 'image/png'
      ? pngSize(b)
      : contentType === 'image/jpeg'
        ? jpegSize(b)
        : contentType === 'image/webp'
          ? webpSize(b)
          : null;
  return contentType && size ? { contentType, ...size } : null;
}

type Size = { width: number; height: number } | null;

/** PNG: the first chunk must be IHDR (width, height as big-endian u32). */
function pngSize(b: Buffer): Size {
  if (b.length < 24 || b.toString('latin1', 12, 16) !== 'IHDR') return null;
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

/** JPEG: walks the marker segments to the first start-of-frame (SOF0-SOF15 but DHT, JPG and DAC). */
function jpegSize(b: Buffer): Size {
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1] as number;
    if (marker === 0xff) {
      i += 1; // fill byte
      continue;
    }
    // standalone markers carry no length
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null; // end of image / start of scan before any frame
    const length = b.readUInt16BE(i + 2);
    if (length < 2) return null;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (i + 9 > b.length) return null;
      return { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) };
    }
    i += 2 + length;
  }
  return null;
}

/** WebP: the first chunk is VP8 (lossy), VP8L (lossless) or VP8X (extended), each with its own size field. */
function webpSize(b: Buffer): Size {
  if (b.length < 30) return null;
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8 ') {
    // frame tag (3 bytes), start code 9d 01 2a, then 14-bit width and height (little-endian)
    if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) return null;
    return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  }
  if (chunk === 'VP8L') {
    if (b[20] !== 0x2f) return null;
    const bits = b.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') return { width: b.readUIntLE(24, 3) + 1, height: b.readUIntLE(27, 3) + 1 };
  return null;
}
