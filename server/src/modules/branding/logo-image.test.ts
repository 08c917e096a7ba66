import { describe, expect, it } from 'vitest';
import { readLogoHeader, sniffLogoType } from './logo-image';

const riff = (chunk: string, body: number[]): Buffer => {
  const b = Buffer.alloc(32);
  b.write('RIFF', 0, 'latin1');
  b.writeUInt32LE(22, 4);
  b.write(`WEBP${chunk}`, 8, 'latin1');
  b.set(body, 20);
  return b;
};

describe('logo header', () => {
  it('reads PNG, JPEG (past other segments and fill bytes) and all three WebP kinds', () => {
    const pngHead = Buffer.alloc(24);
    pngHead.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    pngHead.write('IHDR', 12, 'latin1');
    pngHead.writeUInt32BE(300, 16);
    pngHead.writeUInt32BE(90, 20);
    expect(readLogoHeader(pngHead)).toEqual({ contentType: 'image/png', width: 300, height: 90 });

    // SOI, APP1 (4 bytes of payload), a fill byte, SOF2 (progressive): height 0x0123, width 0x0456
    const jpeg = Buffer.from([
      0xff, 0xd8, 0xff, 0xe1, 0x00, 0x06, 1, 2, 3, 4, 0xff, 0xff, 0xc2, 0x00, 0x11, 0x08, 0x01, 0x23, 0x04,
      0x56,
    ]);
    expect(readLogoHeader(jpeg)).toEqual({ contentType: 'image/jpeg', width: 0x456, height: 0x123 });
    // DHT (0xc4) is not a frame header
    expect(readLogoHeader(Buffer.from([0xff, 0xd8, 0xff, 0xc4, 0x00, 0x04, 0, 0, 0xff, 0xd9]))).toBeNull();

    const lossy = riff('VP8 ', [0, 0, 0, 0x9d, 0x01, 0x2a]);
    lossy.writeUInt16LE(640, 26);
    lossy.writeUInt16LE(480, 28);
    expect(readLogoHeader(lossy)).toEqual({ contentType: 'image/webp', width: 640, height: 480 });
    const lossless = riff('VP8L', [0x2f]);
    lossless.writeUInt32LE(((200 - 1) | ((100 - 1) << 14)) >>> 0, 21);
    expect(readLogoHeader(lossless)).toEqual({ contentType: 'image/webp', width: 200, height: 100 });
    const extended = riff('VP8X', []);
    extended.writeUIntLE(1023, 24, 3);
    extended.writeUIntLE(511, 27, 3);
    expect(readLogoHeader(extended)).toEqual({ contentType: 'image/webp', width: 1024, height: 512 });
  });

  it('takes nothing else, and nothing cut off before the size', () => {
    for (const b of [
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
      Buffer.from('GIF89a\x10\x00\x10\x00', 'latin1'),
      Buffer.from('BM'),
      Buffer.alloc(0),
    ])
      expect(sniffLogoType(b)).toBeNull();
    expect(readLogoHeader(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBeNull();
    expect(readLogoHeader(Buffer.from([0xff, 0xd8, 0xff, 0xc0, 0x00]))).toBeNull();
    expect(readLogoHeader(riff('ALPH', []))).toBeNull();
  });
});
