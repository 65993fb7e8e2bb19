import { hashPassword, parsePasswordHash, verifyPassword } from './password-hash';

const CHEAP = { logN: 14, r: 8, p: 1 };

describe('scrypt password hashes', () => {
  it('verifies the password it was made from and no other', async () => {
    const text = await hashPassword('s3cret!', CHEAP);
    expect(text).toMatch(/^\$scrypt\$ln=14,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    const hash = parsePasswordHash(text);
    if (typeof hash === 'string') {
      throw new Error(hash);
    }
    expect(await verifyPassword('s3cret!', hash)).toBe(true);
    expect(await verifyPassword('s3cret', hash)).toBe(false);
    expect(await hashPassword('s3cret!', CHEAP)).not.toBe(text);
  });

  it('makes ln=15, r=8, p=1 hashes by default', async () => {
    expect(await hashPassword('x')).toMatch(/^\$scrypt\$ln=15,r=8,p=1\$/);
  });

  it.each([
    ['plain text', 'the hash must be $scrypt$'],
    ['$scrypt$ln=10,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$' + 'A'.repeat(43), 'scrypt cost out of range'],
    ['$scrypt$ln=14,r=8,p=1$AAAA$' + 'A'.repeat(43), 'the salt must be 16 to 64 bytes'],
    ['$bcrypt$ln=14,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$' + 'A'.repeat(43), 'the hash must be $scrypt$'],
  ])('refuses %s', (text, rule) => {
    expect(parsePasswordHash(text)).toEqual(expect.stringContaining(rule));
  });
});
