import { basicCredentialsMatch } from './basic-credentials';

const expected = { user: 'runtimeUser', password: 'zb!XztG34' };

function basic(text: string): string {
  return `Basic ${Buffer.from(text, 'utf8').toString('base64')}`;
}

describe(basicCredentialsMatch.name, () => {
  it('accepts the right user and password, whatever the case of the scheme', () => {
    expect(basicCredentialsMatch(basic('runtimeUser:zb!XztG34'), expected)).toBe(true);
    expect(basicCredentialsMatch(basic('runtimeUser:zb!XztG34').replace('Basic', 'bAsIc'), expected)).toBe(true);
  });

  it('accepts a password that itself contains a colon', () => {
    expect(basicCredentialsMatch(basic('u:p:q'), { user: 'u', password: 'p:q' })).toBe(true);
  });

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['another scheme', `Bearer ${Buffer.from('runtimeUser:zb!XztG34').toString('base64')}`],
    ['the wrong password', basic('runtimeUser:wrong')],
    ['the wrong user', basic('someone:zb!XztG34')],
    ['a longer password with the right prefix', basic('runtimeUser:zb!XztG34x')],
    ['no colon', basic('runtimeUserzb!XztG34')],
    ['an empty user', basic(':zb!XztG34')],
    ['junk after the token', `${basic('runtimeUser:zb!XztG34')} junk`],
    ['a second token', `${basic('runtimeUser:zb!XztG34')} ${basic('runtimeUser:zb!XztG34').slice(6)}`],
    ['junk before the scheme', `x ${basic('runtimeUser:zb!XztG34')}`],
    ['characters outside base64', `${basic('runtimeUser:zb!XztG34')}!`],
  ])('refuses %s', (_label, header) => {
    expect(basicCredentialsMatch(header, expected)).toBe(false);
  });
});
